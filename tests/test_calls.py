"""generator.model.calls: the copy-paste sequences are safe shell for any tool name and header.

``bash`` itself reads each script here, with ``curl`` replaced by a shell function that prints its
arguments, so what is checked is exactly what a reader's shell would pass to curl: the body is the
JSON-RPC call, ``Mcp-Name`` decodes to the tool's name, ``${TOKEN}`` expands and nothing else does.
(tests/test_sequences.py runs the real curl against the demo.)
"""

from __future__ import annotations

import base64
import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from generator.model.calls import EndpointCall, header_value, is_local, is_sessionless
from generator.schema.examples import Example

HOSTILE = 'it\'s "odd" $(touch PWNED) `touch PWNED2` ${HOME} \\ ü\u202e'


@dataclass
class FakeTool:
    name: str
    arguments: Any = field(default_factory=dict)
    schema: Any = field(default_factory=lambda: {"type": "object"})
    task_support: str = "forbidden"
    ok: bool = True

    @property
    def example_request(self) -> str | None:
        return "{}" if self.ok else None

    @property
    def example_args(self) -> Example:
        return Example(self.arguments, self.ok, "" if self.ok else "no example")

    @property
    def input_schema(self) -> Any:
        return self.schema

    @property
    def access(self) -> Any:
        return None


def _curl_args(script: str, tmp: Path, env: dict[str, str] | None = None) -> list[list[str]]:
    """The argument lists bash passes to curl when it runs *script* (curl itself is not run)."""
    prelude = 'curl() { for a in "$@"; do printf "%s\\0" "$a"; done; printf "\\n--END--\\n"; }\n'
    run = subprocess.run(
        ["bash", "-e", "-c", prelude + script],
        capture_output=True,
        text=True,
        cwd=tmp,
        env={"PATH": "/usr/bin:/bin", **(env or {})},
        timeout=30,
    )
    assert run.returncode == 0, run.stderr
    assert not (tmp / "PWNED").exists() and not (tmp / "PWNED2").exists()
    return [chunk.strip("\n").split("\0")[:-1] for chunk in run.stdout.split("--END--")[:-1]]


def _headers(argv: list[str]) -> dict[str, str]:
    pairs = [argv[i + 1].split(": ", 1) for i, a in enumerate(argv) if a == "-H"]
    return {k: v for k, v in pairs}


def _body(argv: list[str]) -> Any:
    return json.loads(argv[argv.index("-d") + 1])


def test_a_hostile_tool_name_reaches_curl_intact_and_runs_nothing(tmp_path: Path) -> None:
    call = EndpointCall("streamable-http", "https://mcp.example.com/mcp/", "2026-07-28", offered=(HOSTILE,))
    sequence = call.sequence(FakeTool(HOSTILE, {"q": HOSTILE}))
    assert sequence is not None and sequence.language == "sh" and sequence.sessionless
    (argv,) = _curl_args(sequence.text, tmp_path)
    assert argv[:4] == ["-sS", "-X", "POST", "https://mcp.example.com/mcp/"]
    body = _body(argv)
    assert body["params"]["name"] == HOSTILE and body["params"]["arguments"] == {"q": HOSTILE}
    headers = _headers(argv)
    encoded = headers["Mcp-Name"]
    assert encoded.startswith("=?base64?")
    assert base64.b64decode(encoded[9:-2]).decode("utf-8") == HOSTILE
    assert headers["MCP-Protocol-Version"] == "2026-07-28" and headers["Mcp-Method"] == "tools/call"
    assert sequence.text.isascii()  # JSON is ASCII-escaped: no bidi control reaches a terminal


def test_the_session_sequence_expands_only_the_session_and_the_token(tmp_path: Path) -> None:
    auth = (("Authorization", "Bearer ${TOKEN}"), ("X-Team", '<X-Team value>"$(touch PWNED)'))
    call = EndpointCall("streamable-http", "http://127.0.0.1:8765/mcp/", "2025-06-18", auth=auth, offered=("t",))
    sequence = call.sequence(FakeTool("t", {"n": 1}))
    assert sequence is not None and not sequence.sessionless
    # The initialize runs inside $( ... | awk ...): its curl prints nothing the awk keeps, so SESSION is empty.
    calls = _curl_args(sequence.text, tmp_path, {"TOKEN": "s3cret"})
    notify, call_args, end = calls[-3:]
    for argv in (notify, call_args, end):
        headers = _headers(argv)
        assert headers["Authorization"] == "Bearer s3cret"
        assert headers["X-Team"] == '<X-Team value>"$(touch PWNED)'
        assert headers["MCP-Protocol-Version"] == "2025-06-18"
        assert "Mcp-Session-Id" in headers
    assert _body(notify) == {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert _body(call_args)["params"] == {"name": "t", "arguments": {"n": 1}}
    assert end[2] == "DELETE" and "-d" not in end
    assert '"protocolVersion":"2025-06-18"' in sequence.text


def test_x_mcp_header_arguments_are_mirrored(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"},
            "other": {"type": "string"},
        },
    }
    call = EndpointCall("streamable-http", "https://x.example/mcp", "2026-07-28", offered=("t",))
    sequence = call.sequence(FakeTool("t", {"region": "eu-west-1", "dry": True, "other": "x"}, schema))
    assert sequence is not None
    (argv,) = _curl_args(sequence.text, tmp_path)
    headers = _headers(argv)
    assert headers["Mcp-Param-Region"] == "eu-west-1" and headers["Mcp-Param-Dry-Run"] == "true"
    assert not any(k.startswith("Mcp-Param-Other") for k in headers)


def test_stdio_lines_per_era() -> None:
    modern = EndpointCall("stdio", "srv --flag", "2026-07-28", offered=("t",)).sequence(FakeTool("t"))
    legacy = EndpointCall("stdio", "srv --flag", "2024-11-05", offered=("t",)).sequence(FakeTool("t"))
    assert modern is not None and legacy is not None
    (line,) = modern.text.splitlines()
    assert json.loads(line)["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
    init, initialized, call = map(json.loads, legacy.text.splitlines())
    assert init["method"] == "initialize" and init["params"]["protocolVersion"] == "2024-11-05"
    assert initialized == {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert call["id"] == 2 and "_meta" not in call["params"]


@pytest.mark.parametrize(
    "tool",
    [FakeTool("t", ok=False), FakeTool("t", task_support="required"), FakeTool("not-offered")],
    ids=["no valid example", "task required", "not offered here"],
)
def test_no_sequence_that_cannot_work(tool: FakeTool) -> None:
    assert EndpointCall("stdio", "srv", "2026-07-28", offered=("t",)).sequence(tool) is None


@pytest.mark.parametrize(
    ("version", "expected"),
    [("2026-07-28", True), ("2027-01-01", True), ("2025-11-25", False), ("DRAFT-2026-v1", False), ("", False)],
)
def test_the_sessionless_era(version: str, expected: bool) -> None:
    assert is_sessionless(version) is expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://127.0.0.1:8765/mcp/", True),
        ("http://localhost/mcp", True),
        ("http://[::1]:80/", True),
        ("http://10.1.2.3/mcp", True),
        ("http://printer.local/", True),
        ("https://mcp.example.com/mcp/", False),
        ("https://8.8.8.8/", False),
    ],
)
def test_local_addresses(url: str, expected: bool) -> None:
    assert is_local(url) is expected


def test_header_value_encoding() -> None:
    assert header_value("search_chat") == "search_chat"
    assert header_value(" padded") == "=?base64?IHBhZGRlZA==?="
    assert header_value("=?base64?x?=").startswith("=?base64?")
