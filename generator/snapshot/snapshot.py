"""The snapshot: what the server said, frozen as JSON.

A snapshot is the only input of the rendering stages, so a site can be rebuilt
offline, diffed and checked for drift.  It knows nothing of the SDK's classes:
tools are kept exactly as they came over the wire, in MCP's camelCase JSON.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, ValidationError

from generator.errors import PortalError
from generator.jsonutil import clip, json_type

SNAPSHOT_VERSION = 2
"""Bumped when the snapshot's shape changes. Version 2 added ``endpoints``; version 1 files still load."""
READABLE_VERSIONS = (1, 2)

JSON = Any


def canonical_json(value: JSON) -> str:
    """The one serialisation used for hashing: sorted keys, no spaces, real Unicode."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _sorted(value: JSON) -> JSON:
    """*value* with every object's keys sorted, recursively (for data whose key order means nothing).

    Done by the C JSON codec, which spends one level of the recursion limit per level of nesting
    (a Python walk with comprehensions spends two, and ran out on a deep but loadable ``_meta``).
    """
    return json.loads(canonical_json(value))


def fingerprint(tools: list[dict[str, JSON]], endpoints: list[dict[str, JSON]] | None = None) -> str:
    """sha256 of the canonical tool list, in the server's order.

    With several endpoints, what each one offers is part of what the site documents, so the
    endpoint records are hashed too; one endpoint adds nothing the tool list does not say.
    """
    payload: JSON = tools if not endpoints or len(endpoints) < 2 else {"endpoints": endpoints, "tools": tools}
    return "sha256:" + hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Snapshot:
    """Everything the server told us, plus how we reached it."""

    protocol_version: str
    server: dict[str, JSON]
    tools: tuple[dict[str, JSON], ...]
    capability_version: str
    transport: str
    endpoint: str
    prompts: tuple[dict[str, JSON], ...] = ()
    resources: tuple[dict[str, JSON], ...] = ()
    resource_templates: tuple[dict[str, JSON], ...] = ()
    skipped_tools: tuple[dict[str, JSON], ...] = ()
    """Tools left out in ``--lenient`` mode: ``{"name": ..., "reason": ...}``."""
    endpoints: tuple[dict[str, JSON], ...] = ()
    """What each endpoint offers (see :func:`endpoint_record`); empty in version 1 snapshots."""
    fingerprint: str = field(default="")

    def __post_init__(self) -> None:
        if not self.endpoints:
            # A version-1 snapshot, or one endpoint built by hand: it offers every tool, as listed.
            record = endpoint_record("default", None, self.transport, self.endpoint, self.protocol_version, self.tools)
            object.__setattr__(self, "endpoints", (record,))
        if not self.fingerprint:
            object.__setattr__(self, "fingerprint", fingerprint(list(self.tools), list(self.endpoints)))

    def to_dict(self) -> dict[str, JSON]:
        return {
            "snapshot_version": SNAPSHOT_VERSION,
            "capability_version": self.capability_version,
            "fingerprint": self.fingerprint,
            "protocol_version": self.protocol_version,
            "transport": self.transport,
            "endpoint": self.endpoint,
            "server": self.server,
            "tools": list(self.tools),
            "prompts": list(self.prompts),
            "resources": list(self.resources),
            "resource_templates": list(self.resource_templates),
            "skipped_tools": list(self.skipped_tools),
            "endpoints": list(self.endpoints),
        }

    def to_json(self) -> str:
        """Pretty and newline-terminated, so the file diffs well in review.

        Top-level keys and the server's identity are sorted. Tools, prompts and resources keep
        the order of keys the server sent: a schema's ``properties`` order is how its author
        meant parameters to be read (required ``query`` first), and pages show them so.
        """
        data = self.to_dict()
        data["server"] = _sorted(data["server"])
        return json.dumps(dict(sorted(data.items())), indent=2, ensure_ascii=False) + "\n"


ITEM_KEYS: dict[str, str] = {"prompts": "name", "resources": "uri", "resource_templates": "uriTemplate"}
"""The lists besides tools that an endpoint offers, and the field each is keyed by."""


def endpoint_record(
    name: str,
    profile: str | None,
    transport: str,
    address: str,
    protocol_version: str,
    tools: tuple[dict[str, JSON], ...] | list[dict[str, JSON]],
    **extra: JSON,
) -> dict[str, JSON]:
    """One endpoint as the snapshot records it.

    ``tools`` lists the names it offers; ``variants`` holds, whole, each tool whose JSON differs
    from the snapshot's main listing of it; *extra* adds ``auth`` (header templates), ``env``
    (variable names), ``supported_versions`` (every protocol revision a 2026-era server says it
    speaks), and the names or URIs of its ``prompts``, ``resources`` and ``resource_templates``.
    """
    record: dict[str, JSON] = {
        "name": name,
        "profile": profile or name,
        "transport": transport,
        "address": address,
        "protocol_version": protocol_version,
        "tools": [t["name"] for t in tools],
    }
    record.update({k: v for k, v in extra.items() if v})
    return record


def resolve_capability_version(rule: str, server: dict[str, JSON], tools_fingerprint: str) -> str:
    """Apply the configured capability-version rule (``server``, ``fingerprint``, ``meta:KEY``)."""
    if rule == "fingerprint":
        return tools_fingerprint.removeprefix("sha256:")[:12]
    if rule.startswith("meta:"):
        key = rule[5:]
        meta = server.get("_meta") or {}
        value = meta.get(key) if isinstance(meta, dict) else None
        if not isinstance(value, str | int | float) or isinstance(value, bool) or str(value) == "":
            raise PortalError(
                f"The capability version is configured to come from the `_meta` key {key!r} of the "
                f"server's discover/initialize result, but the server did not send it. Set "
                f"`capability_version: server` or `fingerprint`, or make the server send that key."
            )
        return str(value)
    version = server.get("version")
    if isinstance(version, str) and version.strip():
        return version.strip()
    # An anonymous 2026-era server has no version; the fingerprint is the honest stand-in.
    return tools_fingerprint.removeprefix("sha256:")[:12]


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
``_meta`` and unknown fields are the server's own and stay free-form.
"""
_VALIDATOR = Draft202012Validator(SNAPSHOT_SCHEMA)

_Link = tuple[str | int, "_Link"] | None
"""A JSON path as a linked list from the innermost key out (cheap to extend while walking)."""
_TYPES = {"object": "an object", "array": "an array", "string": "a string", "number": "a number"}
_TYPES |= {"integer": "an integer", "boolean": "a boolean (true or false)", "null": "null"}
_PATTERNS = {r"\S": "must not be blank", _HTTP_URL: "must be an http:// or https:// URL, as its transport is HTTP"}


class SnapshotError(PortalError):
    """A snapshot file that cannot be used; ``problem`` names what is wrong and where."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(
            f"The snapshot {path} is not usable: {problem}. Create a fresh one with "
            f"`mcp-portal introspect ... -o {path.name}`."
        )
        self.problem = problem


def _bad(path: Path, problem: str) -> SnapshotError:
    return SnapshotError(path, problem)


def _segments(at: Iterable[str | int]) -> str:
    """``tools[0].inputSchema["a b"]``: a JSON path as a reader of the file would write it."""
    out = ""
    for key in at:
        if isinstance(key, int):
            out += f"[{key}]"
        elif re.fullmatch(r"[A-Za-z_$][\w$-]{0,40}", key):
            out += f".{key}"
        else:  # quoted and ASCII-escaped: a key is server text and may hold control characters
            out += f"[{_quote(key, 40)}]"
    return out.lstrip(".")


def _where(at: Sequence[str | int]) -> str:
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


def _shown(value: JSON) -> str:
    """A JSON value for a message: its type, and a short ASCII-escaped form of a scalar."""
    kind = _TYPES.get(json_type(value) or "", type(value).__name__)
    if isinstance(value, dict | list) or value is None or isinstance(value, bool):
        return kind
    return f"{kind} ({_quote(value) if isinstance(value, str) else clip(json.dumps(value), 60)})"


def _quote(text: str, limit: int = 60) -> str:
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
                    return f"the key {_where([*_unlink(link), key])} holds a lone UTF-16 surrogate (\\ud800-\\udfff)"
                stack.append((item, depth + 1, (key, link)))
        elif isinstance(value, _LongInt):
            return f"{_where(_unlink(link))} is an integer of {len(value.lstrip('-'))} digits, too long to show"
        elif isinstance(value, float) and not math.isfinite(value):
            return (
                f"{_where(_unlink(link))} is NaN, Infinity or a number beyond the range of a 64-bit float, "
                f"which JSON clients cannot read"
            )
        elif isinstance(value, str) and _SURROGATE.search(value):
            return f"{_where(_unlink(link))} holds a lone UTF-16 surrogate (\\ud800-\\udfff), which is not Unicode text"
    return None


def _too_deep_problem(at: list[str | int] | None) -> str:
    where = "it" if at is None else _where(at)
    return (
        f"{where} lies deeper than the {MAX_DEPTH} levels of nesting a snapshot may have (real servers use a few dozen)"
    )


def _problem(error: ValidationError) -> str:
    """One readable sentence for a shape error, naming the JSON path of the bad value."""
    at, kind, wanted = list(error.absolute_path), error.validator, error.validator_value
    where, value = _where(at), error.instance
    if kind == "type":
        wants = wanted if isinstance(wanted, list) else [wanted]
        return f"{where} must be {' or '.join(_TYPES.get(str(w), str(w)) for w in wants)}, but it is {_shown(value)}"
    if kind == "required" and isinstance(value, dict) and isinstance(wanted, list):
        missing = ", ".join(f"`{k}`" for k in wanted if k not in value)
        return f"{where} lacks the required key{'s' if ',' in missing else ''} {missing}"
    if kind == "enum" and isinstance(wanted, list):
        options = " or ".join(json.dumps(w) for w in wanted)
        return f"{where} is {_quote(value) if isinstance(value, str) else _shown(value)}, but it must be {options}"
    if kind == "pattern" and isinstance(value, str):
        rule = _PATTERNS.get(str(wanted), "has the wrong form")
        return f"{where} {rule}" + (f", but it is {_quote(value)}" if value.strip() else "")
    if kind == "additionalProperties" and isinstance(value, dict):
        known = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        extra = next((k for k in value if k not in known), "?")
        return f"{_where([*at, extra])} is not a known key here (known: {', '.join(known)})"
    if kind in ("minItems", "maxItems"):
        count = len(value) if isinstance(value, list) else 0
        return f"{where} must be a [header, template] pair, but it has {count} items"
    return f"{where} is not valid here ({error.message[:200]})"


def check_shape(data: JSON) -> str | None:
    """The first problem (with how many more) that makes *data* not a snapshot, or None."""
    found = _scan(data)
    if found is not None:
        return found
    errors = list(_VALIDATOR.iter_errors(data))
    if not errors:
        return None
    more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
    return _problem(errors[0]) + more


def load_snapshot(path: Path) -> Snapshot:
    """Read and check a snapshot file; a malformed one is a clear error, not a traceback."""
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PortalError(f"The snapshot {path} cannot be read ({exc.strerror or exc}). Check the path.") from None
    except UnicodeDecodeError:
        raise _bad(path, "it is not UTF-8 text") from None
    return parse_snapshot(raw, path)


def frozen(snapshot: Snapshot) -> Snapshot:
    """The snapshot exactly as its file will read back: a live build renders what --from would.

    Whatever ``to_json`` normalizes (sorted server identity, JSON number forms), a live build
    renders exactly what a later build from the written snapshot file renders.
    """
    try:
        return parse_snapshot(snapshot.to_json(), Path("snapshot.json"))
    except SnapshotError as exc:  # no file to re-create here: what the server sent is the problem
        raise PortalError(
            f"What the server listed cannot be documented: {exc.problem} (the path is the one in the snapshot "
            f"`mcp-portal introspect` would write). Fix the server's listing and build again."
        ) from None


def _endpoints(data: dict[str, JSON], path: Path, tool_names: set[str]) -> tuple[dict[str, JSON], ...]:
    """What the shape cannot say: each endpoint record names things the snapshot lists, once."""
    records: list[dict[str, JSON]] = data.get("endpoints", [])
    seen: set[str] = set()
    for i, record in enumerate(records):
        at: list[str | int] = ["endpoints", i]
        if record["name"] in seen:
            raise _bad(path, f"{_where([*at, 'name'])} repeats the endpoint name {_quote(record['name'])}")
        seen.add(record["name"])
        unknown = set(record.get("tools", [])) - tool_names
        if unknown:
            raise _bad(
                path,
                f"{_where([*at, 'tools'])} offers tools the snapshot does not list: "
                f"{', '.join(map(_quote, sorted(unknown)[:3]))}",
            )
        for key, tool in record.get("variants", {}).items():
            if tool.get("name") != key or key not in record.get("tools", []):
                raise _bad(path, f"{_where([*at, 'variants', key])} has `variants` that are not tools it offers")
        for section, found in record.get("item_variants", {}).items():
            for key, item in found.items():
                if item.get(ITEM_KEYS[section]) != key or key not in record.get(section, []):
                    raise _bad(
                        path,
                        f"{_where([*at, 'item_variants', section, key])} has `item_variants` that are not "
                        f"prompts or resources it offers",
                    )
    return tuple(records)


def _load_json(raw: str, path: Path) -> JSON:
    """The JSON value of *raw*; only JSON Python can hold without loss reaches the caller."""
    try:
        return json.loads(raw, parse_int=_int)
    except json.JSONDecodeError as exc:
        raise _bad(path, f"it is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:  # the parser recurses per level, so this is only reached past MAX_DEPTH
        raise _bad(path, _too_deep_problem(_too_deep(raw))) from None


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


def parse_snapshot(raw: str, path: Path) -> Snapshot:
    """Check and build a snapshot from its JSON text (*path* is only named in errors).

    Everything is checked here, once: later stages trust every type :data:`SNAPSHOT_SCHEMA` states.
    """
    data = _load_json(raw, path)
    if not isinstance(data, dict):
        raise _bad(path, "the top level must be a JSON object")
    version = data.get("snapshot_version")
    if version not in READABLE_VERSIONS or isinstance(version, bool):
        readable = " and ".join(map(str, READABLE_VERSIONS))
        raise _bad(path, f"its snapshot_version is {_shown(version)}, and this mcp-portal reads versions {readable}")
    problem = check_shape(data)
    if problem is not None:
        raise _bad(path, problem)
    tools: tuple[dict[str, JSON], ...] = tuple(data.get("tools", []))
    first: dict[str, int] = {}
    for i, tool in enumerate(tools):
        if first.setdefault(tool["name"], i) != i:
            earlier = first[tool["name"]]
            raise _bad(
                path, f"{_where(['tools', i, 'name'])} repeats {_quote(tool['name'])}, the name of tools[{earlier}]"
            )
    snap = Snapshot(
        protocol_version=data["protocol_version"],
        server=data["server"],
        tools=tools,
        capability_version=data["capability_version"],
        transport=data["transport"],
        endpoint=data["endpoint"],
        prompts=tuple(data.get("prompts", [])),
        resources=tuple(data.get("resources", [])),
        resource_templates=tuple(data.get("resource_templates", [])),
        skipped_tools=tuple(data.get("skipped_tools", [])),
        endpoints=_endpoints(data, path, set(first)),
    )
    if data["fingerprint"] != snap.fingerprint:
        raise _bad(path, "its `fingerprint` does not match its tools, so it was edited or damaged")
    return snap
