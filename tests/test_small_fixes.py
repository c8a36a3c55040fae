"""Issue 37, item 12: the small things a first user met on real servers.

A crashing server's stderr excerpt names the error, not only stack frames; a handshake introduces
itself as mcp-portal's example, not as curl; a session's final DELETE says a 405 is harmless; and a
server with no version gets a warning that its pages are stamped with a fingerprint. A count in a
message agrees with its number ("1 tool", not "1 tools").
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from generator.config.portal import PortalConfig
from generator.connect.failures import Underway, serves_http, stderr_tail
from generator.connect.secrets import Redactor
from generator.connect.stderr_log import StderrLog
from generator.model.calls import CLIENT_INFO
from generator.model.gather import gather
from generator.snapshot.snapshot import load_snapshot, new_snapshot
from generator.text import counted
from tests.test_sequences import _legacy_snapshot

NODE_CRASH = """\
Starting server...
file:///srv/node_modules/server/dist/index.js:12
    throw new Error("MONGODB_URI is not set");
    ^

Error: MONGODB_URI is not set
    at loadConfig (file:///srv/node_modules/server/dist/config.js:3:11)
    at main (file:///srv/node_modules/server/dist/index.js:12:5)
    at file:///srv/node_modules/server/dist/index.js:40:1
    at ModuleJob.run (node:internal/modules/esm/module_job:271:25)
"""

PYTHON_CRASH = """\
Traceback (most recent call last):
  File "/srv/server.py", line 9, in <module>
    main()
  File "/srv/server.py", line 5, in main
    raise RuntimeError("no API key")
RuntimeError: no API key
"""


def _tail(text: str) -> str:
    with contextlib.closing(StderrLog()) as log:
        log.file.write(text)
        log.file.flush()
        return stderr_tail(log, Redactor(set()))


def test_a_node_crash_excerpt_leads_with_the_error_line() -> None:
    tail = _tail(NODE_CRASH)
    assert "Error: MONGODB_URI is not set | … |" in tail
    assert tail.rstrip().endswith("(node:internal/modules/esm/module_job:271:25)")


def test_a_python_crash_excerpt_ends_with_its_error_line_once() -> None:
    tail = _tail(PYTHON_CRASH)
    assert tail.count("RuntimeError: no API key") == 1 and "…" not in tail


def test_a_long_log_is_read_from_its_end_only() -> None:
    tail = _tail("noise line\n" * 200_000 + NODE_CRASH)
    assert "Error: MONGODB_URI is not set" in tail


def test_handshakes_introduce_the_portal_example_not_curl(tmp_path: Path) -> None:
    site = gather(load_snapshot(_legacy_snapshot(tmp_path)), PortalConfig()).model
    assert CLIENT_INFO["name"] == "mcp-portal-example"
    texts = []
    for endpoint in site.endpoints:
        call = endpoint.call
        tool = site.demonstrated(call)
        sequence = call.sequence(tool) if tool is not None else None
        if sequence is not None:
            texts.append(sequence.text)
    assert texts and all('"curl"' not in text for text in texts)
    assert any('"name":"mcp-portal-example"' in text.replace(" ", "") for text in texts)
    session = [text for text in texts if "Mcp-Session-Id" in text and "DELETE" in text]
    assert session and all("405" in text and "harmless" in text for text in session)


def test_a_server_without_a_version_gets_a_warning_naming_the_fallback() -> None:
    def snapshot(version: str | None) -> object:
        server = {"name": "anon"} | ({"version": version} if version is not None else {})
        return new_snapshot(
            protocol_version="2025-11-25",
            server=server,
            tools=({"name": "t", "inputSchema": {"type": "object"}},),
            capability_version="abc123def456",
            transport="stdio",
            endpoint="server",
        )

    for version in ("", None):
        warnings = gather(snapshot(version), PortalConfig()).warnings  # type: ignore[arg-type]
        assert any("sends no version" in w and "abc123def456" in w for w in warnings), warnings
    assert not any("sends no version" in w for w in gather(snapshot("1.2.0"), PortalConfig()).warnings)  # type: ignore[arg-type]
    quiet = PortalConfig(capability_version="fingerprint")
    assert not any("sends no version" in w for w in gather(snapshot(""), quiet).warnings)  # type: ignore[arg-type]


def test_counts_in_messages_agree_with_their_number() -> None:
    assert [counted(n, "tool") for n in (0, 1, 2)] == ["0 tools", "1 tool", "2 tools"]
    assert [counted(n, "entry", "entries") for n in (1, 3)] == ["1 entry", "3 entries"]


@pytest.mark.parametrize(
    ("log", "hinted"),
    [
        ("INFO:     Uvicorn running on http://127.0.0.1:8000 (Press CTRL+C to quit)\n", True),
        ("MCP server listening on http://localhost:3000/mcp\n", True),
        ("Listening on http://0.0.0.0:8080\n", True),
        # A web address a stdio server merely names is no sign that it listens: no hint.
        ("MCP server started on stdio. Docs: https://github.com/acme/server\n", False),
        ("running at https://api.example.com/ as the upstream\n", False),
    ],
)
def test_a_handshake_failure_names_http_only_when_the_log_says_it_listens_locally(log: str, hinted: bool) -> None:
    with contextlib.closing(StderrLog()) as err:
        err.file.write(log)
        err.file.flush()
        said = serves_http(err, Underway(), Redactor(set()))
        assert said.startswith(" It seems to serve HTTP, not stdio") is hinted, said
        assert serves_http(err, Underway(request="tools/list (page 1)"), Redactor(set())) == ""  # after the handshake
