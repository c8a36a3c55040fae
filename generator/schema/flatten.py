"""Flatten an untrusted JSON Schema into rows for a parameters/returns table.

Every schema comes from an MCP server we do not control, so this module is
defensive by construction: it never raises, never fetches anything (remote
``$ref`` are reported, not followed), and bounds its work with a depth cap, a
row cap, a ``$ref`` hop limit and cycle detection.  Output is deterministic:
``properties`` keep the server's declared order, everything else follows the
schema's own order.

Row conventions (see :class:`Row`):

* paths: ``a.b`` (property), ``a[]`` (array item), ``a[0]`` (tuple position),
  ``a.{key}`` (map value from ``additionalProperties``/``patternProperties``),
  ``""`` for a non-object root.  Names containing ``. [ ] { } "`` or blanks are
  written ``a["x.y"]``.
* an object root has no row of its own (its properties are at depth 0); the row
  it would have had is available as :attr:`Flattened.root`.
* an ``a[]`` row is only emitted when the item schema says more than a bare
  type (``array of string`` already says everything).
* ``required`` is per level: a child of an optional parent is still marked by
  its own level's ``required``; ``a[]`` rows are required (an item has no
  optionality of its own), tuple positions below ``minItems`` are required,
  ``{key}`` rows are not.
* union alternatives: the row holding the union carries ``oneOf``/``anyOf``/
  ``allOf`` constraints; each alternative follows as a header row at the same
  path with ``variant`` ``"1"``, ``"2"``... and its own children.  When several
  combinators sit on one schema the variants are numbered consecutively in the
  order ``allOf``, ``oneOf``, ``anyOf`` (the constraint order).
* recursion is detected against the schemas currently being expanded (the
  ancestors), so a shared, non-recursive ``$defs`` entry is expanded at every
  use while a cycle is shown once and then marked ``recursive``.
* in draft-04/06/07 keywords next to ``$ref`` are ignored by validators, so only
  their annotations (description, title, default, ...) are merged; from
  2019-09 on, all siblings are merged.
* ``Flattened.truncated`` is true whenever something was left out (depth limit
  or row cap).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from generator.jsonutil import is_number as is_number
from generator.jsonutil import json_equal as json_equal
from generator.jsonutil import json_type as json_type
from generator.jsonutil import jsonable as jsonable
from generator.jsonutil import summary as summary

# The flattener's building blocks live in smaller modules (see their docstrings).  Every public
# name that used to be defined here is imported as ``X as X``, which marks it as re-exported
# (mypy --strict), so ``from generator.schema.flatten import ...`` keeps working for every caller.
from generator.schema.constraints import ANNOTATIONS as ANNOTATIONS
from generator.schema.constraints import JSON_TYPES as JSON_TYPES
from generator.schema.constraints import KINDS as KINDS
from generator.schema.constraints import Constraint as Constraint
from generator.schema.constraints import constraints as constraints
from generator.schema.constraints import declared_types as declared_types
from generator.schema.constraints import merge_schemas as merge_schemas
from generator.schema.constraints import norm_types as norm_types
from generator.schema.constraints import own_types as own_types
from generator.schema.constraints import where_label
from generator.schema.refs import LEGACY_DIALECTS as LEGACY_DIALECTS
from generator.schema.refs import REF_KEYWORDS
from generator.schema.refs import LocalRefs as LocalRefs
from generator.schema.refs import detect_dialect as detect_dialect
from generator.schema.refs import ref_keyword as ref_keyword
from generator.schema.rows import Flattened as Flattened
from generator.schema.rows import Row as Row

# A row lists its constraints in KINDS order (documented), whatever order the schema used.
_ORDER = {kind: i for i, kind in enumerate(KINDS)}

# Keywords that make a union branch more than "a simple type" (no collapse).
_STRUCTURAL = frozenset(
    {"properties", "patternProperties", "additionalProperties", "unevaluatedProperties", "items",
     "prefixItems", "additionalItems", "contains", "anyOf", "oneOf", "allOf", "not", "if", "then",
     "else", "dependentSchemas", "dependencies", "propertyNames", "$ref", "$dynamicRef",
     "$recursiveRef", "required", "dependentRequired"}
)  # fmt: skip
_MAX_HOPS = 32  # $ref chain length
_MAX_BRANCHES = 64  # alternatives shown per union
_MAX_WARNINGS = 100


# --------------------------------------------------------------------------- helpers


def _join(path: str, name: str) -> str:
    if not name or any(c in name for c in '.[]{}"') or name != name.strip() or " " in name:
        return f"{path}[{json.dumps(name, ensure_ascii=False)}]"
    return f"{path}.{name}" if path else name


def _is_null_only(schema: object) -> bool:
    if not isinstance(schema, dict):
        return False
    t = schema.get("type")
    return (
        t == "null" or t == ["null"] or ("const" in schema and schema["const"] is None) or schema.get("enum") == [None]
    )


# --------------------------------------------------------------------------- flattening


class _Stop(Exception):
    """Row cap reached: unwind everything."""


@dataclass(frozen=True)
class _Spot:
    """Where one subschema is emitted and how: the arguments of :meth:`_Flattener.emit` as one value."""

    path: str
    depth: int
    required: bool
    variant: str | None
    add_null: bool = False
    inherit: tuple[str, ...] = ()
    outer: dict[str, Any] | None = None
    pre: tuple[Constraint, ...] = ()
    shallow: bool = False
    root: bool = False
    hops: int = 0


@dataclass
class _Res:
    schema: dict[str, Any] | bool
    entered: list[object]
    recursive: str | None = None
    ref: str | None = None


class _Flattener:
    def __init__(self, root: object, max_depth: int, max_rows: int) -> None:
        self.max_depth = max_depth
        self.max_rows = max_rows
        self.rows: list[Row] = []
        self.warnings: list[str] = []
        self.truncated = False
        self.root_row: Row | None = None
        self.dialect, warning = detect_dialect(root)
        if warning:
            self.warn(warning)
        self.legacy = self.dialect in LEGACY_DIALECTS
        self.refs = LocalRefs(root, self.dialect)
        # Schemas being expanded right now (id -> path shown at) and the objects, kept alive
        # so that their ids cannot be reused while they are registered.
        self.active: dict[int, str] = {}
        self.alive: list[object] = []

    def warn(self, message: str) -> None:
        if message in self.warnings or len(self.warnings) > _MAX_WARNINGS:
            return
        self.warnings.append(message if len(self.warnings) < _MAX_WARNINGS else "further warnings omitted")

    def add(self, row: Row) -> None:
        if len(self.rows) >= self.max_rows:
            self.truncated = True
            self.warn(f"row limit {self.max_rows} reached; the table is cut short")
            raise _Stop
        self.rows.append(row)

    # ---- references

    def with_siblings(self, target: object, siblings: dict[str, Any]) -> dict[str, Any] | bool:
        if isinstance(target, bool):
            return False if target is False else siblings
        if not isinstance(target, dict):
            target = {}
        if self.legacy:  # draft <= 07: siblings of $ref do not apply, but their prose is worth showing
            siblings = {k: v for k, v in siblings.items() if k in ANNOTATIONS}
        if not siblings:
            return target
        merged = merge_schemas(target, siblings, self.plain_types)
        if merged is None:
            merged = {"allOf": [target, {k: v for k, v in siblings.items() if k not in ANNOTATIONS}]}
        merged.update({k: v for k, v in siblings.items() if k in ANNOTATIONS})
        return merged

    def resolve(self, node: object, path: str) -> _Res:
        entered: list[object] = []
        if isinstance(node, dict) and id(node) in self.active:  # only possible with aliased Python dicts
            return _Res(node, entered, recursive=self.active[id(node)])
        for _ in range(_MAX_HOPS):
            if isinstance(node, bool):
                return _Res(node, entered)
            if not isinstance(node, dict):
                self.warn(f"invalid subschema at {where_label(path)}: {type(node).__name__}, not an object")
                return _Res({}, entered)
            keyword = ref_keyword(node)
            if keyword is None:
                return _Res(node, entered)
            raw = node[keyword]
            siblings = {k: v for k, v in node.items() if k != keyword}
            target, problem = self.refs.lookup(raw, keyword)
            if problem is not None:
                self.warn(f"{problem} at {where_label(path)}")
                shown = raw if isinstance(raw, str) else summary(raw)
                return _Res({k: v for k, v in siblings.items() if k not in REF_KEYWORDS}, entered, ref=shown)
            if isinstance(target, dict):
                if id(target) in self.active or any(t is target for t in entered):
                    first = self.active.get(id(target), path)
                    return _Res(self.with_siblings(target, siblings), entered, recursive=first)
                entered.append(target)
            node = self.with_siblings(target, siblings)
        self.warn(f"$ref chain longer than {_MAX_HOPS} at {where_label(path)}")
        return _Res({}, entered, ref="…")

    def plain(self, node: object) -> dict[str, Any] | bool | None:
        """Follow $ref for inspection only (no warnings, no cycle bookkeeping); None if unresolvable."""
        for _ in range(_MAX_HOPS):
            if isinstance(node, bool):
                return node
            if not isinstance(node, dict):
                return {}
            keyword = ref_keyword(node)
            if keyword is None:
                return node
            target, problem = self.refs.lookup(node[keyword], keyword)
            if problem is not None:
                return None
            node = self.with_siblings(target, {k: v for k, v in node.items() if k != keyword})
        return None

    def plain_types(self, node: object, level: int = 0) -> tuple[str, ...]:
        """Types of a subschema, looking through $ref and simple unions (bounded)."""
        schema = self.plain(node)
        if not isinstance(schema, dict):
            return ()
        types = own_types(schema)
        if types or level >= 3:
            return types
        for kind in ("oneOf", "anyOf"):
            branches = schema.get(kind)
            if isinstance(branches, list) and branches:
                found: list[str] = []
                for branch in branches[:_MAX_BRANCHES]:
                    sub = self.plain_types(branch, level + 1)
                    if not sub:
                        return ()
                    found.extend(sub)
                return norm_types(found)
        branches = schema.get("allOf")
        if isinstance(branches, list):
            return next((t for t in (self.plain_types(b, level + 1) for b in branches[:8]) if t), ())
        return ()

    # ---- combinators

    def merge_all_of(
        self, schema: dict[str, Any], path: str, nest: int = 0
    ) -> tuple[dict[str, Any] | None, list[object]]:
        acc: dict[str, Any] | None = {k: v for k, v in schema.items() if k != "allOf"}
        entered: list[object] = []
        for branch in schema["allOf"][:_MAX_BRANCHES]:
            res = self.resolve(branch, path)
            if res.recursive is not None or res.ref is not None or res.schema is False:
                return None, []
            entered += res.entered
            sub = res.schema
            if not isinstance(sub, dict):  # True (False returned above): no constraint to merge
                continue
            flat: dict[str, Any] | None = sub
            if isinstance(sub.get("allOf"), list) and nest < 4:
                flat, more = self.merge_all_of(sub, path, nest + 1)
                entered += more
            if flat is None or acc is None:
                return None, []
            acc = merge_schemas(acc, flat, self.plain_types)
            if acc is None:
                return None, []
        return acc, entered

    def collapse(self, schema: dict[str, Any], kind: str) -> tuple[dict[str, Any], bool] | None:
        """A union of simple types (or X | null) as one schema plus "add null"; None if real alternatives."""
        branches = schema[kind]
        if len(branches) > _MAX_BRANCHES:
            return None
        rest = {k: v for k, v in schema.items() if k != kind}
        resolved = []
        for raw in branches:
            sub = self.plain(raw)
            if sub is None:
                return None
            if sub is not False:  # a `false` branch admits nothing, so it adds nothing
                resolved.append((raw, sub))
        nulls = [r for r in resolved if _is_null_only(r[1])]
        others = [r for r in resolved if not _is_null_only(r[1])]
        if not others:
            merged = merge_schemas(rest, {"type": "null"}, self.plain_types) if nulls else None
            return (merged, False) if merged is not None else None
        if len(others) == 1:
            raw = others[0][0]
            merged = merge_schemas(rest, raw if isinstance(raw, dict) else {}, self.plain_types)
            return (merged, bool(nulls)) if merged is not None else None
        new = dict(rest)
        types: list[str] = []
        values: list[Any] = []
        valued = 0
        descriptions = []
        for _, sub in others:
            if not isinstance(sub, dict) or _STRUCTURAL & sub.keys():
                return None
            sub_types = own_types(sub)
            if not sub_types:
                return None
            types.extend(sub_types)
            if "const" in sub or isinstance(sub.get("enum"), list):
                valued += 1
                values.extend([sub["const"]] if "const" in sub else sub["enum"])
            for key, value in sub.items():
                if key in ANNOTATIONS or key in ("type", "const", "enum", "$id", "$schema", "$anchor"):
                    if key == "description" and isinstance(value, str):
                        descriptions.append(value)
                    continue
                if key in new and not json_equal(new[key], value):
                    return None
                new[key] = value
        if values:
            if valued != len(others) or "enum" in new or "const" in new:
                return None
            new["enum"] = [v for i, v in enumerate(values) if not any(json_equal(v, w) for w in values[:i])]
        if "type" not in new:
            new["type"] = list(norm_types(types))
        if "description" not in new and len(descriptions) == 1:
            new["description"] = descriptions[0]
        return new, bool(nulls)

    # ---- rows

    def emit(
        self,
        node: object,
        path: str,
        depth: int,
        required: bool,
        variant: str | None,
        *,
        add_null: bool = False,
        inherit: tuple[str, ...] = (),
        outer: dict[str, Any] | None = None,
        pre: tuple[Constraint, ...] = (),
        shallow: bool = False,
        root: bool = False,
        hops: int = 0,
    ) -> None:
        """Add the rows for ``node`` at ``path`` (and, unless ``shallow``, for everything under it)."""
        spot = _Spot(path, depth, required, variant, add_null, inherit, outer, pre, shallow, root, hops)
        self.emit_at(node, spot)

    def emit_at(self, node: object, spot: _Spot) -> None:
        """:meth:`emit` with its arguments in one value: check depth, resolve, and keep cycle bookkeeping."""
        if spot.depth > self.max_depth:
            self.truncated = True
            self.warn(f"depth limit {self.max_depth} reached at {where_label(spot.path)}; not expanded further")
            cut = (Constraint("truncated", True),)
            self.add(Row(spot.path, (), (), spot.required, None, None, cut, spot.depth, spot.variant))
            return
        res = self.resolve(node, spot.path)
        registered: list[object] = []
        self.register([node, *res.entered], spot.path, registered)
        try:
            self._emit(res, spot, registered)
        finally:
            for obj in reversed(registered):
                del self.active[id(obj)]
                self.alive.pop()

    def register(self, objects: list[object], path: str, registered: list[object]) -> None:
        """Mark schemas as being expanded at ``path`` (undone by :meth:`emit` on the way out)."""
        for obj in objects:
            if isinstance(obj, dict) and id(obj) not in self.active:
                self.active[id(obj)] = path
                self.alive.append(obj)
                registered.append(obj)

    def _emit(self, res: _Res, spot: _Spot, registered: list[object]) -> None:
        """Emit a resolved schema: a stub row for ``false`` or recursion, else a row and its children."""
        extra = list(spot.pre)
        if res.ref is not None:
            extra.append(Constraint("ref", res.ref))
        if res.schema is False:
            extra.append(Constraint("not", "true"))
            self.add(Row(spot.path, (), (), spot.required, None, None, tuple(extra), spot.depth, spot.variant))
            return
        schema: dict[str, Any] = {} if res.schema is True else res.schema
        if res.recursive is not None:
            self._emit_recursive(schema, spot, res.recursive, extra)
            return
        schema, variants = self._merge_all_of_at(schema, spot.path, registered)
        unions = [k for k in ("oneOf", "anyOf") if isinstance(schema.get(k), list) and schema[k]]
        if len(unions) == 1 and not variants and spot.hops < 8 and self._emit_collapsed(schema, unions[0], spot):
            return
        variants += [(k, schema[k]) for k in unions]
        types = self._row_types(schema, variants, spot)
        self._emit_rows(schema, spot, types, variants, extra, first_hand=res.ref is None)

    def _emit_recursive(self, schema: dict[str, Any], spot: _Spot, first: str, extra: list[Constraint]) -> None:
        """A schema already being expanded at ``first``: one row that points there, no children."""
        types = self.plain_types(schema) or spot.inherit
        if spot.add_null and types:
            types = norm_types((*types, "null"))
        extra.append(Constraint("recursive", first))
        self.add(self.row(schema, spot.path, spot.depth, spot.required, spot.variant, types, (), extra, full=False))

    def _merge_all_of_at(
        self, schema: dict[str, Any], path: str, registered: list[object]
    ) -> tuple[dict[str, Any], list[tuple[str, list[Any]]]]:
        """Merge ``allOf`` into one schema when possible; otherwise keep it as a variant to show."""
        variants: list[tuple[str, list[Any]]] = []
        if "allOf" in schema:
            if isinstance(schema["allOf"], list) and schema["allOf"]:
                merged, entered = self.merge_all_of(schema, path)
                if merged is not None:
                    self.register(entered, path, registered)  # a later $ref back to them is recursion
                    schema = merged
                else:
                    variants.append(("allOf", schema["allOf"]))
            else:
                self.warn(f"ignored malformed allOf at {where_label(path)}")
        return schema, variants

    def _emit_collapsed(self, schema: dict[str, Any], kind: str, spot: _Spot) -> bool:
        """Emit a simple union as the one schema it amounts to; False if it has real alternatives."""
        collapsed = self.collapse(schema, kind)
        if collapsed is None:
            return False
        new, null = collapsed
        self.emit_at(new, replace(spot, add_null=spot.add_null or null, hops=spot.hops + 1))
        return True

    def _row_types(self, schema: dict[str, Any], variants: list[tuple[str, list[Any]]], spot: _Spot) -> tuple[str, ...]:
        """The row's types: declared, else shared by every variant, else inherited; plus null if asked."""
        types = own_types(schema)
        if not types and variants and "type" not in schema:
            found: list[str] = []
            for _, branches in variants:
                branch_types = [self.plain_types(b) for b in branches[:_MAX_BRANCHES]]
                if all(branch_types):
                    found.extend(t for bt in branch_types for t in bt)
            types = norm_types(found)
        types = types or spot.inherit
        if spot.add_null and types and "null" not in types:
            types = (*types, "null")
        if "type" in schema and declared_types(schema) is None:
            self.warn(f"ignored invalid type {summary(schema['type'])} at {where_label(spot.path)}")
        return types

    def _emit_rows(
        self,
        schema: dict[str, Any],
        spot: _Spot,
        types: tuple[str, ...],
        variants: list[tuple[str, list[Any]]],
        extra: list[Constraint],
        *,
        first_hand: bool,
    ) -> None:
        """Add the row itself (or make it the root table), then its children and each variant."""
        for kind, branches in variants:
            extra.append(Constraint(kind, len(branches)))
            if len(branches) > _MAX_BRANCHES:
                self.warn(f"only the first {_MAX_BRANCHES} {kind} variants are shown at {where_label(spot.path)}")
        item_types = self.item_types(schema) if "array" in types else ()
        row = self.row(schema, spot.path, spot.depth, spot.required, spot.variant, types, item_types, extra)
        child_depth = spot.depth + 1
        if spot.root and types == ("object",) and not variants and first_hand:
            self.root_row, child_depth = row, spot.depth  # an object root is the table itself
        else:
            self.add(row)
        if spot.shallow:
            return
        self.children(schema, types, spot.path, child_depth, spot.variant, spot.outer)
        self._emit_variants(schema, spot, variants)

    def _emit_variants(self, schema: dict[str, Any], spot: _Spot, variants: list[tuple[str, list[Any]]]) -> None:
        """Emit each shown branch of each union as its own numbered variant (``1``, ``1.2``, ...)."""
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else None
        n = 0
        for _, branches in variants:
            for branch in branches[:_MAX_BRANCHES]:
                n += 1
                label = f"{spot.variant}.{n}" if spot.variant else str(n)
                self.emit(
                    branch, spot.path, spot.depth, spot.required, label, inherit=_declared_tuple(schema), outer=props
                )

    def row(
        self,
        schema: dict[str, Any],
        path: str,
        depth: int,
        required: bool,
        variant: str | None,
        types: tuple[str, ...],
        item_types: tuple[str, ...],
        extra: list[Constraint],
        full: bool = True,
    ) -> Row:
        found = (constraints(schema, self.warn, path) if full else []) + extra
        found.sort(key=lambda c: _ORDER.get(c.kind, len(KINDS)))
        description = schema.get("description")
        title = schema.get("title")
        return Row(
            path=path,
            types=types,
            item_types=item_types,
            required=required,
            description=description if isinstance(description, str) else None,
            title=title if isinstance(title, str) else None,
            constraints=tuple(found),
            depth=depth,
            variant=variant,
        )

    def item_types(self, schema: dict[str, Any]) -> tuple[str, ...]:
        prefix = schema.get("prefixItems")
        items = schema.get("items")
        if not isinstance(prefix, list):
            prefix, items = (items, schema.get("additionalItems")) if isinstance(items, list) else ([], items)
        found: list[str] = []
        for sub in [*prefix[:_MAX_BRANCHES], *([items] if isinstance(items, dict) else [])]:
            sub_types = self.plain_types(sub)
            if not sub_types:
                return ()
            found.extend(sub_types)
        return norm_types(found)

    def is_bare(self, node: object) -> bool:
        sub = self.plain(node)
        if sub is True or (isinstance(sub, dict) and not sub):
            return True
        return isinstance(sub, dict) and sub.keys() <= {"type"} and not {"object", "array"} & set(own_types(sub))

    def children(
        self,
        schema: dict[str, Any],
        types: tuple[str, ...],
        path: str,
        depth: int,
        variant: str | None,
        outer: dict[str, Any] | None,
    ) -> None:
        if not types or "object" in types:
            props = schema.get("properties")
            if "properties" in schema and not isinstance(props, dict):
                self.warn(f"ignored malformed properties at {where_label(path)}")
            props = props if isinstance(props, dict) else {}
            raw_required = schema.get("required")
            required = [r for r in raw_required if isinstance(r, str)] if isinstance(raw_required, list) else []
            for name, sub in props.items():
                own = isinstance(sub, dict) and sub.get("required") is True  # draft-03 style
                self.emit(sub, _join(path, str(name)), depth, str(name) in required or own, variant)
            additional = schema.get("additionalProperties")
            for name in dict.fromkeys(r for r in required if r not in props):
                # Required but not described here: show the name, typed from the outer/additional schema.
                sub = (outer or {}).get(name, additional if isinstance(additional, dict) else {})
                self.emit(sub, _join(path, name), depth, True, variant, shallow=True)
            patterns = schema.get("patternProperties")
            if isinstance(patterns, dict):
                for pattern, sub in patterns.items():
                    key_rule = (Constraint("pattern", str(pattern)),)
                    self.emit(sub, _map(path), depth, False, variant, pre=key_rule)
            if "additionalProperties" not in schema:
                additional = schema.get("unevaluatedProperties")
            if isinstance(additional, dict) and additional:
                self.emit(additional, _map(path), depth, False, variant)
        if not types or "array" in types:
            prefix = schema.get("prefixItems")
            rest = schema.get("items")
            if not isinstance(prefix, list) and isinstance(rest, list):
                prefix, rest = rest, schema.get("additionalItems")  # draft <= 2019-09 tuple form
            if isinstance(prefix, list):
                min_items = schema.get("minItems")
                for i, sub in enumerate(prefix[: self.max_rows]):
                    needed = isinstance(min_items, int | float) and i < min_items
                    self.emit(sub, f"{path}[{i}]", depth, needed, variant)
            if isinstance(rest, dict) and not self.is_bare(rest):
                # An item has no optionality of its own (the array row carries minItems).
                self.emit(rest, f"{path}[]", depth, True, variant)


def _map(path: str) -> str:
    return f"{path}.{{key}}" if path else "{key}"


def _declared_tuple(schema: dict[str, Any]) -> tuple[str, ...]:
    return norm_types(declared_types(schema) or [])


def flatten(schema: object, *, max_depth: int = 24, max_rows: int = 2000) -> Flattened:
    """Rows for a parameters/returns table; never raises, whatever ``schema`` is."""
    try:
        depth_cap = max(0, min(int(max_depth), 100))  # deeper would risk Python's recursion limit
        row_cap = max(1, int(max_rows))
    except (TypeError, ValueError, OverflowError):
        depth_cap, row_cap = 24, 2000
    flattener = _Flattener(schema, depth_cap, row_cap)
    try:
        flattener.emit(schema, "", 0, True, None, root=True)
    except _Stop:
        pass
    except RecursionError:
        flattener.truncated = True
        flattener.warn("schema too deeply nested; output cut short")
    except Exception as exc:  # untrusted input must never crash a build
        flattener.truncated = True
        flattener.warn(f"internal error while flattening ({type(exc).__name__}); output cut short")
    return Flattened(
        rows=tuple(flattener.rows),
        dialect=flattener.dialect,
        warnings=tuple(flattener.warnings),
        truncated=flattener.truncated,
        root=flattener.root_row,
    )
