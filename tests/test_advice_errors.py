"""The troubleshooting rows describe argument errors as the protocol allows them, never one form only.

Since the 2025-11-25 specification (SEP-1303), an argument that fails the input schema should be a
tool execution error: a result with ``isError: true`` whose content names the problem. Servers in
the wild still answer with a JSON-RPC error, -32602 (invalid params) or -32603 (internal error:
GitLab's does). A page built without having seen how its server answers names both forms; it never
asserts one. A page built from a snapshot whose ``--prove`` probe saw the server's answer names that
form alone. The bundled demo is called over stdio with the official SDK client, once with the
``server/discover`` handshake (2026-07-28) and once with ``initialize`` (2025-11-25), with a value
out of range and with a required argument missing: its answer is the form the rows of its
``search_chat`` page (twin and HTML, built from the committed snapshot, which the demo's probe
proved) name, and one of the forms the rows of a page built without the probe name.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from generator.snapshot.snapshot import load_snapshot
from tests.conftest import TEMPLATES
from tests.golden_tool import SNAPSHOT, golden_files

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


WANTED = ("en/tools/search_chat.md", "en/tools/search_chat/index.html", "en/connecting.md")


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    """The pages built from the committed snapshot (``proven``), and from it without its proofs (``unseen``)."""
    bare = {k: v for k, v in json.loads(SNAPSHOT.read_text(encoding="utf-8")).items() if k != "proofs"}
    unproven = tmp_path_factory.mktemp("unproven") / "snapshot.json"
    unproven.write_text(json.dumps(bare), encoding="utf-8")
    found = {}
    for label, path in (("proven", SNAPSHOT), ("unseen", unproven)):
        files = golden_files(load_snapshot(path), TEMPLATES)
        found[label] = {page: files[page].decode("utf-8") for page in WANTED}
    return found


def _text(result: object) -> str:
    return " ".join(str(getattr(part, "text", "")) for part in getattr(result, "content", []))


@pytest.mark.parametrize("mode", ["auto", "legacy"], ids=["discover (2026-07-28)", "initialize (2025-11-25)"])
async def test_a_bad_argument_is_answered_as_the_rows_say(mode: str, pages: dict[str, dict[str, str]]) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "generator.demo"], cwd=str(ROOT))
    async with Client(params, mode=mode) as client:  # type: ignore[arg-type]
        too_large = await client.call_tool("search_chat", {"query": "release", "limit": 500})
        missing = await client.call_tool("search_chat", {"limit": 5})
    assert too_large.is_error and "100" in _text(too_large), _text(too_large)
    assert missing.is_error and "query" in _text(missing), _text(missing)
    unseen, proven = pages["unseen"], pages["proven"]
    twin = unseen["en/tools/search_chat.md"]
    # One row for every constrained parameter, each with its limits.
    both = "a result with isError: true, or a JSON-RPC error such as -32602 or -32603 (servers differ)"
    row = next(line for line in twin.splitlines() if line.startswith("| A value of `query`, `since_days`, `limit`"))
    assert row.startswith(f"| A value of `query`, `since_days`, `limit` is refused: {both} |"), row
    assert "`limit` ≥ `1` · ≤ `100`" in row
    assert f"| A missing argument is refused: {both} |" in twin
    assert "older servers" not in twin
    html = unseen["en/tools/search_chat/index.html"]
    code = '<code dir="ltr">'
    both_html = (
        f"a result with {code}isError: true</code>, or a JSON-RPC error such as {code}-32602</code> or "
        f"{code}-32603</code> (servers differ)"
    )
    assert "A value of <code" in html and both_html in html and "older servers" not in html
    # The probe saw a result with isError: true, which is what the demo answered above, in either era.
    seen = "a result with isError: true whose text names the problem (this server answered so when mcp-portal"
    for name, page in proven.items():
        assert (seen if name.endswith(".md") else seen.replace("isError: true", f"{code}isError: true</code>")) in page
        assert both not in page
    assert f"| A missing argument is refused: {seen}" in proven["en/tools/search_chat.md"]
    assert f"| The arguments are refused: {seen}" in proven["en/connecting.md"]
    assert f"| The arguments are refused: {both} |" in unseen["en/connecting.md"]
