"""The one format of every file the cache writes: a *record*, checked bytes under a JSON header.

A record file holds a magic line naming the format, then its blobs one after another, then a
header line of JSON, and last a line with the header's sha256 and length. The header names the
record's kind and the key it was written for, gives every blob's sha256 and size, and carries
whatever else its kind needs (:mod:`generator.cache.store` lists the kinds). The header comes
last so that a record can be written while its blobs are made: ``snapshot.json``'s text, 27 MB
at 5,000 tools, is never held whole.

Reading checks the header whole, and each blob against its sha256 when that blob is read. A
record that cannot be read or does not check out is a miss: the cache then makes what it would
have given, so a damaged record costs time but never changes a byte of the site. Only a regular
file is a record: anything else at a record's name (a FIFO, a device, a symbolic link) is a miss,
found without waiting (:func:`generator.config.files.open_regular`). Records are data, never code:
nothing read from one is run or unpickled.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from generator.config.files import open_regular

FORMAT = 8
"""Bumped when a record's layout or what a key covers changes: older records then never match."""
MAGIC = f"mcp-portal cache record {FORMAT}\n".encode()
_TAIL = 96
"""Bytes at the end of a record that surely hold its last line (a sha256, a space, a length)."""


@dataclass(frozen=True)
class Blob:
    """One blob of a record: where it starts in the file, its size, and the sha256 it must have."""

    sha256: str
    start: int
    size: int


class Record:
    """A record whose header checked out: :attr:`header`, and :attr:`blobs` read on demand."""

    def __init__(self, path: Path, header: dict[str, Any], blobs: tuple[Blob, ...]) -> None:
        self.path = path
        self.header = header
        """The kind's own fields (``kind``, ``key`` and ``blobs`` are taken out)."""
        self.blobs = blobs

    @contextlib.contextmanager
    def reading(self) -> Iterator[BinaryIO]:
        """The record's file, open for several :meth:`read` calls."""
        with open_regular(self.path, follow=False) as handle:
            yield handle

    def read(self, blob: Blob, handle: BinaryIO | None = None) -> bytes | None:
        """*blob*'s bytes, or None when they cannot be read or do not match their sha256."""
        try:
            if handle is None:
                with self.reading() as opened:
                    return self.read(blob, opened)
            handle.seek(blob.start)
            data = handle.read(blob.size)
        except OSError:
            return None
        return data if hashlib.sha256(data).hexdigest() == blob.sha256 else None


def read_record(path: Path, kind: str, key: str) -> Record | None:
    """The record at *path*, when it is one of *kind* written for *key* and its header checks out; else None."""
    try:
        with open_regular(path, follow=False) as handle:  # a FIFO planted here must not hold the build
            if handle.read(len(MAGIC)) != MAGIC:
                return None
            end = handle.seek(0, os.SEEK_END)
            handle.seek(max(len(MAGIC), end - _TAIL))
            tail = handle.read()
            last = tail[:-1].rpartition(b"\n")[2]  # the sha256 and length of the header line
            digest, _, length = last.partition(b" ")
            size = int(length)
            start = end - len(last) - 1 - (size + 1)
            if not tail.endswith(b"\n") or size <= 0 or start < len(MAGIC):
                return None
            handle.seek(start)
            line = handle.read(size + 1)
        if not line.endswith(b"\n") or hashlib.sha256(line[:-1]).hexdigest().encode() != digest:
            return None
        header = json.loads(line)
        if not isinstance(header, dict) or header.pop("kind", None) != kind or header.pop("key", None) != key:
            return None
        blobs, at = [], len(MAGIC)
        for sha256, blob_size in header.pop("blobs"):
            if not isinstance(sha256, str) or type(blob_size) is not int or blob_size < 0:
                return None
            blobs.append(Blob(sha256, at, blob_size))
            at += blob_size
        return Record(path, header, tuple(blobs)) if at == start else None
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


class RecordWriter:
    """A record being written, a blob at a time, to a temporary file beside *target*; :meth:`finish`
    adds the header and moves it to *target*. A cache that cannot be written only costs time, so a
    write that fails drops the record and every later call does nothing."""

    def __init__(self, target: Path) -> None:
        self.target = target
        self._temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")  # a worker's own pid: no clash
        self._blobs: list[tuple[str, int]] = []
        self._out: BinaryIO | None = None
        self._failed = False

    def add(self, data: bytes, sha256: str | None = None) -> None:
        """Append the blob *data* (*sha256*: its hash when the caller already checked it)."""
        out = self._open()
        try:
            if out is not None:
                out.write(data)
                self._blobs.append((sha256 or hashlib.sha256(data).hexdigest(), len(data)))
        except OSError:
            self.drop()

    def _open(self) -> BinaryIO | None:
        """The temporary file, opened with its magic line on first use; None once the record failed."""
        if self._out is None and not self._failed:
            try:
                self.target.parent.mkdir(mode=0o700, exist_ok=True)
                self._out = open_regular(self._temporary, "wb", follow=False)
                self._out.write(MAGIC)
            except OSError:
                self.drop()
        return self._out

    def finish(self, kind: str, key: str, fields: dict[str, Any]) -> bool:
        """Write the header (*kind*, *key*, the blobs, *fields*) and put the record in place; False if it failed."""
        out = self._open()
        if out is None:
            return False
        header = {"kind": kind, "key": key, "blobs": self._blobs, **fields}
        line = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        try:
            out.write(line + b"\n" + hashlib.sha256(line).hexdigest().encode() + f" {len(line)}\n".encode())
            out.close()
            os.replace(self._temporary, self.target)
        except OSError:
            self.drop()
            return False
        return True

    def drop(self) -> None:
        """Stop writing and remove what there is of the record."""
        self._failed = True
        with contextlib.suppress(OSError):
            if self._out is not None:
                self._out.close()
        self._out = None
        with contextlib.suppress(OSError):
            self._temporary.unlink()


def write_record(target: Path, kind: str, key: str, fields: dict[str, Any], blobs: Iterable[bytes] = ()) -> bool:
    """Write a whole record at once (see :class:`RecordWriter`); False when it could not be written."""
    writer = RecordWriter(target)
    for blob in blobs:
        writer.add(blob)
    return writer.finish(kind, key, fields)
