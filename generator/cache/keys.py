"""The render cache's keys: what a site's pages, and each documented thing's, are made from.

See :mod:`generator.cache.reuse` for what each key covers and how records are kept; a key covers
:data:`~generator.cache.store.FORMAT` too, so records of another format never match.

Files are found as the loaders find them: a template directory is walked through its symbolic
links (a theme whose ``html/`` is a link to a shared folder is hashed by the content found there),
and the installed mcp-portal code and the libraries that shape its output are part of every key
(:func:`code_digest`), so an upgrade that changes output never reuses the old output.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import platform
import stat
from collections.abc import Callable, Iterable, Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

from generator import __version__
from generator.cache.store import FORMAT
from generator.config.portal import PortalConfig
from generator.model.product import Doc
from generator.resources import data_dir
from generator.snapshot.snapshot import Snapshot, raw_digest

_IGNORED_CONFIG = frozenset(
    {"out", "jobs", "source", "cache", "use_cache", "server", "endpoints", "prove", "prove_tools", "full_versions"}
)
"""Settings that change where or how fast a site is built, or what an older version of a versioned site keeps,
never what its pages say. (The server shows on pages only through the snapshot, which is hashed, as is what
``prove`` found; the connection settings may hold secrets, so they stay out of the key altogether.)"""
LIBRARIES = ("Jinja2", "MarkupSafe", "markdown-it-py", "Pygments", "Babel", "pagefind", "pagefind-bin",
             "pagefind-bin-extended")  # fmt: skip
"""The installed distributions whose version shapes the site's bytes (templates, escaping, Markdown,
highlighting, plurals and dates, the search index)."""
_PACKAGE = Path(__file__).resolve().parent.parent
"""The installed ``generator`` package."""


def _files(root: Path, follow: bool) -> Iterator[tuple[str, Path | None]]:
    """Every regular file under the directory *root* (links to files followed), by relative path, in a
    stable order; with *follow*, also through symbolic links to directories, as a template loader goes (a
    link back to a directory being walked is given as ``(path/, None)`` and not entered again; a link that
    leads nowhere is ``(path, None)`` too). Without *follow*, a link to a directory is left out."""

    def walk(directory: str, prefix: str, above: frozenset[tuple[int, int]]) -> Iterator[tuple[str, Path | None]]:
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            return
        for name in names:
            path, relative = os.path.join(directory, name), prefix + name
            try:
                info = os.stat(path)
            except OSError:
                yield relative, None
                continue
            if stat.S_ISREG(info.st_mode):
                yield relative, Path(path)
            elif not stat.S_ISDIR(info.st_mode) or (not follow and os.path.islink(path)):
                continue
            elif (info.st_dev, info.st_ino) in above:
                yield relative + "/", None
            else:
                yield from walk(path, relative + "/", above | {(info.st_dev, info.st_ino)})

    top = os.stat(root)
    yield from walk(os.fspath(root), "", frozenset({(top.st_dev, top.st_ino)}))


def theme_digest(template_dir: Path | None) -> str:
    """The hash of every file of the theme directory *template_dir*, symlinks followed ("" for none)."""
    if template_dir is None:
        return ""
    digest = hashlib.sha256()
    _tree(digest, template_dir, "theme", follow=True)
    return digest.hexdigest()


def _tree(digest: Any, root: Path | None, label: str, follow: bool = False, max_bytes: int | None = None) -> None:
    """Feed every file under *root* (a file or a directory) into *digest*: its relative path and its
    content's sha256 (see :func:`_files` for *follow*). A file larger than *max_bytes* is not read: the
    build refuses it before reading it (``limits.max_snapshot_bytes``), and a key must not read it first."""
    digest.update(f"\0{label}\0".encode())
    if root is None or not root.exists():
        return
    if not root.is_dir():
        if max_bytes is not None and root.stat().st_size > max_bytes:
            digest.update(b"\0too large\0")
            return
        digest.update(b"\0" + hashlib.sha256(root.read_bytes()).digest())
        return
    for relative, file in _files(root, follow):
        digest.update(relative.encode() + b"\0")
        if file is None:  # a link that leads nowhere, or back up: where it points is what a loader sees
            digest.update(os.path.realpath(root / relative).encode() + b"\0")
        else:
            digest.update(hashlib.sha256(file.read_bytes()).digest())


@functools.cache
def code_digest() -> str:
    """A hash of the installed mcp-portal (every file of the ``generator`` package but Python's byte
    code: its modules, and in a wheel its templates and catalogs), of Python's version and of the version
    of each of :data:`LIBRARIES`; computed once per process (the code a process runs does not change)."""
    digest = hashlib.sha256(f"python {platform.python_implementation()} {platform.python_version()}".encode())
    for name in LIBRARIES:
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            version = "-"
        digest.update(f"\0{name} {version}".encode())
    for relative, file in _files(_PACKAGE, follow=True):
        if file is not None and "__pycache__" not in relative.split("/") and not relative.endswith(".pyc"):
            digest.update(f"\0{relative}\0".encode())
            digest.update(hashlib.sha256(file.read_bytes()).digest())
    return digest.hexdigest()


_CONNECTION_LIMITS = frozenset(
    {"request_timeout", "total_timeout", "prove_timeout", "max_reply_bytes", "max_render_seconds", "max_snapshot_bytes"}
)
"""Limits that bound how long or how much reading the server, a snapshot file and rendering may take, never
what a page says."""


def site_key(snapshot: Snapshot, config: PortalConfig, code: str | None = None) -> str:
    """The hash of everything every page is made from (see the module docstring); *code* stands for
    the installed code (:func:`code_digest`, its default)."""
    digest = hashlib.sha256(f"mcp-portal {__version__} cache {FORMAT}".encode())
    digest.update((code if code is not None else code_digest()).encode())
    theme = Path(config.template_dir) if config.template_dir else None
    _tree(digest, data_dir("templates"), "templates", follow=True)
    _tree(digest, data_dir("locales"), "locales", follow=True)
    _tree(digest, theme, "theme", follow=True)
    settings = {k: v for k, v in dataclasses.asdict(config).items() if k not in _IGNORED_CONFIG}
    settings["limits"] = {k: v for k, v in settings["limits"].items() if k not in _CONNECTION_LIMITS}
    digest.update(raw_digest(settings))  # a mapping in the configuration may be shown in its order
    for label, path in (
        ("overlays", config.overlays_dir),
        ("translations", config.translations_dir),
        ("openapi", config.openapi),
    ):
        _tree(digest, Path(path) if path else None, label)
    _tree(digest, Path(config.previous) if config.previous else None, "previous",
          max_bytes=config.limits.max_snapshot_bytes)  # fmt: skip
    data = snapshot.to_dict()
    data.pop("fingerprint", None)  # a hash of every tool: pages show the capability version instead
    data["tools"] = [tool.get("name") for tool in snapshot.tools]
    digest.update(raw_digest(data))  # in the order the keys came: pages show some in that order
    return digest.hexdigest()


def page_key(site: str, doc: Doc, linked: Iterable[Doc], known: Callable[[object], bytes | None] | None = None) -> str:
    """The key of *doc*'s pages: the site key, and the :func:`raw_digest` of its own JSON and of the docs
    its page summarises (keys in the server's order: a page shows a schema's properties in that order).
    *known* gives a raw tool's when the snapshot already has it (:meth:`Snapshot.tool_key`).
    """
    digest = hashlib.sha256(site.encode())
    for part in (doc, *linked):
        digest.update(f"\0{part.kind}\0{part.slug}\0".encode())
        digest.update((known(part.raw) if known else None) or raw_digest(part.raw))
    return digest.hexdigest()
