"""The render cache's database as the tests read and damage it: through SQLite itself, not the product's code."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from generator.cache.store import NAME


@contextlib.contextmanager
def opened(cache: Path) -> Iterator[sqlite3.Connection]:
    """The cache database of the directory *cache*, open for the test (committed when it is done)."""
    db = sqlite3.connect(cache / NAME, isolation_level=None)
    try:
        yield db
    finally:
        db.close()


def records(cache: Path, kind: str, build: str = "") -> list[tuple[int, str, Any]]:
    """(id, key, header) of every record of *kind* (the cache's own, or a build's pending ones), by id."""
    with opened(cache) as db:
        rows = db.execute("SELECT id, key, header FROM record WHERE kind = ? AND build = ? ORDER BY id", (kind, build))
        return [(rowid, key, json.loads(header)) for rowid, key, header in rows.fetchall()]


def dump(cache: Path) -> list[tuple[object, ...]]:
    """Every record and blob, in a stable order: what the cache holds, whatever SQLite's pages look like."""
    with opened(cache) as db:
        rows = db.execute("SELECT kind, key, build, header, sha256 FROM record ORDER BY kind, key, build").fetchall()
        blobs = db.execute(
            "SELECT r.kind, r.key, r.build, b.n, b.sha256, b.data FROM blob b JOIN record r ON r.id = b.record "
            "ORDER BY r.kind, r.key, r.build, b.n"
        ).fetchall()
        return rows + blobs


def builds(cache: Path) -> set[str]:
    """The build ids of every record: ``""`` for the cache's own, else a build's pending records."""
    with opened(cache) as db:
        return {build for (build,) in db.execute("SELECT DISTINCT build FROM record").fetchall()}


def flip_blob(cache: Path, record: int, n: int) -> None:
    """Flip one byte in the middle of blob *n* of *record*, its sha256 left as it was."""
    with opened(cache) as db:
        (data,) = db.execute("SELECT data FROM blob WHERE record = ? AND n = ?", (record, n)).fetchone()
        changed = bytearray(data)
        changed[len(changed) // 2] ^= 0x01
        db.execute("UPDATE blob SET data = ? WHERE record = ? AND n = ?", (bytes(changed), record, n))


def set_header(cache: Path, record: int, header: Any, rehash: bool) -> None:
    """Replace the header of *record* by *header*, with its sha256 made anew or left as it was."""
    import hashlib

    text = json.dumps(header, separators=(",", ":"))
    with opened(cache) as db:
        db.execute("UPDATE record SET header = ? WHERE id = ?", (text, record))
        if rehash:
            db.execute("UPDATE record SET sha256 = ? WHERE id = ?", (hashlib.sha256(text.encode()).hexdigest(), record))


def delete_blobs(cache: Path, record: int) -> None:
    with opened(cache) as db:
        db.execute("DELETE FROM blob WHERE record = ?", (record,))
