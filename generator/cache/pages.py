"""A build's pages, group by group: left where the last site has them, copied from the cache, or rendered.

A documented thing's pages in every locale form a group (its examples are found once). A render worker
writes each group of its chunk through :meth:`Pages.chunk`, which decides what the last build gives:

- *in place*: the previous site holds every page and twin of the group with the hashes of its ``pages``
  record, and its ``llms-full.txt`` every twin's copy (the ``copies`` record says where): nothing is
  read or written, the copies are named by where they sit (:class:`Span`);
- *recorded*: the ``pages`` record's blobs, each checked against its hash (hard links where the previous
  site has the same bytes);
- else *rendered*, by the function the site stage gives (a pure function of the model), and recorded.

Each chunk's twin copies are appended to this process's fragment file of their locale, so neither a
worker nor the parent holds them all; :meth:`Pages.pieces` then gives each locale's ``llms-full.txt``
as bytes and ranges of the previous file, in the order :func:`layout` finds them.
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from generator.cache.reuse import Reuse
from generator.errors import PortalError
from generator.model.pages import Page


@dataclass(frozen=True)
class RenderedPage:
    """One page as rendered: its HTML, its twin, and the twin's copy for ``llms-full.txt``."""

    html_path: str
    html: str
    md_path: str
    md: str
    full: str


@dataclass(frozen=True)
class CachedGroup:
    """A documented thing's rendered pages, and what its examples (*warnings*) and schema (*notes*) warned of."""

    pages: tuple[RenderedPage, ...]
    warnings: tuple[str, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Span:
    """Where a twin's copy sits in a locale's ``llms-full.txt``."""

    offset: int
    size: int


@dataclass(frozen=True)
class Placed:
    """A twin's copy as a chunk placed it: its page, its size, the twin's sha256, and its offset in the
    previous site's ``llms-full.txt`` of the locale (None: it is in the chunk's fragment)."""

    page: int
    size: int
    twin: str
    previous: int | None


@dataclass(frozen=True)
class Fragment:
    """Where a chunk's copies of one locale are: the fragment file's name, offset and size."""

    name: str
    start: int
    size: int


class Site(Protocol):
    """Where a build writes its pages (:class:`generator.publish.staging.Staging`)."""

    previous: Path | None
    unchanged: Mapping[str, str]
    lazy: bool
    hashes: dict[str, str]
    same: set[str]

    def fresh(self) -> Site: ...

    def write(self, path: str, data: bytes) -> None: ...

    def write_known(self, path: str, digest: str, load: Callable[[], bytes | None]) -> bool: ...


@dataclass
class Chunk:
    """What a worker sends back for a chunk of groups: no page text, only where its twins' copies are."""

    chunk: int
    hashes: dict[str, str]
    same: set[str]
    """The pages left where the previous site holds them."""
    warnings: dict[int, list[str]] = field(default_factory=dict)
    """Group -> the warnings of its examples."""
    notes: dict[int, list[str]] = field(default_factory=dict)
    """Group -> the warnings of its input schema."""
    pages: int = 0
    used: set[str] = field(default_factory=set)
    hits: int = 0
    sizes: dict[str, list[Placed]] = field(default_factory=dict)
    """Locale -> each twin copy of this chunk, in order."""
    fragments: dict[str, Fragment] = field(default_factory=dict)


def without_shared(twin: bytes, shared: bytes | None) -> bytes:
    """A twin's copy for ``llms-full.txt`` without the text every twin repeats (its first occurrence and the
    blank line after it), stated once at the top of that file; unchanged when the twin does not carry it.
    Bytes, not text: a UTF-8 needle matches only where its characters begin, so this cuts what text would."""
    if not shared:
        return twin
    at = twin.find(b"\n" + shared + b"\n")
    if at < 0:
        return twin
    end = at + len(shared) + 2
    return twin[: at + 1] + twin[end + 1 if twin[end : end + 1] == b"\n" else end :]


def layout(head: bytes, chunks: Iterable[Iterable[tuple[int, str]]]) -> tuple[dict[str, Span], int]:
    """Where each copy sits in an ``llms-full.txt`` laid out as :meth:`Pages.pieces` gives it: *head* (if
    any), then each chunk's copies joined by newlines, all joined by newlines. *chunks* give each copy's
    (size, twin sha256); returns twin sha256 -> span, and the file's size."""
    at: dict[str, Span] = {}
    position, items = (len(head), 1) if head else (0, 0)
    for chunk in chunks:
        position += 1 if items else 0  # the newline before every item but the first
        items += 1
        for n, (size, twin) in enumerate(chunk):
            position += 1 if n else 0
            at.setdefault(twin, Span(position, size))
            position += size
    return at, position


def _unread() -> bytes | None:
    """The loader of a page left in the previous site: never called (a lazy site notes it as the same)."""
    return None


class Pages:
    """The pages of one build (*pages*, in *groups*, each with its cache key or None), written into *site*;
    *render* renders a group's pages; *shared* is each locale's text cut from every copy (as bytes);
    *fragments* a private directory for the copies. Made before the workers fork, so they inherit it."""

    def __init__(
        self,
        reuse: Reuse | None,
        site: Site,
        plan: tuple[Sequence[Page], Sequence[Sequence[int]], Sequence[str | None]],
        shared: Mapping[str, bytes],
        render: Callable[[Sequence[int]], CachedGroup],
        fragments: Path,
    ) -> None:
        self.reuse, self.site, self.shared, self.render, self.fragments = reuse, site, shared, render, fragments
        self.pages, self.groups, self.keys = plan
        self.records = reuse.store.all("pages") if reuse is not None else {}
        copies = reuse.copies() if reuse is not None and site.lazy and site.previous is not None else None
        self.previous: dict[str, tuple[str, dict[str, Any]]] = {}
        """Locale -> the sha256 of the previous ``llms-full.txt`` and where each twin's copy sits in it."""
        with_file = copies.header.items() if copies is not None and isinstance(copies.header, dict) else ()
        for code, (sha256, at) in with_file:
            if isinstance(at, dict) and site.unchanged.get(f"{code}/llms-full.txt") == sha256:
                self.previous[code] = (sha256, at)
        self._appending: dict[str, io.FileIO] = {}

    def chunk(self, groups: Sequence[int], n: int) -> Chunk:
        """Write the pages of some consecutive *groups* (chunk *n*), in a worker or in this process."""
        site = self.site.fresh()
        result = Chunk(n, site.hashes, site.same, sizes={code: [] for code in self.shared})
        copies: dict[str, list[bytes]] = {code: [] for code in self.shared}
        for group in groups:
            for i, (copy, twin) in zip(self.groups[group], self._group(site, group, result), strict=True):
                locale = self.pages[i].locale
                if isinstance(copy, Span):  # where the previous llms-full.txt holds it: the parent copies it
                    result.sizes[locale].append(Placed(i, copy.size, twin, copy.offset))
                else:
                    copies[locale].append(copy)
                    result.sizes[locale].append(Placed(i, len(copy), twin, None))
                result.pages += 1
        for code, parts in copies.items():
            result.fragments[code] = self._append(code, b"\n".join(parts))
        return result

    def _group(self, site: Site, group: int, result: Chunk) -> list[tuple[bytes | Span, str]]:
        """Write one group's pages; note its warnings in *result*; return each twin's copy for
        ``llms-full.txt`` (or where the previous one holds it) with the twin's sha256."""
        key, indexes = self.keys[group], self.groups[group]
        pages = [self.pages[i] for i in indexes]
        record = self.records.get(key) if key is not None else None
        whole = record is not None and len(record.blobs) == 3 * len(pages)
        said = _said(record.header, pages) if record is not None and whole else None
        if key is not None:
            result.used.add(key)
        if record is not None and said is not None:
            result.warnings[group], result.notes[group] = said
            found = self._in_place(site, record.blobs, pages) or self._recorded(site, record.id, record.blobs, pages)
            if found:
                result.hits += 1
                return found
        rendered = self.render(indexes)
        if self.reuse is not None and key is not None:
            blobs = [page.full.encode("utf-8") for page in rendered.pages]
            for page in rendered.pages:
                blobs += [page.html.encode("utf-8"), page.md.encode("utf-8")]
            paths = [[p.html_path, p.md_path] for p in rendered.pages]
            self.reuse.store.put("pages", key, {"pages": paths, "warnings": rendered.warnings,
                                                "notes": rendered.notes}, blobs)  # fmt: skip
        for page in rendered.pages:
            for path, text in ((page.html_path, page.html), (page.md_path, page.md)):
                if path not in site.hashes:  # a damaged record may have written some (the same bytes)
                    site.write(path, text.encode("utf-8"))
        result.warnings[group], result.notes[group] = list(rendered.warnings), list(rendered.notes)
        fulls = [page.full.encode("utf-8") for page in rendered.pages]
        return self._cut(pages, [(full, hashlib.sha256(full).hexdigest()) for full in fulls])

    def _cut(self, pages: Sequence[Page], fulls: Sequence[tuple[bytes, str]]) -> list[tuple[bytes | Span, str]]:
        cuts = [self.shared.get(page.locale) for page in pages]
        return [(without_shared(full, cut), twin) for (full, twin), cut in zip(fulls, cuts, strict=True)]

    def _in_place(self, site: Site, sha: Sequence[str], pages: Sequence[Page]) -> list[tuple[bytes | Span, str]]:
        """The group's pages left where the previous site has them, when it holds each page and twin with
        the hashes its record gives, and its ``llms-full.txt`` files every copy; else nothing is noted."""
        count, found = len(pages), list[tuple[bytes | Span, str]]()
        for n, page in enumerate(pages):
            where = self.previous.get(page.locale, ("", {}))[1].get(sha[n])
            if (site.unchanged.get(page.html_path), site.unchanged.get(page.md_path)) != tuple(
                sha[count + 2 * n :][:2]
            ):
                return []
            if not (isinstance(where, list) and len(where) == 2 and all(type(v) is int and v >= 0 for v in where)):
                return []
            found.append((Span(*where), sha[n]))
        for n, page in enumerate(pages):
            site.write_known(page.html_path, sha[count + 2 * n], _unread)
            site.write_known(page.md_path, sha[count + 2 * n + 1], _unread)
        return found

    def _recorded(
        self, site: Site, record: int, sha: Sequence[str], pages: Sequence[Page]
    ) -> list[tuple[bytes | Span, str]]:
        """Write a ``pages`` record's pages (hard links where the previous site has them); nothing when a blob
        it had to read failed its hash, so the pages must be rendered after all."""
        assert self.reuse is not None
        store, count, fulls = self.reuse.store, len(pages), []
        for n, page in enumerate(pages):
            for path, i in ((page.html_path, count + 2 * n), (page.md_path, count + 2 * n + 1)):
                if not site.write_known(path, sha[i], functools.partial(store.blob, record, i)):
                    return []
            full = store.blob(record, n)
            if full is None:
                return []
            fulls.append((full, sha[n]))
        return self._cut(pages, fulls)

    def _append(self, locale: str, data: bytes) -> Fragment:
        """Append one chunk's copies of *locale* to this process's fragment file of that locale (one file per
        process and locale, kept open: creating a file costs about 0.9 ms, docs/performance.md)."""
        name = f"{os.getpid()}.{locale}"
        handle = self._appending.get(name)
        if handle is None:
            handle = self._appending[name] = io.FileIO(self.fragments / name, "ab")
        start = handle.tell()
        view = memoryview(data)
        while view:
            view = view[handle.write(view) or 0 :]
        return Fragment(name, start, len(data))

    def close(self) -> None:
        """Close this process's fragment files (the workers' close as they exit)."""
        for handle in self._appending.values():
            handle.close()
        self._appending.clear()

    def _fragment(self, fragment: Fragment, opened: dict[str, int]) -> bytes:
        """A chunk's copies of one locale, read back from the fragment file they were appended to."""
        if fragment.name not in opened:
            opened[fragment.name] = os.open(self.fragments / fragment.name, os.O_RDONLY)
        data = os.pread(opened[fragment.name], fragment.size, fragment.start) if fragment.size else b""
        if len(data) != fragment.size:
            raise RuntimeError(f"a fragment of llms-full.txt ({fragment.size} bytes at {fragment.start} in "
                               f"{fragment.name}) cannot be read back")  # fmt: skip
        return data

    def pieces(self, code: str, chunks: Sequence[Chunk], head: bytes) -> Iterator[bytes | tuple[int, int]]:
        """*code*'s ``llms-full.txt`` in pieces (:func:`full_pieces`), each chunk's copies read back in turn."""
        opened: dict[str, int] = {}
        try:
            yield from full_pieces(head, ((self._fragment(c.fragments[code], opened), c.sizes[code]) for c in chunks))
        finally:
            for handle in opened.values():
                os.close(handle)

    def finish(
        self, chunks: Sequence[Chunk], files: Mapping[str, tuple[bytes, int, str]]
    ) -> tuple[list[str], list[str]]:
        """Fold what each chunk sent back into the site (and the cache's bookkeeping), and note where each copy
        sits in each locale's ``llms-full.txt`` as written (*files*: locale -> its head, size and sha256), for
        the next build's :meth:`_in_place`. Return the warnings of the tools' input schemas, then those of their
        examples, each in the site's page order."""
        warnings: dict[int, list[str]] = {}
        notes: dict[int, list[str]] = {}
        for chunk in chunks:
            if twice := sorted(self.site.hashes.keys() & chunk.hashes.keys()):  # meanwhile's, and a worker's
                raise PortalError(f"Refusing to write {twice[0]!r} twice in one build (two pages claim the same path).")
            self.site.hashes.update(chunk.hashes)
            self.site.same |= chunk.same
            warnings.update(chunk.warnings)
            notes.update(chunk.notes)
            if self.reuse is not None:
                self.reuse.used |= chunk.used
                self.reuse.hits += chunk.hits
        if self.reuse is not None:
            located = {}
            for code, (head, size, sha256) in sorted(files.items()):
                at, end = layout(head, ([(p.size, p.twin) for p in chunk.sizes[code]] for chunk in chunks))
                if end == size:
                    located[code] = [sha256, {twin: [span.offset, span.size] for twin, span in at.items()}]
            self.reuse.write_copies(lambda: located)
        return [n for g in sorted(notes) for n in notes[g]], [w for g in sorted(warnings) for w in warnings[g]]


def full_pieces(head: bytes, chunks: Iterable[tuple[bytes, Sequence[Placed]]]) -> Iterator[bytes | tuple[int, int]]:
    """An ``llms-full.txt`` in pieces, as :func:`layout` lays it out: *head*, then each chunk's copies joined by
    newlines, all joined by newlines. *chunks* give each chunk's fragment and copies: a copy rendered or
    recorded is its bytes from the fragment; a copy the previous file holds is where it sits there,
    (offset, size), for the writer to copy."""
    if head:
        yield head
    for number, (data, placed) in enumerate(chunks):
        if head or number:
            yield b"\n"
        at = 0
        for n, copy in enumerate(placed):
            if n:
                yield b"\n"
            if copy.previous is None:
                yield data[at : at + copy.size]
                at += copy.size + 1  # the "\n" between the fragment's copies
            else:
                yield copy.previous, copy.size


def _said(header: Any, pages: Sequence[Page]) -> tuple[list[str], list[str]] | None:
    """A ``pages`` record's warnings and notes, when its header names exactly *pages*; else None."""
    try:
        if header["pages"] != [[page.html_path, page.md_path] for page in pages]:
            return None
        said = [list(header["warnings"]), list(header["notes"])]
    except (KeyError, TypeError):
        return None
    return (said[0], said[1]) if all(isinstance(s, str) for part in said for s in part) else None
