"""Issue 35, the processes a build starts: real ``python -m generator`` processes, killed for real.

- A build killed by SIGTERM or SIGKILL while its workers render leaves no process behind within
  5 s (every process it started, found by a token in their environment and by walking /proc while
  it ran), no worker ever held the output's lock, and the next build into the same --out runs.
- SIGTERM during the demo build stops the demo's HTTP server with it.
- A render worker killed by SIGKILL (what the out-of-memory killer sends) fails the build with one
  paragraph naming the signal and memory, exit code 1.
- ``--jobs 200`` on a machine with fewer CPUs starts one worker per CPU and says so in one line; a container's
  CPU quota (cgroup v1 or v2) caps the workers the same way.
- ``build --watch`` stopped by SIGTERM just after a rebuild published says that --out holds the new
  site, exits 0, and leaves no ``.NAME.done-PID`` (or staging) directory.
- An --out on a read-only file system is refused naming that, not "remove the lock file".
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bench.scale_server import workload
from generator.snapshot.snapshot import new_snapshot
from tests.conftest import wait_until
from tests.golden_tool import SNAPSHOT as GOLDEN

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "MCP_PORTAL_PROCESS_TEST"
TOOLS = 400
"""Enough tools that two workers render for a few seconds (some 1,200 pages)."""


def _write_snapshot(path: Path, words: str = "") -> None:
    """A snapshot of the benchmark's realistic tools; *words* are added to the first tool's description."""
    tools = workload(TOOLS)
    tools[0] = {**tools[0], "description": tools[0]["description"] + words}
    snapshot = new_snapshot(
        protocol_version="2025-06-18",
        server={"name": "scale", "version": "1.0.0"},
        tools=tuple(tools),
        capability_version="1.0.0",
        transport="stdio",
        endpoint="scale",
    )
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(snapshot.to_json(), encoding="utf-8")
    os.replace(temporary, path)  # as an editor or introspect -o replaces it


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("snapshot") / "snapshot.json"
    _write_snapshot(path)
    return path


# --- processes, seen through /proc ----------------------------------------------------------------


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, start time) of *pid*, or None when there is no such process."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return fields[0], int(fields[1]), int(fields[19])


def _pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


class Started:
    """A ``python -m generator`` process marked with a random token in its environment, and every process
    it starts (its descendants, found by walking /proc while it runs: an orphan's parent changes)."""

    def __init__(self, tmp_path: Path, *argv: str) -> None:
        self.token = secrets.token_hex(16)
        self.log = tmp_path / f"log-{self.token}"
        self.tmp = tmp_path / f"tmp-{self.token}"
        """Its TMPDIR: what it leaves in the system's temporary directory, which no later build clears."""
        self.tmp.mkdir()
        with self.log.open("w", encoding="utf-8") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "generator", *argv],
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT), TOKEN: self.token, "TMPDIR": str(self.tmp)},
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.seen: dict[int, int] = {}
        """Descendant pid -> its start time (a pid reused later is another process)."""

    def text(self) -> str:
        return self.log.read_text(encoding="utf-8")

    def look(self) -> list[int]:
        """Note the descendants alive now; return its children."""
        table = {pid: found for pid in _pids() if (found := _stat(pid)) is not None}
        parents = {self.proc.pid, *self.seen}
        grew = True
        while grew:
            grew = False
            for pid, (_, parent, start) in table.items():
                if parent in parents and pid not in parents:
                    self.seen[pid] = start
                    parents.add(pid)
                    grew = True
        return [pid for pid, (state, parent, _) in table.items() if parent == self.proc.pid and state != "Z"]

    def left(self) -> list[int]:
        """The processes it started that are still alive (zombies are dead): descendants, and any
        process whose environment carries its token."""
        alive = [pid for pid, start in self.seen.items() if (s := _stat(pid)) and s[2] == start and s[0] != "Z"]
        for pid in _pids():
            with contextlib.suppress(OSError):
                if pid != self.proc.pid and self.token.encode() in Path(f"/proc/{pid}/environ").read_bytes():
                    found = _stat(pid)
                    if found is not None and found[0] != "Z" and pid not in alive:
                        alive.append(pid)
        return alive

    def wait_until(self, condition: Callable[[], bool], what: str, timeout: float = 120, every: float = 0.01) -> None:
        def held() -> bool:
            if condition():
                return True
            assert self.proc.poll() is None, f"it ended before {what}:\n{self.text()}"
            return False

        wait_until(held, timeout, lambda: f"no {what}:\n{self.text()}", every=every)

    def workers(self, count: int) -> list[int]:
        """Wait until it has *count* children (its render workers); their pids."""
        children: list[int] = []

        def enough() -> bool:
            children[:] = self.look()
            return len(children) >= count

        self.wait_until(enough, f"{count} render workers")
        return children

    def end(self) -> None:
        """Kill, by pid, whatever of it is still alive (old code leaves workers and servers behind)."""
        if self.proc.poll() is None:
            self.look()
            self.proc.kill()
        self.proc.wait(timeout=30)
        for pid in self.left():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@contextlib.contextmanager
def started(tmp_path: Path, *argv: str) -> Iterator[Started]:
    run = Started(tmp_path, *argv)
    try:
        yield run
    finally:
        run.end()


def _none_left(run: Started, seconds: float = 5.0) -> None:
    def described() -> str:
        found = {}
        for pid in run.left():
            with contextlib.suppress(OSError):
                found[pid] = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        return f"still running after the build died: {found}"

    wait_until(lambda: not run.left(), seconds, described)


def _placed(parent: Path) -> bool:
    """Whether a build under *parent* has placed its new site and not yet tidied the old one away."""
    return any(p.name.startswith(".site.done-") for p in os.scandir(parent))


def _locks_held(pid: int) -> list[str]:
    """The locks the kernel lists for the open files of *pid* (``lock:`` lines of /proc/PID/fdinfo)."""
    found = []
    for info in Path(f"/proc/{pid}/fdinfo").glob("*"):
        with contextlib.suppress(OSError):
            found += [line for line in info.read_text().splitlines() if line.startswith("lock:")]
    return found


def _staged_pages(parent: Path) -> int:
    """How many tool pages the build has written into its staging directories under *parent* so far."""
    return sum(1 for staging in parent.glob(".site.*") if staging.is_dir() for _ in staging.glob("*/tools/*"))


def _leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith(".site.") and p.name != ".site.lock")


# --- item 4: a killed build leaves nothing running --------------------------------------------------


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_build_killed_while_rendering_leaves_no_process_and_the_next_build_runs(
    tmp_path: Path, big: Path, signum: int
) -> None:
    site = tmp_path / "site"
    argv = ("build", "--from", str(big), "--out", str(site), "--jobs", "2", "--no-search")
    with started(tmp_path, *argv) as run:
        workers = run.workers(2)
        run.wait_until(lambda: _staged_pages(tmp_path) > 0, "a page written by the workers")  # rendering
        for worker in workers:  # the output's lock is the build's alone: no worker holds it
            assert _locks_held(worker) == [], f"worker {worker} holds a lock"
        assert _locks_held(run.proc.pid), "the build holds the output's lock"
        run.look()
        run.proc.send_signal(signum)
        assert run.proc.wait(timeout=30) == -signum  # after SIGTERM too: it ends by the signal once it cleaned up
        _none_left(run)
        # Its scratch files (llms-full.txt's fragments) are in its staging directory, never in the system's.
        assert list(run.tmp.iterdir()) == []
        if signum == signal.SIGTERM:  # a stop it can see: it removes its staging directory and says so
            assert _leftovers(tmp_path) == []
            assert run.text().endswith("mcp-portal: stopped by SIGTERM; the previous site is unchanged.\n"), run.text()
        else:  # a kill it cannot see: the next build removes what it left
            assert _leftovers(tmp_path), "the killed build left no staging directory for the next one to clear"
    # The next build into the same output: the demo's few tools are enough to show it takes the lock,
    # clears what the killed one left and publishes.
    again = subprocess.run(
        [sys.executable, "-m", "generator", "build", "--from", str(GOLDEN), *argv[3:]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert again.returncode == 0, again.stderr
    assert (site / "manifest.json").is_file()
    assert _leftovers(tmp_path) == []


def _accepting(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
        return True
    return False


def test_sigterm_during_the_demo_build_stops_the_demo_servers(tmp_path: Path) -> None:
    with started(tmp_path, "build", "--out", str(tmp_path / "site"), "--no-search") as run:
        ports: list[int] = []

        def serving() -> bool:
            run.look()
            for pid in run.seen:
                with contextlib.suppress(OSError, ValueError):
                    argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
                    if any("generator.demo" in a for a in argv) and "--port" in argv:
                        ports[:] = [int(argv[argv.index("--port") + 1])]
            return bool(ports) and _accepting(ports[0])

        run.wait_until(serving, "demo HTTP server listening")
        run.look()
        run.proc.send_signal(signal.SIGTERM)
        assert run.proc.wait(timeout=30) == -signal.SIGTERM
        _none_left(run)
        assert not _accepting(ports[0])
        assert "Traceback" not in run.text()  # a stop while it talks to a server ends it at once, as before


# --- item 14: a worker killed under the build ------------------------------------------------------


def test_a_render_worker_killed_by_sigkill_is_named_with_memory_as_the_likely_cause(tmp_path: Path, big: Path) -> None:
    site = tmp_path / "site"
    with started(tmp_path, "build", "--from", str(big), "--out", str(site), "--jobs", "2", "--no-search") as run:
        worker = run.workers(2)[0]
        os.kill(worker, signal.SIGKILL)  # what the kernel's out-of-memory killer sends
        code = run.proc.wait(timeout=60)
        _none_left(run)
    err = run.text()
    assert code == 1, err
    assert "mcp-portal: error: A render worker" in err
    assert "SIGKILL" in err and "memory" in err
    assert "internal error" not in err and "Traceback" not in err
    assert not site.exists() and _leftovers(tmp_path) == []


# --- item 17: no more workers than CPUs --------------------------------------------------------------


def test_jobs_beyond_the_cpus_is_capped_and_said_in_one_line(tmp_path: Path, big: Path) -> None:
    cpus = len(os.sched_getaffinity(0))
    site = tmp_path / "site"
    most = 0
    # One locale: the build needs only to last long enough for its workers to be counted.
    argv = ("build", "--from", str(big), "--out", str(site), "--jobs", "200", "--no-search", "--locales", "en")
    with started(tmp_path, *argv) as run:
        while True:  # count the workers every 20 ms until the build ends
            most = max(most, len(run.look()))
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = run.proc.wait(timeout=0.02)
                break
    text = run.text()
    assert code == 0, text
    assert 0 < most <= cpus, f"{most} worker processes on {cpus} CPUs"
    said = [line for line in text.splitlines() if "--jobs 200" in line]
    assert said == [f"mcp-portal: --jobs 200 is more than the {cpus} CPU(s) this process may use; "
                    f"rendering with {cpus} worker(s)."]  # fmt: skip


# A container's CPU quota, as the container sees it: its own control group mounted at /sys/fs/cgroup. In a
# mount namespace of its own, the build sees a real cgroup v1 group with a real quota (the kernel's files;
# this machine's kernel has its cpu controller on v1), or, for cgroup v2's cpu.max, which this kernel does not
# offer, a file of that format on a tmpfs: the one thing no real part can play here.
_IN_V1_GROUP = """
set -e
group=/sys/fs/cgroup/cpu/mcp-portal-test-$$
mkdir "$group"
echo 100000 > "$group/cpu.cfs_period_us"
echo "$QUOTA" > "$group/cpu.cfs_quota_us"
echo $$ > "$group/cgroup.procs"
mount --bind "$group" /sys/fs/cgroup/cpu
set +e
"$@"
code=$?
umount /sys/fs/cgroup/cpu
echo $$ > /sys/fs/cgroup/cpu/cgroup.procs
rmdir "$group"
exit $code
"""
_IN_V2_VIEW = """
set -e
mount -t tmpfs tmpfs /sys/fs/cgroup
printf '%s 100000\\n' "$QUOTA" > /sys/fs/cgroup/cpu.max
exec "$@"
"""


@pytest.mark.parametrize(
    ("script", "quota", "cpus"),
    [(_IN_V1_GROUP, "100000", 1), (_IN_V1_GROUP, "-1", None), (_IN_V2_VIEW, "50000", 1), (_IN_V2_VIEW, "max", None)],
    ids=["v1 one cpu", "v1 no quota", "v2 half a cpu", "v2 max"],
)
def test_a_containers_cpu_quota_caps_the_workers(tmp_path: Path, script: str, quota: str, cpus: int | None) -> None:
    """Inside a container limited to one CPU's worth of time (``docker run --cpus 1``, a Kubernetes limit), a
    build starts one worker, however many cores the host has: it once started one per core of the host."""
    argv = [sys.executable, "-m", "generator", "build", "--from", str(GOLDEN), "--out", str(tmp_path / "site"),
            "--jobs", "2", "--no-search", "--locales", "en"]  # fmt: skip
    done = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "bash", "-c", script, "bash", *argv],
        env={**os.environ, "QUOTA": quota}, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    capped = [line for line in done.stderr.splitlines() if "--jobs 2" in line]
    if cpus is None:
        assert capped == [], done.stderr
    else:
        assert capped == [f"mcp-portal: --jobs 2 is more than the {cpus} CPU(s) this process may use; "
                          f"rendering with {cpus} worker(s)."], done.stderr  # fmt: skip


# --- item 9: a watch stopped just after a rebuild published ----------------------------------------


def test_a_watch_stopped_just_after_a_rebuild_published_says_so_and_leaves_nothing(tmp_path: Path, big: Path) -> None:
    source, site = tmp_path / "snapshot.json", tmp_path / "site"
    shutil.copyfile(big, source)
    argv = ("build", "--from", str(source), "--out", str(site), "--no-search", "--watch", "--quiet")
    with started(tmp_path, *argv) as run:
        run.wait_until(lambda: "Watching" in run.text(), "first build")
        caught = ""
        for attempt in range(1, 6):  # each edit is one rebuild; the stop must fall just after it published
            marker = f"Edited while watching, take {attempt}."
            _write_snapshot(source, " " + marker)

            def placed_or_done(attempt: int = attempt) -> bool:
                return _placed(tmp_path) or run.text().count("Watching") > attempt

            run.wait_until(placed_or_done, "the rebuild", every=0.001)
            if _placed(tmp_path):
                run.proc.send_signal(signal.SIGTERM)  # the rebuild placed its change: the site is out
                caught = marker
                break
        assert caught, f"no rebuild was seen between publishing and tidying up:\n{run.text()}"
        code = run.proc.wait(timeout=60)
    text = run.text()
    assert code == 0, text
    assert "the previous site is unchanged" not in text
    assert f"so {site} holds the new site." in text.splitlines()[-1]
    assert _leftovers(tmp_path) == []
    assert any(caught in path.read_text(encoding="utf-8") for path in site.rglob("*.md"))


# --- item 15: a read-only file system ---------------------------------------------------------------


def test_an_out_on_a_read_only_file_system_names_it(tmp_path: Path) -> None:
    """A read-only tmpfs mounted in a mount namespace of the build's own (root only), so nothing of it
    outlives the command."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("mounting a read-only file system needs root and unshare(1)")
    place = tmp_path / "readonly"
    place.mkdir()
    script = 'mount -t tmpfs -o ro,size=1m tmpfs "$1" && shift && exec "$@"'
    command = [sys.executable, "-m", "generator", "build", "--from", str(GOLDEN), "--out", str(place / "site")]
    run = subprocess.run(
        ["unshare", "--mount", "sh", "-c", script, "sh", str(place), *command],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if run.returncode != 1 and "mount" in run.stderr:
        pytest.skip(f"cannot mount here: {run.stderr.strip()}")
    assert run.returncode == 1, run.stderr
    err = " ".join(run.stderr.split())
    assert err.startswith(
        f"mcp-portal: error: Cannot build into {place / 'site'}: {place} is on a read-only file system"
    )
    assert "Remove" not in err and "Traceback" not in err
