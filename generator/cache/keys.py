"""What a site's pages (:func:`site_key`), and each documented thing's (:func:`page_key`), are made from.

Files are hashed as the loaders find them, through symbolic links. The installed mcp-portal code and the
versions of the libraries that shape output are part of every key (:func:`code_digest`), so an upgrade
that changes output never reuses the old output.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import platform
from collections.abc import Callable, Iterable
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
"""Settings that change where or how fast a site is built, or what an older version keeps, never what its
pages say (the server shows only through the snapshot, which is hashed; its settings may hold secrets)."""
LIBRARIES = ("Jinja2", "MarkupSafe", "markdown-it-py", "Pygments", "Babel", "pagefind", "pagefind-bin",
             "pagefind-bin-extended")  # fmt: skip
"""The installed distributions whose version shapes the site's bytes (templates, escaping, Markdown,
highlighting, plurals and dates, the search index)."""
_PACKAGE = Path(__file__).resolve().parent.parent  # the installed generator package


def theme_digest(template_dir: Path | None) -> str:
    """The hash of every file of the theme directory *template_dir*, symlinks followed ("" for none)."""
    if template_dir is None:
        return ""
    digest = hashlib.sha256()
    _tree(digest, template_dir, "theme", follow=True)
    return digest.hexdigest()


def _tree(digest: Any, root: Path | None, label: str, follow: bool = False, max_bytes: int | None = None) -> None:
    """Feed *root* (a file or a directory) into *digest*: each file's relative path and its content's sha256,
    in a stable order; with *follow*, through links to directories too, as a template loader goes. A directory
    reached again through a link, or a link that leads nowhere, is hashed as where it points (what a loader
    sees). A file larger than *max_bytes* is not read (the build refuses it unread)."""
    digest.update(f"\0{label}\0".encode())
    if root is None or not root.exists():
        return
    if not root.is_dir():
        large = max_bytes is not None and root.stat().st_size > max_bytes
        digest.update(b"\0too large\0" if large else b"\0" + hashlib.sha256(root.read_bytes()).digest())
        return
    seen: set[tuple[int, int]] = set()
    for top, directories, names in os.walk(root, followlinks=follow):
        relative = os.path.relpath(top, root) + "/"
        try:
            info = os.stat(top)
        except OSError:  # gone since it was listed
            continue
        if (info.st_dev, info.st_ino) in seen:
            directories.clear()
            digest.update(f"{relative}\0{os.path.realpath(top)}\0".encode())
            continue
        seen.add((info.st_dev, info.st_ino))
        directories[:] = sorted(d for d in directories if d != "__pycache__")  # byte code: Python's, not ours
        for name in sorted(names):
            path = os.path.join(top, name)
            if os.path.isfile(path):
                digest.update(os.path.normpath(relative + name).encode() + b"\0")
                digest.update(hashlib.sha256(Path(path).read_bytes()).digest())
            elif not os.path.exists(path):
                digest.update(f"{os.path.normpath(relative + name)}\0{os.path.realpath(path)}\0".encode())


@functools.cache
def code_digest() -> str:
    """A hash of the installed ``generator`` package's files, Python's version and each of :data:`LIBRARIES`'
    versions; once per process, whose code cannot change."""
    digest = hashlib.sha256(f"python {platform.python_implementation()} {platform.python_version()}".encode())
    for name in LIBRARIES:
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            version = "-"
        digest.update(f"\0{name} {version}".encode())
    _tree(digest, _PACKAGE, "code", follow=True)
    return digest.hexdigest()


_CONNECTION_LIMITS = frozenset(
    {"request_timeout", "total_timeout", "prove_timeout", "max_reply_bytes", "max_render_seconds", "max_snapshot_bytes"}
)
"""Limits on how long or how much reading the server, a snapshot and rendering may take, never what a page says."""


def site_key(snapshot: Snapshot, config: PortalConfig, code: str | None = None) -> str:
    """The hash of everything every page is made from; *code* stands for :func:`code_digest`."""
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
    """The key of *doc*'s pages: the site key and the :func:`raw_digest` of its JSON and of the docs its page
    summarises (in the server's key order, which pages show); *known* gives one the snapshot already has."""
    digest = hashlib.sha256(site.encode())
    for part in (doc, *linked):
        digest.update(f"\0{part.kind}\0{part.slug}\0".encode())
        digest.update((known(part.raw) if known else None) or raw_digest(part.raw))
    return digest.hexdigest()
