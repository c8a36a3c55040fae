"""The diff command: what changed between two snapshots, and does it break callers?

Each side is a snapshot file or a built site directory (its ``snapshot.json``).
Tools are matched by name; their input and output schemas are flattened with
:func:`generator.schema.flatten.flatten` and compared row by row, by path (nested
properties, array items, union alternatives).  Every change gets a class:

* ``breaking``: a client that worked before may fail now;
* ``non-breaking``: new things, or looser rules;
* ``cosmetic``: titles, descriptions and examples only.

Inputs and outputs are judged from the client's side, so the direction flips:
a tighter *parameter* rejects calls that used to work (breaking), while a
tighter *output* only promises more (non-breaking); a wider output (a new enum
value, ``null`` allowed, a field made optional) can surprise a client
(breaking).  Changed rules whose direction cannot be told (a new ``pattern``,
``string`` becoming ``integer``) count as breaking.  Prompts, resources and resource
templates are compared too, by :mod:`generator.compare.items`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.compare.changes import (
    BREAKING,
    CLASSES,
    COSMETIC,
    NON_BREAKING,
    SUBJECTS,
    Change,
    ChangeClass,
    confined_changes,
    endpoint_pairs,
    keyed,
)
from generator.compare.items import item_changes
from generator.errors import PortalError
from generator.jsonutil import json_equal, jsonable
from generator.schema.flatten import flatten
from generator.schema.rows import Row
from generator.snapshot.records import EndpointRecord
from generator.snapshot.snapshot import Snapshot, load_snapshot
from generator.text import code_span

_INPUT, _OUTPUT = "params", "returns"
_LOWER = frozenset({"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"})
_UPPER = frozenset({"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"})
# Constraint kinds that say nothing about which values are accepted (or are compared elsewhere).
_IGNORED = frozenset({"ref", "recursive", "truncated", "nullable", "allOf", "oneOf", "anyOf"})
_TOOL_KEYS = frozenset({"name", "title", "description", "inputSchema", "outputSchema", "annotations"})
_CELL = 80


@dataclass(frozen=True)
class DiffResult:
    """Every change between two snapshots, breaking ones first."""

    old_label: str
    new_label: str
    changes: tuple[Change, ...]

    def counts(self) -> dict[ChangeClass, int]:
        return {cls: sum(1 for c in self.changes if c.cls == cls) for cls in CLASSES}

    def fails(self, fail_on: str | None) -> bool:
        """Whether ``--fail-on`` *fail_on* should turn this result into exit code 4."""
        if fail_on == "any":
            return bool(self.changes)
        if fail_on == "breaking":
            return any(c.cls == BREAKING for c in self.changes)
        return False


# --------------------------------------------------------------------------- loading


def load_side(path: Path) -> Snapshot:
    """A snapshot from a snapshot file, or from a built site directory's ``snapshot.json``."""
    if path.is_dir():
        inner = path / "snapshot.json"
        if not inner.is_file():
            raise PortalError(
                f"{path} is a directory without a snapshot.json, so it is not a site built by mcp-portal. "
                f"Give a snapshot file or the directory a `mcp-portal build` wrote."
            )
        return load_snapshot(inner)
    if not path.exists():
        raise PortalError(f"{path} does not exist. Give a snapshot file or a built site directory.")
    return load_snapshot(path)


def _label(path: Path, snap: Snapshot) -> str:
    name = snap.server.get("name") or "server"
    count = len(snap.tools)
    return f"{path} ({name} {snap.capability_version}, {count} tool{'' if count == 1 else 's'})"


def diff(old_path: Path, new_path: Path) -> DiffResult:
    """Load both sides and classify every change."""
    old, new = load_side(old_path), load_side(new_path)
    return DiffResult(_label(old_path, old), _label(new_path, new), tuple(diff_snapshots(old, new)))


# --------------------------------------------------------------------------- comparing


def diff_snapshots(old: Snapshot, new: Snapshot) -> list[Change]:
    """Classified changes of the tool lists, sorted by class, then tool, then discovery order."""
    old_tools = keyed(old.tools, "name")
    new_tools = keyed(new.tools, "name")
    changes: list[Change] = []
    for name, tool in new_tools.items():
        if name not in old_tools:
            message = f"tool {code_span(name)} was added"
            changes.append(Change(name, NON_BREAKING, "tool-added", "", None, name, message))
        else:
            changes.extend(diff_tool(old_tools[name], tool))
    for name in old_tools:
        if name not in new_tools:
            message = f"tool {code_span(name)} was removed"
            changes.append(Change(name, BREAKING, "tool-removed", "", name, None, message))
    kept = set(old_tools) & set(new_tools)
    changes.extend(_offering_changes(old, new, kept))
    changes.extend(confined_changes(old, new, "tools", _tool_variants, old_tools, new_tools, diff_tool))
    order = {cls: i for i, cls in enumerate(CLASSES)}
    changes.extend(item_changes(old, new))
    subjects = {subject: i for i, subject in enumerate(SUBJECTS)}
    indexed = sorted(enumerate(changes), key=lambda ic: (order[ic[1].cls], subjects[ic[1].subject], ic[1].name, ic[0]))
    return [c for _, c in indexed]


def _offering_changes(old: Snapshot, new: Snapshot, kept: set[str]) -> list[Change]:
    """Tools (present on both sides) that an endpoint stopped or started offering; endpoints match by name."""
    pairs = endpoint_pairs(old, new)
    if pairs is None:
        return []
    old_eps, new_eps = pairs
    changes = []
    for name in [*old_eps, *(n for n in new_eps if n not in old_eps)]:
        before = set(old_eps[name].tools) if name in old_eps else set()
        after = set(new_eps[name].tools) if name in new_eps else set()
        where = (new_eps.get(name) or old_eps[name]).address
        for tool in sorted((before - after) & kept):
            message = f"tool {code_span(tool)} is no longer offered on the endpoint {code_span(name)} ({where})"
            changes.append(Change(tool, BREAKING, "offered-removed", where, where, None, message, name))
        for tool in sorted((after - before) & kept):
            message = f"tool {code_span(tool)} is now offered on the endpoint {code_span(name)} ({where})"
            changes.append(Change(tool, NON_BREAKING, "offered-added", where, None, where, message, name))
    return changes


def _tool_variants(record: EndpointRecord) -> dict[str, Any]:
    return record.variants


def diff_tool(old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    """Every change of one tool (present on both sides)."""
    name = str(new.get("name"))
    out: list[Change] = []
    add = _adder(out, name)
    for key in ("title", "description"):
        if old.get(key) != new.get(key):
            add(COSMETIC, f"{key}-changed", "", old.get(key), new.get(key), f"the tool's {key} changed")
    out.extend(_annotation_changes(name, old.get("annotations"), new.get("annotations")))
    for key in sorted((set(old) | set(new)) - _TOOL_KEYS):
        if not json_equal(old.get(key), new.get(key)):
            message = f"the tool's {code_span(key)} changed"
            add(NON_BREAKING, "metadata-changed", key, old.get(key), new.get(key), message)
    before = len(out)
    out.extend(_schema_changes(name, _INPUT, old.get("inputSchema"), new.get("inputSchema")))
    if len(out) == before and not json_equal(old.get("inputSchema"), new.get("inputSchema")):
        add(NON_BREAKING, "schema-changed", _INPUT, None, None,
            "the input schema changed in a way the parameter table does not show")  # fmt: skip
    had, has = "outputSchema" in old, "outputSchema" in new
    if had and not has:
        add(BREAKING, "output-schema-removed", _OUTPUT, old["outputSchema"], None,
            "the output schema was removed: structured results are no longer promised")  # fmt: skip
    elif has and not had:
        add(NON_BREAKING, "output-schema-added", _OUTPUT, None, new["outputSchema"], "an output schema was added")
    elif had and has:
        before = len(out)
        out.extend(_schema_changes(name, _OUTPUT, old["outputSchema"], new["outputSchema"]))
        if len(out) == before and not json_equal(old["outputSchema"], new["outputSchema"]):
            add(NON_BREAKING, "schema-changed", _OUTPUT, None, None,
                "the output schema changed in a way the returns table does not show")  # fmt: skip
    return out


def _adder(out: list[Change], tool: str) -> Callable[[ChangeClass, str, str, Any, Any, str], None]:
    def add(cls: ChangeClass, kind: str, path: str, old: Any, new: Any, message: str) -> None:
        out.append(Change(tool, cls, kind, path, old, new, message))

    return add


def _annotation_changes(tool: str, old_raw: object, new_raw: object) -> list[Change]:
    old = old_raw if isinstance(old_raw, dict) else {}
    new = new_raw if isinstance(new_raw, dict) else {}
    out: list[Change] = []
    add = _adder(out, tool)
    if old.get("title") != new.get("title"):
        add(COSMETIC, "title-changed", "annotations.title", old.get("title"), new.get("title"),
            "the tool's annotation title changed")  # fmt: skip
    read_old, read_new = old.get("readOnlyHint") is True, new.get("readOnlyHint") is True
    path = "annotations.readOnlyHint"
    if read_old and not read_new:
        add(BREAKING, "annotation-less-safe", path, old.get("readOnlyHint"), new.get("readOnlyHint"),
            "the tool is no longer declared read-only: it may now change things")  # fmt: skip
    elif read_new and not read_old:
        add(NON_BREAKING, "annotation-safer", path, old.get("readOnlyHint"), new.get("readOnlyHint"),
            "the tool is now declared read-only")  # fmt: skip
    # destructiveHint defaults to true and only counts for tools that are not read-only.
    dest_old = not read_old and old.get("destructiveHint") is not False
    dest_new = not read_new and new.get("destructiveHint") is not False
    path = "annotations.destructiveHint"
    if dest_new and not dest_old:
        add(BREAKING, "annotation-less-safe", path, old.get("destructiveHint"), new.get("destructiveHint"),
            "the tool may now be destructive (destructiveHint is true or no longer declared false)")  # fmt: skip
    elif dest_old and not dest_new:
        add(NON_BREAKING, "annotation-safer", path, old.get("destructiveHint"), new.get("destructiveHint"),
            "the tool is no longer declared destructive")  # fmt: skip
    for key in ("idempotentHint", "openWorldHint"):
        if old.get(key) != new.get(key):
            add(NON_BREAKING, "annotation-changed", f"annotations.{key}", old.get(key), new.get(key),
                f"{key} changed")  # fmt: skip
    return out


Key = tuple[str, str | None]


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
        return "the input schema" if side == _INPUT else "the output"
    return f"{'parameter' if side == _INPUT else 'output field'} {code_span(path)}"


def _schema_changes(tool: str, side: str, old_schema: object, new_schema: object) -> list[Change]:
    old, new = _rows(old_schema), _rows(new_schema)
    out: list[Change] = []
    add = _adder(out, tool)
    inp = side == _INPUT

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


def _row_changes(
    add: Callable[[ChangeClass, str, str, Any, Any, str], None],
    side: str,
    path: str,
    o: Row,
    n: Row,
    judge: Callable[[bool], ChangeClass],
) -> None:
    inp = side == _INPUT
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


def _constraint_changes(
    add: Callable[[ChangeClass, str, str, Any, Any, str], None],
    where: str,
    noun: str,
    o: Row,
    n: Row,
    judge: Callable[[bool], ChangeClass],
) -> None:
    old, new = _constraint_map(o), _constraint_map(n)
    for kind in [*old, *(k for k in new if k not in old)]:
        present_old, present_new = kind in old, kind in new
        a: Any = old.get(kind)
        b: Any = new.get(kind)
        if present_old and present_new and json_equal(a, b):
            continue
        if kind == "examples":
            add(COSMETIC, "examples-changed", where, a, b, f"{noun}: examples changed")
            continue
        if kind == "default":
            text = f"{noun}: default changed from {show_value(a)} to {show_value(b)}"
            add(NON_BREAKING, "default-changed", where, a, b, text)
            continue
        if kind in ("deprecated", "readOnly", "writeOnly"):
            state = "now" if present_new else "no longer"
            add(NON_BREAKING, "marker-changed", where, a, b, f"{noun} is {state} marked {kind}")
            continue
        if kind == "enum" and present_old and present_new and isinstance(a, list) and isinstance(b, list):
            gone = [v for v in a if not any(json_equal(v, w) for w in b)]
            came = [v for v in b if not any(json_equal(v, w) for w in a)]
            for value in gone:
                text = f"{noun}: enum value {show_value(value)} was removed"
                add(judge(True), "enum-value-removed", where, value, None, text)
            for value in came:
                text = f"{noun}: enum value {show_value(value)} was added"
                add(judge(False), "enum-value-added", where, None, value, text)
            continue
        tighter: bool | None = None
        numbers = _is_num(a) and _is_num(b)
        if not present_old:
            tighter = True
        elif not present_new:
            tighter = False
        elif numbers and kind in _LOWER:
            tighter = b > a
        elif numbers and kind in _UPPER:
            tighter = b < a
        elif numbers and kind == "multipleOf" and a and b:
            tighter = None if (b / a) % 1 and (a / b) % 1 else (b / a) % 1 == 0
        label = "additionalProperties: false" if kind == "noAdditional" else kind
        if tighter is None:
            add(BREAKING, "constraint-changed", where, a, b,
                f"{noun}: {label} changed from {show_value(a)} to {show_value(b)}")  # fmt: skip
            continue
        if not present_old:
            text = f"{noun}: {label} added" + ("" if kind == "noAdditional" else f" ({show_value(b)})")
        elif not present_new:
            text = f"{noun}: {label} removed" + ("" if kind == "noAdditional" else f" (was {show_value(a)})")
        else:
            verb = "raised" if b > a else "lowered"
            text = f"{noun}: {label} {verb} from {show_value(a)} to {show_value(b)}"
        add(judge(tighter), "constraint-tightened" if tighter else "constraint-loosened", where, a, b, text)


def show_value(value: Any, limit: int = _CELL) -> str:
    """A schema value as compact JSON for a change message or a report cell, cut at *limit* characters."""
    text = json.dumps(jsonable(value), ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= limit else text[: limit - 1] + "…"
