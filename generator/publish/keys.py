"""The render cache's keys: what a site's pages, and each documented thing's, are made from.

See :mod:`generator.publish.cache` for what each key covers and how entries are kept.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from generator import __version__
from generator.config.portal import PortalConfig
from generator.model.product import Doc
from generator.resources import data_dir
from generator.snapshot.snapshot import Snapshot, raw_digest

FORMAT = 5
"""Bumped when an entry's layout or what a key covers changes: older entries then never match
(4: keys hash JSON in the server's key order, and the ``.pieces`` record; 5: the rows of the site-wide
lists are kept made visible)."""
_IGNORED_CONFIG = ("out", "jobs", "source", "cache", "use_cache", "server", "endpoints")
"""Settings that change where or how fast a site is built, never what its pages say. (How to
reach the server shows on pages only through the snapshot, which is hashed; the connection
settings may hold secrets, so they stay out of the key altogether.)"""


def _tree(digest: Any, root: Path | None, label: str) -> None:
    """Feed every file under *root* (a file or a directory) into *digest*, by relative path."""
    digest.update(f"\0{label}\0".encode())
    if root is None or not root.exists():
        return
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
    for file in files:
        digest.update(file.relative_to(root).as_posix().encode() + b"\0" if file != root else b"\0")
        digest.update(hashlib.sha256(file.read_bytes()).digest())


def _none(_: object) -> None:
    return None


def site_key(snapshot: Snapshot, config: PortalConfig) -> str:
    """The hash of everything every page is made from (see the module docstring)."""
    digest = hashlib.sha256(f"mcp-portal {__version__} cache {FORMAT}".encode())
    theme = Path(config.template_dir) if config.template_dir else None
    _tree(digest, data_dir("templates"), "templates")
    _tree(digest, data_dir("locales"), "locales")
    _tree(digest, theme, "theme")
    settings = {k: v for k, v in dataclasses.asdict(config).items() if k not in _IGNORED_CONFIG}
    settings["limits"] = {k: v for k, v in settings["limits"].items() if k != "max_render_seconds"}
    digest.update(raw_digest(settings))  # a mapping in the configuration may be shown in its order
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
    digest.update(raw_digest(data))  # in the order the keys came: pages show some in that order
    return digest.hexdigest()


def page_key(site: str, doc: Doc, linked: Iterable[Doc], known: Callable[[object], bytes | None] = _none) -> str:
    """The key of *doc*'s pages: the site key, and the :func:`raw_digest` of its own JSON and of the docs
    its page summarises (keys in the server's order: a page shows a schema's properties in that order).
    *known* gives a raw tool's when the snapshot already has it (:meth:`Snapshot.tool_key`).
    """
    digest = hashlib.sha256(site.encode())
    for part in (doc, *linked):
        digest.update(f"\0{part.kind}\0{part.slug}\0".encode())
        digest.update(known(part.raw) or raw_digest(part.raw))
    return digest.hexdigest()
