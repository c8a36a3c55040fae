"""How the flattener sees a subschema: the type and union naming behind each row.

:mod:`generator.schema.flatten` turns a schema into table rows; this module answers the
questions it asks about a subschema before a row is written:

* :meth:`SchemaResolver.resolve` follows ``$ref`` (local only, :data:`MAX_HOPS` hops at most)
  and detects recursion against the schemas being expanded right now;
* :meth:`SchemaResolver.plain_types` names the types of a subschema, looking through ``$ref``
  and simple unions (``string | integer``), and :meth:`SchemaResolver.item_types` those of
  an array's items;
* :meth:`SchemaResolver.merge_all_of` folds ``allOf`` into one schema when the branches agree;
* :meth:`SchemaResolver.collapse` turns a union of simple types (or ``X | null``) into the one
  schema it amounts to, so the table shows ``string | integer`` instead of two variants.

Like the flattener it never raises on untrusted input; problems become warnings (at most
:data:`MAX_WARNINGS`), which the flattener returns with its rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.jsonutil import json_equal, summary
from generator.schema.constraints import ANNOTATIONS, merge_schemas, norm_types, own_types, where_label
from generator.schema.refs import LEGACY_DIALECTS, REF_KEYWORDS, LocalRefs, detect_dialect, ref_keyword

# Keywords that make a union branch more than "a simple type" (no collapse).
_STRUCTURAL = frozenset(
    {"properties", "patternProperties", "additionalProperties", "unevaluatedProperties", "items",
     "prefixItems", "additionalItems", "contains", "anyOf", "oneOf", "allOf", "not", "if", "then",
     "else", "dependentSchemas", "dependencies", "propertyNames", "$ref", "$dynamicRef",
     "$recursiveRef", "required", "dependentRequired"}
)  # fmt: skip
MAX_HOPS = 32  # $ref chain length
MAX_BRANCHES = 64  # alternatives shown per union
MAX_WARNINGS = 100


def _is_null_only(schema: object) -> bool:
    """Does this schema admit only ``null``?"""
    if not isinstance(schema, dict):
        return False
    t = schema.get("type")
    return (
        t == "null" or t == ["null"] or ("const" in schema and schema["const"] is None) or schema.get("enum") == [None]
    )


_APPLIES_TO: dict[str, frozenset[str]] = {
    **dict.fromkeys(
        ("format", "pattern", "minLength", "maxLength", "contentMediaType", "contentEncoding", "contentSchema"),
        frozenset({"string"}),
    ),
    **dict.fromkeys(
        ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
        frozenset({"number", "integer"}),
    ),
    **dict.fromkeys(("minItems", "maxItems", "uniqueItems", "minContains", "maxContains"), frozenset({"array"})),
    **dict.fromkeys(("minProperties", "maxProperties"), frozenset({"object"})),
}
"""The types a validation keyword constrains; any other keyword constrains every type."""


def _binding(key: str, value: Any, branches: list[dict[str, Any]]) -> bool:
    """Does *key* hold in every branch that admits the values it constrains (so it is the union's rule)?

    ``maxLength`` in the string branch of ``string | integer`` binds (integers have no length);
    ``format`` in one of two string branches does not: the other accepts any string.
    """
    applies = _APPLIES_TO.get(key)
    for branch in branches:
        if key in branch and json_equal(branch[key], value):
            continue
        admits = set(own_types(branch))
        if applies is None or admits & applies:
            return False
    return True


@dataclass
class Resolved:
    """A subschema after ``$ref``: the schema, the ``$ref`` targets entered on the way, and why it stops.

    ``recursive`` is the path where a schema being expanded was first shown; ``ref`` is the
    reference shown instead of a target that could not be resolved.
    """

    schema: dict[str, Any] | bool
    entered: list[object]
    recursive: str | None = None
    ref: str | None = None


class SchemaResolver:
    """Resolution state for one root schema: its dialect, its local ``$ref`` targets, the warnings so far."""

    def __init__(self, root: object) -> None:
        self.warnings: list[str] = []
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
        """Record a warning once; past :data:`MAX_WARNINGS`, one last line says the rest were left out."""
        if message in self.warnings or len(self.warnings) > MAX_WARNINGS:
            return
        self.warnings.append(message if len(self.warnings) < MAX_WARNINGS else "further warnings omitted")

    # ---- references

    def with_siblings(self, target: object, siblings: dict[str, Any]) -> dict[str, Any] | bool:
        """A ``$ref`` target with the keywords written next to the ``$ref`` (only their prose before 2019-09)."""
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

    def resolve(self, node: object, path: str) -> Resolved:
        """Follow ``$ref`` from ``node`` (shown at ``path``), warning about what cannot be followed."""
        entered: list[object] = []
        if isinstance(node, dict) and id(node) in self.active:  # only possible with aliased Python dicts
            return Resolved(node, entered, recursive=self.active[id(node)])
        for _ in range(MAX_HOPS):
            if isinstance(node, bool):
                return Resolved(node, entered)
            if not isinstance(node, dict):
                self.warn(f"invalid subschema at {where_label(path)}: {type(node).__name__}, not an object")
                return Resolved({}, entered)
            keyword = ref_keyword(node)
            if keyword is None:
                return Resolved(node, entered)
            raw = node[keyword]
            siblings = {k: v for k, v in node.items() if k != keyword}
            target, problem = self.refs.lookup(raw, keyword)
            if problem is not None:
                self.warn(f"{problem} at {where_label(path)}")
                shown = raw if isinstance(raw, str) else summary(raw)
                return Resolved({k: v for k, v in siblings.items() if k not in REF_KEYWORDS}, entered, ref=shown)
            if isinstance(target, dict):
                if id(target) in self.active or any(t is target for t in entered):
                    first = self.active.get(id(target), path)
                    return Resolved(self.with_siblings(target, siblings), entered, recursive=first)
                entered.append(target)
            node = self.with_siblings(target, siblings)
        self.warn(f"$ref chain longer than {MAX_HOPS} at {where_label(path)}")
        return Resolved({}, entered, ref="…")

    def plain(self, node: object) -> dict[str, Any] | bool | None:
        """Follow $ref for inspection only (no warnings, no cycle bookkeeping); None if unresolvable."""
        for _ in range(MAX_HOPS):
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
                for branch in branches[:MAX_BRANCHES]:
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
        """``allOf`` merged into one schema and the ``$ref`` targets entered; None if it must stay a variant."""
        acc: dict[str, Any] | None = {k: v for k, v in schema.items() if k != "allOf"}
        entered: list[object] = []
        for branch in schema["allOf"][:MAX_BRANCHES]:
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

    def _branches(self, branches: list[Any]) -> list[tuple[Any, Any]] | None:
        """Each branch of a union with its plain form (``false`` branches left out: they add nothing);
        None when there are too many, or one has no plain form."""
        if len(branches) > MAX_BRANCHES:
            return None
        resolved = []
        for raw in branches:
            sub = self.plain(raw)
            if sub is None:
                return None
            if sub is not False:
                resolved.append((raw, sub))
        return resolved

    def collapse(self, schema: dict[str, Any], kind: str) -> tuple[dict[str, Any], bool, dict[str, Any]] | None:
        """A union of simple types (or X | null) as one schema plus "add null"; None if real alternatives.

        The third item holds the rules only some branches state (``format: date-time`` in
        ``anyOf: [string, string with format date-time]``): the first branch accepts any string,
        so such a rule is not the row's; the caller shows it as holding "in some variants".
        """
        resolved = self._branches(schema[kind])
        if resolved is None:
            return None
        rest = {k: v for k, v in schema.items() if k != kind}
        nulls = [r for r in resolved if _is_null_only(r[1])]
        others = [r for r in resolved if not _is_null_only(r[1])]
        if not others:
            merged = merge_schemas(rest, {"type": "null"}, self.plain_types) if nulls else None
            return (merged, False, {}) if merged is not None else None
        if len(others) == 1:
            raw = others[0][0]
            merged = merge_schemas(rest, raw if isinstance(raw, dict) else {}, self.plain_types)
            return (merged, bool(nulls), {}) if merged is not None else None
        new = dict(rest)
        types: list[str] = []
        values: list[Any] = []
        valued = 0
        descriptions = []
        subs: list[dict[str, Any]] = []
        for _, sub in others:
            if not isinstance(sub, dict) or _STRUCTURAL & sub.keys():
                return None
            sub_types = own_types(sub)
            if not sub_types:
                return None
            subs.append(sub)
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
        partial = {key: new.pop(key) for key in list(new) if key not in rest and not _binding(key, new[key], subs)}
        if values:
            if valued != len(others) or "enum" in new or "const" in new:
                return None
            new["enum"] = [v for i, v in enumerate(values) if not any(json_equal(v, w) for w in values[:i])]
        if "type" not in new:
            new["type"] = list(norm_types(types))
        if "description" not in new and len(descriptions) == 1:
            new["description"] = descriptions[0]
        return new, bool(nulls), partial

    # ---- arrays

    def item_types(self, schema: dict[str, Any]) -> tuple[str, ...]:
        """The types an array's items may have (tuple positions and the rest); () if any is unknown."""
        prefix = schema.get("prefixItems")
        items = schema.get("items")
        if not isinstance(prefix, list):
            prefix, items = (items, schema.get("additionalItems")) if isinstance(items, list) else ([], items)
        found: list[str] = []
        for sub in [*prefix[:MAX_BRANCHES], *([items] if isinstance(items, dict) else [])]:
            sub_types = self.plain_types(sub)
            if not sub_types:
                return ()
            found.extend(sub_types)
        return norm_types(found)

    def is_bare(self, node: object) -> bool:
        """Does this item schema say nothing beyond a simple type (so ``array of string`` says it all)?"""
        sub = self.plain(node)
        if sub is True or (isinstance(sub, dict) and not sub):
            return True
        return isinstance(sub, dict) and sub.keys() <= {"type"} and not {"object", "array"} & set(own_types(sub))
