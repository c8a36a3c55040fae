"""How a snapshot problem names a place and a value: JSON paths, value kinds, quoted server text.

Every message about a malformed snapshot (or a malformed listing, which the same checks read)
names where the problem is as a reader of the file would write the path, and shows server text
clipped, quoted and escaped, so a message cannot carry control characters to a terminal or a log.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from jsonschema import ValidationError

from generator.jsonutil import clip, json_type

TYPES = {"object": "an object", "array": "an array", "string": "a string", "number": "a number"}
TYPES |= {"integer": "an integer", "boolean": "a boolean (true or false)", "null": "null"}
"""JSON Schema type names as a message says them."""


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


def shown(value: Any) -> str:
    """A JSON value for a message: its type, and a short ASCII-escaped form of a scalar."""
    kind = TYPES.get(json_type(value) or "", type(value).__name__)
    if isinstance(value, dict | list) or value is None or isinstance(value, bool):
        return kind
    return f"{kind} ({quote(value) if isinstance(value, str) else clip(json.dumps(value), 60)})"


def quote(text: str, limit: int = 60) -> str:
    """Server text in a message: clipped, quoted, control and bidi characters escaped."""
    return json.dumps(text[: limit - 1]) + "…" if len(text) > limit else json.dumps(text)


def sentence(error: ValidationError, patterns: Mapping[str, str]) -> str:
    """One readable sentence for a shape error, naming the JSON path of the bad value (*patterns*: what
    each ``pattern`` of the schema means, in words)."""
    at, kind, wanted = list(error.absolute_path), error.validator, error.validator_value
    place, value = where(at), error.instance
    if kind == "type":
        wants = wanted if isinstance(wanted, list) else [wanted]
        return f"{place} must be {' or '.join(TYPES.get(str(w), str(w)) for w in wants)}, but it is {shown(value)}"
    if kind == "required" and isinstance(value, dict) and isinstance(wanted, list):
        missing = ", ".join(f"`{k}`" for k in wanted if k not in value)
        return f"{place} lacks the required key{'s' if ',' in missing else ''} {missing}"
    if kind == "enum" and isinstance(wanted, list):
        options = " or ".join(json.dumps(w) for w in wanted)
        return f"{place} is {quote(value) if isinstance(value, str) else shown(value)}, but it must be {options}"
    if kind == "pattern" and isinstance(value, str):
        rule = patterns.get(str(wanted), "has the wrong form")
        return f"{place} {rule}" + (f", but it is {quote(value)}" if value.strip() else "")
    if kind == "additionalProperties" and isinstance(value, dict):
        known = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        extra = next((k for k in value if k not in known), "?")
        return f"{where([*at, extra])} is not a known key here (known: {', '.join(known)})"
    if kind in ("minItems", "maxItems"):
        count = len(value) if isinstance(value, list) else 0
        return f"{place} must be a [header, template] pair, but it has {count} items"
    return f"{place} is not valid here ({error.message[:200]})"
