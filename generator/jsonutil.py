"""JSON values as Python sees them: type names, equality, safe copies, one-line summaries, and
JSON text read with no key repeated in an object (:func:`loads_unique`).

Knows the JSON data model only (``true`` is not ``1``, ``1`` equals ``1.0``,
what a JSON value may contain) and how to show a value in a table cell without
unbounded work.  Knows nothing about JSON Schema: no keywords, no dialects, no
``$ref``; those live in :mod:`generator.schema.constraints`, :mod:`generator.schema.refs` and
:mod:`generator.schema.flatten`, which build on these helpers.  Every function accepts
untrusted input (aliased, deeply nested, non-JSON Python values) and never raises
for it (but :func:`loads_unique`, which reads text).
"""

from __future__ import annotations

import json
import math
from typing import Any, TypeGuard


class RepeatedKey(ValueError):
    """A JSON object that names one key twice. JSON leaves which value counts to each reader (Python's
    parser keeps the last, others the first), so two programs could read two different documents."""

    def __init__(self, key: str) -> None:
        super().__init__(f"the key {json.dumps(key)[:80]} appears twice in one object")
        self.key = key


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` of :func:`json.loads`: the object as a dict, or :class:`RepeatedKey`."""
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise RepeatedKey(key)
            seen.add(key)
    return found


def loads_unique(text: str | bytes) -> Any:
    """:func:`json.loads` refusing an object that repeats a key (:class:`RepeatedKey`, a ValueError)."""
    return json.loads(text, object_pairs_hook=unique_keys)


MAX_LIST = 500  # items kept per list/object in a jsonable copy (so in a constraint value)
_SUMMARY_CHARS = 200


def is_number(value: object) -> TypeGuard[int | float]:
    """A JSON number (bools are not numbers, even though Python thinks so)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def json_type(value: object) -> str | None:
    """The JSON type name of a Python value, or None when it is not JSON."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return None


def json_equal(a: object, b: object, _depth: int = 0) -> bool:
    """JSON equality: ``1 == 1.0`` but ``true != 1``; bounded for aliased input."""
    if a is b:
        return True
    if _depth > 64:
        return False
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) and is_number(b):
        return bool(a == b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k], _depth + 1) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(json_equal(x, y, _depth + 1) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and bool(a == b)


def jsonable(value: object, _depth: int = 0) -> Any:
    """A JSON-serialisable copy: lists capped, depth capped, odd values made strings."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        # str() of a >4300-digit int raises in Python 3.11+; JSON input cannot hold one anyway.
        return value if value.bit_length() < 10_000 else ("-" if value < 0 else "") + "1e3000+"
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if _depth >= 20:
        return "…"
    if isinstance(value, list | tuple):
        return [jsonable(v, _depth + 1) for v in value[:MAX_LIST]]
    if isinstance(value, dict):
        return {str(k): jsonable(v, _depth + 1) for k, v in list(value.items())[:MAX_LIST]}
    return clip(repr(value), 100)


def summary(schema: object) -> str:
    """Compact one-line JSON of a subschema, clipped for a table cell."""
    try:
        text = json.dumps(jsonable(schema), ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):  # pragma: no cover - jsonable already made it JSON
        text = repr(schema)
    return clip(text, _SUMMARY_CHARS)


def clip(text: str, limit: int) -> str:
    """*text* cut to *limit* characters, with an ellipsis when it was longer."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
