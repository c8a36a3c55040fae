"""Quick checks for snapshots that are plainly well formed: most are, and large ones are slow to walk.

:func:`generator.snapshot.shape.check_shape` uses them to skip work whose verdict is already
known, never to change a verdict: a snapshot that fails a quick check gets the full scan and the
full JSON Schema check (``tests/test_snapshot_mutations.py`` compares both ways).
"""

from __future__ import annotations

from typing import Any


def nests_too_deeply(data: Any, limit: int) -> bool:
    """Whether any object or array of *data* lies deeper than *limit* levels (level by level, no recursion)."""
    level = [data] if isinstance(data, dict | list) else []
    depth = 1
    while level:
        if depth > limit:
            return True
        inner: list[Any] = []
        for value in level:
            items = value.values() if isinstance(value, dict) else value
            inner.extend(item for item in items if isinstance(item, dict | list))  # type: ignore[union-attr]
        level, depth = inner, depth + 1
    return False


def shallow_pretty(text: str, limit: int) -> bool:
    """Whether JSON *text* written with ``indent=2`` certainly has nothing deeper than *limit* levels.

    In such text a raw newline only ever starts an indented line (JSON strings escape theirs), and
    the items of a container at depth *d* are indented ``2 * d`` spaces. A container deeper than
    *limit* is an item of one at depth *limit* or more, so it sits on a line indented at least
    ``2 * limit`` spaces: when no line is, nothing is too deep. When one is, this says False and
    the caller walks the value (:func:`nests_too_deeply`). Only for text known to be written so.
    """
    return "\n" + " " * (2 * limit) not in text


_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def conforming_tool(tool: Any) -> bool:
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
