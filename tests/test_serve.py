"""``generator.commands.serve``: the preview server, over real HTTP on 127.0.0.1, against a built demo site."""

from __future__ import annotations

import http.client
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from generator.commands.serve import make_server
from generator.errors import PortalError
from generator.publish.write import publish
from generator.snapshot.snapshot import load_snapshot
from tests.golden_tool import SNAPSHOT, golden_files

SECRET = "outside-the-site-do-not-serve"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo portal built offline from the golden snapshot, plus a secret file beside (not in) it."""
    base = tmp_path_factory.mktemp("serve")
    out = base / "site"
    publish(out, golden_files(load_snapshot(SNAPSHOT)))
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


def get(port: int, path: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    """Send *path* exactly as written (no client-side normalisation) and return status, headers, body."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.putrequest(method, path, skip_accept_encoding=True)
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


@pytest.mark.parametrize("path", ["/en/tools/no_such_tool/", "/fr/index.html", "/en/tools/search_chat.html"])
def test_missing_pages_are_404(port: int, path: str) -> None:
    status, _, _ = get(port, path)
    assert status == 404


@pytest.mark.parametrize("path", ["/assets/", "/en/tools/", "/empty/"])
def test_directories_without_index_are_404_not_listings(port: int, path: str) -> None:
    status, _, body = get(port, path)
    assert status == 404
    assert b"Directory listing" not in body
    assert b"portal.css" not in body


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


def test_missing_directory_is_a_portal_error(tmp_path: Path) -> None:
    with pytest.raises(PortalError, match="build one first"):
        make_server(tmp_path / "nope", "127.0.0.1", 0)


def test_busy_port_is_a_portal_error(site: Path, port: int) -> None:
    with pytest.raises(PortalError, match="Cannot listen"):
        make_server(site, "127.0.0.1", port)


def test_preview_sends_the_published_content_security_policy(port: int) -> None:
    from urllib.request import urlopen

    from generator.render.extras import CONTENT_SECURITY_POLICY

    with urlopen(f"http://127.0.0.1:{port}/en/index.html") as response:
        assert response.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
