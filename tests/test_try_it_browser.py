"""The Try it panel in Debian's chromium, calling the demo's real Streamable HTTP server.

Three sites are built from the demo's snapshot with ``try_it`` on, each served by the preview server
on its own port of 127.0.0.1, and two demo servers run as processes that allow those origins
(``--cors-origin``): one open, at both protocol eras (the sites record 2026-07-28 or 2025-11-25),
and one that needs a bearer token (``--token-env``). The panel's requests are what the browser
really sends; the answers are the demo's own.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from generator.commands.build import site_files
from generator.publish.write import publish
from tests.conftest import PYTHON, TEMPLATES, free_port, http_server, serving
from tests.golden_tool import demo_config, http_endpoints_changed
from tests.test_accessibility import _describe, _violations_here

pytestmark = pytest.mark.browser

TOKEN = "demo-token-7f3a9c"  # the test's own token, for the demo it starts
SESSION_ERA = {"protocol_version": "2025-11-25", "supported_versions": ["2025-11-25"]}


@dataclasses.dataclass(frozen=True)
class Sites:
    modern: str
    session: str
    token: str
    open_origin: str
    token_origin: str


def _site(tmp: Path, name: str, port: int, **changes: Any) -> Path:
    def moved(endpoint: dict[str, Any]) -> str:
        return str(endpoint["address"]).replace("127.0.0.1:8765", f"127.0.0.1:{port}")

    snapshot = http_endpoints_changed(tmp, address=moved, **changes)
    config = dataclasses.replace(demo_config(), try_it=True, try_it_tools=("delete_document",))
    files, _ = site_files(snapshot, config, renderer=TEMPLATES)
    publish(tmp / name, files)
    return tmp / name


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sites]:
    tmp = tmp_path_factory.mktemp("try-it")
    open_port, token_port = free_port(), free_port()
    with ExitStack() as stack:
        modern = stack.enter_context(serving(_site(tmp, "modern", open_port)))
        session = stack.enter_context(serving(_site(tmp, "session", open_port, **SESSION_ERA)))
        auth = [["Authorization", "Bearer ${DEMO_TOKEN}"]]
        token = stack.enter_context(serving(_site(tmp, "token", token_port, auth=auth)))
        origins = [option for url in (modern, session, token) for option in ("--cors-origin", url.rstrip("/"))]
        demo = [PYTHON, "-m", "generator.demo", "--http", "--host", "127.0.0.1", *origins]
        stack.enter_context(http_server([*demo, "--port", str(open_port)], open_port))
        guarded = [*demo, "--port", str(token_port), "--token-env", "DEMO_TOKEN"]
        stack.enter_context(http_server(guarded, token_port, env={"DEMO_TOKEN": TOKEN}))
        yield Sites(modern, session, token, f"http://127.0.0.1:{open_port}", f"http://127.0.0.1:{token_port}")


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        yield context.new_page()
    finally:
        context.close()


def _requests(page: Any, origin: str) -> list[Any]:
    """Every request the page makes to *origin*, as they are made."""
    seen: list[Any] = []
    page.on("request", lambda request: seen.append(request) if request.url.startswith(origin) else None)
    return seen


def _open(page: Any, url: str, *, as_json: bool = False) -> None:
    """Open *url* and its Try it tab; with *as_json*, switch the form to the raw JSON arguments."""
    page.goto(url)
    page.click("label[for=call-try]")
    if as_json:
        page.click(".try-mode")


def _send(page: Any) -> str:
    """Press Send and wait for the panel to finish; return its status line."""
    from playwright.sync_api import expect

    # The status is emptied first so that the wait sees this press's outcome; the script disables
    # the button while it sends and sets the status in the same step.
    page.locator(".try-status").evaluate("node => { node.textContent = '' }")
    page.click(".try-send")
    expect(page.locator(".try-status")).not_to_have_text("", timeout=20_000)
    expect(page.locator(".try-send")).to_be_enabled(timeout=40_000)
    return str(page.inner_text(".try-status"))


def test_a_read_only_call_in_the_sessionless_era_is_answered_and_validated(page: Any, sites: Sites) -> None:
    sent = _requests(page, sites.open_origin)
    _open(page, sites.modern + "en/tools/search_chat/")
    assert sent == [], "the page called the server before Send"
    assert page.inner_text("#try-check") == "The arguments match the input schema."
    assert _send(page).startswith("The server answered in ")
    answer = page.inner_text(".try-answer")
    assert "The answer (structuredContent):" in answer and "structuredContent matches the output schema." in answer
    assert [r.method for r in sent] == ["POST"]
    headers = sent[0].headers
    assert headers["mcp-protocol-version"] == "2026-07-28"
    assert (headers["mcp-method"], headers["mcp-name"]) == ("tools/call", "search_chat")
    body = json.loads(sent[0].post_data)
    assert body["params"]["arguments"] == {"query": "search timeout", "limit": 20}
    assert body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
    # The answer is for the arguments that were sent: a change clears it.
    page.get_by_label("query").fill("deploy")
    assert page.inner_text(".try-answer") == ""
    assert page.inner_text(".try-status") == "The arguments changed: press Send for a new answer."


def test_the_session_era_runs_the_handshake_and_ends_the_session(page: Any, sites: Sites) -> None:
    sent = _requests(page, sites.open_origin)
    _open(page, sites.session + "ar/tools/search_chat/")
    with page.expect_request(lambda r: r.method == "DELETE", timeout=20_000):  # sent after the answer is shown
        assert _send(page).startswith("أجاب الخادم خلال")
        assert "structuredContent مطابق لمخطط الإخراج." in page.inner_text(".try-answer")
    methods = [(r.method, json.loads(r.post_data)["method"] if r.post_data else None) for r in sent]
    assert methods == [
        ("POST", "initialize"),
        ("POST", "notifications/initialized"),
        ("POST", "tools/call"),
        ("DELETE", None),
    ]
    session = {r.headers.get("mcp-session-id") for r in sent[1:]}
    assert len(session) == 1 and None not in session and "mcp-session-id" not in sent[0].headers
    assert all(r.headers["mcp-protocol-version"] == "2025-11-25" for r in sent[1:])


def test_the_token_is_sent_to_the_endpoint_only_and_kept_nowhere(page: Any, sites: Sites) -> None:
    every: list[Any] = []
    page.on("request", lambda request: every.append(request))
    logged: list[str] = []
    page.on("console", lambda message: logged.append(message.text))
    _open(page, sites.token + "en/tools/search_chat/")
    _send(page)
    assert "The server answered with HTTP status 401:" in page.inner_text(".try-answer")
    page.fill("#try-secret-1", TOKEN)
    _send(page)
    assert "structuredContent matches the output schema." in page.inner_text(".try-answer")
    carrying = [r for r in every if TOKEN in json.dumps(r.headers) + r.url + (r.post_data or "")]
    assert carrying and all(r.url.startswith(sites.token_origin + "/") for r in carrying)
    assert all(r.headers["authorization"] == f"Bearer {TOKEN}" for r in carrying)
    kept = page.evaluate(
        "() => JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage), document.cookie,"
        " location.href, history.state, document.documentElement.outerHTML])"
    )
    assert TOKEN not in kept and TOKEN not in page.url
    assert not any(TOKEN in line for line in logged)
    assert page.context.cookies() == []


def test_a_destructive_tool_sends_nothing_until_confirmed(page: Any, sites: Sites) -> None:
    sent = _requests(page, sites.open_origin)
    _open(page, sites.modern + "en/tools/delete_document/")
    assert "Destructive: may delete or overwrite data" in page.inner_text(".try-confirm")
    assert _send(page) == "Tick the confirmation first: this tool is not declared read-only."
    assert sent == [] and page.evaluate("document.activeElement.id") == "try-confirm"
    page.check("#try-confirm")
    assert _send(page).startswith("The server answered in ")
    assert [json.loads(r.post_data)["params"]["name"] for r in sent] == ["delete_document"]


def test_a_bad_argument_is_flagged_and_still_answered_as_the_server_answers_it(page: Any, sites: Sites) -> None:
    _open(page, sites.modern + "en/tools/search_chat/", as_json=True)
    page.fill("#try-args", '{"query": "report", "limit": 1000, "colour": "red"}')
    from playwright.sync_api import expect

    check = page.locator("#try-check")
    expect(check).to_contain_text("arguments.limit: must be at most 100")
    _send(page)
    answer = page.inner_text(".try-answer")
    assert "The tool reported an error (isError: true):" in answer or "JSON-RPC error" in answer
    assert "100" in answer  # the server's own words about the limit
    page.fill("#try-args", '{"query": ')
    expect(check).to_contain_text("This is not valid JSON")


def test_the_panel_works_from_the_keyboard_with_labelled_fields(page: Any, sites: Sites) -> None:
    from playwright.sync_api import expect

    sent = _requests(page, sites.token_origin)
    _open(page, sites.token + "ar/tools/search_chat/")
    assert page.get_by_label("query").input_value() == "search timeout"  # each field has its label
    page.get_by_label("قيمة ${DEMO_TOKEN}").fill(TOKEN)
    page.focus("#try-secret-1")
    page.keyboard.press("Tab")  # from the secret field to Send
    assert page.evaluate("document.activeElement.className") == "try-send"
    page.keyboard.press("Enter")
    expect(page.locator(".try-answer")).to_contain_text("structuredContent مطابق لمخطط الإخراج.", timeout=20_000)
    assert page.get_attribute(".try-status", "role") == "status"
    assert len(sent) == 1


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_serious_with_the_answer_open(browser: Any, sites: Sites, scheme: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme, bypass_csp=True)
    try:
        page = context.new_page()
        _open(page, sites.token + "ru/tools/search_chat/", as_json=True)
        page.fill("#try-secret-1", TOKEN)
        page.fill("#try-args", '{"query": "report", "limit": 1000}')
        _send(page)
        blocking = _violations_here(page)
        assert not blocking, f"axe-core with the panel answered ({scheme}):\n" + _describe(blocking)
    finally:
        context.close()
