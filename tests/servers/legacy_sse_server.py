"""A server of the legacy HTTP+SSE transport (MCP before 2025-03-26), made with the 1.x SDK's FastMCP.

    .venv/mcp1-servers/bin/python tests/servers/legacy_sse_server.py PORT

It serves ``GET /sse`` (the event stream) and ``POST /messages/``, as servers written for that transport
still do; a POST to ``/sse`` gets HTTP 405. It runs in the 1.x SDK's venv (tests/test_optional_methods.py).
"""

from __future__ import annotations

import sys

from mcp.server.fastmcp import FastMCP  # type: ignore[attr-defined]  # the 1.x SDK, in its venv: not the one mypy sees

server = FastMCP("legacy-sse", host="127.0.0.1", port=int(sys.argv[1]))


@server.tool()
def echo(text: str) -> str:
    """Return *text* as it was given."""
    return text


if __name__ == "__main__":
    server.run("sse")
