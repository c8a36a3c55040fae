"""The render cache: what a tool's (or a prompt's, a resource's) pages rendered to, by the hash of what went in.

A rebuild after one tool changed should cost that tool, not the site. Each documented thing's
pages (its HTML page, its Markdown twin and the twin's copy for ``llms-full.txt``, in every
locale) and the warnings its examples gave are kept in one entry, named by a content hash of
everything those pages are made from:

- the *site key*: the generator version; every shipped and theme template and catalog file;
  the configuration (paths, limits, locales, title, base URL...) together with the contents of
  the overlays and translations directories, the OpenAPI document and the previous snapshot;
  and the snapshot without its tools' details (the server, the endpoints with their variants,
  the prompts and resources, every tool's name, which decides the pages' file names);
- the thing's own JSON, exactly as the server sent it;
- the JSON of the tools its page links to with their summary (an overlay's related tools).

So a change to anything a page shows changes its key, and the entry is simply not found. A
changed template, catalog, configuration or generator version changes every key. Pages made
from the whole site (the tool list, llms.txt, connecting, changes, the API page, nav.js) are
always rendered again, and so is the search index.

An entry is JSON with a sha256 of its own content; one that cannot be read, does not parse, does
not match its hash or does not name the pages asked for is a miss and is written again, so a
damaged cache can cost time but never change a byte of the site. Entries are written atomically
(a temporary file, then a rename). After a successful build every entry this build did not use
is removed, so the cache holds one site's worth; files the cache did not write are never touched.
The default directory is ``.mcp-portal-cache/<name of --out>/`` beside ``--out``; ``--cache DIR``
puts the entries in DIR, and ``--no-cache`` renders everything.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import re
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator import __version__
from generator.config.portal import PortalConfig
from generator.model.product import Doc
from generator.resources import data_dir
from generator.snapshot.snapshot import Snapshot, canonical_json

FORMAT = 1
"""Bumped when an entry's layout changes: older entries then never match."""
_ENTRY = re.compile(r"[0-9a-f]{64}\.json")
"""The only file names the cache writes (and so the only ones it ever removes)."""
_IGNORED_CONFIG = ("out", "jobs", "source", "cache", "use_cache", "server", "endpoints")
"""Settings that change where or how fast a site is built, never what its pages say. (How to
reach the server shows on pages only through the snapshot, which is hashed; the connection
settings may hold secrets, so they stay out of the key altogether.)"""


@dataclass(frozen=True)
class Entry:
    """A documented thing's rendered pages: (html path, html, md path, md, llms-full copy) per page."""

    pages: tuple[tuple[str, str, str, str, str], ...]
    warnings: tuple[str, ...]


def _tree(digest: Any, root: Path | None, label: str) -> None:
    """Feed every file under *root* (a file or a directory) into *digest*, by relative path."""
    digest.update(f"\0{label}\0".encode())
    if root is None or not root.exists():
        return
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
    for file in files:
        digest.update(file.relative_to(root).as_posix().encode() + b"\0" if file != root else b"\0")
        digest.update(hashlib.sha256(file.read_bytes()).digest())


def site_key(snapshot: Snapshot, config: PortalConfig) -> str:
    """The hash of everything every page is made from (see the module docstring)."""
    digest = hashlib.sha256(f"mcp-portal {__version__} cache {FORMAT}".encode())
    theme = Path(config.template_dir) if config.template_dir else None
    _tree(digest, data_dir("templates"), "templates")
    _tree(digest, data_dir("locales"), "locales")
    _tree(digest, theme, "theme")
    settings = {k: v for k, v in dataclasses.asdict(config).items() if k not in _IGNORED_CONFIG}
    settings["limits"] = {k: v for k, v in settings["limits"].items() if k != "max_render_seconds"}
    digest.update(canonical_json(settings).encode())
    for label, path in (
        ("overlays", config.overlays_dir),
        ("translations", config.translations_dir),
        ("openapi", config.openapi),
        ("previous", config.previous),
    ):
        _tree(digest, Path(path) if path else None, label)
    data = snapshot.to_dict()
    data.pop("fingerprint", None)  # a hash of every tool: pages show the capability version instead
    data["tools"] = [tool.get("name") for tool in snapshot.tools]
    digest.update(canonical_json(data).encode())
    return digest.hexdigest()


def page_key(site: str, doc: Doc, linked: Iterable[Doc]) -> str:
    """The key of *doc*'s pages: the site key, its own JSON and that of the docs its page summarises."""
    digest = hashlib.sha256(site.encode())
    for part in (doc, *linked):
        digest.update(f"\0{part.kind}\0{part.slug}\0".encode())
        digest.update(canonical_json(part.raw).encode())
    return digest.hexdigest()


class RenderCache:
    """Entries in one directory; see the module docstring for what a key covers.

    New entries are written to a pending directory inside it and moved into place by
    :meth:`commit` once the build has published its site; :meth:`discard` drops them after a
    failure, so a failed build leaves the cache as it found it.
    """

    def __init__(self, root: Path, site: str) -> None:
        self.root = root
        self.site = site
        self.pending = root / f".pending-{os.getpid()}"
        self._created = [p for p in (root, *root.parents) if not p.exists()]
        self.used: set[str] = set()
        """The keys of the entries the site needs (set after rendering): what :meth:`commit` keeps."""
        """The directories a build would create for the cache, innermost first (removed if left empty)."""

    def _path(self, key: str) -> Path:
        return self.root / f"{key}.json"

    def get(self, key: str, html_paths: Sequence[str]) -> Entry | None:
        """The entry for *key*, if it is whole and holds exactly these pages; otherwise None."""
        try:
            data = json.loads(self._path(key).read_bytes())
            body = data["body"]
            if data["sha256"] != hashlib.sha256(canonical_json(body).encode()).hexdigest():
                return None
            if body["format"] != FORMAT or body["key"] != key:
                return None
            pages = tuple(tuple(page) for page in body["pages"])
            if [page[0] for page in pages] != list(html_paths):
                return None
            if not all(len(page) == 5 and all(isinstance(x, str) for x in page) for page in pages):
                return None
            warnings = body["warnings"]
            if not all(isinstance(w, str) for w in warnings):
                return None
            return Entry(pages, tuple(warnings))  # type: ignore[arg-type]
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, entry: Entry) -> None:
        """Keep *entry*; a cache that cannot be written only costs time, so errors are ignored."""
        body = {"format": FORMAT, "key": key, "pages": entry.pages, "warnings": entry.warnings}
        data = {"body": body, "sha256": hashlib.sha256(canonical_json(body).encode()).hexdigest()}
        target = self.pending / f"{key}.json"
        temporary = self.pending / f".{key}.{os.getpid()}.tmp"  # a worker's own pid: workers never collide
        try:
            self.pending.mkdir(parents=True, exist_ok=True)
            temporary.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
            os.replace(temporary, target)
        except OSError:
            with contextlib.suppress(OSError):
                temporary.unlink()

    def commit(self) -> None:
        """After a published build: move the new entries in, and remove every entry it did not use.

        Only files named like an entry are removed, and the pending directories of builds that
        were killed (their process is gone).
        """
        with contextlib.suppress(OSError):
            for path in sorted(self.pending.glob("*.json")):
                os.replace(path, self.root / path.name)
        shutil.rmtree(self.pending, ignore_errors=True)
        with contextlib.suppress(OSError):
            for path in self.root.iterdir():
                if _abandoned(path):
                    shutil.rmtree(path, ignore_errors=True)
                elif _ENTRY.fullmatch(path.name) and path.name[:-5] not in self.used and path.is_file():
                    path.unlink()

    def discard(self) -> None:
        """After a failed build: drop its new entries, and the cache directories it created if they are empty."""
        shutil.rmtree(self.pending, ignore_errors=True)
        for directory in self._created:
            with contextlib.suppress(OSError):
                directory.rmdir()  # only succeeds when empty


def _abandoned(path: Path) -> bool:
    """Whether *path* is the pending directory of a build whose process is gone."""
    pid = path.name.removeprefix(".pending-")
    if not path.name.startswith(".pending-") or not pid.isdigit() or not path.is_dir() or path.is_symlink():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def cache_dir(config: PortalConfig) -> Path | None:
    """Where this build keeps its entries, or None with ``--no-cache``."""
    if not config.use_cache:
        return None
    if config.cache:
        return Path(config.cache)
    out = Path(config.out)
    return out.absolute().parent / ".mcp-portal-cache" / out.absolute().name
