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

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from generator.jsonutil import _MAX_LIST, is_number, json_equal, json_type, jsonable, summary

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


def _where(path: str) -> str:
    return f"{path!r}" if path else "(root)"


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
