"""The ``.rows`` record of the render cache: the rows of the site-wide lists, read a list at a time.

At 5,000 tools the record holds 65,000 rows (15 MB). Held whole, it would add 30 MB to every
process of a rebuild, so it is never held whole:

- :func:`read_rows` checks the whole file's sha256 but parses only each list's name and size: a
  :class:`KeptRows` then parses one list when it is asked for, and does not keep it. Each list is
  used by one page (the index of one locale, one ``llms.txt``), in the process rendering that page.
- :func:`record_lines` writes the new record a list at a time: the kept rows a build used, the part
  files in which each render worker put the rows it made (copied line by line, so no worker sends
  its rows to the parent), then the rows this process made. A list whose unused rows are few (at
  most one in :data:`STALE_SHARE`) is copied as its lines stand, unused rows and all; one with more
  is parsed and written again without them. After a one-tool change, every list keeps all rows but
  that tool's old one, so the record is copied, not parsed and encoded again (0.6 s at 5,000 tools).

The file: a magic line, the site key, then for each list (one may come in several pieces) a line
``[where, number of rows]`` and a line ``{key: [links, row]}``, and last the sha256 of every byte
after the magic line. A list whose bytes no longer match what was checked is a miss: its rows are
written again, never taken from a damaged record.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from generator.cache.keys import FORMAT
from generator.render.listings import Rows

MAGIC = f"mcp-portal kept rows {FORMAT}\n".encode()
Span = tuple[int, int, str, int]
"""Where a list's rows line is in the file: offset, size, its sha256, and the number of rows it holds."""
STALE_SHARE = 8
"""A list is copied whole while at most one of this many of its rows went unused (see the module docstring).

An unused row costs only its bytes: its key is the hash of all that went into it, so it is used
again only for the very same input. The share bounds what the record carries that way."""


class KeptRows(Mapping[str, Mapping[str, tuple[int, str]]]):
    """The lists of a checked ``.rows`` record, each parsed when asked for (an empty list if it changed since)."""

    def __init__(self, path: Path, spans: dict[str, list[Span]], counts: dict[str, int]) -> None:
        self._path = path
        self._spans = spans
        self.counts = counts
        """List -> how many rows the record holds for it."""

    def __getitem__(self, where: str) -> dict[str, tuple[int, str]]:
        spans = self._spans[where]
        rows: dict[str, tuple[int, str]] = {}
        try:
            with open(self._path, "rb") as handle:
                for offset, size, digest, _ in spans:
                    handle.seek(offset)
                    data = handle.read(size)
                    if hashlib.sha256(data).hexdigest() != digest:
                        return {}
                    found = {key: (row[0], row[1]) for key, row in json.loads(data).items()}
                    if not all(type(n) is int and isinstance(text, str) for n, text in found.values()):
                        return {}
                    rows.update(found)
        except (OSError, ValueError, AttributeError, TypeError, KeyError, IndexError):
            return {}
        return rows

    def pieces(self, where: str) -> list[bytes] | None:
        """The list's pieces as the record holds them (each a head line and a rows line), checked
        against their hashes again; None when one fails (the record changed since it was read)."""
        pieces = []
        try:
            with open(self._path, "rb") as handle:
                for offset, size, digest, count in self._spans[where]:
                    handle.seek(offset)
                    data = handle.read(size)
                    if hashlib.sha256(data).hexdigest() != digest:
                        return None
                    pieces.append(_head(where, count) + data)
        except OSError:
            return None
        return pieces

    def __iter__(self) -> Iterator[str]:
        return iter(self._spans)

    def __len__(self) -> int:
        return len(self._spans)


def read_rows(path: Path, site: str) -> KeptRows | None:
    """The record at *path* for the site *site*, checked whole; None when it cannot be read or does not check out."""
    spans: dict[str, list[Span]] = {}
    counts: dict[str, int] = {}
    whole = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            if handle.readline() != MAGIC or handle.readline() != f"{site}\n".encode():
                return None
            whole.update(f"{site}\n".encode())
            at = handle.tell()
            while True:
                head = handle.readline()
                if not head.startswith(b"["):  # the last line: the sha256 of every byte before it
                    ok = head == whole.hexdigest().encode() and not handle.read(1)
                    return KeptRows(path, spans, counts) if ok else None
                where, count = json.loads(head)
                body = handle.readline()
                if not isinstance(where, str) or type(count) is not int or not body.endswith(b"\n"):
                    return None
                whole.update(head + body)
                start = at + len(head)
                spans.setdefault(where, []).append((start, len(body), hashlib.sha256(body).hexdigest(), count))
                counts[where] = counts.get(where, 0) + count
                at = start + len(body)
    except (OSError, ValueError, TypeError):
        return None


def _head(where: str, count: int) -> bytes:
    """The head line of a piece of the list *where* holding *count* rows."""
    return (json.dumps([where, count], ensure_ascii=False) + "\n").encode("utf-8")


def rows_lines(where: str, rows: Mapping[str, tuple[int, str]]) -> bytes:
    """One piece of the list *where*: its head line and its rows line."""
    return _head(where, len(rows)) + (json.dumps(rows, ensure_ascii=False) + "\n").encode("utf-8")


def _few_unused(known: KeptRows, where: str, used: int) -> bool:
    """Whether at most one in :data:`STALE_SHARE` of the rows *known* holds for *where* went unused."""
    total = known.counts[where]
    return (total - used) * STALE_SHARE <= total


def record_lines(
    site: str,
    known: Mapping[str, Mapping[str, tuple[int, str]]],
    hits: Mapping[str, set[str]],
    parts: Iterable[Path],
    made: Rows,
) -> Iterator[bytes]:
    """The new record after its magic line: the kept rows used, the part files' lines, this process's rows."""
    whole = hashlib.sha256()

    def kept() -> Iterator[bytes]:
        for where in sorted(hits):
            few = isinstance(known, KeptRows) and where in known and _few_unused(known, where, len(hits[where]))
            whole = known.pieces(where) if few and isinstance(known, KeptRows) else None
            if whole is not None:
                yield from whole
                continue
            rows = known.get(where, {})  # parsed for this line, then dropped
            yield rows_lines(where, {key: rows[key] for key in sorted(hits[where]) if key in rows})

    spilled = (line for part in parts for line in _lines_of(part))
    mine = (rows_lines(where, made[where]) for where in sorted(made))
    for line in itertools.chain([f"{site}\n".encode()], kept(), spilled, mine):
        whole.update(line)
        yield line
    yield whole.hexdigest().encode()


def unchanged(known: KeptRows | None, hits: Mapping[str, set[str]]) -> bool:
    """Whether the record *known* would be written again as it is, with no more unused rows than a list
    may carry (when the build made none): then it stays."""
    if known is None:
        return not hits
    return hits.keys() == known.keys() and all(_few_unused(known, where, len(hits[where])) for where in known)


def _lines_of(path: Path) -> Iterator[bytes]:
    """The lines of a part file, one at a time (none when it cannot be read: those rows are made again)."""
    with contextlib.suppress(OSError), open(path, "rb") as handle:
        yield from handle
