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
``env-echo``      one tool whose description shows ``FIXTURE_SECRET`` (or "no secret")
``auth``          (HTTP only) 401 unless ``Authorization: Bearer $FIXTURE_TOKEN``
``invalid``       valid tools ``good_one`` and ``good_two`` around tools that break the spec: ``bad_schema``
                  (``inputSchema`` is a string), ``untyped_schema`` (no ``type: object``), one whose name is
                  the number 42, and ``bad_header`` (an invalid ``x-mcp-header``, dropped by 2026 clients)
``huge-description`` a tool whose description is 5 MB, plus a normal one
``deep``          a tool whose input schema nests 400 levels deep
``ref-cycle``     ``$defs`` that refer to each other in a cycle, and schemas that refer to themselves
``dangling-ref``  ``$ref`` to a missing ``$defs`` entry, to a remote https URL (``FIXTURE_REF_URL``
                  too, when set): none must ever be fetched
``xss``           every server-supplied field (identity, tools, schemas, ``_meta``, icons) holds an
                  XSS payload that sets ``window.__xss`` if it ever runs

The hostile modes (``invalid``, ``xss``) send what the SDK's own server would refuse to send:
the server-side result check is switched off in this process, so the client sees the raw bytes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from starlette.types import ASGIApp, Receive, Scope, Send

MODES = (
    "paged",
    "loop",
    "empty-cursor",
    "endless",
    "duplicates",
    "crash",
    "hang",
    "env-echo",
    "auth",
    "invalid",
    "huge-description",
    "deep",
    "ref-cycle",
    "dangling-ref",
    "xss",
)
#: Modes whose results the SDK's server-side check would refuse; it is bypassed for them.
RAW_MODES = ("invalid", "xss", "deep")
HUGE_DESCRIPTION_BYTES = 5 * 1024 * 1024
DEEP_LEVELS = 400
REMOTE_REF = "https://schemas.example.invalid/remote.json#/$defs/Thing"
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
    return types.ListToolsResult(tools=[make_tool(n) for n in chunk], next_cursor=f"p{number + 1}" if more else None)


def list_tools_for(mode: str, announce: Path | None = None) -> Any:
    """The ``tools/list`` handler that scripts *mode*; in hang mode it first creates *announce*, when given,
    so that a test can wait for the request to have arrived."""

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
            if announce is not None:
                announce.touch()
            await anyio.sleep_forever()
        if mode == "env-echo":
            text = f"Echoes the secret: {os.environ.get('FIXTURE_SECRET', 'no secret')}"
            return types.ListToolsResult(tools=[make_tool("echo_env", text)])
        if mode in HOSTILE_TOOLS:
            # Raw wire JSON (the SDK's models would refuse some of it) in the SDK's own envelope.
            envelope = types.ListToolsResult(tools=[]).model_dump(by_alias=True, mode="json", exclude_none=True)
            raw: list[dict[str, Any]] = HOSTILE_TOOLS[mode]()
            # Deliberately not a ListToolsResult: this server's whole point is to send what the SDK refuses.
            if mode == "invalid":  # two pages: page 2 passes the SDK's page check, but bad_header is dropped
                if cursor is None:
                    return {**envelope, "tools": raw[:4], "nextCursor": "p2"}  # type: ignore[return-value]
                return {**envelope, "tools": raw[4:]}  # type: ignore[return-value]
            return {**envelope, "tools": raw}  # type: ignore[return-value]
        raise ValueError(f"unknown mode {mode!r}")

    return list_tools


def build_server(mode: str, announce: Path | None = None) -> Server[Any]:
    """The low-level server for *mode* (*announce*: see :func:`list_tools_for`)."""
    if mode in RAW_MODES:
        _send_results_unchecked()
    if mode == "xss":
        return Server(
            xss("server.name"),
            version=xss("server.version"),
            title=xss("server.title"),
            description=xss("server.description"),
            instructions=xss("server.instructions") + "\n\n[click](javascript:window.__xss=1) <javascript:alert(1)>",
            website_url="javascript:window.__xss=1",
            icons=[types.Icon(src=src) for src in XSS_ICONS],
            on_list_tools=list_tools_for(mode, announce),
        )
    return Server(
        SERVER_NAME,
        version=SERVER_VERSION,
        title="Fixture server",
        description=f"A scripted MCP server for tests (mode {mode}).",
        instructions="Scripted for tests; nothing here is real.",
        on_list_tools=list_tools_for(mode, announce),
    )


def _send_results_unchecked() -> None:
    """Switch off the SDK's check of outgoing results, so this server can send invalid tools."""
    import mcp_types.methods as methods

    checked = methods.serialize_server_result

    def unchecked(method: str, version: str, data: Any, **kwargs: Any) -> Any:
        # Only tools/list goes out unchecked (its envelope comes from the SDK's own model, see below).
        if method != "tools/list":
            return checked(method, version, data, **kwargs)
        return dict(data)

    methods.serialize_server_result = unchecked  # type: ignore[assignment]

    # pydantic refuses to serialise JSON nested deeper than about 250 levels; plain json does not.
    from mcp_types import JSONRPCResponse

    dump = JSONRPCResponse.model_dump_json

    def dump_deep(self: JSONRPCResponse, **kwargs: Any) -> str:
        try:
            return dump(self, **kwargs)
        except ValueError:  # PydanticSerializationError is a ValueError
            return json.dumps({"jsonrpc": "2.0", "id": self.id, "result": self.result})

    JSONRPCResponse.model_dump_json = dump_deep  # type: ignore[method-assign,assignment]


# --- hostile tool lists -----------------------------------------------------------------------

COUNT_SCHEMA: dict[str, Any] = {"type": "object", "properties": {"count": {"type": "integer"}}}


def invalid_tools() -> list[dict[str, Any]]:
    return [
        {"name": "good_one", "description": "Valid.", "inputSchema": COUNT_SCHEMA},
        {"name": "bad_schema", "description": "inputSchema is a string.", "inputSchema": "not a schema"},
        {"name": "untyped_schema", "inputSchema": {"properties": {"x": {"type": "string"}}}},
        {"name": 42, "description": "The name is a number.", "inputSchema": COUNT_SCHEMA},
        {
            "name": "bad_header",
            "inputSchema": {
                "type": "object",
                "properties": {"region": {"type": "object", "x-mcp-header": "Bad Header Name"}},
            },
        },
        {"name": "good_two", "description": "Valid too.", "inputSchema": COUNT_SCHEMA},
    ]


def huge_description_tools() -> list[dict[str, Any]]:
    line = "All work and no play makes a very long description. "
    text = (line * (HUGE_DESCRIPTION_BYTES // len(line) + 1))[:HUGE_DESCRIPTION_BYTES]
    return [
        {"name": "huge", "description": text, "inputSchema": COUNT_SCHEMA},
        {"name": "small", "description": "A normal tool.", "inputSchema": COUNT_SCHEMA},
    ]


def deep_schema(levels: int = DEEP_LEVELS) -> dict[str, Any]:
    """An object schema nesting *levels* objects (each level alternates ``properties`` and ``items``)."""
    schema: dict[str, Any] = {"type": "string", "description": "the bottom"}
    for level in range(levels, 0, -1):
        if level % 2:
            schema = {"type": "object", "properties": {f"level_{level}": schema}, "required": [f"level_{level}"]}
        else:
            schema = {"type": "array", "items": schema}
    schema["type"] = "object"
    return schema


def deep_tools() -> list[dict[str, Any]]:
    return [{"name": "deep", "description": f"{DEEP_LEVELS} levels.", "inputSchema": deep_schema()}]


def ref_cycle_tools() -> list[dict[str, Any]]:
    return [
        {
            "name": "cycle",
            "description": "A refers to B, B refers to A.",
            "inputSchema": {
                "type": "object",
                "properties": {"a": {"$ref": "#/$defs/A"}},
                "$defs": {
                    "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
                    "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}},
                },
            },
        },
        {
            "name": "self_ref",
            "description": "A tree: every node refers to the root schema.",
            "inputSchema": {
                "type": "object",
                "properties": {"value": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#"}}},
            },
        },
        {
            "name": "pointless",
            "description": "A definition that is only itself.",
            "inputSchema": {
                "type": "object",
                "properties": {"x": {"$ref": "#/$defs/Loop"}},
                "$defs": {"Loop": {"$ref": "#/$defs/Loop"}},
            },
        },
    ]


def dangling_ref_tools() -> list[dict[str, Any]]:
    properties: dict[str, Any] = {
        "missing": {"$ref": "#/$defs/Missing"},
        "remote": {"$ref": REMOTE_REF},
        "broken_pointer": {"$ref": "#/properties/nowhere/items"},
    }
    local = os.environ.get("FIXTURE_REF_URL")
    if local:
        properties["local_remote"] = {"$ref": local}
    return [
        {
            "name": "dangling",
            "description": "Refers to things that are not there.",
            "inputSchema": {"type": "object", "properties": properties, "$defs": {"Present": {"type": "string"}}},
        }
    ]


#: Each payload sets ``window.__xss`` if a browser ever runs it.
XSS_PAYLOADS = (
    "<script>window.__xss=1</script>",
    '<img src=x onerror="window.__xss=1">',
    '<svg onload="window.__xss=1">',
    '"><script>window.__xss=1</script>',
    "' onmouseover='window.__xss=1' x='",
    "</textarea><script>window.__xss=1</script>",
    "[click](javascript:window.__xss=1)",
    "<javascript:window.__xss=1>",
    "{{7*7}}=SSTI {% if 1 %}jinja{% endif %}-ran",
)
XSS_ICONS = (
    "javascript:window.__xss=1",
    "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIG9ubG9hZD0id2luZG93Ll9feHNzPTEiLz4=",
    'https://example.invalid/icon.svg" onerror="window.__xss=1',
)


def xss(field: str) -> str:
    """Every payload, labelled with the field it is in."""
    return f"{field}: " + " ".join(XSS_PAYLOADS)


def xss_tools() -> list[dict[str, Any]]:
    tools = []
    for i, payload in enumerate(XSS_PAYLOADS):
        name = f"x{i}{payload}"
        tools.append(
            {
                "name": name,
                "title": xss("tool.title"),
                "description": xss("tool.description"),
                "icons": [{"src": src, "mimeType": "image/svg+xml"} for src in XSS_ICONS],
                "_meta": {payload: xss("tool._meta")},
                "annotations": {"title": xss("annotations.title"), "readOnlyHint": True},
                "inputSchema": {
                    "type": "object",
                    "description": xss("schema.description"),
                    "properties": {
                        payload: {
                            "type": "string",
                            "title": xss("property.title"),
                            "description": xss("property.description"),
                            "enum": list(XSS_PAYLOADS),
                            "default": payload,
                            "examples": [payload],
                        },
                        "plain": {"type": "string", "pattern": payload, "format": payload, "default": payload},
                    },
                    "required": [payload],
                },
                "outputSchema": {"type": "object", "properties": {payload: {"type": "string", "description": payload}}},
            }
        )
    return tools


HOSTILE_TOOLS = {
    "invalid": invalid_tools,
    "huge-description": huge_description_tools,
    "deep": deep_tools,
    "ref-cycle": ref_cycle_tools,
    "dangling-ref": dangling_ref_tools,
    "xss": xss_tools,
}


class RequireBearer:
    """ASGI middleware: answer 401 unless ``Authorization: Bearer <token>`` is sent."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != self.expected:
            body = b'{"error": "unauthorized"}'
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)


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
    parser.add_argument("--announce", type=Path, help="hang mode: create this file when tools/list arrives")
    args = parser.parse_args(argv)
    if args.mode not in MODES:  # a default from FIXTURE_MODE bypasses argparse's choices check
        parser.error(f"unknown mode {args.mode!r}; choose from {', '.join(MODES)}")
    server = build_server(args.mode, args.announce)
    if args.http:
        serve_http(server, args.mode, args.port)
    else:
        if args.mode == "auth":
            parser.error("auth mode needs --http")
        anyio.run(serve_stdio, server)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
