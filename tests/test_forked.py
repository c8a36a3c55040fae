"""Processes: ``--jobs 1`` starts none, ``--jobs 2`` starts its render workers, and the survey of the
previous site finds what a publish needs.

The process tests run the command line as a child under ``strace -f``, which logs every process the
command starts (``clone``, ``clone3``, ``fork``, ``vfork``, ``execve``), so they see exactly what a
user's build does; they are skipped where ``strace`` is missing (``scripts/test`` installs it).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from generator.cache.reuse import Published
from generator.errors import PortalError
from generator.forked import in_workers
from generator.publish.staging import Staging
from generator.publish.survey import survey
from generator.publish.write import publish
from generator.site.assemble import write_manifest
from tests.conftest import ROOT, wait_until
from tests.test_inplace import _site
from tests.test_publish import GOLDEN

STRACE = shutil.which("strace")
needs_strace = pytest.mark.skipif(STRACE is None, reason="strace is not installed (scripts/test installs it)")


def _started(tmp_path: Path, *argv: str) -> tuple[int, list[str]]:
    """Run ``python -m generator ARGV`` under strace; its exit code and the calls that started a process."""
    log = tmp_path / "strace.log"
    done = subprocess.run(
        [STRACE or "strace", "-f", "-qq", "-e", "trace=clone,clone3,fork,vfork", "-o", str(log),
         sys.executable, "-m", "generator", *argv],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    calls = [line for line in log.read_text(encoding="utf-8").splitlines() if re.search(r"\b(v?fork|clone3?)\(", line)]
    # A thread is a clone with CLONE_THREAD: it is not a process.
    return done.returncode, [line for line in calls if "CLONE_THREAD" not in line]


@needs_strace
def test_build_and_check_with_jobs_1_start_no_process(tmp_path: Path) -> None:
    """Without search: with it, the build runs Pagefind, a program of its own."""
    out = tmp_path / "site"
    common = ["--from", str(GOLDEN), "--out", str(out), "--jobs", "1", "--no-search"]
    code, started = _started(tmp_path, "build", *common)
    assert code == 0 and (out / "en" / "index.html").is_file()
    assert started == [], started
    code, started = _started(tmp_path, "check", *common)
    assert code == 0  # no drift
    assert started == [], started


@needs_strace
def test_build_with_jobs_2_starts_its_workers(tmp_path: Path) -> None:
    out = tmp_path / "site"
    code, started = _started(tmp_path, "build", "--from", str(GOLDEN), "--out", str(out), "--jobs", "2", "--no-search")
    assert code == 0 and (out / "en" / "index.html").is_file()
    assert len(started) >= 2, started  # the two render workers (the pool may start a helper too)


def test_the_console_script_prints_its_report_before_it_ends(tmp_path: Path) -> None:
    """A build ends without tearing its heap down (generator.heap.end_now): its last line and its
    site must still be out, to a pipe as to a file."""
    out = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "generator", "build", "--from", str(GOLDEN), "--out", str(out), "--no-search"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Built ") and done.stdout.endswith(").\n")
    assert json.loads((out / "manifest.json").read_text(encoding="utf-8"))["files"]


def _die_on_the_first_chunk(chunk: int, index: int) -> int:
    """In a render worker: SIGKILL itself on chunk 0, as the out-of-memory killer would."""
    if index == 0:
        os.kill(os.getpid(), signal.SIGKILL)
    return chunk


def _fail_once_the_other_runs(chunk: Path, index: int) -> int:
    """In a render worker: chunk 1 says it runs and waits for its parent to end it; chunk 0 then fails."""
    if index == 1:
        chunk.touch()
        signal.pause()
    wait_until((chunk.parent / "1").exists, 60, "the other worker to start its chunk")
    raise ValueError("a template failed")


def test_a_worker_ended_by_its_parent_prints_nothing_whatever_sigterm_handler_the_parent_has(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """``build --watch`` turns SIGTERM into a stop; the workers it forks must not inherit that, or the
    parent's ``terminate`` after a failed chunk makes each worker still running print a traceback."""

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, stop)
    try:
        with pytest.raises(ValueError, match="a template failed"):
            in_workers(_fail_once_the_other_runs, [tmp_path / "0", tmp_path / "1"], 2, lambda value: None)
    finally:
        signal.signal(signal.SIGTERM, before)
    err = capfd.readouterr().err
    assert (tmp_path / "1").exists()  # the other worker was running when the first failed
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err


def test_a_worker_killed_while_the_chunks_are_still_being_handed_out_is_named_by_its_signal() -> None:
    # The worker dies while this process is still submitting 20,000 chunks, before the pool is done
    # starting: the report must still name SIGKILL (the pool's SIGTERM to the other worker is not the cause).
    with pytest.raises(PortalError) as caught:
        in_workers(_die_on_the_first_chunk, list(range(20_000)), 2, lambda value: None)
    assert "was killed by SIGKILL" in str(caught.value)
    assert "out-of-memory" in str(caught.value)


def _pid(chunk: object, index: int) -> int:
    """In a render worker: answer with this worker's process id."""
    return os.getpid()


def _dead(pid: int) -> bool:
    """Whether the child *pid* has exited (a zombie, not yet reaped): the kernel has closed its pipes."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] in "ZX"
    except OSError:
        return True


def test_a_worker_killed_between_chunks_is_named_by_its_signal() -> None:
    # The worker dies after sending a value and before the next chunk reaches it: handing it that chunk
    # meets a closed pipe (EPIPE), which must be reported as the lost worker, not as a failed write.
    def kill(pid: int) -> None:
        os.kill(pid, signal.SIGKILL)
        wait_until(lambda: _dead(pid), 30, f"worker {pid} to die")

    with pytest.raises(PortalError) as caught:
        in_workers(_pid, [None] * 6, 1, kill)
    assert "was killed by SIGKILL" in str(caught.value)


def test_a_worker_killed_with_a_chunk_it_had_not_read_is_named_by_its_signal() -> None:
    # Worker A answers chunk 0 and is stopped, so the chunk handed to it next stays unread; worker B, held
    # on chunk 1 until then, answers, and A is killed: the pipe to A is reset (ECONNRESET), which must be
    # reported as the lost worker too.
    held = multiprocessing.get_context("fork").Event()
    stopped: list[int] = []

    def stop_then_kill(pid: int) -> None:
        if not stopped:
            os.kill(pid, signal.SIGSTOP)
            stopped.append(pid)
            held.set()
        elif pid != stopped[0]:
            os.kill(stopped[0], signal.SIGKILL)
            wait_until(lambda: _dead(stopped[0]), 30, f"worker {stopped[0]} to die")

    def held_on_chunk_1(chunk: int, index: int) -> int:  # the event is inherited through the fork
        if index == 1:
            held.wait(60)
        return os.getpid()

    with pytest.raises(PortalError) as caught:
        in_workers(held_on_chunk_1, [0, 1, 2, 3], 2, stop_then_kill)
    assert "was killed by SIGKILL" in str(caught.value)


def test_the_survey_finds_kept_edited_and_intact_files(tmp_path: Path) -> None:
    """A published site with a signature record, then edited by hand: an edited page, a removed one, a
    file mcp-portal did not write and an empty directory."""
    site, record = tmp_path / "site", Published(tmp_path / "cache")

    def produce(staging: Staging) -> None:
        for path, data in sorted(_site().items()):
            staging.write(path, data)
        write_manifest(staging, {"capability_version": "1", "fingerprint": "sha256:0"})

    publish(site, produce, record=record)
    (site / "en/tools/t00/index.html").write_bytes(b"edited by hand")
    (site / "en/tools/t01/index.html").unlink()
    (site / "CNAME").write_text("docs.example.com\n", encoding="utf-8")
    (site / "drafts").mkdir()
    listed = json.loads((site / "manifest.json").read_text(encoding="utf-8"))["files"]
    found = survey(site, listed, record)
    assert [e.path for e in found.kept] == ["CNAME", "drafts", "en/tools/t01"]  # t01 left empty
    assert found.edited == ["en/tools/t00/index.html"]
    assert "en/tools/t01/index.html" not in found.intact and "en/tools/t02/index.html" in found.intact
    assert found.intact["manifest.json"] and set(found.signatures) == set(found.intact) - {"manifest.json"}
