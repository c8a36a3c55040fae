"""Shared fixtures: real servers on real transports, and a CLI runner.

Nothing here mocks MCP. Servers are started as subprocesses (stdio, or
Streamable HTTP on 127.0.0.1 with a free port) and always stopped afterwards.
"""

from __future__ import annotations

import contextlib
import gc
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from generator.cache.reuse import ThemeRenderer
from generator.commands.cli import main
from generator.demo.launch import running_http_demo

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
NODE_BIN = TESTS / "node_modules" / ".bin"

SLOW_MODULES = frozenset({
    "accessibility", "action", "advice_errors", "assemble", "browser", "build", "build_properties", "cache", "check",
    "ci_workflow", "cli", "demo_server", "discovery_site", "docs_server", "encodings", "fast_paths", "fidelity",
    "forked", "golden", "hostile", "hosting", "hosting_mcp", "html_validity", "introspect", "links", "lint_page",
    "lint_servers", "llms_full", "optional_methods", "overlays_changes", "overrides", "page_weight", "product",
    "prove", "publish", "reader", "rtl_runs", "schema_properties", "search", "search_order", "search_reuse", "secrets",
    "sequences", "serve_limits", "shown", "slug_collisions", "snapshot_mutations", "startup", "trust_cache",
    "trust_inputs", "trust_json", "trust_processes", "trust_replies", "trust_symlinks", "try_it", "try_it_browser",
    "try_it_serve", "versioned", "versions_browser", "watch", "wheel", "xss",
})  # fmt: skip
"""The test modules (``tests/test_NAME.py``) marked ``slow``: they build whole sites, start real servers, browsers
or the CLI as a process. ``scripts/test --fast`` leaves them out; a new module is fast until it is listed here."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test of :data:`SLOW_MODULES` ``slow``."""
    for item in items:
        if item.path.stem.removeprefix("test_") in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Move everything collection made (modules, thousands of test items) out of the garbage collector's
    reach: they live to the end, and every full collection would walk them again."""
    gc.collect()
    gc.freeze()


PYTHON = sys.executable
TEMPLATES = ThemeRenderer()
"""The compiled templates of this test process's in-process builds (the ``cli`` fixture's, and those given
``renderer=TEMPLATES``): compiling them is about two thirds of a small build, and a renderer kept from one
build to the next gives the same bytes (tests/test_watch.py compares a watch's rebuilds with fresh builds).
Builds run as a child process compile their own."""
CHROMIUM = Path("/usr/bin/chromium")
# Debian's chromium, headless, as root, on a machine whose only network is loopback.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def node_bin(name: str) -> str:
    """Path of an npm-installed server binary; the test fails, naming the fix, when scripts/test did not install it."""
    path = NODE_BIN / name
    if not path.exists():
        pytest.fail(f"{path} is missing: run scripts/test, which installs tests/package.json")
    return str(path)


def venv_bin(name: str) -> str:
    """A console script installed beside this Python (the PyPI test servers)."""
    path = Path(PYTHON).parent / name
    found = str(path) if path.exists() else shutil.which(name)
    if not found:
        pytest.fail(f"{name} is not installed: run scripts/test, which installs tests/requirements-servers.txt")
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(
    condition: Callable[[], object], seconds: float, what: str | Callable[[], str], every: float = 0.05
) -> None:
    """Wait for *condition* to hold, asking it every *every* seconds; fail the test with *what* (a message,
    or a function that makes one then) when *seconds* pass first. The one place a test polls: a test waits
    for the event it needs (a line, a file, a port, a process), never for a guessed time."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"not within {seconds} s: {what if isinstance(what, str) else what()}")
        time.sleep(every)


def listening(port: int) -> bool:
    """Whether something accepts connections on 127.0.0.1:*port*."""
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
        return True
    return False


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    def ready() -> bool:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited early with {proc.returncode}")
        return listening(port)

    wait_until(ready, timeout, f"nothing listened on 127.0.0.1:{port}", every=0.1)


@contextlib.contextmanager
def http_server(argv: list[str], port: int, env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """Run a server subprocess that listens on *port*; always terminate it."""
    proc = subprocess.Popen(
        argv,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_for_port(port, proc)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def serving(site: Path) -> Iterator[str]:
    """Serve a built site with ``generator.commands.serve`` on a free port of 127.0.0.1; yields its base URL."""
    from generator.commands.serve import make_server

    server = make_server(site, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


STARTUP = 60.0
"""How long a process started by a test may take to say it is ready."""


def wait_for_line(log: Path, pattern: str, proc: subprocess.Popen[bytes]) -> re.Match[str]:
    """The first line of *log* (a process's output file) that matches *pattern*, within *STARTUP* seconds."""
    found: list[re.Match[str]] = []

    def seen() -> bool:
        found[:] = [m for m in [re.search(pattern, log.read_text(encoding="utf-8", errors="replace"))] if m]
        if not found and proc.poll() is not None:
            pytest.fail(f"the process ended with {proc.returncode}: {log.read_text(errors='replace')[-800:]}")
        return bool(found)

    wait_until(seen, STARTUP, lambda: f"no line matching {pattern!r}: {log.read_text(errors='replace')[-800:]}")
    return found[0]


@contextlib.contextmanager
def running(argv: list[str], log: Path, pattern: str) -> Iterator[str]:
    """Run ``python -m generator ARGV`` with its output in *log*; yield the address its line names."""
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "generator", *argv], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        yield wait_for_line(log, pattern, proc).group(1)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's chromium driven by Playwright (never a downloaded browser), one instance per test module.

    Per module, not per session: Playwright's sync API keeps an event loop running in this thread
    while it is open, and the in-process CLI runs of other modules need that thread free for theirs.
    """
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/test, which installs Debian's chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield instance
        finally:
            instance.close()


@pytest.fixture(scope="session")
def demo_url() -> Iterator[str]:
    """The bundled demo over Streamable HTTP; yields the base URL (``http://127.0.0.1:PORT``).

    Started the way ``mcp-portal build`` starts it, so the tests exercise that path too.
    """
    with running_http_demo() as base:
        yield base


@pytest.fixture(scope="session")
def everything_url() -> Iterator[str]:
    """@modelcontextprotocol/server-everything over streamableHttp; yields its /mcp URL."""
    port = free_port()
    with http_server([node_bin("mcp-server-everything"), "streamableHttp"], port, {"PORT": str(port)}):
        yield f"http://127.0.0.1:{port}/mcp"


@dataclass
class Run:
    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """Run ``mcp-portal`` in-process: ``cli("build", "--out", str(path))`` -> Run(code, out, err)."""

    def run(*argv: str) -> Run:
        code = main(list(argv), renderer=TEMPLATES)
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under *root* with its bytes, keyed by POSIX relative path."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
