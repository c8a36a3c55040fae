"""Whether a server's answer changed shape: its keys and types, never its values.

``check --prove`` sends a proven example again and compares the new answer with the recorded one.
Values change all the time (a search finds new messages, a clock moves), so only the shape counts:
which keys each object has, and the JSON type at each place. A text content block that holds JSON
(many servers answer so) is compared by the shape of that JSON. ``null`` matches any type (an
optional value that is sometimes absent), an integer matches a number, and what lies inside an
empty array is not compared (there is nothing to compare). ``_meta`` is the protocol's, not the answer's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from generator.jsonutil import json_type

MAX_NODES = 20_000
"""Places of an answer looked at; the rest of a huge answer is not compared."""


@dataclass
class Shape:
    """Each place of an answer (``structuredContent.messages[].at``) with the JSON types seen there,
    and each object's keys."""

    types: dict[str, set[str]] = field(default_factory=dict)
    keys: dict[str, set[str]] = field(default_factory=dict)


def shape_of(answer: dict[str, Any]) -> Shape:
    """The shape of a recorded answer (``{"result": ...}`` or ``{"error": ...}``, see
    :mod:`generator.snapshot.proofs`)."""
    shape = Shape()
    stack: list[tuple[object, str]] = [(answer, "")]
    seen = 0
    while stack and seen < MAX_NODES:
        value, path = stack.pop()
        seen += 1
        kind = json_type(value) or "other"
        shape.types.setdefault(path, set()).add("number" if kind == "integer" else kind)
        if isinstance(value, dict):
            keys = {str(k) for k in value if k != "_meta"}
            shape.keys.setdefault(path, set()).update(keys)
            stack.extend((value[k], f"{path}.{k}" if path else str(k)) for k in value if k != "_meta")
            if value.get("type") == "text" and isinstance(value.get("text"), str):
                parsed = _json_text(value["text"])
                if parsed is not None:
                    stack.append((parsed, f"{path}.text(JSON)"))
        elif isinstance(value, list):
            stack.extend((item, f"{path}[]") for item in value)
    return shape


def _json_text(text: str) -> object | None:
    """The JSON a text block holds, when it is an object or an array; else None."""
    if not text.lstrip().startswith(("{", "[")) or len(text) > 1_000_000:
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict | list) else None


def shape_changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """How *after* differs from *before* in shape, one phrase per difference (empty: the same shape)."""
    old, new = shape_of(before), shape_of(after)
    found: list[str] = []
    for path in sorted(old.keys.keys() & new.keys.keys()):
        gone, added = sorted(old.keys[path] - new.keys[path]), sorted(new.keys[path] - old.keys[path])
        where = f"`{path}`" if path else "the answer"
        found += [f"{where} no longer has `{key}`" for key in gone]
        found += [f"{where} has a new key `{key}`" for key in added]
    for path in sorted(old.types.keys() & new.types.keys()):
        was, now = old.types[path] - {"null"}, new.types[path] - {"null"}
        if was and now and was != now:
            found.append(f"`{path}` was {' or '.join(sorted(was))}, now {' or '.join(sorted(now))}")
    return found
