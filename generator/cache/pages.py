"""A build's pages, a group at a time (a documented thing's pages in every locale): written from the
cache's ``pages`` record for the group's key when it names exactly those pages and each blob checks out
(a hard link where the previous site holds the same bytes), else rendered by the site stage's pure render
function and recorded. A record that fails a check costs a rendering, never a byte.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from generator.cache.reuse import Reuse
from generator.cache.store import Record
from generator.model.pages import Page
from generator.render.rendered import RenderedGroup


@dataclass(frozen=True)
class Written:
    """One group as written: each twin's copy for ``llms-full.txt`` in page order, and what the group's
    :class:`RenderedGroup` says besides its pages."""

    copies: tuple[bytes, ...]
    warnings: tuple[str, ...]
    notes: tuple[str, ...]
    parameters: tuple[str, ...]


class Site(Protocol):
    """Where a build writes its pages (:class:`generator.publish.staging.Staging`)."""

    hashes: dict[str, str]

    def write(self, path: str, data: bytes) -> None: ...

    def write_known(self, path: str, digest: str, load: Callable[[], bytes | None]) -> bool: ...


class Pages:
    """One build's pages: *keys* gives each group's cache key (None: never cached), *render* renders a group.
    Made before the workers fork, so they inherit the records found."""

    def __init__(self, reuse: Reuse | None, keys: Sequence[str | None], render: Callable[[int], RenderedGroup]) -> None:
        self.reuse, self.keys, self.render = reuse, keys, render
        self.records = reuse.store.all("pages") if reuse is not None else {}
        if reuse is not None:  # every group's record is found or written: the cache keeps them all
            reuse.used.update(key for key in keys if key is not None)

    def write(self, site: Site, group: int, pages: Sequence[Page]) -> Written:
        """Write *group*'s *pages* into *site*, from the cache's record when it has a sound one."""
        key = self.keys[group]
        record = self.records.get(key) if key is not None else None
        said = _said(record.header, pages) if record is not None and len(record.blobs) == 3 * len(pages) else None
        if record is not None and said is not None and (copies := self._recorded(site, record, pages)) is not None:
            return Written(copies, *said)
        rendered = self.render(group)
        if self.reuse is not None and key is not None:
            blobs = [page.full.encode("utf-8") for page in rendered.pages]
            for page in rendered.pages:
                blobs += [page.html.encode("utf-8"), page.md.encode("utf-8")]
            header = {"pages": [[p.html_path, p.md_path] for p in rendered.pages], "warnings": rendered.warnings,
                      "notes": rendered.notes, "parameters": rendered.parameters}  # fmt: skip
            self.reuse.store.put("pages", key, header, blobs)
        for page in rendered.pages:
            for path, text in ((page.html_path, page.html), (page.md_path, page.md)):
                if path not in site.hashes:  # a damaged record may have written some (the same bytes)
                    site.write(path, text.encode("utf-8"))
        copies = tuple(page.full.encode("utf-8") for page in rendered.pages)
        return Written(copies, rendered.warnings, rendered.notes, rendered.parameters)

    def _recorded(self, site: Site, record: Record, pages: Sequence[Page]) -> tuple[bytes, ...] | None:
        """Write a ``pages`` record's pages and give their copies (its blobs: the copies, then each page's HTML
        and twin); None when a blob it read failed its hash, so the pages must be rendered after all."""
        assert self.reuse is not None
        store, count, copies = self.reuse.store, len(pages), []
        for n, page in enumerate(pages):
            for path, i in ((page.html_path, count + 2 * n), (page.md_path, count + 2 * n + 1)):
                if not site.write_known(path, record.blobs[i], functools.partial(store.blob, record.id, i)):
                    return None
            copy = store.blob(record.id, n)
            if copy is None:
                return None
            copies.append(copy)
        return tuple(copies)


def _said(header: Any, pages: Sequence[Page]) -> tuple[tuple[str, ...], ...] | None:
    """A ``pages`` record's warnings, notes and parameter names, when its header names exactly *pages*."""
    try:
        if header["pages"] != [[page.html_path, page.md_path] for page in pages]:
            return None
        said = (tuple(header["warnings"]), tuple(header["notes"]), tuple(header["parameters"]))
    except (KeyError, TypeError):
        return None
    return said if all(isinstance(s, str) for part in said for s in part) else None
