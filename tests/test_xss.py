"""Script injection: payloads from the OWASP XSS filter-evasion cheat sheet in every server field.

Every payload sets ``window.__xss`` if a browser ever runs it.  The site is built (from a
snapshot, and once from a real server in the fixture's ``xss`` mode), served on 127.0.0.1
with the Content-Security-Policy ``<meta>`` taken out (so escaping is tested on its own, not
hidden behind the CSP), and every HTML page is loaded in headless Chromium: ``window.__xss``
must stay undefined and no dialog may open.  A static pass over the same pages checks that
no event-handler attribute, inline script, frame, object or ``javascript:`` URL came through,
and that Jinja syntax in server text was shown, not evaluated.
"""

from __future__ import annotations

import functools
import http.server
import json
import re
import shutil
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from generator.commands.build import site_files
from generator.commands.cli import main
from generator.config.portal import PortalConfig
from generator.publish.write import publish
from generator.render.extras import FAVICON, THEME_SCRIPT
from generator.snapshot.snapshot import Snapshot, new_snapshot
from tests.conftest import PYTHON, ROOT, TEMPLATES
from tests.test_install_links import INSTALL_LINK

pytestmark = pytest.mark.browser

SET = "window.__xss=1"

#: OWASP filter-evasion vectors (and a few Markdown and template ones); each sets window.__xss.
PAYLOADS = (
    f"<script>{SET}</script>",
    f"<ScRiPt>{SET}</sCrIpT>",
    f"<<script>{SET}//<</script>",
    f"<scr\x00ipt>{SET}</scr\x00ipt>",
    f'<img src=x onerror="{SET}">',
    f"<IMG SRC=x OnErRoR={SET}>",
    '<img src=x onerror="&#x77;&#x69;&#x6e;&#x64;&#x6f;&#x77;.__xss=1">',
    f"<svg onload={SET}>",
    f"<svg><script>{SET}</script></svg>",
    f"<svg><animate onbegin={SET} attributeName=x dur=1s>",
    f"<body onload={SET}>",
    f"<details open ontoggle={SET}>",
    f"<input autofocus onfocus={SET}>",
    f'<video><source onerror="{SET}"></video>',
    '<iframe src="javascript:parent.__xss=1"></iframe>',
    '<iframe srcdoc="<script>parent.__xss=1</script>"></iframe>',
    f'<object data="javascript:{SET}"></object>',
    f'<embed src="javascript:{SET}">',
    f"<math><mtext><table><mglyph><style><img src=x onerror={SET}>",
    f'<noscript><p title="</noscript><img src=x onerror={SET}>">',
    f'"><script>{SET}</script>',
    f"' onmouseover='{SET}' autofocus onfocus='{SET}' x='",
    f'" autofocus onfocus="{SET}" x="',
    f"</textarea><script>{SET}</script>",
    f"</title><script>{SET}</script>",
    f"</code></pre><script>{SET}</script>",
    f"</script><script>{SET}</script>",
    f"[click me](javascript:{SET})",
    f"[click me](JaVaScRiPt:{SET})",
    f"[click me](java&#x09;script:{SET})",
    "[click me](&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;window.__xss=1)",
    f"<javascript:{SET}>",
    "[click me](data:text/html;base64,PHNjcmlwdD5wYXJlbnQuX194c3M9MTwvc2NyaXB0Pg==)",
    f"![x](javascript:{SET})",
    f'![x](x" onerror="{SET})',
    f'<a href="javascript:{SET}">x</a>',
    '<a href="&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116'
    '&#0000058window.__xss=1">x</a>',
    f'<div style="width: expression({SET})">css</div>',
    f"<style>@import 'javascript:{SET}';</style>",
    f'<meta http-equiv="refresh" content="0;url=javascript:{SET}">',
    f'<base href="javascript:{SET}//">',
    "{{7*7}}=SSTI {% if 1 %}jinja{% endif %}-ran ${7*7} {{constructor.constructor('window.__xss=1')()}}",
    # The inline Markdown path (summaries, table cells, subtitles): code spans, emphasis, autolinks.
    f"`</code><script>{SET}</script>`",
    f"`` `<img src=x onerror={SET}>` `` and ```<script>{SET}</script>```",
    f"*[emphasised](javascript:{SET})* __[strong](vbscript:{SET})__",
    f'<https://example.invalid/"onmouseover="{SET}> <mailto:x@example.invalid?"><script>{SET}</script>>',
    f'[`code label`](javascript:{SET}) [ok](https://example.invalid/ "t" onmouseover={SET})',
)
ALL = " ".join(PAYLOADS)
URLS = (
    f"javascript:{SET}",
    "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIG9ubG9hZD0id2luZG93Ll9feHNzPTEiLz4=",
    f"data:text/html,<script>{SET}</script>",
    f'https://example.invalid/i.png" onerror="{SET}',
)


def _record(found: list[str], item: str, then: Any) -> None:
    """Note *item*, then act (abort the request, dismiss the dialog)."""
    found.append(item)
    then()


def _schema(payload: str) -> dict[str, Any]:
    return {
        "type": "object",
        "title": ALL,
        "description": ALL,
        "properties": {
            payload: {
                "type": "string",
                "title": ALL,
                "description": ALL,
                "enum": list(PAYLOADS[:8]),
                "default": payload,
                "examples": [payload, ALL],
            },
            "pattern": {"type": "string", "pattern": re.escape(payload)[:200], "format": payload},
            "constant": {"const": payload, "description": payload},
            "nested": {
                "type": "object",
                "properties": {payload: {"type": "integer", "description": ALL, "x-note": payload}},
                "additionalProperties": {"description": payload},
            },
            "refd": {"$ref": f"#/$defs/{payload}"},
        },
        "$defs": {payload: {"type": "string", "description": ALL}},
        "required": [payload],
    }


def xss_snapshot(count: int = 8) -> Snapshot:
    """A snapshot with a payload in every field a server controls."""
    tools = []
    for i in range(count):
        payload = PAYLOADS[(i * 5) % len(PAYLOADS)]
        tools.append(
            {
                "name": f"t{i}{payload}" if i % 2 else payload,
                "title": ALL,
                "description": ALL + "\n\n# heading " + payload + "\n\n```\n" + payload + "\n```\n",
                "icons": [{"src": url, "mimeType": "image/svg+xml", "sizes": [payload]} for url in URLS],
                "annotations": {"title": ALL, "readOnlyHint": i % 2 == 0, "destructiveHint": True},
                "execution": {"taskSupport": payload},
                "_meta": {payload: ALL, "ui": {"resourceUri": f"javascript:{SET}"}},
                "inputSchema": _schema(payload),
                "outputSchema": _schema(payload),
            }
        )
    server = {
        "name": ALL,
        "title": ALL,
        "version": PAYLOADS[0],
        "description": ALL,
        "instructions": ALL,
        "websiteUrl": URLS[0],
        "icons": [{"src": url} for url in URLS],
        "capabilities": {"tools": {"listChanged": True}, "experimental": {PAYLOADS[4]: {PAYLOADS[5]: ALL}}},
        "_meta": {PAYLOADS[6]: ALL},
    }
    return new_snapshot(
        protocol_version="2026-07-28",
        server=server,
        tools=tuple(tools),
        capability_version=PAYLOADS[1],
        transport="streamable-http",
        endpoint=f"https://example.invalid/mcp/{PAYLOADS[2]}",
        prompts=(
            {
                "name": PAYLOADS[3],
                "title": ALL,
                "description": ALL,
                "arguments": [{"name": PAYLOADS[4], "description": ALL}],
            },
        ),
        resources=({"uri": URLS[0], "name": PAYLOADS[5], "description": ALL, "mimeType": PAYLOADS[6]},),
        resource_templates=({"uriTemplate": URLS[2], "name": PAYLOADS[7], "description": ALL},),
        skipped_tools=({"name": PAYLOADS[8], "reason": ALL},),
    )


# --- static checks ----------------------------------------------------------------------------

_SAFE_SCHEMES = {"", "http", "https", "mailto"}
_FORBIDDEN_TAGS = {"iframe", "object", "embed", "base", "frame", "frameset", "svg", "math", "img", "video", "form"}
_ICON = {"class": "i", "aria-hidden": "true", "focusable": "false", "width": "18", "height": "18"}
_ICON |= {
    "viewbox": "0 0 24 24",
    "fill": "none",
    "stroke": "currentColor",
    "stroke-width": "2",
    "stroke-linecap": "round",
}
_OURS = {
    ("svg", frozenset(_ICON.items())),
    ("form", frozenset({("method", "dialog"), ("class", "search-form"), ("role", "search")})),
}
"""The template's own decorative icons and search form, attribute for attribute: an element that
only looks like them is still checked for handlers and URLs like any other."""


class _Audit(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.in_script = False
        self.script_src = self.script_text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        where = f"<{tag}>"
        if tag in _FORBIDDEN_TAGS and (tag, frozenset(attrs)) not in _OURS:
            self.problems.append(f"{where} element")
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"{where} has the event handler {name}")
            if name in ("href", "src", "action", "formaction", "data", "srcdoc", "xlink:href") and value is not None:
                scheme = urlsplit(re.sub(r"[\x00-\x20]", "", value)).scheme.lower()
                ours = (tag == "link" and value == FAVICON) or (  # our drawn favicon, and the install links
                    tag == "a" and dict(attrs).get("class") == "install-link" and INSTALL_LINK.fullmatch(value)
                )
                if scheme not in _SAFE_SCHEMES and not ours:
                    self.problems.append(f"{where} {name}={value[:60]!r}")
            if name == "style":
                self.problems.append(f"{where} has an inline style")
        if tag == "meta" and (dict(attrs).get("http-equiv") or "").lower() == "refresh":
            self.problems.append("meta refresh")
        if tag == "script":
            self.script_src = dict(attrs).get("src") or ""
            if self.script_src and (urlsplit(self.script_src).scheme or self.script_src.startswith("//")):
                self.problems.append(f"script {self.script_src!r}")
            self.in_script, self.script_text = True, ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            # The one inline script allowed is the theme one, byte for byte (the CSP allows it by hash).
            if self.script_text.strip() if self.script_src else self.script_text != THEME_SCRIPT:
                self.problems.append("inline script")
            self.in_script = False

    def handle_data(self, data: str) -> None:
        if self.in_script:
            self.script_text += data


def audit(site: Path) -> list[Path]:
    pages = sorted(site.rglob("*.html"))
    assert pages
    for page in pages:
        text = page.read_text(encoding="utf-8")
        parser = _Audit()
        parser.feed(text)
        parser.close()
        assert parser.problems == [], f"{page.relative_to(site)}: {parser.problems[:5]}"
        assert "49=SSTI" not in text and "jinja-ran" not in text, f"{page}: server text was evaluated as Jinja"
    for twin in site.rglob("*.md"):
        text = twin.read_text(encoding="utf-8")
        assert "49=SSTI" not in text and "jinja-ran" not in text
    return pages


# --- the browser ------------------------------------------------------------------------------


def off_loop(func: Any, *args: Any) -> Any:
    """Run *func* in a fresh thread: Playwright's sync API keeps an event loop in this one, and the
    build (search index) and introspection (SDK) start their own with anyio.run."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(func, *args).result()


def build_site(snapshot: Snapshot, locales: tuple[str, ...], site: Path) -> None:
    files, _ = site_files(snapshot, PortalConfig(locales=locales), renderer=TEMPLATES)
    publish(site, files)


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[http.server.ThreadingHTTPServer] = []

    def start(directory: Path) -> str:
        handler = functools.partial(_Quiet, directory=str(directory))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def without_csp(site: Path, into: Path) -> Path:
    """A copy of *site* with the CSP ``<meta>`` removed, so only escaping stands between payload and page."""
    shutil.copytree(site, into)
    for page in into.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        page.write_text(re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", text), encoding="utf-8")
    return into


SETTLED = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"
"""Two animation frames after ``load``: every error, load and animation event queued by then has fired."""


def load_every_page(browser: Any, base: str, site: Path, pages: list[Path]) -> None:
    context = browser.new_context(java_script_enabled=True)
    dialogs: list[str] = []
    outside: list[str] = []
    context.route(
        re.compile(r"^(?!http://127\.0\.0\.1:).*"),
        lambda route: _record(outside, route.request.url, route.abort),
    )
    page = context.new_page()
    page.on("dialog", lambda d: _record(dialogs, f"{d.type}: {d.message}", d.dismiss))
    try:
        for html in pages:
            url = base + html.relative_to(site).as_posix()
            page.goto(url, wait_until="load")
            page.evaluate(SETTLED)  # onerror/onload/animation handlers have had their turn
            flag = page.evaluate("() => [typeof window.__xss, document.title]")
            assert flag[0] == "undefined", f"{url}: a payload ran"
            assert "49=SSTI" not in page.inner_text("body")
    finally:
        context.close()
    assert dialogs == []
    assert [u for u in outside if not u.startswith(("data:", "about:"))] == []


def test_payloads_in_every_field_never_run(browser: Any, serve: Any, tmp_path: Path) -> None:
    site = tmp_path / "site"
    off_loop(build_site, xss_snapshot(), ("en", "ar"), site)
    pages = audit(site)
    # The payload text is shown (escaped), not dropped: readers see what the server sent.
    index = (site / "en" / "index.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in index
    assert "{{7*7}}=SSTI" in (site / "en" / "connecting" / "index.html").read_text(encoding="utf-8")
    served = without_csp(site, tmp_path / "served")
    load_every_page(browser, serve(served), site, pages)


def test_payloads_in_an_openapi_document_never_run(browser: Any, serve: Any, tmp_path: Path) -> None:
    # The OpenAPI document is the portal author's, but it is often generated from code comments:
    # its text is escaped like server text, on the API page and on the tool pages that link to it.
    snapshot = xss_snapshot(2)
    tool = snapshot.tools[0]["name"]
    paths = {
        f"/a/{PAYLOADS[i]}": {
            "post": {
                "operationId": PAYLOADS[i + 1],
                "summary": ALL,
                "x-mcp-tool": tool,
                "security": [{"oauth": [PAYLOADS[i + 2]]}],
            }
        }
        for i in range(0, 12, 3)
    }
    document = {"openapi": "3.1.0", "info": {"title": ALL, "version": PAYLOADS[0]}, "paths": paths}
    api = tmp_path / "openapi.json"
    api.write_text(json.dumps(document), encoding="utf-8")
    site = tmp_path / "site"

    def build() -> None:
        files, _ = site_files(snapshot, PortalConfig(locales=("en", "ar"), openapi=str(api)), renderer=TEMPLATES)
        publish(site, files)

    off_loop(build)
    pages = audit(site)
    api_page = (site / "en" / "api" / "index.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in api_page
    assert re.findall(r'<tr id="(op-[^"]*)">', api_page) and all(
        re.fullmatch(r"op-[A-Za-z0-9_.-]+", anchor) for anchor in re.findall(r'<tr id="([^"]*)">', api_page)
    )
    served = without_csp(site, tmp_path / "served")
    load_every_page(browser, serve(served), site, pages)


def test_payloads_from_a_real_server_never_run(
    browser: Any, serve: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    site = tmp_path / "site"
    command = f"{PYTHON} -m tests.servers.fixture_server --mode xss"
    argv = [
        "build",
        "--stdio",
        command,
        "--out",
        str(site),
        "--locales",
        "en",
        "--no-search",
        "--request-timeout",
        "10",
    ]
    assert off_loop(main, argv) == 0
    pages = audit(site)
    served = without_csp(site, tmp_path / "served")
    load_every_page(browser, serve(served), site, pages)


def test_the_csp_alone_would_also_stop_inline_script(browser: Any, serve: Any, tmp_path: Path) -> None:
    """Defence in depth: a page with an injected inline script, served with the site's CSP meta, does not run it."""
    site = tmp_path / "site"
    off_loop(build_site, xss_snapshot(1), ("en",), site)
    page_path = site / "en" / "index.html"
    text = page_path.read_text(encoding="utf-8")
    assert 'http-equiv="Content-Security-Policy"' in text, "the pages lost their CSP <meta>"
    injected = text.replace("</body>", f'<script>{SET}</script><img src=x onerror="{SET}"></body>')
    page_path.write_text(injected, encoding="utf-8")
    (site / "en" / "control.html").write_text(
        re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", injected), encoding="utf-8"
    )
    base = serve(site)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(base + "en/index.html", wait_until="load")
        assert page.evaluate("() => typeof window.__xss") == "undefined"
        # The positive control: the same page without the CSP does run it, so the probe works.
        page.goto(base + "en/control.html", wait_until="load")
        page.wait_for_function("() => window.__xss === 1", timeout=10_000)
    finally:
        context.close()
