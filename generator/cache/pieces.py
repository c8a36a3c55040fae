"""The ``.pieces`` record of the render cache: each tool's text in ``snapshot.json``, kept between builds.

A build writes ``snapshot.json`` as ``json.dumps(indent=2)`` would (:meth:`Snapshot.json_pieces`),
and Python's indenting encoder is pure Python: at 5,000 tools those 27 MB cost about 1 s, most of a
one-tool rebuild. The record keeps the text every tool had in the last build, named by the tool's
:func:`~generator.snapshot.snapshot.raw_digest` (the sha256 of its compact JSON in its own key
order, which the C encoder writes in a quarter of the time). Equal keys mean equal text, so a
tool that did not change is copied, not written again.

The file: a magic line, the pieces one after another, a line of JSON ``[[key, start, size,
sha256], ...]`` (hex keys and digests, offsets from the end of the magic line), and last the
sha256 of that line and its length. The index is checked whole when the record is opened, and
every piece against its own sha256 when it is read; a piece that fails is written afresh, so a
damaged record can cost time but never change a byte of ``snapshot.json``. There is one record
per cache directory (:data:`NAME`). A build rewrites it when its tools are not exactly the
record's, in the pending directory like the cache's entries (:meth:`RenderCache.commit` moves
it in).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import BinaryIO

from generator.cache.keys import FORMAT

MAGIC = f"mcp-portal snapshot pieces {FORMAT}\n".encode()
NAME = hashlib.sha256(MAGIC).hexdigest() + ".pieces"
"""The record's file name in the cache directory (the cache removes only files named like its own)."""
_TAIL = 200
"""How many bytes at the end of the record surely hold its last line."""


def _index(handle: BinaryIO) -> dict[bytes, tuple[int, int, str]] | None:
    """The checked index of an open record: key -> (offset in the file, size, sha256); None if it does not check out."""
    if handle.read(len(MAGIC)) != MAGIC:
        return None
    end = handle.seek(0, os.SEEK_END)
    handle.seek(max(len(MAGIC), end - _TAIL))
    tail = handle.read()
    if not tail.endswith(b"\n"):
        return None
    digest, _, length = tail[:-1].rpartition(b"\n")[2].partition(b" ")
    size = int(length)
    start = end - len(digest) - len(length) - 2 - (size + 1)
    if size <= 0 or start < len(MAGIC):
        return None
    handle.seek(start)
    line = handle.read(size + 1)
    if not line.endswith(b"\n") or hashlib.sha256(line[:-1]).hexdigest().encode() != digest:
        return None
    index: dict[bytes, tuple[int, int, str]] = {}
    for key, at, length_, sha in json.loads(line):
        if type(at) is not int or type(length_) is not int or at < 0 or at + length_ > start - len(MAGIC):
            return None
        index[bytes.fromhex(key)] = (len(MAGIC) + at, length_, str(sha))
    return index


class KeptPieces:
    """The last build's record, read a piece at a time, and the new one, written as the pieces are given.

    Used as :class:`~generator.snapshot.snapshot.PieceStore` while ``snapshot.json`` is written; then
    :meth:`close` either keeps the record as it is (every tool found, none missing or left over) or
    finishes the new one in *pending*.
    """

    def __init__(self, root: Path, pending: Path) -> None:
        self._old: BinaryIO | None = None
        self._index: dict[bytes, tuple[int, int, str]] = {}
        with contextlib.suppress(OSError):
            handle = open(root / NAME, "rb")  # noqa: SIM115 - closed by close(), a piece at a time until then
            try:
                index = _index(handle)
            except (OSError, ValueError, TypeError):
                index = None
            if index is None:
                handle.close()
            else:
                self._old, self._index = handle, index
        self._pending = pending
        self._temporary = pending / f".{NAME}.{os.getpid()}.tmp"
        self._out: BinaryIO | None = None
        self._new: list[list[object]] = []
        self._size = 0
        self._found = 0
        self._failed = False
        self._last: tuple[bytes, bytes, str] | None = None

    def piece(self, key: bytes) -> bytes | None:
        """The text kept for *key*, when it is there and matches its sha256."""
        where = self._index.get(key)
        if where is None or self._old is None:
            return None
        start, size, sha = where
        try:
            self._old.seek(start)
            data = self._old.read(size)
        except OSError:
            return None
        if hashlib.sha256(data).hexdigest() != sha:
            return None
        self._found += 1
        self._last = (key, data, sha)  # add() is given it next: its sha256 is known
        return data

    def add(self, key: bytes, piece: bytes) -> None:
        """Write *piece* into the new record (streamed to a temporary file: 27 MB at 5,000 tools)."""
        if self._failed:
            return
        try:
            if self._out is None:
                self._pending.mkdir(mode=0o700, exist_ok=True)  # in the cache directory, made at its opening
                self._out = open(self._temporary, "wb")  # noqa: SIM115 - closed by close()
                self._out.write(MAGIC)
            self._out.write(piece)
        except OSError:
            self._drop()
            return
        last = self._last
        hit = last is not None and last[0] == key and last[1] is piece
        sha = last[2] if last is not None and hit else hashlib.sha256(piece).hexdigest()
        self._new.append([key.hex(), self._size, len(piece), sha])
        self._size += len(piece)

    def close(self) -> bool:
        """Finish: True when the record on disk holds exactly this build's tools (the new one is
        dropped), False when the new one was put in the pending directory, or could not be written
        (the old one then stays: it only costs the next build time)."""
        if self._old is not None:
            self._old.close()
        unchanged = not self._failed and self._found == len(self._new) == len(self._index)
        if self._out is None or unchanged:
            self._drop()
            return unchanged
        line = json.dumps(self._new, separators=(",", ":")).encode()
        tail = hashlib.sha256(line).hexdigest().encode() + b" " + str(len(line)).encode() + b"\n"
        try:
            self._out.write(line + b"\n" + tail)
            self._out.close()
            os.replace(self._temporary, self._pending / NAME)
        except OSError:
            self._drop()
        return False

    def _drop(self) -> None:
        """Stop writing the new record and remove what there is of it."""
        self._failed = True
        with contextlib.suppress(OSError):
            if self._out is not None:
                self._out.close()
            self._temporary.unlink()
