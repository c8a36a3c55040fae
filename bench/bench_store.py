"""The render cache's store: record files (``generator/cache/record.py``) against one ``sqlite3`` database.

    python bench/bench_store.py                 # 1,000 things, 3 runs
    python bench/bench_store.py --things 5000 --runs 1

The workload is what a build asks of the store for its ``pages`` records: N records of nine blobs
each (three ``llms-full.txt`` copies of 12 KB, three HTML pages of 40 KB, three twins of 12 KB,
about 190 KB in all), written by two worker processes at once, as ``build --jobs 2`` writes them,
then made visible together after the publish; and a rebuild's read of every record's header and
its three copies, each checked against its sha256.

- ``files``: each worker writes its records into the pending directory with :func:`write_record`,
  and the commit renames them into the cache directory.
- ``sqlite``: each worker opens its own connection to one WAL database and inserts its records in
  one transaction (the header as JSON, the blobs as one BLOB, a ``pending`` flag), waiting on the
  database's write lock (``timeout``); the commit clears the flag. The reads take the header and
  the copies with ``substr`` and check them the same way.

It prints each figure's median over ``--runs`` runs and the size on disk. Nothing is written
outside a temporary directory.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generator.cache.record import read_record, write_record

SIZES = (12_000,) * 3 + (40_000, 12_000) * 3


def blobs_of(n: int) -> list[bytes]:
    """The nine blobs of record *n*: deterministic bytes of the workload's sizes."""
    seed = hashlib.sha256(str(n).encode()).digest()
    return [(seed * (size // len(seed) + 1))[:size] for size in SIZES]


def key_of(n: int) -> str:
    return hashlib.sha256(f"key {n}".encode()).hexdigest()


def files_write(root: Path, numbers: Sequence[int]) -> None:
    pending = root / ".pending"
    for n in numbers:
        write_record(pending / f"{key_of(n)}.pages", "pages", key_of(n), {"pages": [["a", "b"]] * 3}, blobs_of(n))


def files_commit(root: Path) -> None:
    pending = root / ".pending"
    for path in sorted(pending.iterdir()):
        os.replace(path, root / path.name)
    pending.rmdir()


def files_read(root: Path, count: int) -> int:
    read = 0
    for n in range(count):
        record = read_record(root / f"{key_of(n)}.pages", "pages", key_of(n))
        assert record is not None
        with record.reading() as handle:
            copies = [record.read(blob, handle) for blob in record.blobs[:3]]
        assert all(copy is not None for copy in copies)
        read += 1
    return read


def sqlite_open(root: Path) -> sqlite3.Connection:
    db = sqlite3.connect(root / "cache.db", timeout=60)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("CREATE TABLE IF NOT EXISTS record (key TEXT PRIMARY KEY, header TEXT, body BLOB, pending INTEGER)")
    return db


def sqlite_write(root: Path, numbers: Sequence[int]) -> None:
    db = sqlite_open(root)
    with db:
        for n in numbers:
            blobs = blobs_of(n)
            header = {"pages": [["a", "b"]] * 3, "blobs": [[hashlib.sha256(b).hexdigest(), len(b)] for b in blobs]}
            db.execute(
                "INSERT OR REPLACE INTO record VALUES (?, ?, ?, 1)", (key_of(n), json.dumps(header), b"".join(blobs))
            )
    db.close()


def sqlite_commit(root: Path) -> None:
    db = sqlite_open(root)
    with db:
        db.execute("UPDATE record SET pending = 0 WHERE pending = 1")
    db.close()


def sqlite_read(root: Path, count: int) -> int:
    db = sqlite_open(root)
    read = 0
    for n in range(count):
        row = db.execute("SELECT header FROM record WHERE key = ? AND pending = 0", (key_of(n),)).fetchone()
        header = json.loads(row[0])
        at = 1
        for sha256, size in header["blobs"][:3]:
            (copy,) = db.execute(
                "SELECT substr(body, ?, ?) FROM record WHERE key = ?", (at, size, key_of(n))
            ).fetchone()
            assert hashlib.sha256(copy).hexdigest() == sha256
            at += size
        read += 1
    db.close()
    return read


def in_two(write: Callable[[Path, Sequence[int]], None], root: Path, count: int) -> None:
    """*write* the records by two worker processes at once, half each."""
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=write, args=(root, range(i, count, 2))) for i in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
        assert worker.exitcode == 0


def size_of(root: Path) -> int:
    return sum(path.stat().st_size for path in root.rglob("*") if path.is_file())


def one_run(count: int) -> dict[str, float]:
    figures: dict[str, float] = {}
    for name, write, commit, read in (
        ("files", files_write, files_commit, files_read),
        ("sqlite", sqlite_write, sqlite_commit, sqlite_read),
    ):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            if name == "sqlite":
                sqlite_open(root).close()
            start = time.perf_counter()
            in_two(write, root, count)
            commit(root)
            os.sync()
            figures[f"{name} write"] = time.perf_counter() - start
            start = time.perf_counter()
            assert read(root, count) == count
            figures[f"{name} read"] = time.perf_counter() - start
            figures[f"{name} MB"] = size_of(root) / 1e6
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python bench/bench_store.py", description=__doc__.split("\n")[0])
    parser.add_argument("--things", type=int, default=1000, help="records to write and read (default 1000)")
    parser.add_argument("--runs", type=int, default=3, help="runs (default 3)")
    args = parser.parse_args(argv)
    runs = [one_run(args.things) for _ in range(args.runs)]
    print(f"{args.things:,} pages records, median of {args.runs} runs")
    for name in runs[0]:
        value = statistics.median(run[name] for run in runs)
        print(f"  {name}: {value:.2f} {'MB' if name.endswith('MB') else 's'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
