"""The ``snapshot`` record: each tool's text in ``snapshot.json``, from one build to the next.

A build writes ``snapshot.json`` as ``json.dumps(indent=2)`` would (:meth:`Snapshot.json_pieces`),
and Python's indenting encoder is pure Python: at 5,000 tools those 27 MB cost about 1 s, most of a
one-tool rebuild. The record holds the text every tool had in the last build as one blob each,
named in its header by the tool's :func:`~generator.snapshot.snapshot.raw_digest` (the sha256 of its
compact JSON in its own key order, which the C encoder writes in a quarter of the time). Equal
names mean equal text, so a tool that did not change is copied, not written again.

There is one such record per cache directory (:data:`NAME`). A build writes a new one, as the text
is made, when its tools are not exactly the record's.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import BinaryIO

from generator.cache.record import MAGIC, Blob, Record, RecordWriter, read_record
from generator.config.files import open_regular

KIND = "snapshot"
NAME = hashlib.sha256(MAGIC + KIND.encode()).hexdigest() + ".snapshot"
"""The record's file name in the cache directory (the cache removes only files named like its own)."""


class SnapshotTexts:
    """The last build's record, read a text at a time, and this build's, written as the texts are given.

    Used as :class:`~generator.snapshot.snapshot.TextStore` while ``snapshot.json`` is written; then
    :meth:`close` keeps the record as it is (every tool found, none missing or left over) or puts the
    new one in *pending*.
    """

    def __init__(self, root: Path, pending: Path) -> None:
        self._old: Record | None = read_record(root / NAME, KIND, KIND)
        self._names: dict[str, Blob] = {}
        self._handle: BinaryIO | None = None
        if self._old is not None:
            names = self._old.header.get("names")
            if isinstance(names, list) and len(names) == len(self._old.blobs):
                self._names = dict(zip(map(str, names), self._old.blobs, strict=True))
                self._handle = _open(self._old.path)
        self._new = RecordWriter(pending / NAME)
        self._added: list[str] = []
        self._found = 0
        self._last: tuple[bytes, bytes, str] | None = None

    def text(self, key: bytes) -> bytes | None:
        """The text recorded for *key*, when it is there and matches its sha256."""
        blob = self._names.get(key.hex())
        if blob is None or self._old is None or self._handle is None:
            return None
        data = self._old.read(blob, self._handle)
        if data is not None:
            self._found += 1
            self._last = (key, data, blob.sha256)  # add() is given it next: its sha256 is known
        return data

    def add(self, key: bytes, piece: bytes) -> None:
        """Write *piece* into the new record (streamed: 27 MB at 5,000 tools)."""
        last = self._last
        self._new.add(piece, last[2] if last is not None and last[0] == key and last[1] is piece else None)
        self._added.append(key.hex())

    def close(self) -> bool:
        """Finish: True when the record on disk holds exactly this build's tools (the new one is dropped),
        False when the new one was written, or could not be (the old one then stays: it costs only time)."""
        if self._handle is not None:
            self._handle.close()
        if self._found == len(self._added) == len(self._names):
            self._new.drop()
            return True
        self._new.finish(KIND, KIND, {"names": self._added})
        return False


def _open(path: Path) -> BinaryIO | None:
    """*path* open for reading (kept open while ``snapshot.json`` is written), or None."""
    try:
        return open_regular(path, follow=False)
    except OSError:
        return None
