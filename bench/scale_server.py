"""A real MCP server with N realistic tools, for ``bench/bench_scale.py``.

    python bench/scale_server.py --tools 1000 [--page-size 100]   # serves over stdio

(``SCALE_TOOLS`` and ``SCALE_PAGE_SIZE`` in the environment are the defaults of the two
options.) The workload is :func:`workload`: deterministic for a given seed, and tool *i* is
the same whatever N is, so a 100-tool server is the first 100 tools of a 1,000-tool one.
Each tool has a title, a description of two or three sentences, eight parameters (four
nullable strings, two as ``"type": ["string", "null"]`` and two as ``anyOf``, and four of:
an integer with bounds, an enum, a boolean, an array of strings, a nested object), an
``outputSchema`` whose ``items`` is an array of eight-field objects, and all four hints.

The server is the SDK's low-level ``Server`` with an ``on_list_tools`` handler that pages
the list by cursor (the cursor is the offset of the next page), so the benchmark walks
``tools/list`` the way it would walk a large production server. It imports nothing from
the generator: the generator must see it as any other server.
"""

from __future__ import annotations

import argparse
import os
import random
from collections.abc import Sequence
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

SERVER_NAME = "scale-bench"
SERVER_VERSION = "1.0.0"
DEFAULT_TOOLS = 1000
DEFAULT_PAGE_SIZE = 100
DEFAULT_SEED = 13

JSON = dict[str, Any]

DOMAINS = ("billing", "crm", "inventory", "support", "hr", "analytics", "storage", "deploy", "calendar", "mail")
# (verb, what it does to the object, read-only, destructive, idempotent)
VERBS = (
    ("list", "Lists the {noun}s of the {domain} workspace that match the filters", True, False, True),
    ("get", "Returns one {noun} of the {domain} workspace with every field filled in", True, False, True),
    ("search", "Searches the {domain} {noun}s by free text and returns the best matches first", True, False, True),
    ("count", "Counts the {domain} {noun}s that match the filters, without returning them", True, False, True),
    ("export", "Exports the matching {domain} {noun}s as rows, for a spreadsheet or a report", True, False, True),
    ("create", "Creates a {noun} in the {domain} workspace and returns it", False, False, False),
    ("update", "Changes the given fields of a {domain} {noun}; fields left out keep their value", False, False, True),
    ("archive", "Archives a {domain} {noun}: it disappears from lists but can be restored", False, True, True),
    ("delete", "Deletes a {domain} {noun} for good; this cannot be undone", False, True, True),
    ("restore", "Restores an archived {domain} {noun} with its history", False, False, True),
    ("assign", "Assigns a {domain} {noun} to a person or a team and notifies them", False, False, False),
    ("sync", "Pulls the latest {domain} {noun}s from the connected upstream system", False, False, False),
)
NOUNS = (
    "invoice", "customer", "order", "ticket", "employee", "report", "bucket", "release", "event", "message",
    "contract", "payment", "refund", "lead", "account", "product", "warehouse", "shipment", "supplier", "agent",
    "macro", "survey", "candidate", "review", "dashboard", "metric", "segment", "file", "folder", "snapshot",
    "pipeline", "environment", "secret", "calendar", "room", "meeting", "mailbox", "thread", "template", "label",
    "webhook", "schedule", "quota", "policy", "audit_entry",
)  # fmt: skip
SECOND_SENTENCES = (
    "Results are paged: pass the cursor of the previous call to get the next page.",
    "Only records the caller's token may read are returned; the others are silently left out.",
    "Dates are ISO 8601 in UTC unless a timezone is given.",
    "The call is rate limited to 60 requests a minute per token.",
    "Archived records are included only when asked for.",
    "Large workspaces may take a few seconds to answer.",
)
THIRD_SENTENCES = (
    "Requires the {domain}:read scope.",
    "Requires the {domain}:write scope; the change is recorded in the audit log.",
    "Use the matching list tool first to find the identifier.",
    "",
    "",
)
NULLABLE_STRINGS = (
    ("query", "Words to look for; omit or pass null to match everything."),
    ("cursor", "The cursor returned by the previous page; null for the first page."),
    ("owner", "Only records owned by this person (e-mail address or user id)."),
    ("region", "Only records in this region, for example eu-west or us-east; null for every region."),
    ("note", "A free-text note stored with the change and shown in the audit log."),
    ("external_id", "The record's identifier in the upstream system, when it has one."),
    ("locale", "BCP 47 language tag for the texts of the answer, for example en or ru."),
    ("parent_id", "Identifier of the parent record; null for top-level records."),
)
ENUMS = (
    ("status", ["open", "pending", "resolved", "closed"], "open"),
    ("sort", ["created_at", "updated_at", "name", "relevance"], "relevance"),
    ("order", ["asc", "desc"], "desc"),
    ("priority", ["low", "normal", "high", "urgent"], "normal"),
    ("format", ["json", "csv", "markdown"], "json"),
)
OUTPUT_FIELDS: tuple[tuple[str, JSON], ...] = (
    ("id", {"type": "string", "description": "Stable identifier of the record."}),
    ("name", {"type": "string", "description": "Display name."}),
    ("created_at", {"type": "string", "format": "date-time", "description": "When the record was created."}),
    ("updated_at", {"type": "string", "format": "date-time", "description": "When it last changed."}),
    ("status", {"type": "string", "enum": ["active", "archived", "deleted"], "description": "Lifecycle state."}),
    ("amount", {"type": "number", "minimum": 0, "description": "Amount in the account's currency."}),
    ("currency", {"type": "string", "pattern": "^[A-Z]{3}$", "description": "ISO 4217 currency code."}),
    ("tags", {"type": "array", "items": {"type": "string"}, "description": "Free-form labels."}),
    ("owner", {"type": ["string", "null"], "description": "E-mail address of the owner, if any."}),
    ("version", {"type": "integer", "minimum": 1, "description": "Revision number, bumped on every change."}),
    ("url", {"type": "string", "format": "uri", "description": "Link to the record in the web app."}),
    ("score", {"type": "number", "minimum": 0, "maximum": 1, "description": "Relevance between 0 and 1."}),
    ("archived", {"type": "boolean", "description": "True once the record is archived."}),
    ("parent_id", {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "Parent record, if any."}),
)
OTHER_KINDS = ("integer", "enum", "boolean", "array", "object")


def tool_name(i: int) -> str:
    """The name of tool *i*: domain, verb and noun in mixed radix, so names are unique and read naturally."""
    domain = DOMAINS[i % len(DOMAINS)]
    verb = VERBS[(i // len(DOMAINS)) % len(VERBS)][0]
    rest = i // (len(DOMAINS) * len(VERBS))
    noun = NOUNS[rest % len(NOUNS)]
    lap = rest // len(NOUNS)
    # Past 5,400 tools the combinations run out: a version suffix keeps names unique.
    return f"{domain}_{verb}_{noun}" + (f"_v{lap + 1}" if lap else "")


def _other_param(kind: str, rng: random.Random, noun: str) -> tuple[str, JSON]:
    """One parameter of *kind* (see :data:`OTHER_KINDS`)."""
    if kind == "integer":
        top = rng.choice([50, 100, 500, 1000])
        return "limit", {
            "type": "integer",
            "minimum": 1,
            "maximum": top,
            "default": 20,
            "description": f"How many {noun}s to return at most (1 to {top}).",
        }
    if kind == "enum":
        name, values, default = rng.choice(ENUMS)
        return name, {"type": "string", "enum": values, "default": default, "description": f"The {name} to use."}
    if kind == "boolean":
        return "include_archived", {
            "type": "boolean",
            "default": False,
            "description": f"Also return archived {noun}s.",
        }
    if kind == "array":
        return "fields", {
            "type": "array",
            "items": {"type": "string"},
            "maxItems": 20,
            "uniqueItems": True,
            "description": "Only return these fields; all fields when omitted.",
        }
    return "date_range", {
        "type": "object",
        "description": f"Only {noun}s changed in this period.",
        "properties": {
            "from": {"type": "string", "format": "date-time", "description": "Start of the period (inclusive)."},
            "to": {"type": "string", "format": "date-time", "description": "End of the period (exclusive)."},
            "timezone": {"type": "string", "default": "UTC", "description": "IANA time zone, e.g. Europe/Paris."},
        },
        "required": ["from"],
        "additionalProperties": False,
    }


def _title(verb: str, noun: str, domain: str) -> str:
    """A human title such as "List invoices (billing)" or "Delete a customer (crm)"."""
    if verb in ("list", "search", "export", "count", "sync"):
        return f"{verb.capitalize()} {noun}s ({domain})"
    article = "an" if noun[0] in "aeiou" else "a"
    return f"{verb.capitalize()} {article} {noun} ({domain})"


def make_tool(i: int, seed: int = DEFAULT_SEED) -> JSON:
    """Tool *i* of the workload, as wire JSON (camelCase), the same for a given (*i*, *seed*)."""
    rng = random.Random(f"{seed}:{i}")
    name = tool_name(i)
    domain = DOMAINS[i % len(DOMAINS)]
    verb, action, read_only, destructive, idempotent = VERBS[(i // len(DOMAINS)) % len(VERBS)]
    noun = NOUNS[(i // (len(DOMAINS) * len(VERBS))) % len(NOUNS)].replace("_", " ")
    sentences = [
        action.format(noun=noun, domain=domain) + ".",
        rng.choice(SECOND_SENTENCES),
        rng.choice(THIRD_SENTENCES).format(domain=domain),
    ]
    properties: JSON = {}
    for index, (pname, pdesc) in enumerate(rng.sample(NULLABLE_STRINGS, 4)):
        if index % 2 == 0:
            properties[pname] = {"type": ["string", "null"], "description": pdesc}
        else:
            properties[pname] = {
                "anyOf": [{"type": "string", "maxLength": 200}, {"type": "null"}],
                "description": pdesc,
            }
    chosen = set(rng.sample(OTHER_KINDS, 4))
    for kind in (k for k in OTHER_KINDS if k in chosen):
        pname, schema = _other_param(kind, rng, noun)
        properties[pname] = schema
    required = [list(properties)[4]]  # the first non-nullable parameter
    fields = dict(rng.sample(OUTPUT_FIELDS, 8))
    return {
        "name": name,
        "title": _title(verb, noun, domain),
        "description": " ".join(s for s in sentences if s),
        "inputSchema": {"type": "object", "properties": properties, "required": required},
        "outputSchema": {
            "type": "object",
            "properties": {
                "items": {
                    "type": "array",
                    "description": f"The {noun}s found.",
                    "items": {"type": "object", "properties": fields, "required": list(fields)[:3]},
                },
                "next_cursor": {"type": ["string", "null"], "description": "Cursor of the next page, if any."},
            },
            "required": ["items"],
        },
        "annotations": {
            "readOnlyHint": read_only,
            "destructiveHint": destructive,
            "idempotentHint": idempotent,
            "openWorldHint": rng.random() < 0.3,
        },
    }


def workload(n: int, seed: int = DEFAULT_SEED) -> list[JSON]:
    """The first *n* tools of the workload, in the order the server lists them."""
    return [make_tool(i, seed) for i in range(n)]


def build_server(n: int, page_size: int, seed: int = DEFAULT_SEED) -> Server[Any]:
    """The low-level server listing :func:`workload` (*n*, *seed*) in pages of *page_size* tools."""
    tools = [types.Tool.model_validate(t) for t in workload(n, seed)]

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> Any:
        start = int(params.cursor) if params is not None and params.cursor else 0
        end = start + page_size
        return types.ListToolsResult(tools=tools[start:end], next_cursor=str(end) if end < len(tools) else None)

    return Server(SERVER_NAME, version=SERVER_VERSION, on_list_tools=list_tools)


async def serve_stdio(server: Server[Any]) -> None:
    """Serve one connection over stdin/stdout."""
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the options and serve until the client goes away."""
    parser = argparse.ArgumentParser(prog="python bench/scale_server.py", description=__doc__)
    parser.add_argument("--tools", type=int, default=int(os.environ.get("SCALE_TOOLS", DEFAULT_TOOLS)))
    parser.add_argument("--page-size", type=int, default=int(os.environ.get("SCALE_PAGE_SIZE", DEFAULT_PAGE_SIZE)))
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    args = parser.parse_args(argv)
    if args.tools < 1 or args.page_size < 1:
        parser.error("--tools and --page-size must be at least 1")
    anyio.run(serve_stdio, build_server(args.tools, args.page_size, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
