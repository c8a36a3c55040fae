"""The shape of a snapshot file, and the sentences that say where a file breaks it.

A snapshot is read once, here, so that every later stage can trust its types: the JSON text is
parsed without loss (:mod:`generator.snapshot.jsonread`), scanned for what no later stage
could handle (depth, numbers, lone surrogates) and checked against :data:`SNAPSHOT_SCHEMA`.
Each problem is one sentence naming the JSON path of the bad value (:func:`where`), raised as
:class:`~generator.snapshot.jsonread.ShapeProblem`; the loader in :mod:`generator.snapshot.snapshot`
adds the file's name and the remedy.
"""

from __future__ import annotations

import math
import re
from typing import Any

from jsonschema import Draft202012Validator, ValidationError

from generator.snapshot.jsonread import MAX_DEPTH, LongInt, too_deep_problem
from generator.snapshot.proofs import PROOF_DEFS
from generator.snapshot.quick import conforming_tool, nests_too_deeply
from generator.snapshot.wording import sentence, where

JSON = Any

SNAPSHOT_VERSION = 2
"""Bumped when the snapshot's shape changes. Version 2 added ``endpoints``; version 1 files still load."""
READABLE_VERSIONS = (1, 2)

ITEM_KEYS: dict[str, str] = {"prompts": "name", "resources": "uri", "resource_templates": "uriTemplate"}
"""The lists besides tools that a snapshot (and each endpoint) holds, and the field each is keyed by."""

_SURROGATE = re.compile("[\ud800-\udfff]")  # a lone "\\udXXX" escape: legal JSON text, but not Unicode

TRANSPORTS = ("stdio", "streamable-http")
_HTTP_URL = r"^https?://\S"
_TEXT: dict[str, JSON] = {"type": "string"}
_NAME: dict[str, JSON] = {"type": "string", "pattern": r"\S"}
_STRINGS: dict[str, JSON] = {"type": "array", "items": _TEXT}
_OBJECT: dict[str, JSON] = {"type": "object"}
_SCHEMA: dict[str, JSON] = {"type": ["object", "boolean"]}
_COMMON: dict[str, JSON] = {"title": _TEXT, "description": _TEXT, "icons": {"$ref": "#/$defs/icons"}, "_meta": _OBJECT}
_HTTP_NEEDS_URL: dict[str, JSON] = {  # an HTTP endpoint's address is what readers connect to
    "if": {"required": ["transport"], "properties": {"transport": {"const": "streamable-http"}}},
    "then": {"properties": {"address": {"pattern": _HTTP_URL}, "endpoint": {"pattern": _HTTP_URL}}},
}
_RESOURCE_ANNOTATIONS: dict[str, JSON] = {
    "type": "object",
    "properties": {"audience": _STRINGS, "priority": {"type": "number"}, "lastModified": _TEXT},
}
SNAPSHOT_SCHEMA: dict[str, JSON] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "mcp-portal snapshot",
    "description": "The types of every field the portal reads, as the MCP specification and the SDK give them.",
    "type": "object",
    "required": [
        "snapshot_version",
        "fingerprint",
        "protocol_version",
        "capability_version",
        "transport",
        "endpoint",
        "server",
    ],
    "properties": {
        "snapshot_version": {"enum": list(READABLE_VERSIONS)},
        "fingerprint": _TEXT,
        "protocol_version": _TEXT,
        "capability_version": _TEXT,
        "transport": {"enum": list(TRANSPORTS)},
        "endpoint": _NAME,
        "server": {
            "type": "object",
            "properties": {
                **_COMMON,
                "name": _TEXT,
                "version": _TEXT,
                "instructions": _TEXT,
                "websiteUrl": _TEXT,
                "capabilities": _OBJECT,
            },
        },
        "tools": {"type": "array", "items": {"$ref": "#/$defs/tool"}},
        "prompts": {"type": "array", "items": {"$ref": "#/$defs/prompt"}},
        "resources": {"type": "array", "items": {"$ref": "#/$defs/resource"}},
        "resource_templates": {"type": "array", "items": {"$ref": "#/$defs/resource_template"}},
        "skipped_tools": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "reason"],
                "properties": {"name": _TEXT, "reason": _TEXT, "endpoint": _TEXT},
            },
        },
        "endpoints": {"type": "array", "items": {"$ref": "#/$defs/endpoint"}},
        "proofs": {"$ref": "#/$defs/proofs"},
    },
    **_HTTP_NEEDS_URL,
    "$defs": {
        **PROOF_DEFS,
        "icons": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["src"],
                "properties": {"src": _TEXT, "mimeType": _TEXT, "sizes": _STRINGS, "theme": _TEXT},
            },
        },
        "tool": {
            "type": "object",
            "required": ["name"],
            "properties": {
                **_COMMON,
                "name": _TEXT,
                "inputSchema": _SCHEMA,
                "outputSchema": _SCHEMA,
                "annotations": {
                    "type": "object",
                    "properties": {"title": _TEXT}
                    | {hint: {"type": "boolean"} for hint in ("readOnlyHint", "destructiveHint", "idempotentHint")}
                    | {"openWorldHint": {"type": "boolean"}},
                },
                "execution": {"type": "object", "properties": {"taskSupport": _TEXT}},
            },
        },
        "prompt": {
            "type": "object",
            "required": ["name"],
            "properties": {
                **_COMMON,
                "name": _TEXT,
                "arguments": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["name"],
                        "properties": {
                            "name": _TEXT,
                            "title": _TEXT,
                            "description": _TEXT,
                            "required": {"type": "boolean"},
                        },
                    },
                },
            },
        },
        "resource": {
            "type": "object",
            "required": ["uri", "name"],
            "properties": {
                **_COMMON,
                "uri": _TEXT,
                "name": _TEXT,
                "mimeType": _TEXT,
                "size": {"type": "number"},
                "annotations": _RESOURCE_ANNOTATIONS,
            },
        },
        "resource_template": {
            "type": "object",
            "required": ["uriTemplate", "name"],
            "properties": {
                **_COMMON,
                "uriTemplate": _TEXT,
                "name": _TEXT,
                "mimeType": _TEXT,
                "annotations": _RESOURCE_ANNOTATIONS,
            },
        },
        "endpoint": {
            "type": "object",
            "required": ["name", "profile", "transport", "address", "protocol_version"],
            # Every key is a field of EndpointRecord: one it does not know would be lost on the next write.
            "additionalProperties": False,
            "properties": {
                "name": _NAME,
                "profile": _NAME,
                "transport": {"enum": list(TRANSPORTS)},
                "address": _NAME,
                "protocol_version": _TEXT,
                **{key: _STRINGS for key in ("tools", "env", "supported_versions", *ITEM_KEYS)},
                "variants": {"type": "object", "additionalProperties": {"$ref": "#/$defs/tool"}},
                "item_variants": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        section: {"type": "object", "additionalProperties": {"$ref": f"#/$defs/{section.rstrip('s')}"}}
                        for section in ITEM_KEYS
                    },
                },
                "server": {"type": "object", "additionalProperties": _TEXT},
                "auth": {
                    "type": "array",
                    "items": {
                        "type": "array",
                        "minItems": 2,
                        "maxItems": 2,
                        "prefixItems": [_TEXT, {"type": ["string", "null"]}],
                    },
                },
            },
            **_HTTP_NEEDS_URL,
        },
    },
}
"""The shape of a snapshot file, checked once at load so that later stages can trust the types.

It checks only what the portal reads, with the types the MCP specification gives them; schemas,
``_meta`` and unknown fields are the server's own and stay free-form.  Endpoint records are the
portal's own, so their keys are closed.
"""
_VALIDATOR = Draft202012Validator(SNAPSHOT_SCHEMA)

_Link = tuple[str | int, "_Link"] | None
"""A JSON path as a linked list from the innermost key out (cheap to extend while walking)."""
_PATTERNS = {r"\S": "must not be blank", _HTTP_URL: "must be an http:// or https:// URL, as its transport is HTTP"}


def _unlink(link: _Link) -> list[str | int]:
    keys: list[str | int] = []
    while link is not None:
        keys.append(link[0])
        link = link[1]
    return keys[::-1]


def plain_problem(value: JSON, depth: int = 1) -> str | None:
    """Why *value* could not be kept in a snapshot at nesting level *depth* (too deep, a number that is
    not finite or too long, a lone surrogate), or None: what a snapshot file is checked for on load."""
    return _scan(value, depth)


def _scan(data: JSON, depth: int = 1) -> str | None:
    """The first value no later stage could handle: too deep, not a finite number, not Unicode.

    An explicit stack, not recursion: this is what stands between deep input and the recursion limit.
    """
    stack: list[tuple[JSON, int, _Link]] = [(data, depth, None)]
    while stack:
        value, depth, link = stack.pop()
        if isinstance(value, dict | list):
            if depth > MAX_DEPTH:
                return too_deep_problem(_unlink(link))
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in reversed(list(items)):
                if isinstance(key, str) and _SURROGATE.search(key):
                    return f"the key {where([*_unlink(link), key])} holds a lone UTF-16 surrogate (\\ud800-\\udfff)"
                stack.append((item, depth + 1, (key, link)))
        elif isinstance(value, LongInt):
            return f"{where(_unlink(link))} is an integer of {len(value.lstrip('-'))} digits, too long to show"
        elif isinstance(value, float) and not math.isfinite(value):
            return (
                f"{where(_unlink(link))} is NaN, Infinity or a number beyond the range of a 64-bit float, "
                f"which JSON clients cannot read"
            )
        elif isinstance(value, str) and _SURROGATE.search(value):
            return f"{where(_unlink(link))} holds a lone UTF-16 surrogate (\\ud800-\\udfff), which is not Unicode text"
    return None


def shape_errors(data: JSON, *, quick: bool = True) -> list[ValidationError]:
    """Every error of *data* against :data:`SNAPSHOT_SCHEMA`, in jsonschema's order.

    With *quick*, when every tool plainly conforms (:func:`~generator.snapshot.quick.conforming_tool`),
    jsonschema checks the rest of the snapshot without them: the same errors, in a fraction of the
    time for 10,000 tools.
    """
    tools = data.get("tools") if isinstance(data, dict) else None
    if quick and isinstance(data, dict) and isinstance(tools, list) and all(map(conforming_tool, tools)):
        data = {**data, "tools": []}
    return list(_VALIDATOR.iter_errors(data))


def check_shape(data: JSON, *, plain: bool = False, shallow: bool = False) -> str | None:
    """The first problem (with how many more) that makes *data* not a snapshot, or None.

    *plain* says :func:`load_json_plain` found no value that only the full scan can place (a lone
    surrogate, a non-finite or overlong number): then only the depth is checked before the shape,
    which costs a fraction of the scan on a large snapshot. *shallow* says the caller has already
    proved that no value lies deeper than :data:`MAX_DEPTH`. The verdict is the same either way.
    """
    found = _scan(data) if not plain or (not shallow and nests_too_deeply(data, MAX_DEPTH)) else None
    if found is not None:
        return found
    errors = shape_errors(data)
    if not errors:
        return None
    more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
    return sentence(errors[0], _PATTERNS) + more
