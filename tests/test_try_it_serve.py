"""``mcp-portal serve --try-it``: the preview's panels call the bundled demo over stdio through its proxy.

The command runs as a process, as a user runs it (no server given: the bundled demo), and prints
the address to open with its run token in the fragment. Debian's chromium opens it and presses Send;
plain HTTP requests check what the proxy refuses.
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.conftest import PYTHON, ROOT, free_port

pytestmark = pytest.mark.browser

CALL = {"name": "search_chat", "arguments": {"query": "report"}}


@pytest.fixture(scope="module")
def preview() -> Iterator[str]:
    """The address ``serve --try-it`` prints (a tool page, the run token in its fragment)."""
    port = free_port()
    argv = [PYTHON, "-m", "generator", "serve", "--try-it", "--port", str(port)]
    with tempfile.TemporaryFile("w+") as errors:
        proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=errors, text=True)
        try:
            assert proc.stdout is not None
            lines = [proc.stdout.readline(), proc.stdout.readline()]
            found = re.search(r"at (http://\S+) \(Ctrl\+C to stop\)", lines[1])
            errors.seek(0)
            assert found, f"serve --try-it printed {lines!r}, and on stderr {errors.read()!r}"
            assert lines[0].startswith("Try it: 3 tool page(s) have the panel")
            yield found.group(1)
        finally:
            proc.terminate()
            proc.wait(timeout=20)


def _parts(address: str) -> tuple[str, str]:
    """The preview's base URL and its run token."""
    parts = urlsplit(address)
    return f"{parts.scheme}://{parts.netloc}", parts.fragment.removeprefix("try-it=")


def test_the_printed_address_opens_a_panel_that_calls_the_demo_over_stdio(browser: Any, preview: str) -> None:
    from playwright.sync_api import expect

    base, token = _parts(preview)
    assert len(token) >= 40 and preview.startswith(base + "/en/tools/search_chat/#try-it=")
    context = browser.new_context()
    try:
        page = context.new_page()
        sent: list[Any] = []
        page.on("request", lambda request: sent.append(request) if request.method == "POST" else None)
        page.goto(preview)
        assert page.url == base + "/en/tools/search_chat/"  # the token left the address bar
        assert "python -m generator.demo" in page.inner_text(".try-it")  # the endpoint it calls: stdio
        page.click(".try-send")
        expect(page.locator(".try-answer")).to_contain_text(
            "structuredContent matches the output schema.", timeout=60_000
        )
        assert [r.url for r in sent] == [base + "/.mcp-portal/try-it/stdio"]
        assert sent[0].headers["mcp-portal-run"] == token
        assert json.loads(sent[0].post_data) == {
            "name": "search_chat",
            "arguments": {"query": "search timeout", "limit": 20},
        }
        # Another tab has not seen the printed address: the panel says what to open, and sends nothing.
        other = context.new_page()
        other.goto(base + "/en/tools/my_capabilities/")
        other.evaluate("() => sessionStorage.clear()")
        other.click(".try-send")
        expect(other.locator(".try-status")).to_have_text(
            "This tab lacks the preview's run token: open the address mcp-portal serve --try-it printed."
        )
    finally:
        context.close()


def test_the_proxy_refuses_what_is_not_this_preview_s_own_call(preview: str) -> None:
    base, token = _parts(preview)
    url = base + "/.mcp-portal/try-it/stdio"
    own = {"Mcp-Portal-Run": token, "Content-Type": "application/json"}
    assert httpx.post(url, json=CALL, headers={"Content-Type": "application/json"}).status_code == 403
    assert httpx.post(url, json=CALL, headers={**own, "Mcp-Portal-Run": token[:-1] + "x"}).status_code == 403
    assert httpx.post(url, json=CALL, headers={**own, "Origin": "https://evil.example"}).status_code == 403
    assert httpx.post(url, json=CALL, headers={**own, "Host": "evil.example"}).status_code == 421
    assert httpx.post(url, json={"name": "file_defect", "arguments": {}}, headers=own).status_code == 403
    assert httpx.post(base + "/.mcp-portal/try-it/elsewhere", json=CALL, headers=own).status_code == 404
    assert httpx.post(url, content=b"{}", headers={"Mcp-Portal-Run": token}).status_code == 415
    assert httpx.post(base + "/en/", json=CALL, headers=own).status_code == 405
    answered = httpx.post(url, json=CALL, headers={**own, "Origin": base}, timeout=60)
    assert answered.status_code == 200 and answered.json()["result"]["isError"] is False


def test_it_listens_on_this_machine_only() -> None:
    done = subprocess.run(
        [PYTHON, "-m", "generator", "serve", "--try-it", "--host", "0.0.0.0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "serve --try-it listens on this machine only: use --host 127.0.0.1 (not 0.0.0.0)." in done.stderr
    assert "Traceback" not in done.stderr


HIDDEN_SERVER = """
import anyio
import mcp_types as types
from mcp import MCPError
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

SAID = "total\\u202e\\u2066\\u200b\\U000e0041\\x07 done"


async def list_tools(ctx, params):
    schema = {"type": "object", "properties": {}}
    read_only = types.ToolAnnotations(read_only_hint=True)
    said = "Answers with hidden characters."
    names = ("hidden_text", "hidden_error")
    tools = [types.Tool(name=n, description=said, input_schema=schema, annotations=read_only) for n in names]
    return types.ListToolsResult(tools=tools)


async def call_tool(ctx, params):
    if params.name == "hidden_error":
        raise MCPError(-32602, SAID)
    text = types.TextContent(type="text", text=SAID)
    return types.CallToolResult(content=[text], structured_content={"said": SAID})


async def main():
    server = Server("hidden-server", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


anyio.run(main)
"""


def test_the_answer_marks_hidden_characters_as_the_static_pages_do(browser: Any, tmp_path: Any) -> None:
    """Issue 47: raw bidi and zero-width characters reached the answer box."""
    from playwright.sync_api import expect

    server = tmp_path / "hidden_server.py"
    server.write_text(HIDDEN_SERVER, encoding="utf-8")
    port = free_port()
    argv = [PYTHON, "-m", "generator", "serve", "--try-it", "--port", str(port), "--stdio", f"{PYTHON} {server}"]
    with tempfile.TemporaryFile("w+") as errors:
        proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=errors, text=True)
        try:
            assert proc.stdout is not None
            lines = [proc.stdout.readline(), proc.stdout.readline()]
            found = re.search(r"at (http://\S+) \(Ctrl\+C to stop\)", lines[1])
            errors.seek(0)
            assert found, f"serve --try-it printed {lines!r}, and on stderr {errors.read()!r}"
            base = _parts(found.group(1))[0]
            context = browser.new_context()
            try:
                page = context.new_page()
                page.goto(found.group(1))
                shown = {}
                for tool in ("hidden_text", "hidden_error"):
                    page.goto(f"{base}/en/tools/{tool}/")
                    page.click(".try-send")
                    expect(page.locator(".try-status")).to_contain_text("ms", timeout=60_000)
                    shown[tool] = page.inner_text(".try-answer")
            finally:
                context.close()
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    marks = "total[U+202E][U+2066][U+200B][U+E0041][U+0007] done"
    assert marks in shown["hidden_text"]  # the text item, as a page shows prose
    assert '"said": "total\\u202e\\u2066\\u200b\\udb40\\udc41\\u0007 done"' in shown["hidden_text"]  # JSON
    assert marks in shown["hidden_error"]
    for text in shown.values():
        assert not any(c in text for c in "\u202e\u2066\u200b\U000e0041\x07"), text
