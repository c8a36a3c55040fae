"""How one tool's input or output schema changed: its flattened rows compared by path.

Both sides are flattened with :func:`generator.schema.flatten.flatten` into rows keyed by
(path, union variant); rows that came or went, and the type, ``required``, constraints and
text of rows on both sides, become :class:`~generator.compare.changes.Change` rows.  Each rule
is judged from the client's side (see :mod:`generator.compare.diff`): a tighter parameter
breaks callers, a looser output breaks readers.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from generator.compare.changes import BREAKING, COSMETIC, NON_BREAKING, Change, ChangeClass
from generator.jsonutil import json_equal, jsonable
from generator.schema.flatten import flatten
from generator.schema.rows import Row
from generator.text import code_span

INPUT, OUTPUT = "params", "returns"
"""The two sides of a tool, as change paths name them (``params.limit``, ``returns.id``)."""
_LOWER = frozenset({"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"})
_UPPER = frozenset({"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"})
# Constraint kinds that say nothing about which values are accepted (or are compared elsewhere).
_IGNORED = frozenset({"ref", "recursive", "truncated", "nullable", "allOf", "oneOf", "anyOf"})
# Keywords that annotate a value without changing which values are accepted.
_MARKERS = frozenset({"deprecated", "readOnly", "writeOnly"})
_NOTES = _MARKERS | {"examples", "default"}
_CELL = 80

Add = Callable[[ChangeClass, str, str, Any, Any, str], None]
"""Records one change: (class, kind, path, old value, new value, message)."""
Judge = Callable[[bool], ChangeClass]
"""The class of a rule change that makes the schema tighter (True) or looser (False)."""
Key = tuple[str, str | None]


def adder(out: list[Change], tool: str) -> Add:
    """A function that appends a change of *tool* to *out*."""

    def add(cls: ChangeClass, kind: str, path: str, old: Any, new: Any, message: str) -> None:
        out.append(Change(tool, cls, kind, path, old, new, message))

    return add


def _rows(schema: object) -> dict[Key, Row]:
    """Rows by (path, variant), with the root row and a row for every plain array item."""
    flat = flatten(schema)
    rows = ([flat.root] if flat.root is not None else []) + list(flat.rows)
    out: dict[Key, Row] = {}
    for row in rows:
        out.setdefault((row.path, row.variant), row)
    for row in rows:
        item: Key = (f"{row.path}[]", row.variant)
        if "array" in row.types and row.item_types and item not in out:
            out[item] = Row(item[0], row.item_types, (), False, None, None, (), row.depth + 1, row.variant)
    return out


def _under(child: Key, parent: Key) -> bool:
    """Whether row *child* is nested inside row *parent* (a property, an item or a variant of it)."""
    (cp, cv), (pp, pv) = child, parent
    if pv is not None and not (cv == pv or (cv or "").startswith(pv + ".")):
        return False
    if cp == pp:
        return cv != pv and (pv is None or (cv or "").startswith(pv + "."))
    return cp.startswith(pp) and (pp == "" or cp[len(pp)] in ".[")


def _parent_variant(variant: str) -> str | None:
    return variant.rpartition(".")[0] or None


def _is_alternative(key: Key, rows: dict[Key, Row]) -> bool:
    path, variant = key
    return variant is not None and (path, _parent_variant(variant)) in rows


def _where(side: str, path: str) -> str:
    return f"{side}.{path}" if path and not path.startswith("[") else f"{side}{path}"


def _noun(side: str, path: str) -> str:
    if not path:
        return "the input schema" if side == INPUT else "the output"
    return f"{'parameter' if side == INPUT else 'output field'} {code_span(path)}"


def schema_changes(tool: str, side: str, old_schema: object, new_schema: object) -> list[Change]:
    """Every change between two versions of a tool's input (*side* ``INPUT``) or output schema."""
    old, new = _rows(old_schema), _rows(new_schema)
    out: list[Change] = []
    add = adder(out, tool)
    inp = side == INPUT

    def judge(tighter: bool) -> ChangeClass:
        """Tighter input rules break callers; looser output rules break readers."""
        return BREAKING if tighter == inp else NON_BREAKING

    added = [k for k in new if k not in old]
    removed = [k for k in old if k not in new]
    for keys, rows, is_new in ((added, new, True), (removed, old, False)):
        shown: list[Key] = []
        for key in keys:
            if any(_under(key, s) for s in shown):
                continue
            shown.append(key)
            path = key[0]
            if path.endswith("[]") and (path[:-2], key[1]) in old and (path[:-2], key[1]) in new:
                continue  # the item row of an array whose type changed: reported on the array itself
            where, noun, row = _where(side, path), _noun(side, path), rows[key]
            value = row.type_label
            if _is_alternative(key, rows):
                what = f"{noun}: union alternative {key[1]} ({value})"
                if is_new:
                    add(judge(False), "alternative-added", where, None, value, f"{what} was added")
                else:
                    add(judge(True), "alternative-removed", where, value, None, f"{what} was removed")
            elif is_new and inp:
                if row.required:
                    add(BREAKING, "param-added-required", where, None, value, f"required {noun} was added")
                else:
                    add(NON_BREAKING, "param-added-optional", where, None, value, f"optional {noun} was added")
            elif is_new:
                add(NON_BREAKING, "output-field-added", where, None, value, f"{noun} was added")
            elif inp:
                add(BREAKING, "param-removed", where, value, None, f"{noun} was removed")
            else:
                add(BREAKING, "output-field-removed", where, value, None, f"{noun} was removed")
    for key, o in old.items():
        n = new.get(key)
        if n is not None:
            _row_changes(add, side, key[0], o, n, judge)
    return out


def _row_changes(add: Add, side: str, path: str, o: Row, n: Row, judge: Judge) -> None:
    """The changes of one row present on both sides: required, type, constraints, title and description."""
    inp = side == INPUT
    where, noun = _where(side, path), _noun(side, path)
    if o.required != n.required and path and not path.endswith("[]"):
        if inp:
            cls, kind = (BREAKING, "param-required") if n.required else (NON_BREAKING, "param-optional")
        else:
            cls, kind = (NON_BREAKING, "output-field-required") if n.required else (BREAKING, "output-field-optional")
        add(cls, kind, where, o.required, n.required, f"{noun} is now {'required' if n.required else 'optional'}")
    direction = _type_direction(o.types, n.types)
    if direction is not None:
        old_label, new_label = o.type_label, n.type_label
        text = f"{noun}: type {old_label} became {new_label}"
        if direction == "changed":
            add(BREAKING, "type-changed", where, old_label, new_label, text)
        else:
            add(judge(direction == "narrowed"), f"type-{direction}", where, old_label, new_label, text)
    _constraint_changes(add, where, noun, o, n, judge)
    for key in ("description", "title"):
        before, after = getattr(o, key), getattr(n, key)
        if before != after:
            add(COSMETIC, f"{key}-changed", where, before, after, f"{noun}: {key} changed")


def _covers(types: tuple[str, ...], t: str) -> bool:
    return not types or t in types or (t == "integer" and "number" in types)


def _type_direction(old: tuple[str, ...], new: tuple[str, ...]) -> str | None:
    """``narrowed``, ``widened``, ``changed`` or None (the same set of values)."""
    widened = all(_covers(new, t) for t in old) if old else not new
    narrowed = all(_covers(old, t) for t in new) if new else not old
    if widened and narrowed:
        return None
    if widened:
        return "widened"
    return "narrowed" if narrowed else "changed"


def _constraint_map(row: Row) -> dict[str, Any]:
    return {c.kind: c.value for c in row.constraints if c.kind not in _IGNORED}


def _is_num(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _constraint_changes(add: Add, where: str, noun: str, o: Row, n: Row, judge: Judge) -> None:
    """Each constraint keyword that differs between rows *o* and *n*, in the old row's order, then the new ones."""
    old, new = _constraint_map(o), _constraint_map(n)
    for kind in [*old, *(k for k in new if k not in old)]:
        if kind in old and kind in new and json_equal(old[kind], new[kind]):
            continue
        a: Any = old.get(kind)
        b: Any = new.get(kind)
        if kind in _NOTES:
            _note_change(add, where, noun, kind, a, b, marked=kind in new)
        elif kind == "enum" and isinstance(a, list) and isinstance(b, list):
            _enum_changes(add, where, noun, a, b, judge)
        else:
            _rule_change(add, where, noun, kind, old, new, judge)


def _note_change(add: Add, where: str, noun: str, kind: str, a: Any, b: Any, *, marked: bool) -> None:
    """A changed example, default or marker (``deprecated``...): none of them changes which values pass."""
    if kind == "examples":
        add(COSMETIC, "examples-changed", where, a, b, f"{noun}: examples changed")
    elif kind == "default":
        text = f"{noun}: default changed from {show_value(a)} to {show_value(b)}"
        add(NON_BREAKING, "default-changed", where, a, b, text)
    else:
        state = "now" if marked else "no longer"
        add(NON_BREAKING, "marker-changed", where, a, b, f"{noun} is {state} marked {kind}")


def _enum_changes(add: Add, where: str, noun: str, a: list[Any], b: list[Any], judge: Judge) -> None:
    """A change per enum value removed (a tighter rule), then per value added (a looser one)."""
    gone = [v for v in a if not any(json_equal(v, w) for w in b)]
    came = [v for v in b if not any(json_equal(v, w) for w in a)]
    for value in gone:
        text = f"{noun}: enum value {show_value(value)} was removed"
        add(judge(True), "enum-value-removed", where, value, None, text)
    for value in came:
        text = f"{noun}: enum value {show_value(value)} was added"
        add(judge(False), "enum-value-added", where, None, value, text)


def _rule_change(
    add: Add, where: str, noun: str, kind: str, old: dict[str, Any], new: dict[str, Any], judge: Judge
) -> None:
    """A validation rule (bound, pattern, format...) that was added, removed or changed on a row."""
    a: Any = old.get(kind)
    b: Any = new.get(kind)
    tighter = _tighter(kind, old, new)
    label = "additionalProperties: false" if kind == "noAdditional" else kind
    if tighter is None:
        add(BREAKING, "constraint-changed", where, a, b,
            f"{noun}: {label} changed from {show_value(a)} to {show_value(b)}")  # fmt: skip
        return
    if kind not in old:
        text = f"{noun}: {label} added" + ("" if kind == "noAdditional" else f" ({show_value(b)})")
    elif kind not in new:
        text = f"{noun}: {label} removed" + ("" if kind == "noAdditional" else f" (was {show_value(a)})")
    else:
        verb = "raised" if b > a else "lowered"
        text = f"{noun}: {label} {verb} from {show_value(a)} to {show_value(b)}"
    add(judge(tighter), "constraint-tightened" if tighter else "constraint-loosened", where, a, b, text)


def _tighter(kind: str, old: dict[str, Any], new: dict[str, Any]) -> bool | None:
    """Whether rule *kind* now accepts fewer values (True), more (False), or cannot be told (None)."""
    if kind not in old:
        return True
    if kind not in new:
        return False
    a, b = old[kind], new[kind]
    if not (_is_num(a) and _is_num(b)):
        return None
    if kind in _LOWER:
        return bool(b > a)
    if kind in _UPPER:
        return bool(b < a)
    if kind == "multipleOf" and a and b:
        # A multiple of the old step only accepts fewer values; steps neither divides are unrelated.
        return None if (b / a) % 1 and (a / b) % 1 else (b / a) % 1 == 0
    return None


def show_value(value: Any, limit: int = _CELL) -> str:
    """A schema value as compact JSON for a change message or a report cell, cut at *limit* characters."""
    text = json.dumps(jsonable(value), ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= limit else text[: limit - 1] + "…"
