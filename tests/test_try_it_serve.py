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
