"""Work taken in forked children (generator/forked.py) is the work this process would do.

- The survey of the previous site (generator/publish/survey.py): each test publishes a real small
  site through :func:`generator.publish.write.publish`, damages it by hand (an edited page, a
  removed one, a file we did not write, an empty directory), and compares the child's survey with
  one taken in this process.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from generator.forked import Forked, in_child, one_process_when
from generator.publish import survey as survey_module
from generator.publish.assemble import write_manifest
from generator.publish.cache import PUBLISHED
from generator.publish.staging import Staging
from generator.publish.survey import Survey, start_survey, survey
from generator.publish.write import publish
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
