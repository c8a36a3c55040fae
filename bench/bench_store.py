"""The render cache's store (``generator/cache/store.py``, one ``sqlite3`` database): writes and reads.

    python bench/bench_store.py                 # 1,000 things, 3 runs
    python bench/bench_store.py --things 5000 --runs 1

The workload is what a build asks of the store for its ``pages`` records: N records of nine blobs
each (three ``llms-full.txt`` copies of 12 KB, three HTML pages of 40 KB, three twins of 12 KB,
about 190 KB in all), written by two worker processes at once, as ``build --jobs 2`` writes them
(each through a connection of its own, a short transaction a record), then made the cache's in one
commit after the publish; and a rebuild's read of every record's header and its three copies, each
checked against its sha256.

It prints each figure's median over ``--runs`` runs and the size on disk. Nothing is written
outside a temporary directory.
"""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generator.cache.store import Store

SIZES = (12_000,) * 3 + (40_000, 12_000) * 3


def blobs_of(n: int) -> list[bytes]:
    """The nine blobs of record *n*: deterministic bytes of the workload's sizes."""
    seed = hashlib.sha256(str(n).encode()).digest()
    return [(seed * (size // len(seed) + 1))[:size] for size in SIZES]


def key_of(n: int) -> str:
    return hashlib.sha256(f"key {n}".encode()).hexdigest()


def store_write(root: Path, numbers: Sequence[int]) -> None:
    store = Store(root)
    store.build = "bench"  # one build, written by two processes
    for n in numbers:
        assert store.put("pages", key_of(n), {"pages": [["a", "b"]] * 3}, blobs_of(n))
    store.close()


def store_commit(root: Path, count: int) -> None:
    store = Store(root)
    store.build = "bench"
    store.commit({key_of(n) for n in range(count)})
    store.close()


def store_read(root: Path, count: int) -> int:
    store, read = Store(root), 0
    for n in range(count):
        record = store.get("pages", key_of(n))
        assert record is not None
        copies = [store.blob(record.id, i) for i in range(3)]
        assert all(copy is not None for copy in copies)
        read += 1
    store.close()
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
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        in_two(store_write, root, count)
        store_commit(root, count)
        os.sync()
        figures["write"] = time.perf_counter() - start
        start = time.perf_counter()
        assert store_read(root, count) == count
        figures["read"] = time.perf_counter() - start
        figures["MB"] = size_of(root) / 1e6
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
