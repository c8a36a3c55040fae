"""The cache's one file: a SQLite database of *records* (a kind, a key, a JSON header and blobs), each part
stored with its sha256. A part that does not check out is a miss: a damaged cache costs time, never a byte.
Records are data, never code (nothing read is run or unpickled); a file holding anything but our two tables
is not used, and it must be its user's regular file, mode 0600.

A build writes its records as *pending*, under its build id; :meth:`Store.commit` makes them the cache's in
one transaction once the site is out, :meth:`Store.discard` drops them after a failure. SQLite's locking
keeps two builds, and a build's forked workers (each opens its own connection), from writing over each other.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import secrets
import sqlite3
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FORMAT = 14
"""Bumped when a record's layout or what a key covers changes: a database of another format is emptied."""
NAME = "cache.sqlite3"
APPLICATION = 0x6D637070  # "mcpp": SQLite's application_id, so a file of another program is never taken for ours
_SCHEMA = (
    "CREATE TABLE record (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, key TEXT NOT NULL, build TEXT NOT NULL, "
    "header TEXT NOT NULL, sha256 TEXT NOT NULL, UNIQUE (kind, key, build))",
    "CREATE TABLE blob (record INTEGER NOT NULL REFERENCES record (id) ON DELETE CASCADE, n INTEGER NOT NULL, "
    "sha256 TEXT NOT NULL, data BLOB NOT NULL, UNIQUE (record, n))",
)
_OBJECTS = {("table", "record"), ("table", "blob"), ("index", "sqlite_autoindex_record_1"),
            ("index", "sqlite_autoindex_blob_1")}  # fmt: skip
_CHECKPOINT = 1 << 18  # pages of the write-ahead log: its copy into the database is left to Store.commit
COMMITTED = ""
"""The build id of the cache's own records; a pending record carries its build's id, ``<pid>.<random>``."""


@dataclass(frozen=True)
class Record:
    """A record whose header checked out: its row id, its header, and each blob's sha256 in order."""

    id: int
    header: Any
    blobs: tuple[str, ...]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Store:
    """The database at ``root/cache.sqlite3``, opened once per process (forked workers open their own)."""

    def __init__(self, root: Path) -> None:
        self.path = root / NAME
        self.build = f"{os.getpid()}.{secrets.token_hex(4)}"
        self.problem: str | None = None
        """Why the database is not used (then every read is a miss and nothing is written), or None."""
        self._connections: dict[int, sqlite3.Connection] = {}
        self._root = _identity(root)  # the directory as checked: the file is opened only while it is still it
        self.closed = False

    def _db(self) -> sqlite3.Connection | None:
        """This process's connection, opened and checked on first use; None when the cache is not used. (SQLite's
        handles must not cross a fork: a worker opens its own and never touches the one it inherited.)"""
        pid = os.getpid()
        if self.problem is None and not self.closed and pid not in self._connections:
            try:
                self._connections[pid] = self._open()
            except (OSError, sqlite3.Error) as exc:
                self.problem = self.problem or f"it cannot be opened ({exc})"
        return self._connections.get(pid) if self.problem is None and not self.closed else None

    def _open(self) -> sqlite3.Connection:
        if self._root is None or _identity(self.path.parent) != self._root:
            raise OSError("the cache directory was replaced since the build checked it")
        with contextlib.suppress(FileExistsError):
            os.close(os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600))
        info = os.lstat(self.path)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o077:
            self.problem = "it is not a regular file that only you can read and write"
            raise OSError(self.problem)
        db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        db.execute("PRAGMA trusted_schema = OFF")
        db.execute("PRAGMA foreign_keys = ON")  # a record's blobs go with it
        # Turning a new file's journal to WAL takes one process at a time: when two builds start together, SQLite
        # answers the second "database is locked" at once, without its busy wait. A lock on the directory orders them.
        directory = os.open(self.path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            fcntl.flock(directory, fcntl.LOCK_EX)
            db.execute("PRAGMA journal_mode = WAL")
        finally:
            os.close(directory)  # and with it the lock
        db.execute("PRAGMA synchronous = OFF")  # a cache: what a crash may cost is time (everything is checked)
        db.execute(f"PRAGMA wal_autocheckpoint = {_CHECKPOINT}")
        with _writing(db):
            app = db.execute("PRAGMA application_id").fetchone()[0]
            version = db.execute("PRAGMA user_version").fetchone()[0]
            objects = {(t, n) for t, n in db.execute("SELECT type, name FROM sqlite_schema")}
            if app not in (0, APPLICATION) or not objects <= _OBJECTS:
                self.problem = "it holds something other than this cache's records"
                raise sqlite3.DatabaseError(self.problem)
            if objects != _OBJECTS or version != FORMAT:  # new, or another format's: emptied
                for _, name in sorted(o for o in objects if o[0] == "table"):
                    db.execute(f"DROP TABLE {name}")  # only our two names get here (checked above)
                for statement in _SCHEMA:
                    db.execute(statement)
                db.execute(f"PRAGMA application_id = {APPLICATION}")
                db.execute(f"PRAGMA user_version = {FORMAT}")
        return db

    def get(self, kind: str, key: str) -> Record | None:
        """The cache's record of *kind* for *key*, when its header checks out; else None."""
        return self.all(kind, key).get(key)

    def _query(self, sql: str, args: tuple[object, ...]) -> list[Any]:
        """The rows *sql* selects; none when the cache is not used or cannot be read."""
        db = self._db()
        try:
            return db.execute(sql, args).fetchall() if db is not None else []
        except sqlite3.Error:
            return []

    def all(self, kind: str, key: str | None = None) -> dict[str, Record]:
        """The cache's records of *kind* (of *key* only, unless None) whose header checks out, by key."""
        where, args = "kind = ? AND build = ? AND (? IS NULL OR key = ?)", (kind, COMMITTED, key, key)
        blobs: dict[int, list[str]] = {}
        for rowid, sha256 in self._query(f"SELECT record, sha256 FROM blob WHERE record IN (SELECT id FROM record "
                                         f"WHERE {where}) ORDER BY record, n", args):  # fmt: skip
            blobs.setdefault(rowid, []).append(sha256)
        found = {}
        for rowid, k, header, sha256 in self._query(f"SELECT id, key, header, sha256 FROM record WHERE {where}", args):
            with contextlib.suppress(ValueError):
                if _sha(header.encode("utf-8")) == sha256:
                    found[k] = Record(rowid, json.loads(header), tuple(blobs.get(rowid, ())))
        return found

    def blob(self, record: int, n: int) -> bytes | None:
        """Blob *n* of the record whose row id is *record*; None when it cannot be read or fails its sha256."""
        rows = self._query("SELECT sha256, data FROM blob WHERE record = ? AND n = ?", (record, n))
        return bytes(rows[0][1]) if rows and _sha(rows[0][1]) == rows[0][0] else None

    def put(self, kind: str, key: str, header: Any, blobs: Iterable[bytes] = (), *, now: bool = False) -> bool:
        """Write a pending record of *kind* for *key*, in place of this build's earlier one (with *now*, the
        cache's own record at once: what is true once the site is out); False when it could not be written
        (which only costs the next build time)."""
        db = self._db()
        if db is None:
            return False
        text = json.dumps(header, separators=(",", ":"))  # ASCII: a path that is not UTF-8 holds lone surrogates
        mine = (kind, key, COMMITTED if now else self.build)
        try:
            with _writing(db):
                db.execute("DELETE FROM record WHERE kind = ? AND key = ? AND build = ?", mine)
                rowid = db.execute("INSERT INTO record (kind, key, build, header, sha256) VALUES (?, ?, ?, ?, ?)",
                                   (*mine, text, _sha(text.encode("utf-8")))).lastrowid  # fmt: skip
                db.executemany("INSERT INTO blob VALUES (?, ?, ?, ?)",
                               [(rowid, n, _sha(blob), blob) for n, blob in enumerate(blobs)])  # fmt: skip
        except sqlite3.Error:
            return False
        return True

    def commit(self, used: set[str]) -> None:
        """Make this build's pending records the cache's in one transaction, removing the cache's records
        whose key is not in *used* and the pending records of builds whose process is gone."""
        db = self._db()
        if db is None:
            return
        try:
            with _writing(db):
                rows = db.execute("SELECT id, kind, key, build FROM record").fetchall()
                mine = {(kind, key) for _, kind, key, build in rows if build == self.build}
                gone = [
                    (i,) for i, kind, key, build in rows
                    if (build == COMMITTED and ((kind, key) in mine or key not in used))
                    or (build not in (COMMITTED, self.build) and _abandoned(build))
                ]  # fmt: skip
                db.executemany("DELETE FROM record WHERE id = ?", gone)
                db.execute("UPDATE record SET build = ? WHERE build = ?", (COMMITTED, self.build))
            db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error:
            self.discard()

    def discard(self) -> None:
        """Drop this build's pending records (after a failure, or a commit that could not be made)."""
        db = self._db()
        with contextlib.suppress(sqlite3.Error):
            if db is not None:
                with _writing(db):
                    db.execute("DELETE FROM record WHERE build = ?", (self.build,))

    def close(self) -> None:
        """Close this process's connection (not a forked worker's inherited one); the store opens nothing again."""
        self.closed = True
        db = self._connections.pop(os.getpid(), None)
        if db is not None:
            db.close()


def _writing(db: sqlite3.Connection) -> sqlite3.Connection:
    """*db* in a write transaction: as a ``with`` block's context manager, it commits, or rolls back on an error."""
    db.execute("BEGIN IMMEDIATE")
    return db


def _identity(directory: Path) -> tuple[int, int] | None:
    """The device and inode of *directory* (None when it is no directory, a symbolic link included)."""
    try:
        info = os.lstat(directory)
    except OSError:
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISDIR(info.st_mode) else None


def _abandoned(build: str) -> bool:
    """Whether *build*, another build's id, names a build whose process is gone (its pending records may go)."""
    pid = build.partition(".")[0]
    if not pid.isdigit():  # no pid at all: never a signal to a negative (group) pid
        return False
    try:
        os.kill(int(pid), 0)  # signal 0 only asks whether the process exists
    except ProcessLookupError:
        return True
    except OSError:  # another user's process
        pass
    return False
