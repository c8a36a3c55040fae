"""The survey of the previous site, taken in a forked child while the pages are modelled
(generator/publish/survey.py): the same survey as the parent would take, whichever process takes it.

Each test publishes a real small site through :func:`generator.publish.write.publish`, damages it
by hand (an edited page, a removed one, a file we did not write, an empty directory), and
compares the child's survey with one taken in this process.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from generator.publish import survey as survey_module
from generator.publish.assemble import write_manifest
from generator.publish.cache import PUBLISHED
from generator.publish.staging import Staging
from generator.publish.survey import Pending, Survey, start_survey, survey
from generator.publish.write import publish
from tests.test_inplace import _site


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

    monkeypatch.setattr(survey_module.os, "fork", fork)
    monkeypatch.setattr(survey_module.threading, "active_count", lambda: 1)
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
    monkeypatch.setattr(survey_module.os, "fork", lambda: forks.append(1) or 0)
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
    assert Pending(Survey).result() == Survey()
