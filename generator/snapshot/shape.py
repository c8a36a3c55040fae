"""The shape of a snapshot file, and the sentences that say where a file breaks it.

A snapshot is read once, here, so that every later stage can trust its types: the JSON text is
parsed without loss (:func:`load_json`), scanned for what no later stage could handle (depth,
numbers, lone surrogates) and checked against :data:`SNAPSHOT_SCHEMA`.  Each problem is one
sentence naming the JSON path of the bad value (:func:`where`), raised as :class:`ShapeProblem`;
the loader in :mod:`generator.snapshot.snapshot` adds the file's name and the remedy.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from typing import Any

from jsonschema import Draft202012Validator, ValidationError

from generator.jsonutil import clip, json_type

JSON = Any

SNAPSHOT_VERSION = 2
"""Bumped when the snapshot's shape changes. Version 2 added ``endpoints``; version 1 files still load."""
READABLE_VERSIONS = (1, 2)

ITEM_KEYS: dict[str, str] = {"prompts": "name", "resources": "uri", "resource_templates": "uriTemplate"}
"""The lists besides tools that a snapshot (and each endpoint) holds, and the field each is keyed by."""

MAX_DEPTH = 640
"""How deeply a snapshot's JSON may nest (objects and arrays). Real servers stay under 30 levels.

The bound leaves room on Python's call stack for the recursive walks of later stages (schema rows,
``$ref`` resolution, examples, JSON output), so deeper data is one clear error here instead of a
``RecursionError`` there.
"""

_INT_DIGITS = 4300  # Python's default limit for int <-> str conversion; a longer integer cannot be shown
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
    },
    **_HTTP_NEEDS_URL,
    "$defs": {
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
_TYPES = {"object": "an object", "array": "an array", "string": "a string", "number": "a number"}
_TYPES |= {"integer": "an integer", "boolean": "a boolean (true or false)", "null": "null"}
_PATTERNS = {r"\S": "must not be blank", _HTTP_URL: "must be an http:// or https:// URL, as its transport is HTTP"}


class ShapeProblem(ValueError):
    """Snapshot JSON that breaks the shape; the message is one sentence naming where (no file, no remedy)."""


def _segments(at: Iterable[str | int]) -> str:
    """``tools[0].inputSchema["a b"]``: a JSON path as a reader of the file would write it."""
    out = ""
    for key in at:
        if isinstance(key, int):
            out += f"[{key}]"
        elif re.fullmatch(r"[A-Za-z_$][\w$-]{0,40}", key):
            out += f".{key}"
        else:  # quoted and ASCII-escaped: a key is server text and may hold control characters
            out += f"[{quote(key, 40)}]"
    return out.lstrip(".")


def where(at: Sequence[str | int]) -> str:
    """The path in backquotes, elided in the middle when it is very long (deep nesting)."""
    if not at:
        return "the top level"
    if len(at) > 12:
        return f"`{_segments(at[:6])}…{_segments(at[-3:])}` ({len(at)} levels down)"
    return f"`{_segments(at)}`"


def _unlink(link: _Link) -> list[str | int]:
    keys: list[str | int] = []
    while link is not None:
        keys.append(link[0])
        link = link[1]
    return keys[::-1]


def shown(value: JSON) -> str:
    """A JSON value for a message: its type, and a short ASCII-escaped form of a scalar."""
    kind = _TYPES.get(json_type(value) or "", type(value).__name__)
    if isinstance(value, dict | list) or value is None or isinstance(value, bool):
        return kind
    return f"{kind} ({quote(value) if isinstance(value, str) else clip(json.dumps(value), 60)})"


def quote(text: str, limit: int = 60) -> str:
    """Server text in a message: clipped, quoted, control and bidi characters escaped."""
    return json.dumps(text[: limit - 1]) + "…" if len(text) > limit else json.dumps(text)


class _LongInt(str):
    """An integer literal too long to convert; kept as text so the scan can name where it is."""


def _int(text: str) -> int | _LongInt:
    return int(text) if len(text.lstrip("-")) <= _INT_DIGITS else _LongInt(text)


def _scan(data: JSON) -> str | None:
    """The first value no later stage could handle: too deep, not a finite number, not Unicode.

    An explicit stack, not recursion: this is what stands between deep input and the recursion limit.
    """
    stack: list[tuple[JSON, int, _Link]] = [(data, 1, None)]
    while stack:
        value, depth, link = stack.pop()
        if isinstance(value, dict | list):
            if depth > MAX_DEPTH:
                return _too_deep_problem(_unlink(link))
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in reversed(list(items)):
                if isinstance(key, str) and _SURROGATE.search(key):
                    return f"the key {where([*_unlink(link), key])} holds a lone UTF-16 surrogate (\\ud800-\\udfff)"
                stack.append((item, depth + 1, (key, link)))
        elif isinstance(value, _LongInt):
            return f"{where(_unlink(link))} is an integer of {len(value.lstrip('-'))} digits, too long to show"
        elif isinstance(value, float) and not math.isfinite(value):
            return (
                f"{where(_unlink(link))} is NaN, Infinity or a number beyond the range of a 64-bit float, "
                f"which JSON clients cannot read"
            )
        elif isinstance(value, str) and _SURROGATE.search(value):
            return f"{where(_unlink(link))} holds a lone UTF-16 surrogate (\\ud800-\\udfff), which is not Unicode text"
    return None


def _too_deep_problem(at: list[str | int] | None) -> str:
    place = "it" if at is None else where(at)
    return (
        f"{place} lies deeper than the {MAX_DEPTH} levels of nesting a snapshot may have (real servers use a few dozen)"
    )


def _problem(error: ValidationError) -> str:
    """One readable sentence for a shape error, naming the JSON path of the bad value."""
    at, kind, wanted = list(error.absolute_path), error.validator, error.validator_value
    place, value = where(at), error.instance
    if kind == "type":
        wants = wanted if isinstance(wanted, list) else [wanted]
        return f"{place} must be {' or '.join(_TYPES.get(str(w), str(w)) for w in wants)}, but it is {shown(value)}"
    if kind == "required" and isinstance(value, dict) and isinstance(wanted, list):
        missing = ", ".join(f"`{k}`" for k in wanted if k not in value)
        return f"{place} lacks the required key{'s' if ',' in missing else ''} {missing}"
    if kind == "enum" and isinstance(wanted, list):
        options = " or ".join(json.dumps(w) for w in wanted)
        return f"{place} is {quote(value) if isinstance(value, str) else shown(value)}, but it must be {options}"
    if kind == "pattern" and isinstance(value, str):
        rule = _PATTERNS.get(str(wanted), "has the wrong form")
        return f"{place} {rule}" + (f", but it is {quote(value)}" if value.strip() else "")
    if kind == "additionalProperties" and isinstance(value, dict):
        known = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        extra = next((k for k in value if k not in known), "?")
        return f"{where([*at, extra])} is not a known key here (known: {', '.join(known)})"
    if kind in ("minItems", "maxItems"):
        count = len(value) if isinstance(value, list) else 0
        return f"{place} must be a [header, template] pair, but it has {count} items"
    return f"{place} is not valid here ({error.message[:200]})"


def _nests_too_deeply(data: JSON) -> bool:
    """Whether any object or array of *data* lies deeper than :data:`MAX_DEPTH` (level by level, no recursion)."""
    level = [data] if isinstance(data, dict | list) else []
    depth = 1
    while level:
        if depth > MAX_DEPTH:
            return True
        inner: list[JSON] = []
        for value in level:
            items = value.values() if isinstance(value, dict) else value
            inner.extend(item for item in items if isinstance(item, dict | list))  # type: ignore[union-attr]
        level, depth = inner, depth + 1
    return False


_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def _conforming_tool(tool: JSON) -> bool:
    """Whether *tool* is certainly valid against ``$defs/tool`` (the same type tests as jsonschema's).

    Conservative: a tool with icons, or anything this does not follow, is False and left to jsonschema.
    """
    if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
        return False
    for key, value in tool.items():
        if key in ("name", "title", "description"):
            ok = isinstance(value, str)
        elif key in ("inputSchema", "outputSchema"):
            ok = isinstance(value, dict | bool)
        elif key == "_meta":
            ok = isinstance(value, dict)
        elif key == "annotations":
            ok = isinstance(value, dict) and all(
                isinstance(v, str) if k == "title" else isinstance(v, bool) if k in _HINTS else True
                for k, v in value.items()
            )
        elif key == "execution":
            ok = isinstance(value, dict) and isinstance(value.get("taskSupport", ""), str)
        else:
            ok = key != "icons"
        if not ok:
            return False
    return True


def shape_errors(data: JSON, *, quick: bool = True) -> list[ValidationError]:
    """Every error of *data* against :data:`SNAPSHOT_SCHEMA`, in jsonschema's order.

    With *quick*, when every tool plainly conforms (:func:`_conforming_tool`), jsonschema checks the
    rest of the snapshot without them: the same errors, in a fraction of the time for 10,000 tools.
    """
    tools = data.get("tools") if isinstance(data, dict) else None
    if quick and isinstance(data, dict) and isinstance(tools, list) and all(map(_conforming_tool, tools)):
        data = {**data, "tools": []}
    return list(_VALIDATOR.iter_errors(data))


def check_shape(data: JSON, *, plain: bool = False) -> str | None:
    """The first problem (with how many more) that makes *data* not a snapshot, or None.

    *plain* says :func:`load_json_plain` found no value that only the full scan can place (a lone
    surrogate, a non-finite or overlong number): then only the depth is checked before the shape,
    which costs a fraction of the scan on a large snapshot. The verdict is the same either way.
    """
    found = _scan(data) if not plain or _nests_too_deeply(data) else None
    if found is not None:
        return found
    errors = shape_errors(data)
    if not errors:
        return None
    more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
    return _problem(errors[0]) + more


_MAYBE_SURROGATE = re.compile("[\ud800-\udfff]|\\\\u[dD][89a-fA-F]")
"""A lone surrogate, as a character or as a JSON escape (or text that merely looks like one)."""


def load_json_plain(raw: str) -> tuple[JSON, bool]:
    """:func:`load_json`, and whether the value is *plain*: no string or key can hold a lone surrogate
    (the text has none, escaped or not), and every number is finite and short enough to show."""
    unusual: list[str] = []

    def number(text: str) -> JSON:
        value = float(text)
        if not math.isfinite(value):
            unusual.append(text)
        return value

    def constant(text: str) -> float:
        unusual.append(text)
        return float(text)

    def integer(text: str) -> int | _LongInt:
        value = _int(text)
        if isinstance(value, _LongInt):
            unusual.append(text)
        return value

    data = load_json(raw, parse_int=integer, parse_float=number, parse_constant=constant)
    return data, not unusual and _MAYBE_SURROGATE.search(raw) is None


def load_json(raw: str, **hooks: Any) -> JSON:
    """The JSON value of *raw*; only JSON Python can hold without loss reaches the caller.

    *hooks* are :func:`json.loads`'s number hooks (``parse_int`` defaults to one that keeps an
    integer too long to convert as text, for the scan to name).
    """
    try:
        return json.loads(raw, **({"parse_int": _int} | hooks))
    except json.JSONDecodeError as exc:
        raise ShapeProblem(f"it is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:  # the parser recurses per level, so this is only reached past MAX_DEPTH
        raise ShapeProblem(_too_deep_problem(_too_deep(raw))) from None


_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},:]')


def _too_deep(raw: str) -> list[str | int] | None:
    """The JSON path of the first object or array of *raw* that lies deeper than :data:`MAX_DEPTH`.

    A scan of the text, for input too deep for the parser to return at all.
    """
    at: list[str | int] = []  # for each open container, the key or index being read in it
    key: str | int = ""
    for token in _TOKENS.finditer(raw):
        text = token.group()
        if text in ("[", "{"):
            if len(at) == MAX_DEPTH:
                return at
            at.append(0 if text == "[" else "")
        elif text in ("]", "}"):
            if at:
                at.pop()
        elif text == ",":
            if at and isinstance(at[-1], int):
                at[-1] += 1
        elif text == ":":
            if at:
                at[-1] = key
        else:
            key = json.loads(text)
    return None
