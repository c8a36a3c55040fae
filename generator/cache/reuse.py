"""What a build takes from the last build, behind one object made by the command: :class:`Reuse`.

A rebuild after one tool changed should cost that tool, not the site. Everything reused is a record of the
cache's one file (:mod:`generator.cache.store`), named by its kind and a key: ``pages`` by a documented
thing's page key (:mod:`generator.cache.pages`), ``search`` by the hash of the indexed pages (the index's
files), and ``published`` (:class:`Published`). Whatever shapes output is part of every key
(:mod:`generator.cache.keys`), so a change means a record is not found; anything read is checked against its
hash. A published build removes every record it did not use: the cache holds one site's worth.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path

from generator.cache.keys import theme_digest
from generator.cache.store import NAME, Store
from generator.cache.trust import make_private, not_used
from generator.render.renderer import Renderer
from generator.snapshot.remembered import ToolMemory

PUBLISHED = "published"


class ThemeRenderer:
    """One renderer, its templates compiled once, for a process's builds while the theme stays the same."""

    def __init__(self) -> None:
        self._theme: str | None = None
        self._renderer: Renderer | None = None

    def for_theme(self, template_dir: Path | None) -> Renderer:
        """The renderer for *template_dir*, made afresh when a file of the theme changed."""
        theme = theme_digest(template_dir)
        if self._renderer is None or theme != self._theme:
            self._renderer, self._theme = Renderer(template_dir), theme
        return self._renderer


@dataclass
class Warm:
    """What ``build --watch`` keeps from one build to the next: the tools of the snapshot file it read, and its
    renderer. Both only save time: a build given a :class:`Warm` writes the very bytes a fresh one does."""

    tools: ToolMemory = field(default_factory=ToolMemory)
    renderer: ThemeRenderer = field(default_factory=ThemeRenderer)


class Published:
    """The signatures of the site last published with the cache in *root*
    (:class:`generator.publish.signatures.Kept`): one ``published`` record, written once the site is out."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def signatures(self, site: str) -> dict[str, list[int]]:
        with contextlib.closing(Store(self.root)) as store:
            record = store.get(PUBLISHED, PUBLISHED)
        header = record.header if record is not None and isinstance(record.header, dict) else {}
        files = header.get("files") if header.get("site") == site else None
        if not isinstance(files, dict):
            return {}
        return {p: v for p, v in files.items() if isinstance(v, list) and all(type(n) is int for n in v)}

    def keep(self, site: str, files: dict[str, list[int]]) -> None:
        with contextlib.closing(Store(self.root)) as store:
            store.put(PUBLISHED, PUBLISHED, {"site": site, "files": files}, now=True)


class Reuse:
    """Everything one build may take from the last: the records of the cache directory *root* for the site
    key *site*. :meth:`commit` after the site is published; :meth:`discard` after a failure, which leaves the
    cache as it was found."""

    def __init__(self, root: Path, site: str) -> None:
        self.root, self.site = root, site
        self._created = make_private(root)  # innermost first: removed again after a failure
        self._new_file = not (root / NAME).exists()
        self.store = Store(root)
        self.used: set[str] = {PUBLISHED}
        """The keys of the records the site needs (found or written): what :meth:`commit` keeps."""

    def warnings(self) -> list[str]:
        """Why this build could not use the cache's file (the site is the same, built more slowly)."""
        if self.store.problem is None:
            return []
        path = self.store.path
        fix = f"remove {path} (and its -wal and -shm files) or give --cache a directory of your own"
        return [not_used(self.root, path, self.store.problem, fix)]

    def search_files(self, key: str) -> dict[str, str] | None:
        """The files (site path -> sha256) of the search index last built from the pages *key* names."""
        self.used.add(key)
        record = self.store.get("search", key)
        files = record.header.get("files") if record is not None and isinstance(record.header, dict) else None
        ok = isinstance(files, dict) and all(isinstance(p, str) and isinstance(h, str) for p, h in files.items())
        return files if ok else None

    def write_search_files(self, key: str, files: dict[str, str]) -> None:
        self.store.put("search", key, {"files": files})

    def commit(self) -> None:
        """Make this build's records the cache's, and remove every record it did not use."""
        self.store.commit(self.used)
        self.store.close()

    def discard(self) -> None:
        """Drop this build's records, and the cache file and directories it created, if it created them."""
        self.store.discard()
        self.store.close()
        if self._new_file:
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(OSError):
                    (self.root / (NAME + suffix)).unlink()
        for directory in self._created:
            with contextlib.suppress(OSError):
                directory.rmdir()  # only succeeds when empty (and never on a symbolic link)
