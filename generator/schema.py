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
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeGuard
from urllib.parse import unquote, urldefrag, urljoin

# Constraint kinds in the order they are listed on a row (documented, stable).
KINDS: tuple[str, ...] = (
    "deprecated", "readOnly", "writeOnly", "nullable", "const", "enum", "default", "examples",
    "format", "pattern", "contentMediaType", "contentEncoding",
    "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "contains", "minContains",
    "maxContains", "minProperties", "maxProperties", "noAdditional", "propertyNames",
    "dependentRequired", "dependentSchemas", "not", "if", "allOf", "oneOf", "anyOf",
    "recursive", "ref", "truncated",
)  # fmt: skip
_ORDER = {kind: i for i, kind in enumerate(KINDS)}

JSON_TYPES: tuple[str, ...] = ("string", "number", "integer", "boolean", "object", "array", "null")
LEGACY_DIALECTS = frozenset({"draft-03", "draft-04", "draft-06", "draft-07"})
_DIALECTS = {
    "json-schema.org/draft-03/schema": "draft-03",
    "json-schema.org/draft-04/schema": "draft-04",
    "json-schema.org/draft-06/schema": "draft-06",
    "json-schema.org/draft-07/schema": "draft-07",
    "json-schema.org/draft/2019-09/schema": "2019-09",
    "json-schema.org/draft/2020-12/schema": "2020-12",
}
# Keywords that only describe; merged "first wins" and kept next to a legacy $ref.
ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "example", "deprecated", "readOnly",
     "writeOnly", "$comment"}
)  # fmt: skip
# Keywords that make a union branch more than "a simple type" (no collapse).
_STRUCTURAL = frozenset(
    {"properties", "patternProperties", "additionalProperties", "unevaluatedProperties", "items",
     "prefixItems", "additionalItems", "contains", "anyOf", "oneOf", "allOf", "not", "if", "then",
     "else", "dependentSchemas", "dependencies", "propertyNames", "$ref", "$dynamicRef",
     "$recursiveRef", "required", "dependentRequired"}
)  # fmt: skip
_REF_KEYWORDS = ("$ref", "$recursiveRef", "$dynamicRef")
_LOWER = frozenset({"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"})
_UPPER = frozenset({"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"})
_NUMERIC_KINDS = _LOWER | _UPPER | {"multipleOf"}
_MAX_HOPS = 32  # $ref chain length
_MAX_BRANCHES = 64  # alternatives shown per union
_MAX_WARNINGS = 100
_MAX_LIST = 500  # items kept in a constraint value
_SUMMARY_CHARS = 200
_INDEX_BUDGET = 50_000  # nodes scanned for $id/$anchor
_DATA_KEYS = frozenset({"enum", "const", "default", "examples", "example"})


@dataclass(frozen=True)
class Constraint:
    """One rule on a row; ``kind`` is one of :data:`KINDS`, ``value`` is JSON (``True`` when valueless)."""

    kind: str
    value: Any


@dataclass(frozen=True)
class Row:
    """One line of a parameters/returns table."""

    path: str
    types: tuple[str, ...]
    item_types: tuple[str, ...]
    required: bool
    description: str | None
    title: str | None
    constraints: tuple[Constraint, ...]
    depth: int
    variant: str | None

    @property
    def type_label(self) -> str:
        """``string | null``, ``array of object``, ``array of (string | null)``; ``any``/``never``."""
        if not self.types:
            never = any(c.kind == "not" and c.value == "true" for c in self.constraints)
            return "never" if never else "any"
        parts = []
        for t in self.types:
            if t == "array" and self.item_types:
                inner = " | ".join(self.item_types)
                parts.append(f"array of ({inner})" if len(self.item_types) > 1 else f"array of {inner}")
            else:
                parts.append(t)
        return " | ".join(parts)


@dataclass(frozen=True)
class Flattened:
    """The rows of a schema plus what was noticed while producing them."""

    rows: tuple[Row, ...]
    dialect: str | None
    warnings: tuple[str, ...]
    truncated: bool
    root: Row | None = None  # the row of an object root, which is not part of ``rows``


# --------------------------------------------------------------------------- helpers


def detect_dialect(schema: object) -> tuple[str | None, str | None]:
    """``(dialect, warning)`` from ``$schema``; unknown or malformed gives ``(None, warning)``."""
    if not isinstance(schema, dict) or "$schema" not in schema:
        return None, None
    raw = schema["$schema"]
    if not isinstance(raw, str):
        return None, "$schema is not a string; interpreted as 2020-12"
    key = raw.strip().rstrip("#").lower()
    for prefix in ("https://", "http://"):
        key = key.removeprefix(prefix)
    dialect = _DIALECTS.get(key)
    if dialect is None:
        return None, f"unknown $schema {_clip(raw, 120)!r}; interpreted as 2020-12"
    return dialect, None


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
        return [jsonable(v, _depth + 1) for v in value[:_MAX_LIST]]
    if isinstance(value, dict):
        return {str(k): jsonable(v, _depth + 1) for k, v in list(value.items())[:_MAX_LIST]}
    return _clip(repr(value), 100)


def summary(schema: object) -> str:
    """Compact one-line JSON of a subschema, clipped for a table cell."""
    try:
        text = json.dumps(jsonable(schema), ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):  # pragma: no cover - jsonable already made it JSON
        text = repr(schema)
    return _clip(text, _SUMMARY_CHARS)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def norm_types(types: Iterable[str]) -> tuple[str, ...]:
    """Deduplicate keeping order, with ``null`` last."""
    seen: list[str] = []
    for t in types:
        if t not in seen:
            seen.append(t)
    return tuple([t for t in seen if t != "null"] + (["null"] if "null" in seen else []))


def declared_types(schema: dict[str, Any]) -> list[str] | None:
    """The ``type`` keyword as known type names; None when absent or unusable."""
    raw = schema.get("type")
    names = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else []
    known = [t for t in names if isinstance(t, str) and t in JSON_TYPES]
    return known or None


def own_types(schema: dict[str, Any]) -> tuple[str, ...]:
    """Declared types, else inferred from const/enum or object/array keywords; nullable adds null."""
    types = declared_types(schema)
    if types is None and "type" not in schema:
        if "const" in schema:
            types = [t for t in [json_type(schema["const"])] if t]
        elif isinstance(schema.get("enum"), list) and schema["enum"]:
            types = [t for t in (json_type(v) for v in schema["enum"][:_MAX_LIST]) if t]
        elif any(k in schema for k in ("properties", "patternProperties", "required")) or isinstance(
            schema.get("additionalProperties"), dict
        ):
            types = ["object"]
        elif any(k in schema for k in ("items", "prefixItems")):
            types = ["array"]
    types = types or []
    if types and schema.get("nullable") is True:
        types.append("null")
    return norm_types(types)


def _intersect_types(a: object, b: object) -> list[str] | None:
    ta = declared_types({"type": a}) or []
    tb = declared_types({"type": b}) or []
    out: list[str] = []
    for t in ta:
        if t in tb:
            out.append(t)
        elif {t, "integer"} <= {"number", "integer"} and ("number" in tb or "integer" in tb):
            out.append("integer")  # integer is the subset of number
    return list(norm_types(out)) or None


def merge_schemas(
    a: dict[str, Any], b: dict[str, Any], types_of: Callable[[object], tuple[str, ...]]
) -> dict[str, Any] | None:
    """Soundly merge two schemas that must both hold (``allOf``); None on any conflict.

    Annotations: first wins.  Common properties with overlapping types become
    ``{"allOf": [pa, pb]}`` so they are merged lazily at their own level.
    """
    out = dict(a)
    for key, bv in b.items():
        if key not in out:
            out[key] = bv
            continue
        av = out[key]
        if key in ANNOTATIONS or key in ("$defs", "definitions", "$id", "$schema") or json_equal(av, bv):
            continue
        if key == "type":
            inter = _intersect_types(av, bv)
            if inter is None:
                return None
            out[key] = inter
        elif key == "properties" and isinstance(av, dict) and isinstance(bv, dict):
            props = dict(av)
            for name, sub in bv.items():
                if name in props and not json_equal(props[name], sub):
                    ta, tb = types_of(props[name]), types_of(sub)
                    if ta and tb and not _intersect_types(list(ta), list(tb)):
                        return None
                    props[name] = {"allOf": [props[name], sub]}
                else:
                    props[name] = sub
            out[key] = props
        elif key == "required" and isinstance(av, list) and isinstance(bv, list):
            out[key] = av + [r for r in bv if r not in av]
        elif key == "enum" and isinstance(av, list) and isinstance(bv, list):
            both = [x for x in av if any(json_equal(x, y) for y in bv)]
            if not both:
                return None
            out[key] = both
        elif key in _NUMERIC_KINDS and is_number(av) and is_number(bv):
            if key == "multipleOf":
                if not (isinstance(av, int) and isinstance(bv, int) and av > 0 and bv > 0):
                    return None
                out[key] = math.lcm(av, bv)
            else:
                out[key] = max(av, bv) if key in _LOWER else min(av, bv)
        elif key == "uniqueItems" and isinstance(av, bool) and isinstance(bv, bool):
            out[key] = av or bv
        elif key == "additionalProperties" and (av is False or bv is False):
            out[key] = False
        elif key in ("items", "contains", "propertyNames", "additionalProperties") and all(
            isinstance(v, dict | bool) for v in (av, bv)
        ):
            out[key] = {"allOf": [av, bv]}
        else:
            return None
    # additionalProperties: false in one branch forbids the other branch's extra names.
    for x, y in ((a, b), (b, a)):
        if x.get("additionalProperties") is False and not x.get("patternProperties"):
            allowed = set(x["properties"]) if isinstance(x.get("properties"), dict) else set()
            names = set(y["properties"]) if isinstance(y.get("properties"), dict) else set()
            names |= (
                {r for r in y.get("required", []) if isinstance(r, str)}
                if isinstance(y.get("required"), list)
                else set()
            )
            if names - allowed:
                return None
    return out


class LocalRefs:
    """Resolves ``$ref`` inside one document; anything else is reported, never fetched."""

    def __init__(self, root: object, dialect: str | None) -> None:
        self.root = root
        self.ids: dict[str, object] = {}
        self.anchors: dict[str, object] = {}
        self.base = ""
        if isinstance(root, dict):
            rid = root.get("$id", root.get("id") if dialect in ("draft-03", "draft-04") else None)
            if isinstance(rid, str):
                self.base = urldefrag(rid)[0]
        self._index(dialect)

    def _index(self, dialect: str | None) -> None:
        # Iterative, budgeted and alias-safe: the document may be huge, deep or self-referential.
        id_keys = ("$id", "id") if dialect in ("draft-03", "draft-04") else ("$id",)
        stack: list[object] = [self.root]
        seen: set[int] = set()
        budget = _INDEX_BUDGET
        while stack and budget > 0:
            node = stack.pop()
            budget -= 1
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, list):
                stack.extend(v for v in reversed(node) if isinstance(v, dict | list))
                continue
            if not isinstance(node, dict):
                continue
            for key in id_keys:
                value = node.get(key)
                if isinstance(value, str):
                    self._add_id(value, node)
            for key in ("$anchor", "$dynamicAnchor", "$recursiveAnchor"):
                value = node.get(key)
                if isinstance(value, str):
                    self.anchors.setdefault(value, node)
            stack.extend(
                v for k, v in reversed(list(node.items())) if k not in _DATA_KEYS and isinstance(v, dict | list)
            )

    def _add_id(self, value: str, node: object) -> None:
        try:
            url, frag = urldefrag(value)
            if url:
                self.ids.setdefault(url, node)
                self.ids.setdefault(urljoin(self.base, url) if self.base else url, node)
            if frag and not frag.startswith("/"):
                self.anchors.setdefault(frag, node)
        except ValueError:  # malformed URI (e.g. a broken IPv6 literal): just not indexed
            pass

    def lookup(self, ref: object, keyword: str = "$ref") -> tuple[object, str | None]:
        """``(target, None)`` or ``(None, problem)``; problems start with 'remote' or 'dangling'."""
        if keyword == "$recursiveRef":
            ref = "#"
        if not isinstance(ref, str):
            return None, f"dangling {keyword} (not a string)"
        try:
            url, frag = urldefrag(ref)
            doc: object
            if not url or url == self.base:
                doc = self.root
            elif url in self.ids:
                doc = self.ids[url]
            elif self.base and urljoin(self.base, url) in self.ids:
                doc = self.ids[urljoin(self.base, url)]
            else:
                return None, f"remote {keyword} {_clip(ref, 120)!r} was not fetched"
        except ValueError:
            return None, f"dangling {keyword} {_clip(ref, 120)!r} (malformed URI)"
        frag = unquote(frag)
        if not frag:
            return doc, None
        if not frag.startswith("/"):
            if frag in self.anchors:
                return self.anchors[frag], None
            return None, f"dangling {keyword} {_clip(ref, 120)!r} (no such anchor)"
        target = doc
        for token in frag[1:].split("/"):
            token = token.replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and token in target:
                target = target[token]
            elif isinstance(target, list) and token.isdigit() and int(token) < len(target):
                target = target[int(token)]
            else:
                return None, f"dangling {keyword} {_clip(ref, 120)!r}"
        return target, None


def ref_keyword(node: dict[str, Any]) -> str | None:
    return next((k for k in _REF_KEYWORDS if k in node), None)


def _join(path: str, name: str) -> str:
    if not name or any(c in name for c in '.[]{}"') or name != name.strip() or " " in name:
        return f"{path}[{json.dumps(name, ensure_ascii=False)}]"
    return f"{path}.{name}" if path else name


def _where(path: str) -> str:
    return f"{path!r}" if path else "(root)"


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
                self.warn(f"invalid subschema at {_where(path)}: {type(node).__name__}, not an object")
                return _Res({}, entered)
            keyword = ref_keyword(node)
            if keyword is None:
                return _Res(node, entered)
            raw = node[keyword]
            siblings = {k: v for k, v in node.items() if k != keyword}
            target, problem = self.refs.lookup(raw, keyword)
            if problem is not None:
                self.warn(f"{problem} at {_where(path)}")
                shown = raw if isinstance(raw, str) else summary(raw)
                return _Res({k: v for k, v in siblings.items() if k not in _REF_KEYWORDS}, entered, ref=shown)
            if isinstance(target, dict):
                if id(target) in self.active or any(t is target for t in entered):
                    first = self.active.get(id(target), path)
                    return _Res(self.with_siblings(target, siblings), entered, recursive=first)
                entered.append(target)
            node = self.with_siblings(target, siblings)
        self.warn(f"$ref chain longer than {_MAX_HOPS} at {_where(path)}")
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
            if sub is True:
                continue
            assert isinstance(sub, dict)
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
        if depth > self.max_depth:
            self.truncated = True
            self.warn(f"depth limit {self.max_depth} reached at {_where(path)}; not expanded further")
            self.add(Row(path, (), (), required, None, None, (Constraint("truncated", True),), depth, variant))
            return
        res = self.resolve(node, path)
        registered: list[object] = []
        self.register([node, *res.entered], path, registered)
        try:
            self._emit(
                res,
                path,
                depth,
                required,
                variant,
                add_null,
                inherit,
                outer,
                pre,
                shallow,
                root,
                hops,
                registered,
            )
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

    def _emit(
        self,
        res: _Res,
        path: str,
        depth: int,
        required: bool,
        variant: str | None,
        add_null: bool,
        inherit: tuple[str, ...],
        outer: dict[str, Any] | None,
        pre: tuple[Constraint, ...],
        shallow: bool,
        root: bool,
        hops: int,
        registered: list[object],
    ) -> None:
        extra = list(pre)
        if res.ref is not None:
            extra.append(Constraint("ref", res.ref))
        if res.schema is False:
            extra.append(Constraint("not", "true"))
            self.add(Row(path, (), (), required, None, None, tuple(extra), depth, variant))
            return
        schema: dict[str, Any] = {} if res.schema is True else res.schema
        if res.recursive is not None:
            types = self.plain_types(schema) or inherit
            if add_null and types:
                types = norm_types((*types, "null"))
            extra.append(Constraint("recursive", res.recursive))
            self.add(self.row(schema, path, depth, required, variant, types, (), extra, full=False))
            return
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
                self.warn(f"ignored malformed allOf at {_where(path)}")
        unions = [k for k in ("oneOf", "anyOf") if isinstance(schema.get(k), list) and schema[k]]
        if len(unions) == 1 and not variants and hops < 8:
            collapsed = self.collapse(schema, unions[0])
            if collapsed is not None:
                new, null = collapsed
                self.emit(new, path, depth, required, variant, add_null=add_null or null, inherit=inherit,
                          outer=outer, pre=pre, shallow=shallow, root=root, hops=hops + 1)  # fmt: skip
                return
        variants += [(k, schema[k]) for k in unions]
        types = own_types(schema)
        if not types and variants and "type" not in schema:
            found: list[str] = []
            for _, branches in variants:
                branch_types = [self.plain_types(b) for b in branches[:_MAX_BRANCHES]]
                if all(branch_types):
                    found.extend(t for bt in branch_types for t in bt)
            types = norm_types(found)
        types = types or inherit
        if add_null and types and "null" not in types:
            types = (*types, "null")
        if "type" in schema and declared_types(schema) is None:
            self.warn(f"ignored invalid type {summary(schema['type'])} at {_where(path)}")
        for kind, branches in variants:
            extra.append(Constraint(kind, len(branches)))
            if len(branches) > _MAX_BRANCHES:
                self.warn(f"only the first {_MAX_BRANCHES} {kind} variants are shown at {_where(path)}")
        item_types = self.item_types(schema) if "array" in types else ()
        row = self.row(schema, path, depth, required, variant, types, item_types, extra)
        child_depth = depth + 1
        if root and types == ("object",) and not variants and res.ref is None:
            self.root_row, child_depth = row, depth  # an object root is the table itself
        else:
            self.add(row)
        if shallow:
            return
        self.children(schema, types, path, child_depth, variant, outer)
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else None
        n = 0
        for _, branches in variants:
            for branch in branches[:_MAX_BRANCHES]:
                n += 1
                label = f"{variant}.{n}" if variant else str(n)
                self.emit(branch, path, depth, required, label, inherit=_declared_tuple(schema), outer=props)

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
                self.warn(f"ignored malformed properties at {_where(path)}")
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


def constraints(schema: dict[str, Any], warn: Callable[[str], None], path: str = "") -> list[Constraint]:
    """The constraints a schema states itself (combinators, refs and recursion are added by the caller)."""
    out: list[Constraint] = []

    def add(kind: str, value: Any) -> None:
        out.append(Constraint(kind, jsonable(value)))

    for flag in ("deprecated", "readOnly", "writeOnly", "nullable", "uniqueItems"):
        if schema.get(flag) is True:
            add(flag, True)
    if "const" in schema:
        add("const", schema["const"])
    if "enum" in schema:
        if isinstance(schema["enum"], list):
            add("enum", schema["enum"])
            if len(schema["enum"]) > _MAX_LIST:
                warn(f"enum at {_where(path)} has {len(schema['enum'])} values; only {_MAX_LIST} are shown")
        else:
            warn(f"ignored malformed enum at {_where(path)}")
    if "default" in schema:
        add("default", schema["default"])
    if "examples" in schema:
        examples = schema["examples"]
        add("examples", examples if isinstance(examples, list) else [examples])
    elif "example" in schema:  # OpenAPI's singular form
        add("examples", [schema["example"]])
    for key in ("format", "pattern", "contentMediaType", "contentEncoding"):
        if isinstance(schema.get(key), str):
            add(key, schema[key])
    for key in ("minimum", "maximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems",
                "minContains", "maxContains", "minProperties", "maxProperties"):  # fmt: skip
        if key in schema:
            if is_number(schema[key]):
                add(key, schema[key])
            else:
                warn(f"ignored non-numeric {key} at {_where(path)}")
    for key, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        value = schema.get(key)
        if is_number(value):
            add(key, value)
        elif value is True and is_number(schema.get(bound)):
            # draft-04: a boolean that turns minimum/maximum into an exclusive bound
            out[:] = [c for c in out if c.kind != bound]
            add(key, schema[bound])
    if "contains" in schema:
        add("contains", summary(schema["contains"]))
    if schema.get("additionalProperties") is False or schema.get("unevaluatedProperties") is False:
        add("noAdditional", True)
    if "propertyNames" in schema:
        add("propertyNames", summary(schema["propertyNames"]))
    dep_required: dict[str, Any] = {}
    dep_schemas: dict[str, Any] = {}
    for key in ("dependentRequired", "dependencies", "dependentSchemas"):
        value = schema.get(key)
        if not isinstance(value, dict):
            continue
        for prop, dep in value.items():
            if isinstance(dep, list) and key != "dependentSchemas":
                dep_required[str(prop)] = [d for d in dep if isinstance(d, str)]
            elif isinstance(dep, dict | bool) and key != "dependentRequired":
                dep_schemas[str(prop)] = summary(dep)
    if dep_required:
        add("dependentRequired", dep_required)
    if dep_schemas:
        add("dependentSchemas", dep_schemas)
    if "not" in schema:
        add("not", summary(schema["not"]))
    if "if" in schema:
        branches = {k: summary(schema[k]) if k in schema else None for k in ("if", "then", "else")}
        add("if", branches)
    return out


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
