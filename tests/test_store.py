"""The cache's one file: records read back as written, damage a miss, a failed build no change, two builds at once."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from generator.cache.store import NAME, Store
from tests.cache_db import dump, flip_blob, opened, records, set_header
from tests.conftest import tree_bytes

BLOBS = [b"first", b"", "второй ثاني".encode(), b"\n" * 300]
SNAPSHOT = Path(__file__).parent / "golden" / "demo.snapshot.json"
NOBODY = 65534


def _committed(root: Path, *records_: tuple[str, str, object, list[bytes]]) -> Store:
    store = Store(root)
    for kind, key, header, blobs in records_:
        assert store.put(kind, key, header, blobs)
    store.commit({key for _, key, _, _ in records_})
    store.close()
    return Store(root)


def test_a_record_reads_back_only_once_committed(tmp_path: Path) -> None:
    store = Store(tmp_path)
    assert store.put("pages", "k", {"pages": [["a", "b"]]}, BLOBS)
    assert store.get("pages", "k") is None  # pending: no one reads it yet, not even its own build
    store.commit({"k"})
    record = store.get("pages", "k")
    assert record is not None and record.header == {"pages": [["a", "b"]]}
    assert record.blobs == tuple(hashlib.sha256(b).hexdigest() for b in BLOBS)
    assert [store.blob(record.id, n) for n in range(len(BLOBS))] == BLOBS
    assert store.get("rows", "k") is None and store.get("pages", "other") is None
    store.close()
    info = os.stat(tmp_path / NAME)
    assert (info.st_mode & 0o777, info.st_uid) == (0o600, os.geteuid())


def test_a_damaged_blob_or_header_is_a_miss(tmp_path: Path) -> None:
    store = _committed(tmp_path, ("pages", "k", {"a": 1}, BLOBS), ("pages", "j", {"b": 2}, BLOBS))
    (k, _, _), (j, _, _) = records(tmp_path, "pages")
    flip_blob(tmp_path, k, 2)
    set_header(tmp_path, j, {"b": 3}, rehash=False)
    record = store.get("pages", "k")
    assert record is not None and store.blob(record.id, 2) is None and store.blob(record.id, 0) == BLOBS[0]
    assert store.get("pages", "j") is None
    store.close()


def test_discard_leaves_the_store_as_it_was_and_commit_keeps_only_what_was_used(tmp_path: Path) -> None:
    store = _committed(tmp_path, ("pages", "k", {"a": 1}, BLOBS), ("pages", "j", {"b": 2}, [b"j"]))
    before = dump(tmp_path)
    assert store.put("pages", "k", {"a": "new"}, [b"new"]) and store.put("search", "s", {}, [])
    store.discard()
    assert dump(tmp_path) == before
    assert store.put("pages", "k", {"a": "new"}, [b"new"])
    store.commit({"k"})
    assert [(key, header) for _, key, header in records(tmp_path, "pages")] == [("k", {"a": "new"})]
    with opened(tmp_path) as db:
        assert db.execute("SELECT data FROM blob").fetchall() == [(b"new",)]  # the replaced and unused ones' blobs too
    store.close()


def test_pending_records_of_a_build_that_is_gone_are_removed_and_a_live_ones_kept(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, check=True)
    gone, alive = Store(tmp_path), Store(tmp_path)
    gone.build = f"{int(dead.stdout)}.00000000"  # a build killed before its commit
    assert gone.put("pages", "k", {}, [b"x"]) and alive.put("pages", "j", {}, [b"y"])
    mine = Store(tmp_path)
    mine.commit(set())
    with opened(tmp_path) as db:
        assert db.execute("SELECT build FROM record").fetchall() == [(alive.build,)]
    for store in (gone, alive, mine):
        store.close()


@pytest.mark.parametrize("case", ["readable by others", "symbolic link", "fifo", "another user's"])
def test_a_file_that_is_not_the_users_alone_is_not_used(tmp_path: Path, case: str) -> None:
    path, target = tmp_path / NAME, tmp_path / "target"
    Store(tmp_path).put("pages", "k", {}, [])  # a sound database, then made unfit
    if case == "readable by others":
        path.chmod(0o644)
    elif case == "symbolic link":
        path.rename(target)
        path.symlink_to(target)
    elif case == "fifo":
        path.unlink()
        os.mkfifo(path)
    else:
        os.chown(path, NOBODY, NOBODY)
    before = (os.lstat(path).st_mode, target.read_bytes() if target.exists() else b"")
    store = Store(tmp_path)
    assert store.get("pages", "k") is None and not store.put("pages", "k", {}, [b"x"])
    assert store.problem is not None and "only you" in store.problem
    store.commit({"k"})
    store.discard()
    assert (os.lstat(path).st_mode, target.read_bytes() if target.exists() else b"") == before


@pytest.mark.parametrize("case", ["another program's database", "a trigger added", "an older format"])
def test_only_a_database_of_this_cache_is_used_and_an_older_format_is_emptied(tmp_path: Path, case: str) -> None:
    _committed(tmp_path, ("pages", "k", {"a": 1}, BLOBS)).close()
    with opened(tmp_path) as db:
        if case == "another program's database":
            db.execute("PRAGMA application_id = 1")
        elif case == "a trigger added":
            db.execute("CREATE TRIGGER t AFTER INSERT ON blob BEGIN DELETE FROM record; END")
        else:
            db.execute("PRAGMA user_version = 8")
    before = (tmp_path / NAME).read_bytes()
    store = Store(tmp_path)
    if case == "an older format":
        assert store.get("pages", "k") is None and store.problem is None
        assert store.put("pages", "k", {}, [b"x"])  # usable again, empty
    else:
        assert store.get("pages", "k") is None and not store.put("pages", "k", {}, [b"x"])
        assert store.problem == "it holds something other than this cache's records"
        assert (tmp_path / NAME).read_bytes() == before
    store.close()


def _worker_puts(root: Path, store: Store, key: str) -> None:
    assert store.put("pages", key, {"from": os.getpid()}, [key.encode()])


def test_a_forked_worker_writes_through_a_connection_of_its_own(tmp_path: Path) -> None:
    store = Store(tmp_path)
    assert store.get("pages", "none") is None  # the parent's connection is open when the worker is forked
    worker = multiprocessing.get_context("fork").Process(target=_worker_puts, args=(tmp_path, store, "w"))
    worker.start()
    worker.join(timeout=60)
    assert worker.exitcode == 0
    store.commit({"w"})
    record = store.get("pages", "w")
    assert record is not None and record.header["from"] == worker.pid and store.blob(record.id, 0) == b"w"
    store.close()


def _build_alongside(root: str, key: str, started: object, other_started: object, done: object, go: object) -> None:
    """One of two builds of one cache: put a record, let the other build run to its commit, then commit."""
    store = Store(Path(root))
    assert store.put("pages", key, {"by": key}, [key.encode() * 1000])
    started.set()  # type: ignore[attr-defined]
    assert other_started.wait(60)  # type: ignore[attr-defined]
    if key == "first":
        assert go.wait(60)  # type: ignore[attr-defined]  # the second build commits first
    store.commit({"first", "second", "kept"})
    store.close()
    done.set()  # type: ignore[attr-defined]


def test_two_builds_of_one_cache_at_once_each_commit_whole(tmp_path: Path) -> None:
    """Two processes with records pending at the same time: each commit takes its own records and no
    other's, and the database checks out after both."""
    _committed(tmp_path, ("pages", "kept", {}, [b"old"])).close()
    context = multiprocessing.get_context("spawn")
    events = {name: context.Event() for name in ("first", "second", "first done", "second done")}
    first = context.Process(target=_build_alongside, args=(str(tmp_path), "first", events["first"],
                                                           events["second"], events["first done"],
                                                           events["second done"]))  # fmt: skip
    second = context.Process(target=_build_alongside, args=(str(tmp_path), "second", events["second"],
                                                            events["first"], events["second done"],
                                                            events["second done"]))  # fmt: skip
    first.start()
    second.start()
    first.join(120)
    second.join(120)
    assert (first.exitcode, second.exitcode) == (0, 0)
    assert sorted((key, header) for _, key, header in records(tmp_path, "pages")) == [
        ("first", {"by": "first"}), ("kept", {}), ("second", {"by": "second"})
    ]  # fmt: skip
    with opened(tmp_path) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert db.execute("SELECT DISTINCT build FROM record").fetchall() == [("",)]


def _open_at_once(root: str, barrier: Any, problems: Any) -> None:
    barrier.wait(60)
    store = Store(Path(root))
    written = store.put("pages", str(os.getpid()), {}, [b"x"])
    problems.put(store.problem or ("" if written else "not written"))
    store.close()


def test_two_builds_opening_a_new_cache_at_the_same_moment_both_use_it(tmp_path: Path) -> None:
    """Two processes open one new cache file together, 200 times: each time both use it. SQLite answers
    "database is locked" at once, without its busy wait, to the second of two connections turning a new
    file's journal to WAL; without the store's lock one build in twenty did not use the cache (and said so)."""
    context = multiprocessing.get_context("fork")
    problems = context.Queue()
    for n in range(200):
        root = tmp_path / str(n)
        root.mkdir(mode=0o700)
        barrier = context.Barrier(2)
        pair = [context.Process(target=_open_at_once, args=(str(root), barrier, problems)) for _ in range(2)]
        for process in pair:
            process.start()
        for process in pair:
            process.join(60)
            assert process.exitcode == 0
    seen = [problems.get(timeout=10) for _ in range(400)]
    assert seen == [""] * 400, sorted(set(seen))


def test_two_build_commands_at_once_share_one_cache(tmp_path: Path) -> None:
    """Two real ``build`` processes with one ``--cache``, started together and then again: every site is the
    bytes of a build without the cache, and the database checks out."""
    cache = tmp_path / "cache"

    def start(out: str, *extra: str) -> subprocess.Popen[str]:
        argv = [sys.executable, "-m", "generator", "build", "--from", str(SNAPSHOT), "--out", str(tmp_path / out),
                "--no-search", "--jobs", "2", "--quiet", *extra]  # fmt: skip
        return subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    plain = start("plain", "--no-cache")
    assert plain.wait(180) == 0, plain.communicate()[1]
    for _ in range(2):  # cold, then warm
        builds = [start(out, "--cache", str(cache)) for out in ("one", "two")]
        for build in builds:
            assert build.wait(180) == 0, build.communicate()[1]
            assert "render cache" not in build.communicate()[1]
        assert tree_bytes(tmp_path / "one") == tree_bytes(tmp_path / "two") == tree_bytes(tmp_path / "plain")
    with sqlite3.connect(cache / NAME) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert db.execute("SELECT DISTINCT build FROM record").fetchall() == [("",)]
