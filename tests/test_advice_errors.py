"""The troubleshooting rows describe argument errors as the protocol allows them, never one form only.

Since the 2025-11-25 specification (SEP-1303), an argument that fails the input schema should be a
tool execution error: a result with ``isError: true`` whose content names the problem. Servers in
the wild still answer with a JSON-RPC error, -32602 (invalid params) or -32603 (internal error:
GitLab's does). A page built without having seen how its server answers names both forms; it never
asserts one. The bundled demo is called over stdio with the official SDK client, once with the
``server/discover`` handshake (2026-07-28) and once with ``initialize`` (2025-11-25), with a value
out of range and with a required argument missing: its answer is one of the forms the rows of its
``search_chat`` page (twin and HTML, built from the committed snapshot) name.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from generator.snapshot.snapshot import load_snapshot
from tests.golden_tool import SNAPSHOT, golden_files

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    files = golden_files(load_snapshot(SNAPSHOT))
    wanted = ("en/tools/search_chat.md", "en/tools/search_chat/index.html")
    return {path: files[path].decode("utf-8") for path in wanted}


def _text(result: object) -> str:
    return " ".join(str(getattr(part, "text", "")) for part in getattr(result, "content", []))


@pytest.mark.parametrize("mode", ["auto", "legacy"], ids=["discover (2026-07-28)", "initialize (2025-11-25)"])
async def test_a_bad_argument_is_answered_as_the_rows_say(mode: str, pages: dict[str, str]) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "generator.demo"], cwd=str(ROOT))
    async with Client(params, mode=mode) as client:  # type: ignore[arg-type]
        too_large = await client.call_tool("search_chat", {"query": "release", "limit": 500})
        missing = await client.call_tool("search_chat", {"limit": 5})
    assert too_large.is_error and "100" in _text(too_large), _text(too_large)
    assert missing.is_error and "query" in _text(missing), _text(missing)
    twin = pages["en/tools/search_chat.md"]
    # One row for every constrained parameter, each with its limits.
    both = "a result with isError: true, or a JSON-RPC error such as -32602 or -32603 (servers differ)"
    row = next(line for line in twin.splitlines() if line.startswith("| A value of `query`, `since_days`, `limit`"))
    assert row.startswith(f"| A value of `query`, `since_days`, `limit` is refused: {both} |"), row
    assert "`limit` ≥ `1` · ≤ `100`" in row
    assert f"| A missing argument is refused: {both} |" in twin
    assert "older servers" not in twin
    html = pages["en/tools/search_chat/index.html"]
    code = '<code dir="ltr">'
    both_html = (
        f"a result with {code}isError: true</code>, or a JSON-RPC error such as {code}-32602</code> or "
        f"{code}-32603</code> (servers differ)"
    )
    assert "A value of <code" in html and both_html in html and "older servers" not in html
