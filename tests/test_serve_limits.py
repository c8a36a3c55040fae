"""The preview under load and at its end (issue 47): ``mcp-portal serve`` and ``serve --try-it`` as processes.

- 1,500 half-open connections (slowloris) neither stop the preview nor hold a thread each: at most
  ``MAX_CONNECTIONS`` are served at once, one more gets ``503`` at once, and a silent connection is
  closed after ``CONNECTION_TIMEOUT`` seconds, after which the preview answers again;
- 16 Try it calls at once are all answered, none reset, with at most ``MAX_CALLS`` stdio servers
  running at a time;
- a call nested 100,000 levels deep, or naming a key twice, gets ``400`` and no traceback;
- SIGTERM ends the preview as Ctrl-C does: its temporary site is removed and it exits 0.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from generator.commands.serve import CONNECTION_TIMEOUT, MAX_CALLS, MAX_CONNECTIONS, START_PATH
from generator.publish.write import publish
from generator.snapshot.snapshot import load_snapshot
from tests.conftest import PYTHON, ROOT, TEMPLATES, free_port, wait_until
from tests.golden_tool import SNAPSHOT, golden_files

CALL = {"name": "search_chat", "arguments": {"query": "report"}}


@dataclass
class Preview:
    """A ``serve`` process: its base URL, run token (``--try-it``), stderr file and temporary directory."""

    proc: subprocess.Popen[str]
    base: str
    token: str
    stderr: Path
    tmpdir: Path

    def threads(self) -> int:
        status = Path(f"/proc/{self.proc.pid}/status").read_text(encoding="utf-8")
        return int(re.search(r"^Threads:\s+(\d+)", status, re.M).group(1))  # type: ignore[union-attr]

    def children(self) -> int:
        """The processes this preview started that are running now (the demo's HTTP server, stdio servers)."""
        found = 0
        for task in Path(f"/proc/{self.proc.pid}/task").iterdir():
            with contextlib.suppress(OSError):
                found += len((task / "children").read_text(encoding="utf-8").split())
        return found


@contextlib.contextmanager
def _serving(tmp_path: Path, *argv: str) -> Iterator[Preview]:
    """``python -m generator serve ARGV`` on a free port, with its own TMPDIR; stopped at the end."""
    port, stderr, tmpdir = free_port(), tmp_path / "stderr.txt", tmp_path / "tmp"
    tmpdir.mkdir()
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    command = [PYTHON, "-m", "generator", "serve", "--port", str(port), *argv]
    with stderr.open("w", encoding="utf-8") as errors:
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=errors, text=True)
    try:
        assert proc.stdout is not None
        line = ""
        while "Serving" not in line:
            line = proc.stdout.readline()
            assert line, f"serve ended before it served: {stderr.read_text(encoding='utf-8')}"
        found = re.search(r"at (http://\S+) \(Ctrl\+C to stop\)", line)
        assert found, line
        parts = urlsplit(found.group(1))
        yield Preview(proc, f"http://{parts.netloc}", parts.fragment.removeprefix("try-it="), stderr, tmpdir)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("limits") / "site"
    publish(out, golden_files(load_snapshot(SNAPSHOT), TEMPLATES))
    return out


@pytest.fixture(scope="module")
def try_it(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Preview]:
    with _serving(tmp_path_factory.mktemp("try-it"), "--try-it") as preview:
        # The address is out before the site is built (issue 52): the proxy answers calls once the start
        # page leads to the first panel.
        _deadline_until(lambda: _built(preview), 180, f"the preview's site was not built: {preview.stderr}")
        yield preview


def _built(preview: Preview) -> bool:
    return httpx.get(preview.base + START_PATH, timeout=30).status_code == 303


def _half_open(port: int) -> socket.socket:
    """A connection that starts a request and never finishes it."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
    return sock


def _deadline_until(condition: Callable[[], object], seconds: float, what: str) -> None:
    wait_until(condition, seconds, what, every=0.2)


def test_half_open_connections_neither_stop_the_preview_nor_hold_a_thread_each(tmp_path: Path, site: Path) -> None:
    with _serving(tmp_path, "--out", str(site)) as preview:
        port = int(urlsplit(preview.base).port or 0)
        held = [_half_open(port) for _ in range(1500)]
        try:
            assert preview.proc.poll() is None
            assert preview.threads() <= MAX_CONNECTIONS + 4, preview.threads()
            started = time.monotonic()
            busy = httpx.get(preview.base + "/en/", timeout=5)  # answered at once, not left to hang
            assert busy.status_code in (200, 503) and time.monotonic() - started < 5
            if busy.status_code == 503:
                assert "too many connections" in busy.text

            def serves() -> bool:
                with contextlib.suppress(httpx.HTTPError):
                    return httpx.get(preview.base + "/en/", timeout=5).status_code == 200
                return False

            # Every held connection is either refused at once or closed after its silence: the page comes back.
            _deadline_until(serves, CONNECTION_TIMEOUT + 30, "the preview never answered again")
            closed = 0
            for sock in held:
                sock.settimeout(5)
                with contextlib.suppress(OSError):
                    data = sock.recv(4096)
                    closed += data == b"" or data.startswith(b"HTTP/1.1 503") or data.startswith(b"HTTP/1.0 408")
            assert closed == len(held)
            assert preview.proc.poll() is None and preview.threads() <= 4
        finally:
            for sock in held:
                sock.close()


def test_sixteen_calls_at_once_are_all_answered_a_few_at_a_time(try_it: Preview) -> None:
    url = try_it.base + "/.mcp-portal/try-it/stdio"
    headers = {"Mcp-Portal-Run": try_it.token, "Content-Type": "application/json"}
    most, done = [0], threading.Event()

    def watch() -> None:  # counts the children every 50 ms until the answers are in
        while not done.wait(0.05):
            most[0] = max(most[0], try_it.children())

    with ThreadPoolExecutor(max_workers=17) as pool:
        watcher = pool.submit(watch)
        answers = list(pool.map(lambda _: httpx.post(url, json=CALL, headers=headers, timeout=300), range(16)))
        done.set()
        watcher.result()
    assert [a.status_code for a in answers] == [200] * 16
    assert all(a.json()["result"]["isError"] is False for a in answers)
    assert 1 < most[0] <= MAX_CALLS + 1  # the stdio servers of the calls, and the demo's HTTP server


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b'{"name": "search_chat", "arguments": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested too deeply"),
        (b'{"name": "search_chat", "name": "file_defect", "arguments": {}}', "names a key twice"),
    ],
)
def test_a_call_no_tool_call_looks_like_gets_400_and_no_traceback(try_it: Preview, body: bytes, words: str) -> None:
    headers = {"Mcp-Portal-Run": try_it.token, "Content-Type": "application/json"}
    answer = httpx.post(try_it.base + "/.mcp-portal/try-it/stdio", content=body, headers=headers, timeout=30)
    assert answer.status_code == 400 and words in answer.text
    assert "Traceback" not in try_it.stderr.read_text(encoding="utf-8")


@pytest.mark.parametrize("try_it_flag", [True, False])
def test_sigterm_removes_the_temporary_site_and_ends_cleanly(tmp_path: Path, site: Path, try_it_flag: bool) -> None:
    argv = ("--try-it",) if try_it_flag else ("--out", str(site))
    with _serving(tmp_path, *argv) as preview:
        made = sorted(p.name for p in preview.tmpdir.iterdir())
        if try_it_flag:
            assert [n for n in made if n.startswith("mcp-portal-try-it-")], made
        preview.proc.send_signal(signal.SIGTERM)
        code = preview.proc.wait(timeout=30)
    assert code == 0, preview.stderr.read_text(encoding="utf-8")
    assert sorted(p.name for p in preview.tmpdir.iterdir()) == [], "the preview left its temporary files"
    assert "Traceback" not in preview.stderr.read_text(encoding="utf-8")


def test_the_limits_are_what_the_docs_say() -> None:
    text = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    assert f"{MAX_CONNECTIONS} connections" in text and f"{MAX_CALLS} Try it calls" in text
    assert f"{CONNECTION_TIMEOUT:g} seconds" in text
