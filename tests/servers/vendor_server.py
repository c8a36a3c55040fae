"""A real MCP server whose lists carry fields the SDK does not model, built on the SDK's low-level ``Server``.

Real servers send more than the SDK's models hold: ``chrome-devtools-mcp`` puts ``category`` and
``conditions`` in its tool annotations, ``mcp-server-kubernetes`` gives a prompt argument a
``default``, and any server may add an ``x-vendor`` key.  The portal must keep them exactly, so
this server sends them (over stdio)::

    python -m tests.servers.vendor_server

Every list is sent as the JSON below, in this key order, with ``tools/list`` on two pages
(cursor ``p2``).  The SDK's own server would drop the unknown keys on the way out, so its
check of outgoing list results is switched off in this process (as in
:mod:`tests.servers.fixture_server`): the client sees these bytes.  The tools also carry the
schemas behind the rows and examples the fidelity tests check (subschemas in constraints, a
rule in only some ``anyOf`` branches, ``allOf`` objects, string enums, ``minItems``, ids).
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

SERVER_NAME = "vendor-server"
PAGE_SIZE = 4

TOOLS: list[dict[str, Any]] = [
    {
        "name": "click",
        "description": "Clicks on the provided element",
        "inputSchema": {
            "type": "object",
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "properties": {
                "pageId": {"type": "number", "description": "Targets a specific page by ID."},
                "uid": {
                    "type": "string",
                    "description": "The uid of an element on the page from the page content snapshot",
                },
                "dblClick": {"description": "Set to true for double clicks. Default is false.", "type": "boolean"},
            },
            "required": ["pageId", "uid"],
            "additionalProperties": False,
        },
        "annotations": {"category": "input", "readOnlyHint": False},
        "x-vendor": {"team": "browser", "tier": 2},
    },
    {
        "name": "evaluate_script",
        "description": "Evaluate a JavaScript function inside the page.",
        "inputSchema": {
            "type": "object",
            "properties": {"function": {"type": "string", "description": "A JavaScript function declaration."}},
            "required": ["function"],
        },
        "annotations": {"category": "debugging", "readOnlyHint": False, "conditions": ["javascriptEvaluation"]},
    },
    {
        "name": "scrape",
        "description": "Scrape a page; the subschemas below must be shown as schemas, not as strings.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "url": {"type": "string", "format": "uri"},
                "jsonOptions": {
                    "type": "object",
                    "properties": {
                        "schema": {"type": "object", "propertyNames": {"type": "string", "maxLength": 20}},
                        "prompt": {"type": "string"},
                    },
                },
                "tags": {"type": "array", "items": {"type": "string"}, "contains": {"const": "main"}},
                "mode": {"type": "string", "not": {"const": "legacy"}},
            },
            "required": ["url"],
        },
        "annotations": {"title": "Scrape a page"},
    },
    {
        "name": "list_events",
        "description": "Only one anyOf branch says date-time, so the row must not make it binding.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "start_time": {
                    "anyOf": [{"type": "string"}, {"type": "string", "format": "date-time"}, {"type": "null"}],
                    "default": None,
                    "description": "Start of the window.",
                },
            },
        },
        "outputSchema": {"type": "object", "properties": {"events": {"type": "array"}}},
        "annotations": {"readOnlyHint": True, "openWorldHint": False, "x-cost": 0.5},
    },
    {
        "name": "create_record",
        "description": "Required properties sit in allOf branches.",
        "inputSchema": {
            "type": "object",
            "allOf": [
                {"properties": {"name": {"type": "string"}}, "required": ["name"]},
                {
                    "properties": {
                        "level": {"type": ["string", "integer"], "enum": ["low", "high"]},
                        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
                        "owner_email": {"type": "string"},
                        "retries": {"type": "integer", "minimum": 5},
                    },
                    "required": ["level", "tags"],
                },
            ],
        },
        "title": None,
        "x-vendor": None,
    },
]

PROMPTS: list[dict[str, Any]] = [
    {
        "name": "k8s-diagnose",
        "description": "Diagnose Kubernetes Resources.",
        "arguments": [
            {"name": "keyword", "description": "A keyword to search pod/node names.", "required": True},
            {"name": "namespace", "description": "Optional namespace.", "required": False, "default": "all"},
        ],
        "x-vendor": "prompt-extra",
    }
]

RESOURCES: list[dict[str, Any]] = [
    {"uri": "vendor://status", "name": "status", "mimeType": "application/json", "x-vendor": {"cached": True}}
]

TEMPLATES: list[dict[str, Any]] = [{"uriTemplate": "vendor://logs/{id}", "name": "logs", "x-vendor": [1, 2]}]

Params = types.PaginatedRequestParams | None


async def list_tools(ctx: ServerRequestContext[Any], params: Params) -> Any:
    """Two pages of :data:`TOOLS`: the cursor ``p2`` asks for the second."""
    second = params is not None and params.cursor == "p2"
    tools = TOOLS[PAGE_SIZE:] if second else TOOLS[:PAGE_SIZE]
    return {"tools": tools} if second else {"tools": tools, "nextCursor": "p2"}


async def list_prompts(ctx: ServerRequestContext[Any], params: Params) -> Any:
    return {"prompts": PROMPTS}


async def list_resources(ctx: ServerRequestContext[Any], params: Params) -> Any:
    return {"resources": RESOURCES}


async def list_templates(ctx: ServerRequestContext[Any], params: Params) -> Any:
    return {"resourceTemplates": TEMPLATES}


_LISTS = {"tools/list", "prompts/list", "resources/list", "resources/templates/list"}


def _send_lists_as_written() -> None:
    """Send the list results as written: the SDK's outgoing check would drop every unknown key."""
    import mcp_types.methods as methods

    checked = methods.serialize_server_result
    envelopes = {  # the fields each revision's result needs besides the list, from the SDK's own model
        method: types.ListToolsResult(tools=[]).model_dump(by_alias=True, mode="json", exclude_none=True)
        for method in _LISTS
    }

    def as_written(method: str, version: str, data: Any, **kwargs: Any) -> Any:
        if method not in _LISTS:
            return checked(method, version, data, **kwargs)
        envelope = {k: v for k, v in envelopes[method].items() if k != "tools"}
        return {**envelope, **dict(data)}

    methods.serialize_server_result = as_written  # type: ignore[assignment]


def build_server() -> Server[Any]:
    """The low-level server with all four lists."""
    _send_lists_as_written()
    return Server(
        SERVER_NAME,
        version="1.0.0",
        on_list_tools=list_tools,
        on_list_prompts=list_prompts,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
    )


async def serve_stdio() -> None:
    """Serve one connection over stdin/stdout."""
    server = build_server()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(serve_stdio)
