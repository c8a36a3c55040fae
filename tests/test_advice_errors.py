"""The troubleshooting rows describe argument errors as the demo really answers them, in both eras.

Since the 2025-11-25 specification (SEP-1303), an argument that fails the input schema is a tool
execution error: a result with ``isError: true`` whose content names the problem, not the JSON-RPC
error -32602 older servers sent. The bundled demo is called over stdio with the official SDK
client, once with the ``server/discover`` handshake (2026-07-28) and once with ``initialize``
(2025-11-25), with a value out of range and with a required argument missing; the rows of the
demo's ``search_chat`` page (twin and HTML, built from the committed snapshot) must describe what
it answered.
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
    row = next(line for line in twin.splitlines() if "`since_days`, `limit` (older servers" in line)
    assert row.startswith("| A result with isError: true about `query`, `since_days`, `limit` (older servers: JSON-RPC")
    assert "`limit` ≥ `1` · ≤ `100`" in row
    assert "| A result with isError: true about a missing argument (older servers: JSON-RPC error -32602) |" in twin
    assert "JSON-RPC error -32602 (invalid params)" not in twin
    html = pages["en/tools/search_chat/index.html"]
    assert "A result with isError: true about <code" in html and "older servers: JSON-RPC error -32602" in html
