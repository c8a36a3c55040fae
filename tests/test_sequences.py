"""The copy-paste call sequences in the Markdown twins, run exactly as printed against the demo.

Every ``sh`` block of the demo's twins (``curl`` over Streamable HTTP) is run by the real ``bash``
and ``curl`` against ``python -m generator.demo --http`` on a free port of 127.0.0.1, and every
``jsonl`` block (stdio) is piped into the demo's stdio server.  The only change made to a script is
the host and port: the twin shows the demo's default address, the test server listens elsewhere.

Both protocol eras are covered: the demo is documented at 2026-07-28 (one request, no session),
and the same snapshot with its endpoints recorded at 2025-11-25 gives the handshake sequences
(initialize, notifications/initialized, tools/call with ``Mcp-Session-Id``, then DELETE), which
the demo also serves.  A sequence that does not end in a valid ``tools/call`` result fails here.
"""

from __future__ import annotations

import html as html_lib
import json
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from generator.commands.demo_portal import DEMO_LABEL, DEMO_PUBLIC_HTTP
from generator.demo.launch import running_http_demo
from generator.snapshot.snapshot import fingerprint, load_snapshot
from tests.conftest import TEMPLATES
from tests.golden_tool import SNAPSHOT, golden_files

REPO_ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"^```(sh|jsonl)\n(.*?)\n```$", re.M | re.S)


def _twins(snapshot_path: Path) -> dict[str, str]:
    """The English twins of the demo portal built from *snapshot_path* (the golden build's config)."""
    files = golden_files(load_snapshot(snapshot_path), TEMPLATES)
    return {
        path: data.decode("utf-8") for path, data in files.items() if path.startswith("en/") and path.endswith(".md")
    }


def _legacy_snapshot(tmp: Path) -> Path:
    """The demo's snapshot with every endpoint recorded at 2025-11-25 (the initialize handshake)."""
    data = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    for endpoint in data["endpoints"]:
        endpoint["protocol_version"] = "2025-11-25"
        endpoint.pop("supported_versions", None)
    # Recorded as an introspection at that era would record it: the fingerprint covers the endpoints.
    data["fingerprint"] = fingerprint(data["tools"], data["endpoints"])
    path = tmp / "legacy.snapshot.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def sequences(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[str, str, str]]]:
    """era -> [(twin path, language, block)] for every sequence in the demo's English twins."""
    tmp = tmp_path_factory.mktemp("sequences")
    found: dict[str, list[tuple[str, str, str]]] = {}
    for era, snapshot in (("2026-07-28", SNAPSHOT), ("2025-11-25", _legacy_snapshot(tmp))):
        found[era] = [
            (path, m.group(1), m.group(2))
            for path, text in sorted(_twins(snapshot).items())
            for m in BLOCK.finditer(text)
        ]
    return found


@pytest.fixture(scope="module")
def demo_http() -> Iterator[str]:
    with running_http_demo() as base:
        yield base


def _messages(stdout: str) -> list[dict[str, Any]]:
    """Every JSON-RPC message in *stdout*: plain JSON lines, or the ``data:`` lines of an SSE stream."""
    out = []
    for line in stdout.splitlines():
        line = line.removeprefix("data: ").strip()
        if line.startswith("{"):
            out.append(json.loads(line))
    return out


REQUESTS = {"tools/call": "content", "prompts/get": "messages", "resources/read": "contents"}
"""The requests a sequence makes, each with the list its result must hold."""


def _call_id(block: str) -> int:
    """The JSON-RPC id of the request a sequence makes (``tools/call``, ``prompts/get`` or ``resources/read``)."""
    ids = [
        int(m.group(1)) for m in re.finditer(r'"id":(\d+),"method":"(?:tools/call|prompts/get|resources/read)"', block)
    ]
    assert len(ids) == 1, block
    return ids[0]


def _check_result(messages: list[dict[str, Any]], call_id: int, where: str, block: str = "") -> None:
    answers = [m for m in messages if m.get("id") == call_id]
    assert answers, f"{where}: no answer to the request in {messages!r}"
    answer = answers[-1]
    assert "error" not in answer, f"{where}: {answer['error']}"
    result = answer["result"]
    method = next((m for m in REQUESTS if f'"method":"{m}"' in block), "tools/call")
    assert isinstance(result.get(REQUESTS[method]), list) and result[REQUESTS[method]], f"{where}: {result!r}"
    assert isinstance(result.get("isError", False), bool)


def _stdio_exchange(block: str, call_id: int, timeout: float = 60.0) -> list[dict[str, Any]]:
    """Start the demo's stdio server, write *block*'s lines, read answers until *call_id* is answered."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "generator.demo"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=REPO_ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    messages: list[dict[str, Any]] = []
    try:
        proc.stdin.write(block + "\n")
        proc.stdin.flush()
        for line in proc.stdout:
            messages += _messages(line)
            if any(m.get("id") == call_id for m in messages):
                break
    finally:
        timer.cancel()
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
    return messages


def test_curl_is_the_real_binary() -> None:
    assert shutil.which("curl"), "curl is missing: scripts/test installs it with apt"
    assert shutil.which("bash")


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
def test_every_twin_shows_sequences_of_its_era(sequences: dict[str, list[tuple[str, str, str]]], era: str) -> None:
    blocks = sequences[era]
    paths = {path for path, _, _ in blocks}
    assert "en/connecting.md" in paths
    # Every demo tool has example arguments that validate, so every tool twin shows its call; the
    # prompt, the resource and the resource template (its variables filled) show theirs too.
    assert sum(1 for p in paths if p.startswith("en/tools/")) == 6
    for item in ("en/prompts/triage_defect.md", "en/resources/handbook.md", "en/resource-templates/document.md"):
        assert sum(1 for p, _, _ in blocks if p == item) == 2, item  # stdio and Streamable HTTP
    template = [b for p, _, b in blocks if p == "en/resource-templates/document.md"]
    uris = [m.group(1) for b in template for m in re.finditer(r'"uri":"(teamspace://documents/[^"]*)"', b)]
    assert uris and all("{" not in uri and "}" not in uri for uri in uris), uris
    session = [b for _, lang, b in blocks if lang == "sh" and "Mcp-Session-Id: $SESSION" in b]
    stateless = [b for _, lang, b in blocks if lang == "sh" and "Mcp-Method: tools/call" in b]
    if era == "2026-07-28":
        assert stateless and not session
    else:
        assert session and not stateless
        assert all("notifications/initialized" in b and "-X DELETE" in b for b in session)


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
def test_curl_sequences_work_against_the_demo(
    sequences: dict[str, list[tuple[str, str, str]]], demo_http: str, era: str
) -> None:
    blocks = [(path, block) for path, lang, block in sequences[era] if lang == "sh"]
    assert len(blocks) >= 7
    for path, block in blocks:
        assert block.count(DEMO_PUBLIC_HTTP) == 1, block  # only MCP_URL names the host
        script = block.replace(DEMO_PUBLIC_HTTP, demo_http)
        run = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, f"{path}: {run.stderr}"
        _check_result(_messages(run.stdout), _call_id(block), path, block)


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
def test_stdio_lines_work_against_the_demo(sequences: dict[str, list[tuple[str, str, str]]], era: str) -> None:
    blocks = [(path, block) for path, lang, block in sequences[era] if lang == "jsonl"]
    assert len(blocks) >= 7
    for path, block in blocks:
        # The twin says: start `python -m generator.demo` and write these lines to its input.
        assert DEMO_LABEL == "python -m generator.demo"
        # As a client does: write the lines, keep the input open until the call is answered.
        _check_result(_stdio_exchange(block, _call_id(block)), _call_id(block), path, block)
        lines = block.splitlines()
        assert len(lines) == (1 if era == "2026-07-28" else 3)


def test_the_html_connecting_page_shows_the_twins_sequences() -> None:
    # The HTML page's "curl" / "JSON-RPC lines" tabs show, character for character, the sequences
    # the twin shows (and the tests above run), so the page a developer copies from also works.
    files = golden_files(load_snapshot(SNAPSHOT), TEMPLATES)
    twin = files["en/connecting.md"].decode("utf-8")
    page = files["en/connecting/index.html"].decode("utf-8")
    shown = [
        html_lib.unescape(re.sub(r"<[^>]+>", "", code))
        for code in re.findall(r'<code class="language-(?:shell|json)[^"]*">(.*?)</code>', page, re.S)
    ]
    blocks = [m.group(2) for m in BLOCK.finditer(twin)]
    assert len(blocks) == 3  # one per endpoint of the demo
    for block in blocks:
        assert block in shown, block[:200]
