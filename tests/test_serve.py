"""``generator.commands.serve``: the preview server, over real HTTP on 127.0.0.1, against a built demo site."""

from __future__ import annotations

import http.client
import socket
import struct
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from generator.commands.serve import make_server
from generator.errors import PortalError
from generator.publish.write import publish
from generator.snapshot.snapshot import load_snapshot
from tests.conftest import TEMPLATES, wait_until
from tests.golden_tool import SNAPSHOT, golden_files

SECRET = "outside-the-site-do-not-serve"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo portal built offline from the golden snapshot, plus a secret file beside (not in) it."""
    base = tmp_path_factory.mktemp("serve")
    out = base / "site"
    publish(out, golden_files(load_snapshot(SNAPSHOT), TEMPLATES))
    (out / "assets" / "probe.js").write_text("console.log('ok');\n", encoding="utf-8")
    (base / "secret.txt").write_text(SECRET, encoding="utf-8")
    (out / "empty").mkdir()
    (out / "link-out").symlink_to(base / "secret.txt")
    return out


@pytest.fixture(scope="module")
def port(site: Path) -> Iterator[int]:
    server = make_server(site, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def get(port: int, path: str, method: str = "GET", accept: str | None = None) -> tuple[int, dict[str, str], bytes]:
    """Send *path* exactly as written (no client-side normalisation) and return status, headers, body."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.putrequest(method, path, skip_accept_encoding=True)
        if accept is not None:
            conn.putheader("Accept", accept)
        conn.endheaders()
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        ("/index.html", "text/html; charset=utf-8"),
        ("/en/tools/search_chat/index.html", "text/html; charset=utf-8"),
        ("/en/tools/search_chat.md", "text/markdown; charset=utf-8"),
        ("/ar/index.md", "text/markdown; charset=utf-8"),
        ("/llms.txt", "text/plain; charset=utf-8"),
        ("/ru/llms.txt", "text/plain; charset=utf-8"),
        ("/snapshot.json", "application/json"),
        ("/assets/portal.css", "text/css; charset=utf-8"),
        ("/assets/probe.js", "text/javascript; charset=utf-8"),
        ("/openapi.yaml", "application/yaml"),
        ("/en/connecting.md", "text/markdown; charset=utf-8"),
    ],
)
def test_content_types(port: int, site: Path, path: str, content_type: str) -> None:
    status, headers, body = get(port, path)
    assert status == 200
    assert headers["content-type"] == content_type
    assert body == (site / path.lstrip("/")).read_bytes()


def test_head_sends_headers_without_a_body(port: int) -> None:
    status, headers, body = get(port, "/ru/connecting/index.html", method="HEAD")
    assert status == 200
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert body == b""


@pytest.mark.parametrize("path", ["/", "/en/", "/ar/tools/search_chat/", "/ru/connecting/?q=1#x"])
def test_directory_urls_serve_their_index(port: int, site: Path, path: str) -> None:
    status, headers, body = get(port, path)
    assert status == 200
    assert headers["content-type"] == "text/html; charset=utf-8"
    directory = path.split("?")[0].strip("/")
    assert body == (site / directory / "index.html").read_bytes()


def test_directory_without_slash_redirects_to_the_slash(port: int) -> None:
    status, headers, _ = get(port, "/en/tools/search_chat")
    assert status == 301
    assert headers["location"] == "/en/tools/search_chat/"


@pytest.mark.parametrize(
    ("path", "page"),
    [
        ("/en/tools/no_such_tool/", "en/404.html"),
        ("/fr/index.html", "404.html"),
        ("/en/tools/search_chat.html", "en/404.html"),
        ("/ru/nope", "ru/404.html"),
        ("/ar/tools/x/y/z.md", "ar/404.html"),
        ("/nothing-here", "404.html"),
        ("/%2e%2e/404.html", "404.html"),
    ],
)
def test_missing_pages_are_the_sites_own_404(port: int, site: Path, path: str, page: str) -> None:
    """Unknown URLs get the site's 404.html (the locale's under /L/), status 404, as a static host sends it."""
    status, headers, body = get(port, path)
    assert status == 404
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert body == (site / page).read_bytes()
    assert b"Error response" not in body  # Python's stock page


def test_head_of_a_missing_page_has_no_body(port: int) -> None:
    status, headers, body = get(port, "/en/missing/", method="HEAD")
    assert (status, body) == (404, b"")
    assert int(headers["content-length"]) > 0


TWINS = [
    ("/en/tools/search_chat/", "en/tools/search_chat.md"),
    ("/ru/tools/search_chat/index.html", "ru/tools/search_chat.md"),
    ("/ar/", "ar/index.md"),
    ("/en/index.html", "en/index.md"),
    ("/en/connecting/", "en/connecting.md"),
]


@pytest.mark.parametrize(("path", "twin"), TWINS)
@pytest.mark.parametrize(
    "accept",
    [
        "text/markdown",
        "text/markdown, text/html;q=0.9",
        "text/html;q=0.5, text/markdown",
        "text/*;q=0.2, text/markdown",
    ],
)
def test_accept_markdown_gets_the_twin(port: int, site: Path, path: str, twin: str, accept: str) -> None:
    status, headers, body = get(port, path, accept=accept)
    assert status == 200
    assert headers["content-type"] == "text/markdown; charset=utf-8"
    assert headers["vary"] == "Accept"
    assert body == (site / twin).read_bytes()


@pytest.mark.parametrize(
    "accept",
    [
        None,
        "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",  # a browser
        "*/*",
        "text/html, text/markdown",  # a tie goes to HTML
        "text/markdown;q=0.4, text/html;q=0.5",
        "text/markdown;q=0",
        "text/markdown;q=oops",
    ],
)
def test_other_accept_headers_get_the_html(port: int, site: Path, accept: str | None) -> None:
    status, headers, body = get(port, "/en/tools/search_chat/", accept=accept)
    assert status == 200
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert headers["vary"] == "Accept"
    assert body == (site / "en/tools/search_chat/index.html").read_bytes()


def test_negotiation_keeps_the_slash_redirect_and_files_without_twins(port: int, site: Path) -> None:
    status, headers, _ = get(port, "/en/tools/search_chat", accept="text/markdown")
    assert (status, headers["location"]) == (301, "/en/tools/search_chat/")
    status, headers, body = get(port, "/llms.txt", accept="text/markdown")
    assert (status, headers["content-type"]) == (200, "text/plain; charset=utf-8")
    assert "vary" not in headers
    status, headers, body = get(port, "/", accept="text/markdown")  # the entry page has no twin
    assert (status, headers["content-type"]) == (200, "text/html; charset=utf-8")
    assert body == (site / "index.html").read_bytes()


def test_twins_never_come_from_outside_the_site(tmp_path: Path) -> None:
    """The entry page has no twin beside the site directory, and a twin symlinked out of it is not served."""
    root = tmp_path / "site"
    (root / "en" / "x").mkdir(parents=True)
    (root / "index.html").write_text("entry", encoding="utf-8")
    (root / "en" / "x" / "index.html").write_text("page", encoding="utf-8")
    (tmp_path / "site.md").write_text(SECRET, encoding="utf-8")
    (tmp_path / "x.md").write_text(SECRET, encoding="utf-8")
    (root / "en" / "x.md").symlink_to(tmp_path / "x.md")
    server = make_server(root, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = int(server.server_address[1])
        assert get(port, "/", accept="text/markdown")[2] == b"entry"
        assert get(port, "/en/x/", accept="text/markdown")[2] == b"page"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_head_with_accept_markdown(port: int, site: Path) -> None:
    status, headers, body = get(port, "/en/", method="HEAD", accept="text/markdown")
    assert (status, body) == (200, b"")
    assert headers["content-type"] == "text/markdown; charset=utf-8"
    assert int(headers["content-length"]) == len((site / "en/index.md").read_bytes())


@pytest.mark.parametrize(
    ("path", "page"), [("/assets/", "404.html"), ("/en/tools/", "en/404.html"), ("/empty/", "404.html")]
)
def test_directories_without_index_are_404_not_listings(port: int, site: Path, path: str, page: str) -> None:
    status, _, body = get(port, path)
    assert status == 404
    assert b"Directory listing" not in body
    assert body == (site / page).read_bytes()


@pytest.mark.parametrize(
    "path",
    [
        "/../secret.txt",
        "/en/../../secret.txt",
        "/%2e%2e/secret.txt",
        "/%2E%2E/secret.txt",
        "/..%2fsecret.txt",
        "/%2e%2e%2fsecret.txt",
        "/en/%2e%2e%2f%2e%2e%2fsecret.txt",
        "/..%5csecret.txt",
        "/%2e%2e%5csecret.txt",
        "/%252e%252e/secret.txt",
        "/.%2e/secret.txt",
        "//../secret.txt",
        "/link-out",
        "/en/%00/../../secret.txt",
    ],
)
def test_no_path_traversal(port: int, path: str) -> None:
    status, _, body = get(port, path)
    assert status in (400, 404)
    assert SECRET.encode() not in body


def test_no_request_log(site: Path, capfd: pytest.CaptureFixture[str]) -> None:
    server = make_server(site, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        get(int(server.server_address[1]), "/en/")
        get(int(server.server_address[1]), "/missing")
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
    captured = capfd.readouterr()
    assert captured.out == ""
    assert captured.err == ""


def test_serve_says_serving_once(site: Path) -> None:
    """``mcp-portal serve`` prints its address once, after it is listening (it used to print it twice)."""
    import signal
    import subprocess
    import sys

    from tests.conftest import ROOT

    def interruptible() -> None:
        # A runner started in the background by a shell without job control ignores SIGINT, and the
        # child would inherit that: Python then installs no KeyboardInterrupt handler, and Ctrl+C
        # (SIGINT) could never stop it. Give the child the default, as a terminal would.
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    proc = subprocess.Popen(
        [sys.executable, "-m", "generator", "serve", "--out", str(site), "--port", "0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=interruptible,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith(f"Serving {site} at http://127.0.0.1:"), first
        port = int(first.rsplit(":", 1)[1].split("/", 1)[0])
        assert port != 0
        assert get(port, "/en/")[0] == 200  # answered: whatever it prints for it is printed by now
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert "Serving" not in out + err, f"printed again: {out!r} {err!r}"


def test_missing_directory_is_a_portal_error(tmp_path: Path) -> None:
    with pytest.raises(PortalError, match="build one first"):
        make_server(tmp_path / "nope", "127.0.0.1", 0)


def test_busy_port_is_a_portal_error(site: Path, port: int) -> None:
    with pytest.raises(PortalError) as raised:
        make_server(site, "127.0.0.1", port)
    assert raised.value.message == (
        f"Cannot listen on 127.0.0.1:{port} (Address already in use). Choose another port, e.g. --port 8080."
    )


@pytest.mark.parametrize("host", ["192.0.2.7", "no-such-host.invalid"])
def test_a_host_that_is_no_address_of_this_machine_is_named_as_the_problem(site: Path, host: str) -> None:
    with pytest.raises(PortalError) as raised:
        make_server(site, host, 0)
    assert raised.value.message.startswith(f"Cannot listen on {host}:0 (")
    assert raised.value.message.endswith("). Choose an address of this machine, e.g. --host 127.0.0.1.")


def test_an_ipv6_host_is_listened_on_and_answered(site: Path) -> None:
    """``--host ::1`` used to fail ("Address family for hostname not supported"): the preview listened on IPv4 only."""
    server = make_server(site, "::1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        connection = http.client.HTTPConnection("::1", int(server.server_address[1]), timeout=10)
        connection.request("GET", "/en/")
        assert connection.getresponse().status == 200
        connection.close()
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_preview_sends_the_published_content_security_policy(port: int) -> None:
    from urllib.request import urlopen

    from generator.render.extras import CONTENT_SECURITY_POLICY

    with urlopen(f"http://127.0.0.1:{port}/en/index.html") as response:
        assert response.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY


def test_a_client_that_goes_away_mid_answer_prints_no_traceback(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # A browser that moves on resets its connection while a large file is still being sent: the
    # standard library would print the BrokenPipeError's traceback on the preview's terminal.
    (tmp_path / "big.bin").write_bytes(b"\0" * (16 << 20))
    server = make_server(tmp_path, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        client = socket.create_connection(("127.0.0.1", int(server.server_address[1])), timeout=10)
        client.sendall(b"GET /big.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert client.recv(4096).startswith(b"HTTP/1.")  # the answer has started
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()  # with SO_LINGER 0: a reset, as a browser's aborted load
        wait_until(
            lambda: not any("process_request_thread" in t.name for t in threading.enumerate()),
            30,
            "the connection's thread to end",
        )
        assert get(int(server.server_address[1]), "/big.bin", "HEAD")[0] == 200  # the preview goes on
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
    err = capfd.readouterr().err
    assert "Traceback" not in err and "BrokenPipe" not in err and "ConnectionReset" not in err, err


def test_a_stop_that_comes_after_a_connection_s_thread_gave_its_place_back_is_not_lost(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C reaches the main thread anywhere: here just after the connection's thread started, served it
    and gave its place back. The stop must end the preview, not turn into "released too many times"
    (which the preview reported as a failed answer, and went on serving)."""
    from generator.commands.serve import MAX_CONNECTIONS, PreviewServer

    server = make_server(site, "127.0.0.1", 0)
    assert isinstance(server, PreviewServer)
    started = threading.Thread.start

    def start_then_stop(thread: threading.Thread) -> None:
        started(thread)
        thread.join(timeout=30)  # served (the client end is closed) and its place given back
        raise KeyboardInterrupt

    ours, theirs = socket.socketpair()
    theirs.close()
    monkeypatch.setattr(threading.Thread, "start", start_then_stop)
    try:
        with pytest.raises(KeyboardInterrupt):
            server.process_request(ours, ("127.0.0.1", 1))
    finally:
        monkeypatch.undo()
        server.server_close()
    places = server.connections  # every place is free again, and no more than that
    assert all(places.acquire(blocking=False) for _ in range(MAX_CONNECTIONS))
    assert not places.acquire(blocking=False)
