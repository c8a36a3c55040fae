"""What a server sends is bounded and labelled: replies are cut off at a size, and its text is marked as data.

* ``--max-reply-bytes``: a Streamable HTTP reply is counted after decompression while it is read.
  A real HTTP server on 127.0.0.1 answers the first POST with a gzip bomb (10 MiB of zeros, or of
  SSE comment lines, per 10 to 20 KB on the wire, decoding to 4 GiB); ``mcp-portal introspect`` runs as a
  child process, so its exit code, its stderr, its time and its peak memory are the real ones. Normal replies, plain
  and gzip-compressed, still work (the bundled demo, directly and behind a compressing proxy).
* A URL that answers with something other than MCP (a web page, another JSON API, an empty event stream, a
  redirect, a rate limit, a gateway error, a session lost behind a load balancer, a certificate not trusted) is
  named as such, not as an error the server sent.
* The notice that the server's text is untrusted data, not instructions: said once at the head of
  every ``llms.txt`` and ``llms-full.txt``, and as a front-matter field of every twin, in each locale.
"""

from __future__ import annotations

import contextlib
import gzip
import itertools
import json
import os
import resource
import signal
import ssl
import subprocess
import threading
import time
import urllib.error
import urllib.request
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml
from llms_txt import parse_llms_file

from generator.commands.cli import main
from generator.config.portal import Limits, ServerSpec
from generator.connect.calling import call_tool
from tests.conftest import PYTHON, ROOT, TEMPLATES, free_port, http_server, venv_bin

GOLDEN = ROOT / "tests" / "golden" / "demo.snapshot.json"
LOCALES = ("en", "ru", "ar")
TOTAL_TIMEOUT = 40
PEAK_RSS_KB = 300 * 1024
ADDRESS_SPACE = 2 * 2**30


# --- servers ----------------------------------------------------------------------------------


def _bomb_pieces(unit: bytes) -> tuple[bytes, bytes]:
    """The start of a gzip stream of *unit* repeated, and a piece that can follow it any number of times.

    Each piece is about 10 MiB of *unit* compressed and sync-flushed: after the first, every piece is
    the same 10 to 20 KB, so the server can send gigabytes of decoded data without compressing them.
    """
    compress = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    data = unit * (10 * 2**20 // len(unit))
    head = compress.compress(data) + compress.flush(zlib.Z_SYNC_FLUSH)
    piece = compress.compress(data) + compress.flush(zlib.Z_SYNC_FLUSH)
    assert piece == compress.compress(data) + compress.flush(zlib.Z_SYNC_FLUSH)
    return head, piece


@pytest.fixture(scope="module")
def bomb_url() -> Iterator[str]:
    """A Streamable HTTP "server" whose reply to every POST is a gzip bomb: 4 to 8 MB on the wire, 4 GiB decoded.

    The path says the content type: ``/json`` answers ``application/json`` (zeros), ``/sse`` answers
    ``text/event-stream`` (SSE comment lines, which the SDK reads one by one, so that its own limit on
    one event's size is not what stops it).
    """
    pieces = {"/json": _bomb_pieces(b"\0"), "/sse": _bomb_pieces(b": keep-alive\n")}

    class Bomb(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream" if self.path == "/sse" else "application/json")
            self.send_header("Content-Encoding", "gzip")
            self.end_headers()
            head, piece = pieces[self.path]
            try:
                self.wfile.write(head)
                for _ in range(409):
                    self.wfile.write(piece)
            except OSError:  # the client stopped reading: what it should do
                pass

        def log_message(self, format: str, *args: object) -> None:
            pass

    with _serving(Bomb) as base:
        yield base


@pytest.fixture(scope="module")
def gzip_proxy(demo_url: str) -> Iterator[str]:
    """The bundled demo behind a proxy that gzips every reply (Content-Encoding: gzip); yields its /mcp/ URL."""

    class Proxy(BaseHTTPRequestHandler):
        def _forward(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0"))) or None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP}
            request = urllib.request.Request(demo_url + self.path, data=body, headers=headers, method=self.command)
            try:
                with urllib.request.urlopen(request, timeout=30) as reply:
                    status, sent, content = reply.status, reply.headers, reply.read()
            except urllib.error.HTTPError as exc:
                status, sent, content = exc.code, exc.headers, exc.read()
            packed = gzip.compress(content)
            self.send_response(status)
            for name, value in sent.items():
                if name.lower() not in _HOP_BY_HOP:
                    self.send_header(name, value)
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(packed)))
            self.end_headers()
            self.wfile.write(packed)

        do_POST = do_DELETE = _forward

        def do_GET(self) -> None:
            """No standing event stream through this proxy (405): the SDK does without one."""
            self.send_response(405)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    with _serving(Proxy) as base:
        yield base + "/mcp/"


_HOP_BY_HOP = {
    "host",
    "connection",
    "content-length",
    "content-encoding",
    "transfer-encoding",
    "accept-encoding",
    "keep-alive",
    "date",
    "server",
}
"""Headers the proxy sets itself rather than passing on."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True


@contextlib.contextmanager
def _serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve *handler* on a free port of 127.0.0.1 in a thread; yields the base URL."""
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


# --- the reply bound --------------------------------------------------------------------------


def _cap_memory() -> None:
    """In the child: at most :data:`ADDRESS_SPACE` bytes, so a regression fails the test, not the machine."""
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def _introspect(tmp_path: Path, *argv: str) -> tuple[int, str, float, int]:
    """Run ``mcp-portal introspect ARGV -o x.json`` as a child: its exit code, stderr, seconds and peak RSS (KiB).

    The child is reaped with :func:`os.wait4`, which gives that one child's own peak RSS.
    """
    started = time.monotonic()
    log = tmp_path / "stderr.txt"
    with log.open("w") as err:
        child = subprocess.Popen(
            [venv_bin("mcp-portal"), "introspect", *argv, "-o", str(tmp_path / "x.json")],
            stdout=subprocess.DEVNULL,
            stderr=err,
            preexec_fn=_cap_memory,
        )
    overdue = threading.Timer(TOTAL_TIMEOUT + 30, child.kill)  # the deadline: the wait below ends either way
    overdue.start()
    try:
        _, status, usage = os.wait4(child.pid, 0)
    finally:
        overdue.cancel()
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode == -signal.SIGKILL and time.monotonic() - started >= TOTAL_TIMEOUT + 30:
        pytest.fail(f"introspect ran {TOTAL_TIMEOUT + 30} s, past the total timeout of {TOTAL_TIMEOUT} s")
    return child.returncode, log.read_text(encoding="utf-8"), time.monotonic() - started, usage.ru_maxrss


@pytest.mark.parametrize("kind", ["json", "sse"])
def test_a_gzip_bomb_stops_at_the_limit_in_time_and_in_bounded_memory(bomb_url: str, kind: str, tmp_path: Path) -> None:
    code, err, seconds, peak = _introspect(
        tmp_path, "--url", f"{bomb_url}/{kind}", "--total-timeout", str(TOTAL_TIMEOUT)
    )
    assert code == 1, err
    assert seconds < TOTAL_TIMEOUT, f"{seconds:.1f} s"
    assert peak < PEAK_RSS_KB, f"peak RSS {peak // 1024} MiB"
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err  # one paragraph, no traceback
    assert "33554432 bytes (32 MiB) once decompressed" in err
    assert "--max-reply-bytes" in err and "max_reply_bytes" in err
    assert "Traceback" not in err
    assert not (tmp_path / "x.json").exists()


def test_a_lower_limit_from_the_command_line_is_the_one_named(bomb_url: str, tmp_path: Path) -> None:
    code, err, _, _ = _introspect(tmp_path, "--url", f"{bomb_url}/json", "--max-reply-bytes", "1048576")
    assert code == 1
    assert "grew past 1048576 bytes (1 MiB) once decompressed" in err


def test_a_plain_reply_over_the_limit_from_portal_yaml_fails_the_same_way(demo_url: str, tmp_path: Path) -> None:
    config = tmp_path / "portal.yaml"
    config.write_text(f"server:\n  url: {demo_url}/mcp/\nlimits:\n  max_reply_bytes: 200\n", encoding="utf-8")
    code, err, _, _ = _introspect(tmp_path, "--config", str(config))
    assert code == 1, err
    assert "grew past 200 bytes" in err and "--max-reply-bytes" in err


def test_a_normal_reply_under_the_limit_still_works(demo_url: str, tmp_path: Path) -> None:
    code, err, _, _ = _introspect(tmp_path, "--url", f"{demo_url}/mcp/")
    assert code == 0, err
    assert len(json.loads((tmp_path / "x.json").read_text(encoding="utf-8"))["tools"]) == 6


def test_a_gzip_compressed_normal_reply_is_decoded_once(gzip_proxy: str, demo_url: str, tmp_path: Path) -> None:
    direct, proxied = tmp_path / "direct", tmp_path / "proxied"
    direct.mkdir()
    proxied.mkdir()
    assert _introspect(direct, "--url", f"{demo_url}/mcp/")[0] == 0
    code, err, _, _ = _introspect(proxied, "--url", gzip_proxy)
    assert code == 0, err
    one, other = (json.loads((d / "x.json").read_text(encoding="utf-8")) for d in (direct, proxied))
    assert one["tools"] == other["tools"] and one["server"] == other["server"]


# --- the notice: the server's text is data, not instructions ------------------------------------


NOT_MCP = {
    # what the URL answers a POST with (status, headers, body), and how the error must describe it
    "a web page": (200, {"Content-Type": "text/html; charset=utf-8"}, b"<!doctype html><title>Welcome</title>",
                   "with a reply of Content-Type text/html, where MCP answers with JSON or an event stream."),
    "another JSON API": (200, {"Content-Type": "application/json"}, b'{"status": "ok"}',
                         "with JSON that is not a JSON-RPC message."),
    "an empty event stream": (200, {"Content-Type": "text/event-stream"}, b": nothing to say\n\n",
                              "with an event stream that ended without the answer."),
    "a redirect": (307, {"Location": "https://login.example/mcp/"}, b"",
                   "with a redirect to https://login.example/mcp/, which mcp-portal does not follow"),
    # Before, these got "Check the URL", although the URL was right.
    "rate limited": (429, {"Retry-After": "30"}, b"", "with HTTP 429. The server is limiting how often"),
    "a gateway with no server": (502, {}, b"", "with HTTP 502. A gateway, or the server behind it, is not available"),
}  # fmt: skip


@pytest.mark.parametrize("kind", NOT_MCP)
def test_a_url_that_gives_no_mcp_answer_is_named_for_what_it_gave(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: "answered ... with an error (code -32600: Unexpected content type: text/html). ... if it needs
    # credentials, pass them with --env or --header": an error the SDK made up, read as the server's refusal.
    status, headers, body, said = NOT_MCP[kind]

    class NotMcp(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    with _serving(NotMcp) as base:
        code = main(["introspect", "--url", base + "/", "-o", str(tmp_path / "x.json"), "--request-timeout", "10"])
    err = capsys.readouterr().err
    assert code == 1 and f"answered the connection handshake (server/discover or initialize) {said}" in err, err
    assert "code -32" not in err and "credentials, pass them" not in err


class HtmlCalls(BaseHTTPRequestHandler):
    """An MCP server whose calls a maintenance page answers (text/html), as a proxy in front of it may."""

    def _send(self, status: int, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        results = {
            "initialize": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                           "serverInfo": {"name": "html-calls", "version": "1.0.0"}},
            "tools/list": {"tools": [{"name": "ping", "description": "Answer pong.", "annotations":
                                      {"readOnlyHint": True}, "inputSchema": {"type": "object"}}]},
        }  # fmt: skip
        if "id" not in request:
            self._send(202, "text/plain", b"")
        elif request["method"] in results:
            reply = {"jsonrpc": "2.0", "id": request["id"], "result": results[request["method"]]}
            self._send(200, "application/json", json.dumps(reply).encode())
        elif request["method"] == "server/discover":
            reply = {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "no"}}
            self._send(200, "application/json", json.dumps(reply).encode())
        else:
            self._send(200, "text/html", b"<!doctype html><title>Down for maintenance</title>")

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_a_call_answered_by_a_web_page_is_not_recorded_as_the_servers_refusal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before, the proof recorded {"error": {"code": -32600, "message": "Unexpected content type: text/html"}}, an error
    # the SDK made up, and pages and warnings said the server "did not accept" the example.
    snapshot = tmp_path / "snapshot.json"
    with _serving(HtmlCalls) as base:
        assert main(["introspect", "--url", base + "/mcp", "--prove", "-o", str(snapshot)]) == 0
    (attempt,) = json.loads(snapshot.read_text(encoding="utf-8"))["proofs"]["tools"]["ping"]["attempts"]
    assert attempt["answer"] == {"unanswered": "Unexpected content type: text/html"}
    err = capsys.readouterr().err
    assert "the example of tool ping (1 tried) got no answer" in err and "did not accept" not in err


def test_try_it_shows_a_web_page_answer_as_what_it_was_not_as_the_servers_error() -> None:
    # Before, the Try it panel got {"code": -32600, "message": "Unexpected content type: text/html"} as the
    # server's answer to the call.
    with _serving(HtmlCalls) as base:
        answer = call_tool(ServerSpec(url=base + "/mcp"), Limits(request_timeout=10), "ping", {})
    assert "with a reply of Content-Type text/html, where MCP answers with JSON" in answer["error"]["message"]
    assert answer["error"]["code"] != -32600


def test_a_session_lost_behind_a_load_balancer_is_named_with_what_to_do(tmp_path: Path) -> None:
    # Two instances of the demo, each keeping its own sessions (the handshake era), behind a round-robin
    # proxy with no sticky sessions: the request after the handshake reaches the instance that never saw
    # the session, which answers HTTP 404 "Session not found". Before: "answered tools/list (page 1) with an
    # error (code -32600: Session not found). Check the server's logs; if it needs credentials, ...".
    ports = [free_port(), free_port()]
    demos = [[PYTHON, "-m", "generator.demo", "--http", "--port", str(port), "--handshake-only"] for port in ports]
    turns = itertools.cycle(ports)

    class RoundRobin(BaseHTTPRequestHandler):
        def _forward(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP}
            request = urllib.request.Request(f"http://127.0.0.1:{next(turns)}{self.path}", data=body or None,
                                             headers=headers, method=self.command)  # fmt: skip
            try:
                with urllib.request.urlopen(request, timeout=30) as reply:
                    status, sent, content = reply.status, reply.headers, reply.read()
            except urllib.error.HTTPError as exc:
                status, sent, content = exc.code, exc.headers, exc.read()
            self.send_response(status)
            for name, value in sent.items():
                if name.lower() not in _HOP_BY_HOP:
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        do_POST = do_GET = do_DELETE = _forward

        def log_message(self, format: str, *args: object) -> None:
            pass

    with http_server(demos[0], ports[0]), http_server(demos[1], ports[1]), _serving(RoundRobin) as base:
        code, err, _, _ = _introspect(tmp_path, "--url", base + "/mcp/", "--request-timeout", "20")
    assert code == 1, err
    assert "answered tools/list (page 1) with HTTP 404 for the session it had opened (Mcp-Session-Id)" in err, err
    assert "sticky sessions" in err and "credentials" not in err


def test_an_untrusted_certificate_is_named_and_ssl_cert_file_is_the_way_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: "could not be reached ... CERTIFICATE_VERIFY_FAILED ... Check that the server is running and the
    # URL is right", both of which were. A company's own authority is what SSL_CERT_FILE is for.
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)  # fmt: skip
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)

    class Nothing(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = _Server(("127.0.0.1", 0), Nothing)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"https://127.0.0.1:{server.server_address[1]}/mcp/"
    site = url.removesuffix("mcp/")  # the docs server reads a published portal over HTTPS the same way

    def docs_server() -> str:
        return subprocess.run([venv_bin("mcp-portal"), "mcp", site], stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=60, check=False).stderr  # fmt: skip

    try:
        code, err, _, _ = _introspect(tmp_path, "--url", url, "--request-timeout", "20")
        assert code == 1 and "CERTIFICATE_VERIFY_FAILED" in err, err
        assert "Its TLS certificate is not trusted here" in err and "SSL_CERT_FILE" in err
        assert "Check that the server is running" not in err
        assert "(ConnectError). Its TLS certificate is not trusted here" in docs_server()
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        code, err, _, _ = _introspect(tmp_path, "--url", url, "--request-timeout", "20")
        assert code == 1 and "with HTTP 404" in err, err  # trusted now: the server itself answered
        # Trusted, but for 127.0.0.1 alone: reached as localhost, the certificate names another host.
        code, err, _, _ = _introspect(tmp_path, "--url", url.replace("127.0.0.1", "localhost"))
        assert code == 1 and "Its TLS certificate is for another host name: check the host in the URL." in err, err
        assert "answered HTTP 501 for 'versions.json'" in docs_server()  # it has no GET: reached, trusted
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def _catalog(code: str) -> dict[str, str]:
    notice = yaml.safe_load((ROOT / "locales" / f"{code}.yaml").read_text(encoding="utf-8"))["notice"]
    return {"sentence": notice["untrusted"], "field": notice["untrusted_field"]}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("notice") / "site"
    assert main(["build", "--from", str(GOLDEN), "--out", str(out), "--no-search"], renderer=TEMPLATES) == 0
    return out


@pytest.mark.parametrize("code", LOCALES)
def test_every_llms_txt_says_it_once_at_its_head_and_still_parses(site: Path, code: str) -> None:
    sentence = _catalog(code)["sentence"]
    paths = [site / code / "llms.txt"] + ([site / "llms.txt"] if code == LOCALES[0] else [])
    for path in paths:
        text = path.read_text(encoding="utf-8")
        assert text.count(sentence) == 1, path
        assert text.index(sentence) < text.index("\n## "), f"{path}: not at the head"
        parsed = parse_llms_file(text)
        assert sentence in parsed["info"] and parsed["sections"], path


@pytest.mark.parametrize("code", LOCALES)
def test_llms_full_says_it_once_at_its_head(site: Path, code: str) -> None:
    sentence = _catalog(code)["sentence"]
    text = (site / code / "llms-full.txt").read_text(encoding="utf-8")
    assert text.count(sentence) == 1
    assert text.index(sentence) < text.index("\n---\n"), "not before the first twin"


@pytest.mark.parametrize("code", LOCALES)
def test_every_twin_carries_it_as_a_front_matter_field(site: Path, code: str) -> None:
    words = _catalog(code)
    twins = sorted((site / code).rglob("*.md"))
    assert len(twins) > 10
    for twin in twins:
        text = twin.read_text(encoding="utf-8")
        head, _, body = text[4:].partition("\n---\n")
        assert yaml.safe_load(head)["server_text"] == words["field"], twin
        assert head.count(words["field"]) == 1, twin
        assert body.count(words["sentence"]) == 1, twin  # and once in plain words, under the title
        lines = body.split("\n")
        at = next(n for n, line in enumerate(lines) if words["sentence"] in line)
        # In the blockquote under the title, before anything the server said.
        assert lines[at] == "> " + words["sentence"], twin
        assert all(not line or line.startswith(("# ", ">")) for line in lines[:at]), twin
