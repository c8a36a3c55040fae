"""What one schema node says on its own: its types, its constraints, and ``allOf`` of two nodes.

Knows the meaning of individual validation and annotation keywords: which
types a node declares or implies (:func:`own_types`), which constraints it
states for a table row (:func:`constraints`, in :data:`KINDS` order), and how
two nodes that must both hold combine (:func:`merge_schemas`).  It does not
follow ``$ref``, expand combinators or detect recursion: a node is read as
written, and where a merge needs the types of a referenced subschema the
caller passes ``types_of`` (see :mod:`generator.schema.flatten` and
:mod:`generator.schema.examples`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from generator.jsonutil import MAX_LIST, is_number, json_equal, json_type, jsonable
from generator.text import json_inline

# Constraint kinds in the order they are listed on a row (documented, stable).
KINDS: tuple[str, ...] = (
    "deprecated", "readOnly", "writeOnly", "nullable", "const", "enum", "default", "examples",
    "format", "pattern", "contentMediaType", "contentEncoding",
    "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "contains", "minContains",
    "maxContains", "minProperties", "maxProperties", "noAdditional", "propertyNames",
    "dependentRequired", "dependentSchemas", "not", "if", "allOf", "oneOf", "anyOf", "someVariants",
    "recursive", "ref", "truncated",
)  # fmt: skip

JSON_TYPES: tuple[str, ...] = ("string", "number", "integer", "boolean", "object", "array", "null")
# Keywords that only describe; merged "first wins" and kept next to a legacy $ref.
ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "example", "deprecated", "readOnly",
     "writeOnly", "$comment"}
)  # fmt: skip
_LOWER = frozenset({"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"})
_UPPER = frozenset({"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"})
_NUMERIC_KINDS = _LOWER | _UPPER | {"multipleOf"}


@dataclass(frozen=True)
class Constraint:
    """One rule on a row; ``kind`` is one of :data:`KINDS`, ``value`` is JSON (``True`` when valueless)."""

    kind: str
    value: Any

    @cached_property
    def inline(self) -> str:
        """The value as compact one-line JSON, as pages show it: made once, shown in every locale."""
        return json_inline(self.value)


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
            types = [t for t in (json_type(v) for v in schema["enum"][:MAX_LIST]) if t]
        elif (
            any(k in schema for k in ("properties", "patternProperties"))
            or isinstance(schema.get("required"), list)  # draft-03's boolean `required` is about the property
            or isinstance(schema.get("additionalProperties"), dict)
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


_CONFLICT = object()  # what _merge_key returns when two values cannot both hold


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
        merged = _merge_key(key, av, bv, types_of)
        if merged is _CONFLICT:
            return None
        out[key] = merged
    if _extra_names_forbidden(a, b):
        return None
    return out


def _merge_key(key: str, av: Any, bv: Any, types_of: Callable[[object], tuple[str, ...]]) -> Any:
    """The value of ``key`` when both ``av`` and ``bv`` must hold; :data:`_CONFLICT` if they cannot."""
    if key == "type":
        inter = _intersect_types(av, bv)
        return _CONFLICT if inter is None else inter
    if key == "properties" and isinstance(av, dict) and isinstance(bv, dict):
        return _merge_properties(av, bv, types_of)
    if key == "required" and isinstance(av, list) and isinstance(bv, list):
        return av + [r for r in bv if r not in av]
    if key == "enum" and isinstance(av, list) and isinstance(bv, list):
        both = [x for x in av if any(json_equal(x, y) for y in bv)]
        return both or _CONFLICT
    if key in _NUMERIC_KINDS and is_number(av) and is_number(bv):
        if key != "multipleOf":
            return max(av, bv) if key in _LOWER else min(av, bv)
        if not (isinstance(av, int) and isinstance(bv, int) and av > 0 and bv > 0):
            return _CONFLICT
        return math.lcm(av, bv)
    if key == "uniqueItems" and isinstance(av, bool) and isinstance(bv, bool):
        return av or bv
    if key == "additionalProperties" and (av is False or bv is False):
        return False
    if key in ("items", "contains", "propertyNames", "additionalProperties") and all(
        isinstance(v, dict | bool) for v in (av, bv)
    ):
        return {"allOf": [av, bv]}
    return _CONFLICT


def _merge_properties(
    av: dict[str, Any], bv: dict[str, Any], types_of: Callable[[object], tuple[str, ...]]
) -> dict[str, Any] | object:
    """Both ``properties`` maps; a name in both becomes ``allOf`` unless their types cannot overlap."""
    props = dict(av)
    for name, sub in bv.items():
        if name in props and not json_equal(props[name], sub):
            ta, tb = types_of(props[name]), types_of(sub)
            if ta and tb and not _intersect_types(list(ta), list(tb)):
                return _CONFLICT
            props[name] = {"allOf": [props[name], sub]}
        else:
            props[name] = sub
    return props


def _extra_names_forbidden(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """True when ``additionalProperties: false`` in one schema forbids names the other one uses."""
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
                return True
    return False


def where_label(path: str) -> str:
    """The path as shown in a warning: quoted, or ``(root)`` for the whole schema."""
    return f"{path!r}" if path else "(root)"


def constraints(schema: dict[str, Any], warn: Callable[[str], None], path: str = "") -> list[Constraint]:
    """The constraints a schema states itself (combinators, refs and recursion are added by the caller)."""
    out: list[Constraint] = []
    _value_constraints(schema, out, warn, path)
    _numeric_constraints(schema, out, warn, path)
    _structure_constraints(schema, out)
    return out


def _add(out: list[Constraint], kind: str, value: Any) -> None:
    """Append one constraint, its value made JSON-safe."""
    out.append(Constraint(kind, jsonable(value)))


def _value_constraints(schema: dict[str, Any], out: list[Constraint], warn: Callable[[str], None], path: str) -> None:
    """Flags, const, enum, default, examples and the string keywords (format, pattern, content)."""
    for flag in ("deprecated", "readOnly", "writeOnly", "nullable", "uniqueItems"):
        if schema.get(flag) is True:
            _add(out, flag, True)
    if "const" in schema:
        _add(out, "const", schema["const"])
    if "enum" in schema:
        if isinstance(schema["enum"], list):
            _add(out, "enum", schema["enum"])
            if len(schema["enum"]) > MAX_LIST:
                warn(f"enum at {where_label(path)} has {len(schema['enum'])} values; only {MAX_LIST} are shown")
        else:
            warn(f"ignored malformed enum at {where_label(path)}")
    if "default" in schema:
        _add(out, "default", schema["default"])
    if "examples" in schema:
        examples = schema["examples"]
        _add(out, "examples", examples if isinstance(examples, list) else [examples])
    elif "example" in schema:  # OpenAPI's singular form
        _add(out, "examples", [schema["example"]])
    for key in ("format", "pattern", "contentMediaType", "contentEncoding"):
        if isinstance(schema.get(key), str):
            _add(out, key, schema[key])


def _numeric_constraints(schema: dict[str, Any], out: list[Constraint], warn: Callable[[str], None], path: str) -> None:
    """Bounds, lengths, counts and multipleOf, including draft-04's boolean exclusive bounds."""
    for key in ("minimum", "maximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems",
                "minContains", "maxContains", "minProperties", "maxProperties"):  # fmt: skip
        if key in schema:
            if is_number(schema[key]):
                _add(out, key, schema[key])
            else:
                warn(f"ignored non-numeric {key} at {where_label(path)}")
    for key, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        value = schema.get(key)
        if is_number(value):
            _add(out, key, value)
        elif value is True and is_number(schema.get(bound)):
            # draft-04: a boolean that turns minimum/maximum into an exclusive bound
            out[:] = [c for c in out if c.kind != bound]
            _add(out, key, schema[bound])


_SCHEMA_CHARS = 200
"""Characters of compact JSON a subschema may take in a constraint before it is shortened."""
_PROSE = frozenset({"title", "description", "examples", "example", "$comment"})
"""Keywords left out of a subschema shown in a constraint: they describe, and the row has room for rules only."""


def schema_value(schema: object) -> Any:
    """A subschema (``propertyNames``, ``contains``, ``not``, ...) as a constraint shows it: a schema.

    The value is the schema itself, a JSON object (or ``true``/``false``), so a page shows
    ``{"type":"string","maxLength":20}``; never the JSON text of it as a string, which a page
    would quote and escape a second time.  Prose keywords are left out, and a schema longer than
    :data:`_SCHEMA_CHARS` keeps its short top-level rules and the first items of long lists, the
    rest shown as ``"…"``.
    """
    lean = _without_prose(jsonable(schema))
    if len(_compact(lean)) <= _SCHEMA_CHARS or not isinstance(lean, dict):
        return lean
    short: dict[str, Any] = {}
    for key, value in lean.items():
        short[key] = _shorter(value)
        if len(_compact(short)) > _SCHEMA_CHARS:
            short[key] = "…"
            break
    return short


def _shorter(value: Any, limit: int = 60) -> Any:
    """*value* if its JSON is short; else a list's first items and ``"…"``, or ``"…"`` alone."""
    if len(_compact(value)) <= limit:
        return value
    if not isinstance(value, list):
        return "…"
    kept: list[Any] = []
    for item in value:
        if len(_compact([*kept, item, "…"])) > limit:
            break
        kept.append(item)
    return [*kept, "…"]


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


_DATA = frozenset({"const", "enum", "default", "required", "dependentRequired"})
"""Keywords whose values are data, not schemas: kept whole."""
_NAMED = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
"""Keywords whose values map names (any name, ``title`` too) to schemas."""


def _without_prose(value: Any) -> Any:
    """*value* (a jsonable copy, so bounded in depth) without the prose keywords of its schemas."""
    if isinstance(value, list):
        return [_without_prose(v) for v in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, sub in value.items():
        if key in _PROSE:
            continue
        if key in _DATA:
            out[key] = sub
        elif key in _NAMED and isinstance(sub, dict):
            out[key] = {name: _without_prose(item) for name, item in sub.items()}
        else:
            out[key] = _without_prose(sub)
    return out


def _structure_constraints(schema: dict[str, Any], out: list[Constraint]) -> None:
    """contains, closed objects, propertyNames, dependencies, not and if/then/else (each subschema a schema)."""
    if "contains" in schema:
        _add(out, "contains", schema_value(schema["contains"]))
    if schema.get("additionalProperties") is False or schema.get("unevaluatedProperties") is False:
        _add(out, "noAdditional", True)
    if "propertyNames" in schema:
        _add(out, "propertyNames", schema_value(schema["propertyNames"]))
    dep_required, dep_schemas = _dependencies(schema)
    if dep_required:
        _add(out, "dependentRequired", dep_required)
    if dep_schemas:
        _add(out, "dependentSchemas", dep_schemas)
    if "not" in schema:
        _add(out, "not", schema_value(schema["not"]))
    if "if" in schema:
        branches = {k: schema_value(schema[k]) for k in ("if", "then", "else") if k in schema}
        _add(out, "if", branches)


def _dependencies(schema: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``dependentRequired`` and ``dependentSchemas``, with draft-07's ``dependencies`` split between them."""
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
                dep_schemas[str(prop)] = schema_value(dep)
    return dep_required, dep_schemas
