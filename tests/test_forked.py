"""Work taken in forked children (generator/forked.py) is the work this process would do.

- The survey of the previous site (generator/publish/survey.py): each test publishes a real small
  site through :func:`generator.publish.write.publish`, damages it by hand (an edited page, a
  removed one, a file we did not write, an empty directory), and compares the child's survey with
  one taken in this process.
- A large snapshot's tool digests (generator/snapshot/snapshot.py): the same as computed here, and
  a snapshot that fails its checks leaves no child behind.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from generator.forked import Forked, in_child, one_process_when
from generator.publish import survey as survey_module
from generator.publish.assemble import write_manifest
from generator.publish.cache import PUBLISHED
from generator.publish.staging import Staging
from generator.publish.survey import Survey, start_survey, survey
from generator.publish.write import publish
from generator.snapshot.ahead import Checked, claim, read_ahead, release
from generator.snapshot.snapshot import (
    FORK_BYTES,
    Snapshot,
    SnapshotError,
    fingerprint,
    load_snapshot,
    parse_snapshot,
    raw_digest,
)
from tests.test_inplace import _site
from tests.test_publish import GOLDEN


def _damaged(tmp_path: Path) -> tuple[Path, dict[str, str], Path]:
    """A published site with a signature record, then edited by hand; its path, listed files and record."""
    site, record = tmp_path / "site", tmp_path / "cache" / PUBLISHED

    def produce(staging: Staging) -> None:
        for path, data in sorted(_site().items()):
            staging.write(path, data)
        write_manifest(staging, {"capability_version": "1", "fingerprint": "sha256:0"})

    publish(site, produce, record=record)
    assert record.is_file()
    (site / "en/tools/t00/index.html").write_bytes(b"edited by hand")
    (site / "en/tools/t01/index.html").unlink()
    (site / "CNAME").write_text("docs.example.com\n", encoding="utf-8")
    (site / "drafts").mkdir()
    listed = json.loads((site / "manifest.json").read_text(encoding="utf-8"))["files"]
    return site, listed, record


def _forking(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the forks start_survey makes, and let it fork though pytest may run threads of its own."""
    forks: list[int] = []
    real_fork = os.fork

    def fork() -> int:
        pid = real_fork()
        if pid:
            forks.append(pid)
        return pid

    monkeypatch.setattr("generator.forked.os.fork", fork)
    monkeypatch.setattr("generator.forked.threading.active_count", lambda: 1)
    return forks


def test_the_childs_survey_is_the_one_this_process_takes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site, listed, record = _damaged(tmp_path)
    forks = _forking(monkeypatch)
    pending = start_survey(site, listed, record)
    found = pending.result()
    assert len(forks) == 1, "the survey was not taken in a child"
    assert found == survey(site, listed, record)
    assert [e.path for e in found.kept] == ["CNAME", "drafts", "en/tools/t01"]  # t01 left empty
    assert found.edited == ["en/tools/t00/index.html"]
    assert "en/tools/t01/index.html" not in found.intact and "en/tools/t02/index.html" in found.intact
    assert found.intact["manifest.json"] and set(found.signatures) == set(found.intact) - {"manifest.json"}
    with pytest.raises(ChildProcessError):
        os.waitpid(forks[0], os.WNOHANG)  # reaped


def test_a_child_that_fails_leaves_the_survey_to_this_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site, listed, record = _damaged(tmp_path)
    forks = _forking(monkeypatch)
    parent = os.getpid()
    real_survey = survey_module.survey

    def fails_in_the_child(*args: object) -> Survey:
        if os.getpid() != parent:
            raise OSError("the child could not read the site")
        return real_survey(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(survey_module, "survey", fails_in_the_child)
    found = start_survey(site, listed, record).result()
    assert len(forks) == 1
    assert found == real_survey(site, listed, record)


def test_no_child_is_forked_while_other_threads_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site, listed, record = _damaged(tmp_path)
    forks: list[int] = []

    def fork() -> int:
        forks.append(1)
        raise AssertionError("forked while another thread runs")

    monkeypatch.setattr("generator.forked.os.fork", fork)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        found = start_survey(site, listed, record).result()
    finally:
        stop.set()
        other.join()
    assert forks == [] and found == survey(site, listed, record)


def test_a_failed_build_reaps_the_child_and_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site, _, record = _damaged(tmp_path)
    before = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    forks = _forking(monkeypatch)

    def fails(staging: Staging) -> None:
        raise RuntimeError("the producer failed")

    with pytest.raises(RuntimeError):
        publish(site, fails, record=record)
    assert len(forks) == 1
    with pytest.raises(ChildProcessError):
        os.waitpid(forks[0], os.WNOHANG)
    assert {p: p.read_bytes() for p in site.rglob("*") if p.is_file()} == before


def test_a_site_that_does_not_exist_needs_no_survey() -> None:
    assert Forked(Survey, Survey).result() == Survey()


def _large_snapshot_text(n: int) -> str:
    """The demo snapshot with its tools repeated under new names to *n* tools, as a file holds it."""
    demo = load_snapshot(GOLDEN)
    tools = tuple({**demo.tools[i % len(demo.tools)], "name": f"tool_{i:04d}"} for i in range(n))
    return replace(demo, tools=tools, endpoints=(), fingerprint="").to_json()


LARGE = 700
"""Tools enough for a text of more than FORK_BYTES."""


def test_a_large_snapshots_tool_digests_come_from_a_child(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _large_snapshot_text(LARGE)
    assert len(text) >= FORK_BYTES
    forks = _forking(monkeypatch)
    snapshot = parse_snapshot(text, Path("large.json"))
    assert len(forks) == 1, "the digests were not computed in a child"
    assert snapshot.tool_keys == tuple(map(raw_digest, snapshot.tools))
    assert snapshot.fingerprint == fingerprint(snapshot.tools) == json.loads(text)["fingerprint"]
    assert snapshot.__dict__.get("_own_fingerprint") is True  # frozen() need not compute it again
    small = _large_snapshot_text(20)
    assert len(small) < FORK_BYTES and parse_snapshot(small, Path("small.json")).tool_keys
    assert len(forks) == 1, "a text under FORK_BYTES is not worth a fork"
    with pytest.raises(ChildProcessError):
        os.waitpid(forks[0], os.WNOHANG)


def test_a_large_snapshot_whose_fingerprint_is_wrong_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    data = json.loads(_large_snapshot_text(LARGE))
    data["tools"][7]["description"] += " (edited)"
    forks = _forking(monkeypatch)
    with pytest.raises(SnapshotError, match="fingerprint"):
        parse_snapshot(json.dumps(data), Path("edited.json"))
    assert len(forks) == 1


def test_a_large_snapshot_of_several_endpoints_hashes_them_as_the_snapshot_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    snapshot = parse_snapshot(_large_snapshot_text(LARGE), Path("large.json"))
    names = tuple(tool["name"] for tool in snapshot.tools)
    base = snapshot.endpoints[0]
    endpoints = (replace(base, name="read", tools=names[:100]), replace(base, name="all", tools=names))
    text = replace(snapshot, endpoints=endpoints, fingerprint="").to_json()
    forks = _forking(monkeypatch)
    parsed = parse_snapshot(text, Path("endpoints.json"))
    assert len(forks) == 1
    assert parsed.fingerprint == fingerprint(parsed.tools, [e.to_json() for e in endpoints]) != snapshot.fingerprint


def test_a_large_snapshot_that_fails_its_checks_leaves_no_child(monkeypatch: pytest.MonkeyPatch) -> None:
    data = json.loads(_large_snapshot_text(LARGE + 10))
    data["tools"][-1]["name"] = data["tools"][0]["name"]
    forks = _forking(monkeypatch)
    with pytest.raises(SnapshotError, match="repeats"):
        parse_snapshot(json.dumps(data), Path("repeated.json"))
    assert len(forks) == 1
    with pytest.raises(ChildProcessError):
        os.waitpid(forks[0], os.WNOHANG)


def test_one_process_when_asked_forks_no_child(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--jobs 1 asks for one process: inside one_process_when(True) nothing is forked, and the value is the same."""
    site, listed, record = _damaged(tmp_path)
    forks = _forking(monkeypatch)
    with one_process_when(True):
        alone = start_survey(site, listed, record)
        assert not alone.forked
        with one_process_when(False):  # an inner block cannot allow what an outer one forbids
            assert not in_child(lambda: 1, int).forked
    assert alone.result() == survey(site, listed, record) and forks == []
    later = start_survey(site, listed, record)
    assert later.forked and len(forks) == 1  # allowed again after the block
    later.close()


def _shape_checks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the shape checks this process runs (a child's are its own)."""
    from generator.snapshot import snapshot as snapshot_module

    calls: list[int] = []
    real = snapshot_module.check_shape  # type: ignore[attr-defined]

    def counting(*args: Any, **kwargs: Any) -> str | None:
        calls.append(os.getpid())
        return real(*args, **kwargs)

    monkeypatch.setattr(snapshot_module, "check_shape", counting)
    return calls


def _large_file(tmp_path: Path) -> tuple[Path, Snapshot]:
    """A large snapshot file, and the snapshot a build reads from it with no read-ahead."""
    path = tmp_path / "snapshot.json"
    path.write_text(_large_snapshot_text(LARGE), encoding="utf-8")
    return path, load_snapshot(path)


def _built_the_same(read: Snapshot, alone: Snapshot, checks: list[int]) -> None:
    """*read* (read ahead) is *alone* (read without), and the build did not check its shape again."""
    assert checks == [], "the build checked the shape again although the child had checked this very text"
    assert read.to_json() == alone.to_json() and read.tool_keys == alone.tool_keys
    assert read.fingerprint == alone.fingerprint and read.__dict__.get("_own_fingerprint") is True


def test_a_file_read_ahead_is_checked_by_the_child_and_built_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, alone = _large_file(tmp_path)
    forks = _forking(monkeypatch)
    checks = _shape_checks(monkeypatch)
    read_ahead(path)
    assert len(forks) == 1
    _built_the_same(load_snapshot(path), alone, checks)
    assert claim(path) is None  # claimed once, by the build
    with pytest.raises(ChildProcessError):
        os.waitpid(forks[0], os.WNOHANG)


def test_a_file_changed_after_it_was_read_ahead_is_checked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "snapshot.json"
    path.write_text(_large_snapshot_text(LARGE), encoding="utf-8")
    changed = _large_snapshot_text(LARGE + 1)
    _forking(monkeypatch)
    checks = _shape_checks(monkeypatch)
    read_ahead(path)
    ahead = claim(path)
    assert ahead is not None and ahead.child_result() is not None  # the child is done with the old text
    _started_again(path, ahead)
    path.write_text(changed, encoding="utf-8")
    read = load_snapshot(path)
    assert len(checks) == 1 and len(read.tools) == LARGE + 1


def _started_again(path: Path, ahead: Forked[Checked]) -> None:
    """Put a claimed read-ahead back, as if the build had not claimed it yet."""
    from generator.snapshot import ahead as ahead_module

    ahead_module._started[path.resolve()] = ahead


def test_a_file_the_child_finds_wrong_is_refused_by_the_builds_own_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = json.loads(_large_snapshot_text(LARGE))
    data["tools"][5]["inputSchema"] = "not a schema"
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SnapshotError) as alone:
        load_snapshot(path)
    forks = _forking(monkeypatch)
    checks = _shape_checks(monkeypatch)
    read_ahead(path)
    with pytest.raises(SnapshotError) as ahead:
        load_snapshot(path)
    assert len(forks) == 1 and len(checks) == 1  # the read-ahead only: the build then checks the text itself
    assert str(ahead.value) == str(alone.value)


def test_a_large_file_read_ahead_has_its_digests_computed_by_the_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From AHEAD_DIGESTS_BYTES on, the child checks and the build computes the digests meanwhile."""
    from generator.snapshot import snapshot as snapshot_module

    path, alone = _large_file(tmp_path)
    monkeypatch.setattr(snapshot_module, "AHEAD_DIGESTS_BYTES", len(path.read_bytes()))
    _forking(monkeypatch)
    checks = _shape_checks(monkeypatch)
    read_ahead(path)
    ahead = claim(path)
    assert ahead is not None
    checked = ahead.child_result()
    assert checked is not None and checked.digests is None  # the child checked, and left the digests
    _started_again(path, ahead)
    _built_the_same(load_snapshot(path), alone, checks)


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data.update(tools="not a list"),
        lambda data: data["tools"][3].pop("name"),
        lambda data: data["tools"][3].update(description="edited after the fingerprint was taken"),
    ],
    ids=["tools not a list", "a tool without a name", "a tool edited after the fingerprint"],
)
def test_a_large_file_that_is_not_right_is_refused_in_the_builds_own_words(
    damage: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build computes a large text's digests before the child's verdict, so before any check of its
    own: on a text the checks refuse, that must neither fail first nor change what the build says."""
    from generator.snapshot import snapshot as snapshot_module

    data = json.loads(_large_snapshot_text(LARGE))
    damage(data)
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SnapshotError) as alone:
        load_snapshot(path)
    monkeypatch.setattr(snapshot_module, "AHEAD_DIGESTS_BYTES", 1)
    _forking(monkeypatch)
    read_ahead(path)
    with pytest.raises(SnapshotError) as ahead:
        load_snapshot(path)
    assert str(ahead.value) == str(alone.value)


def test_a_read_ahead_nobody_claims_is_reaped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "snapshot.json"
    path.write_text(_large_snapshot_text(20), encoding="utf-8")
    forks = _forking(monkeypatch)
    read_ahead(path)
    read_ahead(path)  # once per file
    assert len(forks) == 1
    release()
    assert claim(path) is None
    with pytest.raises(ChildProcessError):
        os.waitpid(forks[0], os.WNOHANG)


@pytest.mark.parametrize(("jobs", "ahead"), [("1", False), ("2", True)])
def test_build_from_reads_ahead_unless_asked_for_one_process(
    jobs: str, ahead: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from generator.commands import cli

    started: list[Path] = []
    monkeypatch.setattr(cli, "read_ahead", started.append)
    code = cli.main(["build", "--from", str(GOLDEN), "--out", str(tmp_path / "site"), "--no-search", "--jobs", jobs])
    assert code == 0 and started == ([GOLDEN] if ahead else [])


def test_the_console_scripts_build_freezes_what_it_read_and_nothing_else_does() -> None:
    """A build keeps its snapshot to the end, so the console script's build freezes what the parse made (the
    collector never walks it again); a command that is not a build, and cli.main without tune_gc, do not."""
    code = """
        import gc, json, sys
        from generator.commands import cli
        from generator.snapshot.snapshot import load_snapshot
        from pathlib import Path
        tune, command = sys.argv[1] == "tune", sys.argv[2]
        args = ["build", "--from", sys.argv[3], "--out", sys.argv[4], "--no-search", "--jobs", "1"]
        if command == "build":
            cli.main(args, tune_gc=tune)
        else:  # reading a snapshot outside a build
            load_snapshot(Path(sys.argv[3]))
        print(gc.get_freeze_count())
    """
    import subprocess
    import sys
    import tempfile
    import textwrap

    with tempfile.TemporaryDirectory() as tmp:
        def frozen(tune: str, command: str) -> int:
            done = subprocess.run(
                [sys.executable, "-c", textwrap.dedent(code), tune, command, str(GOLDEN), str(Path(tmp) / tune)],
                capture_output=True, text=True, check=True, timeout=120,
            )  # fmt: skip
            return int(done.stdout.split()[-1])

        assert frozen("tune", "build") > 10_000
        assert frozen("plain", "build") == 0
        assert frozen("tune", "read") == 0


def test_a_pipe_is_never_read_ahead(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--from <(...)` names a pipe, which can be read once only: the build reads it, no child."""
    import threading as threads

    text = _large_snapshot_text(20)
    pipe = tmp_path / "snapshot.pipe"
    os.mkfifo(pipe)
    forks = _forking(monkeypatch)
    read_ahead(pipe)
    assert forks == [] and claim(pipe) is None

    def feed() -> None:
        with open(pipe, "w", encoding="utf-8") as handle:
            handle.write(text)

    writer = threads.Thread(target=feed)
    writer.start()
    snapshot = load_snapshot(pipe)
    writer.join()
    assert len(snapshot.tools) == 20
