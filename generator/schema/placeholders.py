"""The typed stub that shows a call's shape: ``"<name>"``, ``1``, ``1.0``, ``true``, one array item,
every declared property.

A placeholder is shown where no example could be found, so a reader still sees the shape of a
call. It is never validated: strings are placeholders, and every concrete value stands where the
schema allows it (an ``enum`` member or the ``const``, a number inside the bounds, as many array
items as ``minItems`` asks, the properties of ``allOf`` branches merged into their object).
Everything here is fixed and deterministic.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from generator.jsonutil import is_number, jsonable
from generator.schema.constraints import declared_types, own_types
from generator.schema.refs import LocalRefs, detect_dialect, ref_keyword


def placeholder_for(schema: object) -> Any:
    """The typed stub showing a call's shape; never raises, never validated.

    Strings are placeholders (``"<name>"``); every concrete value stands where the schema allows
    it: an ``enum`` member or the ``const``, a number inside the bounds, as many array items as
    ``minItems`` asks, and the properties of ``allOf`` branches merged into their object.
    """
    try:
        dialect, _ = detect_dialect(schema)
        return _stub(schema, LocalRefs(schema, dialect), None, 0, ())
    except Exception:  # RecursionError included: fall back to the simplest shape
        return {}


_MAX_STUB_ITEMS = 16
"""Array items a stub shows at most (a ``minItems`` above it cannot be shown whole)."""


def _follow(node: object, refs: LocalRefs, stack: tuple[int, ...]) -> tuple[object, tuple[int, ...], str | None]:
    """*node* with ``$ref`` followed: the target, the stack of targets, and ``"missing"``/``"loop"`` when it stops."""
    for _ in range(32):
        if not isinstance(node, dict) or (keyword := ref_keyword(node)) is None:
            return node, stack, None
        target, problem = refs.lookup(node[keyword], keyword)
        if problem is not None:
            return node, stack, "missing"
        if id(target) in stack:
            return node, stack, "loop"
        stack = (*stack, id(target))
        node = target
    return node, stack, "loop"


def _with_all_of(node: dict[str, Any], refs: LocalRefs, stack: tuple[int, ...], level: int = 0) -> dict[str, Any]:
    """*node* with its ``allOf`` branches merged in: properties and ``required`` joined, other keywords first-wins."""
    branches = node.get("allOf")
    if not isinstance(branches, list) or level > 8:
        return node
    merged = {k: v for k, v in node.items() if k != "allOf"}
    for branch in branches[:16]:
        sub, _, problem = _follow(branch, refs, stack)
        if problem is not None or not isinstance(sub, dict):
            continue
        for key, value in _with_all_of(sub, refs, stack, level + 1).items():
            if key == "properties" and isinstance(value, dict):
                props = dict(merged["properties"]) if isinstance(merged.get("properties"), dict) else {}
                for prop, schema in value.items():
                    props[prop] = {"allOf": [props[prop], schema]} if prop in props else schema
                merged["properties"] = props
            elif key == "required" and isinstance(value, list):
                before = merged["required"] if isinstance(merged.get("required"), list) else []
                merged["required"] = list(dict.fromkeys(r for r in [*before, *value] if isinstance(r, str)))
            else:
                merged.setdefault(key, value)
    return merged


def _number_stub(node: dict[str, Any], integer: bool) -> int | float:
    """``1`` (or ``1.0``), moved inside the schema's bounds and onto its ``multipleOf``."""

    def bound(key: str) -> Fraction | None:
        value = node.get(key)
        return Fraction(value) if is_number(value) and math.isfinite(value) else None

    lo, hi = bound("minimum"), bound("maximum")
    lo_x, hi_x = bound("exclusiveMinimum"), bound("exclusiveMaximum")
    if node.get("exclusiveMinimum") is True:  # draft-04: a flag on minimum
        lo, lo_x = None, lo
    if node.get("exclusiveMaximum") is True:
        hi, hi_x = None, hi
    step = bound("multipleOf")
    unit = step if step is not None and step > 0 else Fraction(1)
    value = Fraction(1)
    if lo is not None and value < lo:
        value = lo
    if lo_x is not None and value <= lo_x:
        value = lo_x + (unit if integer or step is not None else Fraction(1, 2))
    if hi is not None and value > hi:
        value = hi
    if hi_x is not None and value >= hi_x:
        value = hi_x - (unit if integer or step is not None else Fraction(1, 2))
    if step is not None and step > 0:
        value = math.ceil(value / step) * step
    if integer:
        return math.ceil(value)
    return float(value)


def _pick(values: list[Any]) -> Any:
    """The enum member a stub shows: the first that is not ``null``."""
    return next((v for v in values if v is not None), values[0])


def _stub(node: object, refs: LocalRefs, name: str | None, depth: int, stack: tuple[int, ...]) -> Any:
    node, stack, problem = _follow(node, refs, stack)
    if problem is not None:
        return {} if problem == "loop" else f"<{name or 'value'}>"
    if not isinstance(node, dict) or depth > 12:
        return f"<{name or 'value'}>" if node is not False else None
    node = _with_all_of(node, refs, stack)
    if "const" in node:
        return jsonable(node["const"])
    enum = node.get("enum")
    if isinstance(enum, list) and enum:
        return jsonable(_pick(enum))
    types = [t for t in (declared_types(node) or own_types(node)) if t != "null"]
    if not types:
        for key in ("anyOf", "oneOf"):
            branches = node.get(key)
            if isinstance(branches, list):
                for branch in branches:
                    value = _stub(branch, refs, name, depth + 1, stack)
                    if value is not None:
                        return value
        if "null" in (declared_types(node) or []):
            return None
        if "items" in node or "prefixItems" in node:
            types = ["array"]
    kind = types[0] if types else "string"
    if kind in ("integer", "number"):
        return _number_stub(node, kind == "integer")
    if kind == "boolean":
        return True
    if kind == "array":
        return _array_stub(node, refs, name, depth, stack)
    if kind == "object":
        return _object_stub(node, refs, depth, stack)
    return f"<{name or 'value'}>"


def _array_stub(node: dict[str, Any], refs: LocalRefs, name: str | None, depth: int, stack: tuple[int, ...]) -> Any:
    """The tuple positions, then the item stub repeated up to ``minItems`` (one item when no count is asked)."""
    prefix = node.get("prefixItems", node.get("items"))
    items = node.get("items") if isinstance(node.get("prefixItems"), list) else node.get("additionalItems")
    if not isinstance(prefix, list):
        prefix, items = [], node.get("items", True)
    low = node.get("minItems")
    high = node.get("maxItems")
    count = int(low) if is_number(low) and low >= 0 and math.isfinite(low) else 1
    if is_number(high) and high >= 0 and count > high:
        count = int(high)
    if is_number(high) and high == 0:
        return []
    shown = [_stub(sub, refs, name, depth + 1, stack) for sub in prefix[:_MAX_STUB_ITEMS]]
    more = max(count, 0 if shown else 1) - len(shown)
    if more > 0 and items is not False:
        item = _stub(items if items is not None else True, refs, name, depth + 1, stack)
        shown += [item] * min(more, _MAX_STUB_ITEMS)
    return shown


def _object_stub(node: dict[str, Any], refs: LocalRefs, depth: int, stack: tuple[int, ...]) -> dict[str, Any]:
    """Every declared property, then each required name not declared, else one ``<key>`` of additionalProperties."""
    props = node.get("properties")
    out = (
        {str(k): _stub(v, refs, str(k), depth + 1, stack) for k, v in props.items()} if isinstance(props, dict) else {}
    )
    required = node.get("required")
    for key in required if isinstance(required, list) else []:
        if isinstance(key, str) and key not in out:
            out[key] = f"<{key}>"
    extra = node.get("additionalProperties")
    if not out and isinstance(extra, dict) and extra:
        out["<key>"] = _stub(extra, refs, "value", depth + 1, stack)
    return out
