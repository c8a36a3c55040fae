"""A real MCP server that declares capabilities it only partly serves, on the SDK's low-level ``Server``.

Real servers do this (``mcp-server-sqlite``, ``mcp-server-kubernetes``: ``resources`` declared,
``resources/templates/list`` answered with -32601), so the introspection tests start this one
(over stdio or Streamable HTTP)::

    python -m tests.servers.partial_server [--http --port N] --mode MODE

Modes:

``missing``         declares ``prompts`` and ``resources``; serves ``tools/list`` and ``resources/list``
                    only, so ``prompts/list`` and ``resources/templates/list`` get the SDK's own
                    -32601 (Method not found) (the default)
``invalid-params``  the same capabilities; ``prompts/list`` and ``resources/templates/list`` answer
                    -32602 (Invalid params)
``later-page``      ``resources/list`` serves page 1 with a cursor, then answers page 2 with -32601
``no-tools``        declares ``tools`` but has no ``tools/list`` handler (-32601 for the one list a
                    portal cannot do without)
``echo-auth``       (HTTP) ``tools/list`` fails with an error message that quotes the ``Authorization``
                    header it received, raw, as a Python repr, JSON-escaped and URL-encoded: as a
                    careless server or proxy would
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

import anyio
import mcp_types as types
from mcp import MCPError
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.stdio import stdio_server

MODES = ("missing", "invalid-params", "later-page", "no-tools", "echo-auth")
DEFAULT_MODE = "missing"
RESOURCE_URI = "memo://insights"

Params = types.PaginatedRequestParams | None


class PartialServer(Server[Any]):
    """A low-level server whose declared capabilities include ones it has no handler for."""

    def __init__(self, *args: Any, declare: Sequence[str] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.declare = tuple(declare)

    def get_capabilities(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
        *,
        protocol_version: str | None = None,
    ) -> types.ServerCapabilities:
        caps = super().get_capabilities(
            notification_options, experimental_capabilities, extensions, protocol_version=protocol_version
        )
        extra: dict[str, Any] = {}
        if "prompts" in self.declare and caps.prompts is None:
            extra["prompts"] = types.PromptsCapability()
        if "resources" in self.declare and caps.resources is None:
            extra["resources"] = types.ResourcesCapability()
        if "tools" in self.declare and caps.tools is None:
            extra["tools"] = types.ToolsCapability()
        return caps.model_copy(update=extra)


def _tool(name: str) -> types.Tool:
    return types.Tool(
        name=name,
        description=f"The partial-server tool {name}.",
        input_schema={"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    )


async def list_tools(ctx: ServerRequestContext[Any], params: Params) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[_tool("read_query"), _tool("list_tables")])


async def echo_auth_tools(ctx: ServerRequestContext[Any], params: Params) -> types.ListToolsResult:
    """Refuse, quoting the Authorization header in every form a careless server might."""
    request: Any = ctx.request
    value = request.headers.get("authorization", "") if request is not None else ""
    raise MCPError(
        code=types.INVALID_REQUEST,
        message=(f"token rejected: raw={value} repr={value!r} json={json.dumps(value)} url={quote(value, safe='')}"),
    )


async def list_resources(ctx: ServerRequestContext[Any], params: Params) -> types.ListResourcesResult:
    resource = types.Resource(name="Insights memo", uri=RESOURCE_URI, mime_type="text/plain")
    return types.ListResourcesResult(resources=[resource])


async def resources_then_missing(ctx: ServerRequestContext[Any], params: Params) -> types.ListResourcesResult:
    if params is None or params.cursor is None:
        resource = types.Resource(name="First page", uri="memo://first")
        return types.ListResourcesResult(resources=[resource], next_cursor="p2")
    raise MCPError(code=types.METHOD_NOT_FOUND, message="Method not found")


async def invalid_params(ctx: ServerRequestContext[Any], params: Params) -> Any:
    raise MCPError(code=types.INVALID_PARAMS, message="Invalid params: this server takes no list requests")


def build_server(mode: str) -> Server[Any]:
    """The server for *mode*; handlers left out are answered by the SDK itself (-32601)."""
    handlers: dict[str, Any] = {"on_list_tools": list_tools, "on_list_resources": list_resources}
    declare: tuple[str, ...] = ("prompts", "resources")
    if mode == "invalid-params":
        handlers |= {"on_list_prompts": invalid_params, "on_list_resource_templates": invalid_params}
    elif mode == "later-page":
        handlers["on_list_resources"] = resources_then_missing
    elif mode == "no-tools":
        del handlers["on_list_tools"]
        declare = ("tools", "resources")
    elif mode == "echo-auth":
        handlers = {"on_list_tools": echo_auth_tools}
        declare = ()
    return PartialServer(
        "partial-server",
        version="1.0.0",
        description=f"Declares more than it serves (mode {mode}).",
        declare=declare,
        **handlers,
    )


async def serve_stdio(server: Server[Any]) -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve_http(server: Server[Any], port: int) -> None:
    import uvicorn

    app = server.streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1")
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.servers.partial_server", description=__doc__)
    parser.add_argument("--mode", choices=MODES, default=os.environ.get("PARTIAL_MODE", DEFAULT_MODE))
    parser.add_argument("--http", action="store_true", help="serve Streamable HTTP at /mcp instead of stdio")
    parser.add_argument("--port", type=int, default=8767)
    args = parser.parse_args(argv)
    server = build_server(args.mode)
    if args.http:
        serve_http(server, args.port)
    elif args.mode == "echo-auth":
        parser.error("echo-auth mode needs --http")
    else:
        anyio.run(serve_stdio, server)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
