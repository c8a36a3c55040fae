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

This module writes the rows; how a subschema is resolved, typed and collapsed before
its row is written lives in :mod:`generator.schema.resolve`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from generator.jsonutil import summary
from generator.schema.constraints import (
    KINDS,
    Constraint,
    constraints,
    declared_types,
    norm_types,
    own_types,
    where_label,
)
from generator.schema.resolve import MAX_BRANCHES, Resolved, SchemaResolver
from generator.schema.rows import Flattened, Row

# A row lists its constraints in KINDS order (documented), whatever order the schema used.
_ORDER = {kind: i for i, kind in enumerate(KINDS)}


# --------------------------------------------------------------------------- helpers


def _join(path: str, name: str) -> str:
    if not name or any(c in name for c in '.[]{}"') or name != name.strip() or " " in name:
        return f"{path}[{json.dumps(name, ensure_ascii=False)}]"
    return f"{path}.{name}" if path else name


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


class _Flattener(SchemaResolver):
    """One flattening: the rows so far, the limits, and the resolver state it inherits."""

    def __init__(self, root: object, max_depth: int, max_rows: int) -> None:
        super().__init__(root)
        self.max_depth = max_depth
        self.max_rows = max_rows
        self.rows: list[Row] = []
        self.truncated = False
        self.root_row: Row | None = None

    def add(self, row: Row) -> None:
        if len(self.rows) >= self.max_rows:
            self.truncated = True
            self.warn(f"row limit {self.max_rows} reached; the table is cut short")
            raise _Stop
        self.rows.append(row)

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

    def _emit(self, res: Resolved, spot: _Spot, registered: list[object]) -> None:
        """Emit a resolved schema: a stub row for ``false`` or recursion, else a row and its children."""
        extra = list(spot.pre)
        if res.ref is not None:
            extra.append(Constraint("ref", res.ref))
        if res.schema is False:
            extra.append(Constraint("not", True))  # the schema `false`: nothing is valid
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
        new, null, partial = collapsed
        pre = (*spot.pre, Constraint("someVariants", partial)) if partial else spot.pre
        self.emit_at(new, replace(spot, add_null=spot.add_null or null, hops=spot.hops + 1, pre=pre))
        return True

    def _row_types(self, schema: dict[str, Any], variants: list[tuple[str, list[Any]]], spot: _Spot) -> tuple[str, ...]:
        """The row's types: declared, else shared by every variant, else inherited; plus null if asked."""
        types = own_types(schema)
        if not types and variants and "type" not in schema:
            found: list[str] = []
            for _, branches in variants:
                branch_types = [self.plain_types(b) for b in branches[:MAX_BRANCHES]]
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
            if len(branches) > MAX_BRANCHES:
                self.warn(f"only the first {MAX_BRANCHES} {kind} variants are shown at {where_label(spot.path)}")
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
            for branch in branches[:MAX_BRANCHES]:
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
