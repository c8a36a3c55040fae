"""The ``.rows`` record of the render cache: the rows of the site-wide lists, read a list at a time.

At 5,000 tools the record holds 65,000 rows (15 MB). Held whole, it would add 30 MB to every
process of a rebuild, so it is never held whole:

- :func:`read_rows` checks the whole file's sha256 but parses only each list's name and size: a
  :class:`KeptRows` then parses one list when it is asked for, and does not keep it. Each list is
  used by one page (the index of one locale, one ``llms.txt``), in the process rendering that page.
- :func:`record_lines` writes the new record a list at a time: the kept rows a build used (parsed
  again from the old record, one list at a time), the part files in which each render worker put
  the rows it made (copied line by line, so no worker sends its rows to the parent), then the rows
  this process made.

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

from generator.publish.keys import FORMAT
from generator.render.listings import Rows

MAGIC = f"mcp-portal kept rows {FORMAT}\n".encode()
Span = tuple[int, int, str]
"""Where a list's rows line is in the file: offset, size and its sha256."""


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
                for offset, size, digest in spans:
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
                spans.setdefault(where, []).append((start, len(body), hashlib.sha256(body).hexdigest()))
                counts[where] = counts.get(where, 0) + count
                at = start + len(body)
    except (OSError, ValueError, TypeError):
        return None


def rows_lines(where: str, rows: Mapping[str, tuple[int, str]]) -> bytes:
    """One piece of the list *where*: its head line and its rows line."""
    head = json.dumps([where, len(rows)], ensure_ascii=False)
    return (head + "\n" + json.dumps(rows, ensure_ascii=False) + "\n").encode("utf-8")


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
            rows = known.get(where, {})  # parsed for this line, then dropped
            yield rows_lines(where, {key: rows[key] for key in sorted(hits[where]) if key in rows})

    spilled = (line for part in parts for line in _lines_of(part))
    mine = (rows_lines(where, made[where]) for where in sorted(made))
    for line in itertools.chain([f"{site}\n".encode()], kept(), spilled, mine):
        whole.update(line)
        yield line
    yield whole.hexdigest().encode()


def unchanged(known: KeptRows | None, hits: Mapping[str, set[str]]) -> bool:
    """Whether the record *known* holds exactly the rows a build used (and it made none): then it stays."""
    if known is None:
        return not hits
    return hits.keys() == known.keys() and all(len(hits[where]) == known.counts[where] for where in known)


def _lines_of(path: Path) -> Iterator[bytes]:
    """The lines of a part file, one at a time (none when it cannot be read: those rows are made again)."""
    with contextlib.suppress(OSError), open(path, "rb") as handle:
        yield from handle
