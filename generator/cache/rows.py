"""The ``rows`` record: the rows of the site-wide lists, read a list at a time.

At 5,000 tools the record holds 65,000 rows (15 MB). Held whole, it would add 30 MB to every
process of a rebuild, so it is never held whole:

- :func:`read_rows` checks the record's header only: a :class:`ListRows` then reads and parses one
  list when it is asked for, and does not keep it. Each list is used by one page (the index of
  one locale, one ``llms.txt``), in the process rendering that page.
- :func:`write_rows` writes the new record a list at a time: the last build's rows this build
  used, the records in which each render worker put the rows it made (:func:`write_rows_part`,
  so no worker sends its rows to the parent), then the rows this process made. A list whose
  unused rows are few (at most one in :data:`STALE_SHARE`) is copied as its blobs stand, unused
  rows and all; one with more is parsed and written again without them. After a one-tool change,
  every list keeps all rows but that tool's old one, so the record is copied, not parsed again.

Each blob is one piece of one list (a list may come in several), a JSON object
``{key: [links, row]}``; the header's ``lists`` gives each blob's list and number of rows.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from generator.cache.record import Blob, Record, RecordWriter, read_record
from generator.render.listings import Rows

KIND = "rows"
STALE_SHARE = 8
"""A list is copied whole while at most one of this many of its rows went unused (see the module docstring).

An unused row costs only its bytes: its key is the hash of all that went into it, so it is used
again only for the very same input. The share bounds what the record carries that way."""


class ListRows(Mapping[str, Mapping[str, tuple[int, str]]]):
    """The lists of a ``rows`` record whose header checked out, each read and parsed when asked for
    (an empty list when its blobs no longer check out)."""

    def __init__(self, record: Record, lists: dict[str, list[tuple[Blob, int]]]) -> None:
        self._record = record
        self._lists = lists
        self.counts = {where: sum(count for _, count in blobs) for where, blobs in lists.items()}
        """List -> how many rows the record holds for it."""

    def __getitem__(self, where: str) -> dict[str, tuple[int, str]]:
        rows: dict[str, tuple[int, str]] = {}
        blobs = self._read(where)
        for data, _ in blobs or []:
            try:
                found = {key: (row[0], row[1]) for key, row in json.loads(data).items()}
            except (ValueError, AttributeError, TypeError, KeyError, IndexError):
                return {}
            if not all(type(n) is int and isinstance(text, str) for n, text in found.values()):
                return {}
            rows.update(found)
        return rows if blobs is not None else {}

    def blobs(self, where: str) -> list[tuple[bytes, int]] | None:
        """The list's blobs as the record holds them (checked), each with its number of rows, to be copied
        into the next record as they stand; None when one fails."""
        return self._read(where)

    def _read(self, where: str) -> list[tuple[bytes, int]] | None:
        blobs = []
        try:
            with self._record.reading() as handle:
                for blob, count in self._lists[where]:
                    data = self._record.read(blob, handle)
                    if data is None:
                        return None
                    blobs.append((data, count))
        except OSError:
            return None
        return blobs

    def __iter__(self) -> Iterator[str]:
        return iter(self._lists)

    def __len__(self) -> int:
        return len(self._lists)


def read_rows(path: Path, site: str) -> ListRows | None:
    """The record at *path* for the site *site*; None when it cannot be read or does not check out."""
    record = read_record(path, KIND, site)
    lists: dict[str, list[tuple[Blob, int]]] = {}
    heads: Any = record.header.get("lists") if record is not None else None
    if record is None or not isinstance(heads, list) or len(heads) != len(record.blobs):
        return None
    for head, blob in zip(heads, record.blobs, strict=True):
        if not (isinstance(head, list) and len(head) == 2 and isinstance(head[0], str) and type(head[1]) is int):
            return None
        lists.setdefault(head[0], []).append((blob, head[1]))
    return ListRows(record, lists)


class _Writer:
    """A ``rows`` record being written: each blob with its list and count."""

    def __init__(self, target: Path) -> None:
        self.record = RecordWriter(target)
        self.lists: list[list[object]] = []

    def add(self, where: str, rows: Mapping[str, Any] | bytes, count: int = 0) -> None:
        """Add a piece of *where*: its rows, or the blob that holds *count* of them."""
        if not isinstance(rows, bytes):
            rows, count = json.dumps(rows, ensure_ascii=False).encode("utf-8"), len(rows)
        self.record.add(rows)
        self.lists.append([where, count])

    def finish(self, site: str) -> None:
        self.record.finish(KIND, site, {"lists": self.lists})


def write_rows_part(target: Path, site: str, made: Rows) -> None:
    """Write the rows a render worker *made* as a record of their own, which :func:`write_rows` copies."""
    writer = _Writer(target)
    for where in sorted(made):
        writer.add(where, made[where])
    writer.finish(site)


def _few_unused(known: ListRows, where: str, used: int) -> bool:
    """Whether at most one in :data:`STALE_SHARE` of the rows *known* holds for *where* went unused."""
    total = known.counts[where]
    return (total - used) * STALE_SHARE <= total


def write_rows(
    target: Path, site: str, known: Mapping[str, Mapping[str, tuple[int, str]]], hits: Mapping[str, set[str]],
    parts: Iterable[Path], made: Rows,
) -> None:  # fmt: skip
    """Write the new record: the *known* rows used (*hits*), the workers' *parts*, this process's rows."""
    writer = _Writer(target)
    for where in sorted(hits):
        few = isinstance(known, ListRows) and where in known and _few_unused(known, where, len(hits[where]))
        whole = known.blobs(where) if few and isinstance(known, ListRows) else None
        if whole is not None:
            for data, count in whole:
                writer.add(where, data, count)
            continue
        rows = known.get(where, {})  # parsed for this list, then dropped
        writer.add(where, {key: rows[key] for key in sorted(hits[where]) if key in rows})
    for part in parts:
        worker = read_rows(part, site)  # a part that cannot be read: its rows are made again next time
        for where in worker or ():
            for data, count in (worker._read(where) if worker is not None else None) or []:
                writer.add(where, data, count)
    for where in sorted(made):
        writer.add(where, made[where])
    writer.finish(site)


def unchanged(known: ListRows | None, hits: Mapping[str, set[str]]) -> bool:
    """Whether the record *known* would be written again as it is, with no more unused rows than a list
    may carry (when the build made none): then it stays."""
    if known is None:
        return not hits
    return hits.keys() == known.keys() and all(_few_unused(known, where, len(hits[where])) for where in known)
