"""HTML tool pages show what their twins show (issue 37, item 7): every endpoint's command or URL,
its environment variable names, its protocol, and the "Call it" sequences and programs (issue 52: the
call's curl, JSON-RPC, Python and TypeScript tabs), character for character."""

from __future__ import annotations

import html
import re

import pytest

from generator.snapshot.snapshot import load_snapshot
from tests.conftest import TEMPLATES
from tests.golden_tool import SNAPSHOT, golden_files

TOOLS = [t["name"] for t in load_snapshot(SNAPSHOT).tools]


@pytest.fixture(scope="module")
def files() -> dict[str, str]:
    return {path: data.decode("utf-8") for path, data in golden_files(load_snapshot(SNAPSHOT), TEMPLATES).items()}


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


PANELS = {"sh": "curl", "jsonl": "jsonrpc", "python": "python", "typescript": "typescript"}
"""The call tab that shows each of the twin's kinds of block."""


def _panels(page: str) -> dict[str, list[str]]:
    """The text of every code block of each tab of a page's call, by the tab's kind."""
    found = re.findall(r'<div class="panel panel-(\w+)"[^>]*>(.*?)</div>\n(?=<div class="panel|</div>)', page, re.S)
    return {kind: [_text(b) for b in re.findall(r"<pre[^>]*>(.*?)</pre>", body, re.S)] for kind, body in found}


@pytest.mark.parametrize("locale", ["en", "ar"])
@pytest.mark.parametrize("tool", TOOLS)
def test_the_call_sequences_are_the_twins(files: dict[str, str], locale: str, tool: str) -> None:
    twin = files[f"{locale}/tools/{tool}.md"]
    page = files[f"{locale}/tools/{tool}/index.html"]
    call = next(
        part
        for part in twin.split("\n## ")
        if part.startswith(("Call it", "Вызов", "الاستدعاء")) or "```jsonl" in part or "curl -sS" in part
    )
    panels = _panels(page)
    assert set(panels) == {"json", "python", "typescript", "curl", "jsonrpc"}, tool
    for language, kind in PANELS.items():
        blocks = [b.rstrip("\n") for b in re.findall(rf"```{language}\n(.*?)\n```", call, re.S)]
        assert blocks and [b.rstrip("\n") for b in panels[kind]] == blocks, (tool, kind)


@pytest.mark.parametrize("tool", TOOLS)
def test_every_endpoint_s_facts_are_on_the_page(files: dict[str, str], tool: str) -> None:
    page = _text(files[f"en/tools/{tool}/index.html"].split('id="available"', 1)[1].split('<div class="hd"><h2', 1)[0])
    twin = files[f"en/tools/{tool}.md"]
    for command in re.findall(r"- Command: `([^`]+)`", twin):
        assert command in page, tool
    for url in re.findall(r"- URL: `([^`]+)`", twin):
        assert url in page, tool
    for protocol in re.findall(r"- Protocol: `([^`]+)`", twin):
        assert protocol in page, tool
    assert page.count("Protocol") == twin.count("- Protocol:"), tool
