"""Content negotiation on real hosts: the configurations docs/ci.md documents, run for real.

- nginx (Debian's ``nginx-light``, installed by ``scripts/test``): ``tests/hosting/nginx.conf``
  is started as it is written (only ``root`` and ``listen`` changed) over the demo portal,
  and asked over HTTP.
- Cloudflare Pages (``functions/_middleware.js``) and Netlify (an edge function): the snippets
  run in Node, with the host's static server played by the preview server over the same site
  (the only stand-in: the hosts themselves cannot run here).

Each answers like ``mcp-portal serve``: a page URL asked for with ``Accept: text/markdown``
gets the page's twin, as ``text/markdown; charset=utf-8`` with ``Vary: Accept``; a browser
gets the HTML. The docs must show these files verbatim.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from generator.commands.serve import make_server
from generator.publish.write import publish
from generator.snapshot.snapshot import load_snapshot
from tests.conftest import ROOT, TEMPLATES, listening, wait_until
from tests.golden_tool import SNAPSHOT, golden_files

HOSTING = ROOT / "tests" / "hosting"
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
MD = "text/markdown; charset=utf-8"
HTML = "text/html; charset=utf-8"

# (path, Accept, status, content type, the site file whose bytes come back, Vary: Accept expected)
CASES = [
    ("/en/tools/search_chat/", "text/markdown", 200, MD, "en/tools/search_chat.md", True),
    ("/ru/tools/search_chat/index.html", "text/markdown, text/html;q=0.9", 200, MD, "ru/tools/search_chat.md", True),
    ("/ar/", "text/markdown", 200, MD, "ar/index.md", True),
    ("/en/connecting/", "text/markdown", 200, MD, "en/connecting.md", True),
    ("/en/tools/search_chat/", BROWSER, 200, HTML, "en/tools/search_chat/index.html", True),
    ("/en/tools/search_chat/", None, 200, HTML, "en/tools/search_chat/index.html", True),
    ("/en/tools/search_chat/", "text/markdown;q=0", 200, HTML, "en/tools/search_chat/index.html", True),
    ("/", "text/markdown", 200, HTML, "index.html", False),
    ("/en/tools/search_chat.md", None, 200, MD, "en/tools/search_chat.md", False),
]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hosting") / "site"
    publish(out, golden_files(load_snapshot(SNAPSHOT), TEMPLATES))
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(port: int, path: str, accept: str | None) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path, headers={"Accept": accept} if accept else {})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


# --------------------------------------------------------------------------- nginx


@pytest.fixture(scope="module")
def nginx(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    binary = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").is_file() else None)
    if binary is None:
        pytest.skip("nginx is not installed (scripts/test installs Debian's nginx-light): the nginx config is untested")
    work = tmp_path_factory.mktemp("nginx")
    port = _free_port()
    documented = (HOSTING / "nginx.conf").read_text(encoding="utf-8")
    assert "root /srv/site;" in documented and "listen 8080;" in documented
    site_conf = documented.replace("root /srv/site;", f"root {site};").replace(
        "listen 8080;", f"listen 127.0.0.1:{port};"
    )
    temp = " ".join(f"{kind}_temp_path {work}/{kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    (work / "nginx.conf").write_text(
        # As root, nginx's workers would run as "nobody", who cannot read pytest's private temporary directory.
        f"{'user root;' if os.geteuid() == 0 else ''}\n"
        f"daemon off;\npid {work}/nginx.pid;\nerror_log {work}/error.log;\nevents {{}}\n"
        f"http {{\naccess_log off;\n{temp}\n{site_conf}\n}}\n",
        encoding="utf-8",
    )
    proc = subprocess.Popen(
        [binary, "-p", str(work), "-c", str(work / "nginx.conf"), "-e", str(work / "error.log")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:

        def started() -> bool:
            if proc.poll() is not None:
                raise AssertionError(f"nginx did not start: {proc.stderr.read().decode() if proc.stderr else ''}")
            return listening(port)

        wait_until(started, 30, "nginx did not listen")
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.parametrize(("path", "accept", "status", "ctype", "file", "vary"), CASES)
def test_nginx_negotiates_like_serve(
    nginx: int, site: Path, path: str, accept: str | None, status: int, ctype: str, file: str, vary: bool
) -> None:
    got_status, headers, body = _get(nginx, path, accept)
    assert (got_status, headers["content-type"]) == (status, ctype)
    assert body == (site / file).read_bytes()
    if vary:  # nginx adds Vary to every answer of the site's location, which is allowed too
        assert "accept" in headers.get("vary", "").lower()


@pytest.mark.parametrize(
    ("path", "ctype"), [("/openapi.yaml", "application/yaml"), ("/en/llms.txt", "text/plain; charset=utf-8")]
)
def test_nginx_content_types(nginx: int, path: str, ctype: str) -> None:
    status, headers, _ = _get(nginx, path, None)
    assert (status, headers["content-type"]) == (200, ctype)


@pytest.mark.parametrize(("path", "page"), [("/ru/nope", "ru/404.html"), ("/fr/nope", "404.html"), ("/x", "404.html")])
def test_nginx_answers_missing_urls_with_the_sites_404(nginx: int, site: Path, path: str, page: str) -> None:
    status, _, body = _get(nginx, path, None)
    assert status == 404
    assert body == (site / page).read_bytes()


# --------------------------------------------------------------------------- edge snippets in Node


@pytest.fixture(scope="module")
def static_host(site: Path) -> Iterator[str]:
    """The host's static file server: the preview server (it negotiates only when asked, and the snippets never ask)."""
    server = make_server(site, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.mark.parametrize(
    ("kind", "snippet"), [("cloudflare", "cloudflare-_middleware.js"), ("netlify", "netlify-markdown-twins.js")]
)
def test_edge_snippets_negotiate_like_serve(
    kind: str, snippet: str, site: Path, static_host: str, tmp_path: Path
) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the Cloudflare and Netlify snippets are untested")
    module = tmp_path / "snippet.mjs"  # an ES module, as both hosts load it
    shutil.copyfile(HOSTING / snippet, module)
    cases = [["GET", path, accept] for path, accept, *_ in CASES] + [["HEAD", "/en/", "text/markdown"]]
    run = subprocess.run(
        [node, str(HOSTING / "run_edge.mjs"), kind, module.as_uri(), static_host, json.dumps(cases)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    results = json.loads(run.stdout)
    for (path, accept, status, ctype, file, vary), got in zip(CASES, results, strict=False):
        where = f"{kind} {path} [{accept}]"
        assert (got["status"], got["type"]) == (status, ctype), where
        assert base64.b64decode(got["body"]) == (site / file).read_bytes(), where
        assert ("Accept" in (got["vary"] or "")) == vary, where
    head = results[-1]
    assert (head["status"], head["type"], head["body"]) == (200, MD, "")


# --------------------------------------------------------------------------- the docs show these files


@pytest.mark.parametrize("snippet", ["nginx.conf", "cloudflare-_middleware.js", "netlify-markdown-twins.js"])
def test_docs_show_the_tested_configuration(snippet: str) -> None:
    docs = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    assert (HOSTING / snippet).read_text(encoding="utf-8").strip() in docs, (
        f"docs/ci.md must show tests/hosting/{snippet} verbatim (the tested configuration)"
    )
