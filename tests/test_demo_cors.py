"""The demo's opt-in CORS (``--cors-origin``): a page on that origin may call it from a browser, no other may.

The server runs as a real process over Streamable HTTP; the requests are the ones a browser makes
for a page on another origin: the preflight, then the POST with its ``Origin``.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from generator.demo.server import main as demo_main
from tests.conftest import wait_for_line, wait_until

REPO_ROOT = Path(__file__).resolve().parent.parent
DOCS = "https://docs.example.com"
ELSEWHERE = "https://elsewhere.example"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@contextlib.contextmanager
def _demo(*options: str) -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    argv = [sys.executable, "-m", "generator.demo", "--http", "--port", str(port), *options]
    proc = subprocess.Popen(argv, cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:

        def answers() -> bool:
            assert proc.poll() is None, "the demo ended before it answered"
            with contextlib.suppress(httpx.TransportError):
                return httpx.get(f"http://127.0.0.1:{port}/", timeout=1) is not None
            return False

        wait_until(answers, 30, "the demo did not start", every=0.1)
        yield f"http://127.0.0.1:{port}/mcp/"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _preflight(url: str, origin: str) -> httpx.Response:
    return httpx.options(
        url,
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type,mcp-protocol-version,mcp-method,mcp-name",
        },
    )


@pytest.mark.slow
def test_a_page_of_the_named_origin_may_call_the_demo_and_read_its_session() -> None:
    with _demo("--cors-origin", DOCS) as url:
        allowed = _preflight(url, DOCS)
        assert allowed.status_code == 200
        assert allowed.headers["access-control-allow-origin"] == DOCS
        assert "mcp-protocol-version" in allowed.headers["access-control-allow-headers"].lower()
        assert "access-control-allow-credentials" not in allowed.headers
        reply = httpx.post(url, json=INITIALIZE, headers={**HEADERS, "Origin": DOCS})
        assert reply.status_code == 200, reply.text
        assert reply.headers["access-control-allow-origin"] == DOCS
        assert "mcp-session-id" in reply.headers["access-control-expose-headers"].lower()
        assert reply.headers["mcp-session-id"]
        # Another origin gets no CORS answer, and the server refuses its POST.
        assert "access-control-allow-origin" not in _preflight(url, ELSEWHERE).headers
        assert httpx.post(url, json=INITIALIZE, headers={**HEADERS, "Origin": ELSEWHERE}).status_code == 403


@pytest.mark.slow
def test_without_the_option_no_other_origin_may_call_the_demo() -> None:
    with _demo() as url:
        assert "access-control-allow-origin" not in _preflight(url, DOCS).headers
        assert httpx.post(url, json=INITIALIZE, headers={**HEADERS, "Origin": DOCS}).status_code == 403
        assert httpx.post(url, json=INITIALIZE, headers=HEADERS).status_code == 200  # no Origin: not a browser page


@pytest.mark.parametrize(
    "origin", ["docs.example.com", "https://docs.example.com/", "https://x.example/path", "ftp://x"]
)
def test_an_option_that_is_not_an_origin_is_refused(origin: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "generator.demo", "--http", "--cors-origin", origin],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert f"--cors-origin {origin!r} is not an origin" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_with_a_token_every_profile_wants_it_and_a_page_can_read_the_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEMO_TOKEN", "t-123")
    with _demo("--cors-origin", DOCS, "--token-env", "DEMO_TOKEN") as url:
        assert _preflight(url, DOCS).status_code == 200  # a preflight carries no token, and needs none
        for where in (url, url + "readonly/"):
            refused = httpx.post(where, json=INITIALIZE, headers={**HEADERS, "Origin": DOCS})
            assert refused.status_code == 401 and refused.headers["access-control-allow-origin"] == DOCS
            wrong = httpx.post(where, json=INITIALIZE, headers={**HEADERS, "Authorization": "Bearer t-12"})
            assert wrong.status_code == 401
            good = httpx.post(where, json=INITIALIZE, headers={**HEADERS, "Authorization": "Bearer t-123"})
            assert good.status_code == 200, good.text
        assert httpx.get(url.removesuffix("mcp/")).status_code == 200  # the index page is no profile


def test_a_token_variable_that_is_not_set_is_refused() -> None:
    env = {k: v for k, v in os.environ.items() if k != "NO_SUCH_TOKEN"}
    done = subprocess.run(
        [sys.executable, "-m", "generator.demo", "--http", "--token-env", "NO_SUCH_TOKEN"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 2
    assert "--token-env NO_SUCH_TOKEN: that environment variable is empty or not set." in done.stderr


@pytest.mark.parametrize("port", ["70000", "-1", "0"])
def test_a_port_out_of_range_is_refused_in_one_line(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    # Before, uvicorn's bind raised OverflowError with a traceback.
    with pytest.raises(SystemExit) as done:
        demo_main(["--http", "--port", port])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --port: {port} is not a port: give a number from 1 to 65535" in err and "Traceback" not in err


@pytest.mark.slow
def test_on_ipv6_loopback_the_printed_address_is_a_url_that_answers(tmp_path: Path) -> None:
    with socket.socket(socket.AF_INET6) as probe:
        probe.bind(("::1", 0))  # the machine has IPv6 loopback (the test's subject needs it)
        port = probe.getsockname()[1]
    log = tmp_path / "demo.log"
    argv = [sys.executable, "-m", "generator.demo", "--http", "--host", "::1", "--port", str(port)]
    with open(log, "wb") as out:
        proc = subprocess.Popen(argv, cwd=REPO_ROOT, stdout=out, stderr=subprocess.STDOUT)
    try:
        url = wait_for_line(log, r"full: (\S+)", proc).group(1)
        assert url == f"http://[::1]:{port}/mcp/"  # before: http://::1:PORT/mcp/, which no client can open
        answered: list[int] = []

        def answers() -> bool:
            with contextlib.suppress(httpx.TransportError):  # listening a moment after the line is out
                answered.append(httpx.post(url, json=INITIALIZE, headers=HEADERS, timeout=5).status_code)
            return bool(answered)

        wait_until(answers, 30, "the demo did not answer at the address it printed", every=0.1)
        assert answered == [200]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
