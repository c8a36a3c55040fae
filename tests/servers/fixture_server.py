"""A real MCP server with scripted ``tools/list`` behaviour, built on the SDK's low-level ``Server``.

No public server paginates ``tools/list`` or misbehaves on purpose, so the
introspection tests start this one (over stdio or Streamable HTTP)::

    python -m tests.servers.fixture_server [--http --port N] --mode MODE

The mode may also come from the ``FIXTURE_MODE`` environment variable, which
lets tests prove that ``--env`` passes a variable to a stdio server.  Modes:

``paged``         7 tools, 3 per page, cursors ``p2`` and ``p3`` (the default)
``loop``          page 1 returns the cursor ``again``, and so does every later page
``empty-cursor``  page 1 returns the cursor ``""``
``endless``       every page returns a new cursor ``c1``, ``c2``, ...
``duplicates``    the tool ``dup`` is on page 1 and on page 2
``crash``         the process exits (status 3) when page 2 is requested
``hang``          ``tools/list`` never answers
``garbage``       (stdio only) prints lines that are not JSON instead of speaking MCP
``env-echo``      one tool whose description shows ``FIXTURE_SECRET`` (or "no secret")
``auth``          (HTTP only) 401 unless ``Authorization: Bearer $FIXTURE_TOKEN``
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from starlette.types import ASGIApp, Receive, Scope, Send

MODES = (
    "paged", "loop", "empty-cursor", "endless", "duplicates", "crash", "hang", "garbage", "env-echo", "auth",
)
DEFAULT_MODE = "paged"
SERVER_NAME = "fixture-server"
SERVER_VERSION = "1.0.0"
PAGE_SIZE = 3

#: The tools of ``paged`` mode, in the order the server lists them (deliberately not alphabetical).
PAGED_TOOLS = ("zeta", "alpha", "mu", "beta", "omega", "gamma", "delta")

Params = types.PaginatedRequestParams | None


def make_tool(name: str, description: str | None = None) -> types.Tool:
    """A tool with a small but real input schema."""
    return types.Tool(
        name=name,
        description=description or f"The fixture tool {name}.",
        input_schema={
            "type": "object",
            "properties": {"count": {"type": "integer", "minimum": 1, "description": f"How many {name}s."}},
            "required": ["count"],
        },
    )


def _page(names: Sequence[str], cursor: str | None) -> types.ListToolsResult:
    """``paged``: slice *names* by the cursors ``p2``, ``p3``, ... (page numbers, 1-based)."""
    number = int(cursor[1:]) if cursor else 1
    start = (number - 1) * PAGE_SIZE
    chunk = names[start : start + PAGE_SIZE]
    more = start + PAGE_SIZE < len(names)
    return types.ListToolsResult(
        tools=[make_tool(n) for n in chunk], next_cursor=f"p{number + 1}" if more else None
    )


def list_tools_for(mode: str) -> Any:
    """The ``tools/list`` handler that scripts *mode*."""

    async def list_tools(ctx: ServerRequestContext[Any], params: Params) -> types.ListToolsResult:
        cursor = params.cursor if params is not None else None
        if mode in ("paged", "auth"):
            return _page(PAGED_TOOLS, cursor)
        if mode == "loop":
            tools = [make_tool("looping")] if cursor is None else []
            return types.ListToolsResult(tools=tools, next_cursor="again")
        if mode == "empty-cursor":
            return types.ListToolsResult(tools=[make_tool("first")], next_cursor="")
        if mode == "endless":
            number = int(cursor[1:]) + 1 if cursor else 1
            return types.ListToolsResult(tools=[make_tool(f"tool_{number}")], next_cursor=f"c{number}")
        if mode == "duplicates":
            if cursor is None:
                return types.ListToolsResult(tools=[make_tool("dup"), make_tool("other")], next_cursor="p2")
            return types.ListToolsResult(tools=[make_tool("dup")])
        if mode == "crash":
            if cursor is None:
                return types.ListToolsResult(tools=[make_tool("before_crash")], next_cursor="p2")
            # Names FIXTURE_SECRET (when passed with --env) so tests can prove error messages redact it.
            secret = os.environ.get("FIXTURE_SECRET", "unset")
            sys.stderr.write(f"fixture-server: crashing on purpose on page 2 (secret {secret})\n")
            sys.stderr.flush()
            os._exit(3)
        if mode == "hang":
            await anyio.sleep_forever()
        if mode == "env-echo":
            text = f"Echoes the secret: {os.environ.get('FIXTURE_SECRET', 'no secret')}"
            return types.ListToolsResult(tools=[make_tool("echo_env", text)])
        raise ValueError(f"unknown mode {mode!r}")

    return list_tools


def build_server(mode: str) -> Server[Any]:
    """The low-level server for *mode*."""
    return Server(
        SERVER_NAME,
        version=SERVER_VERSION,
        title="Fixture server",
        description=f"A scripted MCP server for tests (mode {mode}).",
        on_list_tools=list_tools_for(mode),
    )


class RequireBearer:
    """ASGI middleware: answer 401 unless ``Authorization: Bearer <token>`` is sent."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != self.expected:
            body = b'{"error": "unauthorized"}'
            await send({
                "type": "http.response.start", "status": 401,
                "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")],
            })
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)


def garbage() -> None:
    """Write lines that are not JSON-RPC to stdout, then idle until killed."""
    for line in ("hello, I am not an MCP server", "{not json", "Traceback? no, just noise"):
        sys.stdout.write(line + "\n")
    sys.stdout.flush()
    while True:
        time.sleep(3600)


async def serve_stdio(server: Server[Any]) -> None:
    """Serve one connection over stdin/stdout."""
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve_http(server: Server[Any], mode: str, port: int) -> None:
    """Serve Streamable HTTP at ``/mcp`` on 127.0.0.1:*port*."""
    import uvicorn

    app = server.streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1")
    if mode == "auth":
        token = os.environ.get("FIXTURE_TOKEN")
        if not token:
            raise SystemExit("fixture-server: auth mode needs FIXTURE_TOKEN")
        app.add_middleware(RequireBearer, token=token)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the options and serve until the client goes away."""
    parser = argparse.ArgumentParser(prog="python -m tests.servers.fixture_server", description=__doc__)
    parser.add_argument("--mode", choices=MODES, default=os.environ.get("FIXTURE_MODE", DEFAULT_MODE))
    parser.add_argument("--http", action="store_true", help="serve Streamable HTTP at /mcp instead of stdio")
    parser.add_argument("--port", type=int, default=8766)
    args = parser.parse_args(argv)
    if args.mode not in MODES:  # a default from FIXTURE_MODE bypasses argparse's choices check
        parser.error(f"unknown mode {args.mode!r}; choose from {', '.join(MODES)}")
    if args.mode == "garbage":
        garbage()
    server = build_server(args.mode)
    if args.http:
        serve_http(server, args.mode, args.port)
    else:
        if args.mode == "auth":
            parser.error("auth mode needs --http")
        anyio.run(serve_stdio, server)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
