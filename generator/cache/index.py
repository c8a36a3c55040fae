"""The ``index`` record: what each cached thing's pages were when the site was last published.

A rebuild after a one-tool change finds every other tool's pages in the cache, and opening
5,000 ``pages`` records to read their headers and their ``llms-full.txt`` copies (37 KB each,
checked against their hashes) was most of such a rebuild's rendering. This record, written once
per build, holds for each cache key what its ``pages`` record's header says that the rebuild
needs: the pages' paths and sha256s, the twins' sha256s, and the warnings. It also holds where
each twin's copy sits in each locale's ``llms-full.txt``, with that file's sha256.

When the previous site still holds a page's HTML and twin with those very hashes (the publisher
checks the previous site against its manifest), the rebuild leaves them there without opening
its ``pages`` record, and copies the twin's copy from the previous ``llms-full.txt`` into the new
one when that file too is the one this record describes (:class:`PreviousCopies`). Anything else
(another site in the same cache directory, a page edited by hand, a record that does not check
out) falls back to the ``pages`` record.

The record has no blobs: its header's ``groups`` and ``copies`` are the whole of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from generator.cache.record import read_record, write_record

KIND = "index"


@dataclass(frozen=True)
class Made:
    """What one ``pages`` record's pages were: their HTML paths, and per page the sha256 of its HTML, its twin and the
    twin as ``llms-full.txt`` copies it (before the shared text is cut); and its warnings."""

    paths: tuple[str, ...]
    pages: tuple[tuple[str, str, str], ...]
    warnings: tuple[str, ...]
    notes: tuple[str, ...]


@dataclass(frozen=True)
class Copies:
    """Where each twin's copy sits in one locale's ``llms-full.txt``: the file's sha256, and twin sha256 ->
    (offset, size)."""

    sha256: str
    at: dict[str, tuple[int, int]]


@dataclass
class SiteIndex:
    """The record: cache key -> :class:`Made`, and locale -> :class:`Copies`."""

    groups: dict[str, Made] = field(default_factory=dict)
    copies: dict[str, Copies] = field(default_factory=dict)


def read_index(path: Path, site: str) -> SiteIndex | None:
    """The record at *path* for the site *site*; None when it cannot be read or does not check out."""
    record = read_record(path, KIND, site)
    try:
        if record is None:
            return None
        groups = {key: _made(value) for key, value in record.header["groups"].items()}
        copies = {code: _copies(value) for code, value in record.header["copies"].items()}
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    if not all(isinstance(key, str) for key in [*groups, *copies]):
        return None
    return SiteIndex(groups, copies)


def _strings(value: object, size: int | None = None) -> tuple[str, ...]:
    """*value* as a tuple of strings (of *size* items when given); TypeError when it is not one."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise TypeError("not a list of strings")
    if size is not None and len(value) != size:
        raise TypeError("not the right number of strings")
    return tuple(value)


def _made(value: object) -> Made:
    if not isinstance(value, list) or len(value) != 4:
        raise TypeError("not a pages record's summary")
    paths, pages, warnings, notes = value
    if not isinstance(pages, list) or len(pages) != len(paths):
        raise TypeError("not one record a page")
    three = [_strings(page, 3) for page in pages]
    return Made(_strings(paths), tuple((a, b, c) for a, b, c in three), _strings(warnings), _strings(notes))


def _copies(value: object) -> Copies:
    if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str) and isinstance(value[1], dict)):
        raise TypeError("not a locale's copies")
    at: dict[str, tuple[int, int]] = {}
    for twin, where in value[1].items():
        if not (isinstance(where, list) and len(where) == 2 and all(type(n) is int and n >= 0 for n in where)):
            raise TypeError("not an offset and a size")
        at[twin] = (where[0], where[1])
    return Copies(value[0], at)


def write_index(path: Path, site: str, index: SiteIndex) -> None:
    """Write *index* for the site *site* at *path*, as :func:`read_index` reads it."""
    groups = {
        key: [list(made.paths), [list(page) for page in made.pages], list(made.warnings), list(made.notes)]
        for key, made in sorted(index.groups.items())
    }
    copies = {
        code: [copies.sha256, {twin: list(where) for twin, where in sorted(copies.at.items())}]
        for code, copies in sorted(index.copies.items())
    }
    write_record(path, KIND, site, {"groups": groups, "copies": copies})


def layout(head: bytes, chunks: Iterable[Iterable[tuple[int, str]]]) -> tuple[dict[str, tuple[int, int]], int]:
    """Where each copy sits in an ``llms-full.txt`` written as :func:`generator.site.assemble.render_pages`
    writes it: *head* (if any), then each chunk's copies joined by newlines, all joined by newlines.

    *chunks* give each copy's (size, twin sha256). Returns twin sha256 -> (offset, size), and the
    file's size (which the caller compares with what it wrote).
    """
    at: dict[str, tuple[int, int]] = {}
    position, items = (len(head), 1) if head else (0, 0)
    for chunk in chunks:
        position += 1 if items else 0  # the newline before every item but the first
        items += 1
        for n, (size, twin) in enumerate(chunk):
            position += 1 if n else 0
            at.setdefault(twin, (position, size))
            position += size
    return at, position


class PreviousCopies:
    """Where the twins' copies sit in the previous site's ``llms-full.txt`` files, by the record.

    A locale's file is used only when the publisher found it holding what its manifest says and
    that is the sha256 the record gives (*files*: site path -> sha256 of the previous site's files
    that are intact). Nothing is read here: the parent process copies the ranges when it writes the
    new file (:meth:`generator.publish.staging.Staging.write_ranges`).
    """

    def __init__(self, previous: Path | None, files: Mapping[str, str], copies: Mapping[str, Copies]) -> None:
        self._previous = previous
        self._files = files
        self._copies = copies

    def where(self, locale: str, twin: str) -> tuple[int, int] | None:
        """(offset, size) of the copy of the twin *twin* in *locale*'s previous ``llms-full.txt``, or None."""
        copies = self._copies.get(locale)
        where = copies.at.get(twin) if copies is not None else None
        if self._previous is None or copies is None or where is None:
            return None
        if self._files.get(f"{locale}/llms-full.txt") != copies.sha256:
            return None
        return where
