"""``generator.schema.unevaluated`` decides ``unevaluatedProperties`` as jsonschema's own keyword does.

The module re-walks the schema with ECMA-262 pattern matching and reaches jsonschema's resolver
through a name jsonschema does not publish; these cases pin both to jsonschema's verdicts on
schemas whose patterns mean the same in Python and in ECMA-262, so a jsonschema release that
changes either fails here.
"""

from __future__ import annotations

from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest

from generator.schema.validation import validate

DIALECTS = {
    "2020-12": ("https://json-schema.org/draft/2020-12/schema", jsonschema.Draft202012Validator),
    "2019-09": ("https://json-schema.org/draft/2019-09/schema", jsonschema.Draft201909Validator),
}

SCHEMAS: list[dict[str, Any]] = [
    {"properties": {"a": {}}, "unevaluatedProperties": False},
    {"patternProperties": {"^x-": {}}, "unevaluatedProperties": False},
    {"allOf": [{"properties": {"a": {}}}], "unevaluatedProperties": False},
    {"anyOf": [{"properties": {"a": {"type": "integer"}}}, {"properties": {"b": {}}}], "unevaluatedProperties": False},
    {"oneOf": [{"required": ["a"], "properties": {"a": {}}}], "unevaluatedProperties": {"type": "string"}},
    {"$defs": {"d": {"properties": {"a": {}}}}, "$ref": "#/$defs/d", "unevaluatedProperties": False},
    {
        "if": {"required": ["a"]},
        "then": {"properties": {"b": {}}},
        "else": {"properties": {"c": {}}},
        "properties": {"a": {}},
        "unevaluatedProperties": False,
    },
    {"dependentSchemas": {"a": {"properties": {"b": {}}}}, "properties": {"a": {}}, "unevaluatedProperties": False},
    {"additionalProperties": {"type": "integer"}, "unevaluatedProperties": False},
    {"allOf": [{"patternProperties": {"^[0-9]+$": {"type": "integer"}}}], "unevaluatedProperties": False},
    # What a subschema's own keywords evaluate: a boolean or a schema, in each dialect (2019-09 counts a key
    # its `additionalProperties` names whether or not the value is valid there).
    {"allOf": [{"additionalProperties": True}], "unevaluatedProperties": False},
    {"allOf": [{"additionalProperties": {"type": "integer"}}], "unevaluatedProperties": False},
    {"allOf": [{"unevaluatedProperties": True}], "unevaluatedProperties": False},
    {"allOf": [{"unevaluatedProperties": {"type": "string"}}], "unevaluatedProperties": False},
    {"allOf": [{"properties": {"a": {"type": "string"}}}], "unevaluatedProperties": False},
    # Through references: one that needs the validator to judge what it evaluates, and one that leads on.
    {
        "$defs": {"d": {"additionalProperties": {"type": "integer"}}},
        "$ref": "#/$defs/d",
        "unevaluatedProperties": False,
    },
    {
        "$defs": {"d": {"$ref": "#/$defs/e"}, "e": {"properties": {"b": {}}}},
        "$ref": "#/$defs/d",
        "unevaluatedProperties": False,
    },
    {"$defs": {"d": {"properties": {"b": {}}}}, "$dynamicRef": "#/$defs/d", "unevaluatedProperties": False},
    {  # 2019-09's $recursiveRef leads to its own resource's root: here x.json, reached through $ref
        "$defs": {
            "x": {"$id": "https://example.com/x.json", "properties": {"b": {}}, "$defs": {"r": {"$recursiveRef": "#"}}}
        },
        "$ref": "https://example.com/x.json#/$defs/r",
        "unevaluatedProperties": False,
    },
    # An invalid branch evaluates nothing; a valid `if` with no `then` still evaluates its own keys.
    {"anyOf": [{"properties": {"a": {"type": "string"}}, "required": ["a"]}, {}], "unevaluatedProperties": False},
    {"if": {"properties": {"a": {}}}, "unevaluatedProperties": False},
    {"properties": {"a": {}}, "unevaluatedProperties": {"type": "integer"}},
    # Each place a schema may sit, holding patterns (matched the ECMA way there too) and, for 2019-09, a
    # keyword whose verdict the dialect counts differently.
    {"properties": {"a": {}}, "patternProperties": {"^x-": {}}, "unevaluatedProperties": False},
    {"$defs": {"d": {"patternProperties": {"^x-": {}}}}, "$ref": "#/$defs/d", "unevaluatedProperties": False},
    {
        "$defs": {"d": {"properties": {"a": {}}}, "e": {"properties": {"b": {}}}},
        "$ref": "#/$defs/d",
        "$dynamicRef": "#/$defs/e",
        "unevaluatedProperties": False,
    },
    {
        "dependentSchemas": {"a": {"patternProperties": {"^x-": {}}, "additionalProperties": {"type": "integer"}}},
        "unevaluatedProperties": False,
    },
    {
        "if": {"patternProperties": {"^x-": {}}, "additionalProperties": {"type": "integer"}},
        "then": {"patternProperties": {"^[0-9]+$": {}}, "additionalProperties": {"type": "integer"}},
        "else": {"patternProperties": {"^x-": {}}, "additionalProperties": {"type": "string"}},
        "unevaluatedProperties": False,
    },
    {"if": {"required": ["a"]}, "else": {"properties": {"c": {}}}, "unevaluatedProperties": False},
    {
        "properties": {"b": {}},
        "if": {"required": ["a"]},
        "else": {"properties": {"c": {}}},
        "unevaluatedProperties": False,
    },
    {
        "allOf": [{"additionalProperties": True, "unevaluatedProperties": {"type": "string"}}],
        "unevaluatedProperties": False,
    },
]

INSTANCES: list[dict[str, Any]] = [
    {},
    {"a": 1},
    {"a": 1, "b": 2},
    {"b": "x"},
    {"c": 1, "a": "s"},
    {"x-1": 1, "y": 2},
    {"12": 3},
    {"12": "three", "a": 1},
    {"d": "only"},
    {"c": 1},
    {"a": 1, "x-1": 2},
    {"x-1": "s", "12": 3},
    {"x-1": 1},
    {"b": 1, "c": 2},
]


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
@pytest.mark.parametrize("index", range(len(SCHEMAS)))
def test_verdicts_match_jsonschema(dialect: str, index: int) -> None:
    uri, stock = DIALECTS[dialect]
    schema = {"$schema": uri, **SCHEMAS[index]}
    for instance in INSTANCES:
        expected = stock(schema).is_valid(instance)
        found = validate(instance, schema)
        assert (found == []) is expected, (schema, instance)
        assert not [m for m in found if m.startswith("schema:")], (schema, instance, found)  # never a crash


def test_patterns_are_matched_the_ecma_way() -> None:
    """``\\d`` in ECMA-262 (with ``u``) is ASCII only; Python's ``re`` also takes other digits."""
    schema = {"patternProperties": {"^\\d+$": {}}, "unevaluatedProperties": False}
    assert validate({"12": 1}, schema) == []
    assert validate({"١٢": 1}, schema) != []  # Arabic-Indic digits: not matched by ECMA-262 \d
    assert jsonschema.Draft202012Validator(schema).is_valid({"١٢": 1})  # Python's re would match them


def test_the_resolver_adapter_holds_on_the_installed_jsonschema() -> None:
    """generator.schema.unevaluated._referenced reads ``validator._resolver`` and passes ``evolve(_resolver=)``,
    the public API jsonschema lacks: both must still be there, and follow a relative ``$ref`` from a
    nested ``$id`` (the base URI only the resolver knows)."""
    from generator.schema.unevaluated import _referenced

    schema: dict[str, Any] = {
        "$id": "https://example.com/root.json",
        "$defs": {"inner": {"$id": "nested/inner.json", "$defs": {"leaf": {"type": "integer"}}}},
    }
    validator: Any = jsonschema.Draft202012Validator(schema)
    assert validator._resolver is not None  # the private name the adapter reads
    at_inner, inner = _referenced(validator, "nested/inner.json")
    assert inner == schema["$defs"]["inner"]
    leaf_validator, leaf = _referenced(at_inner, "#/$defs/leaf")  # relative to nested/inner.json, not the root
    assert leaf == {"type": "integer"}
    assert leaf_validator.is_valid(3) and not leaf_validator.is_valid("3")


# Schemas checked against their dialect's meta-schema. "$anchor" keeps the quick walk (generator.schema.plain)
# out of it, so the verdict is the flattened meta-schema's (validation._meta_validator), which must be jsonschema's:
# the rules for "$id", "$schema", "$comment" and "$vocabulary" included.
META_CASES: list[dict[str, Any]] = [
    {"properties": {"a": {"type": "string", "minLength": 1}}},
    {"properties": {"a": {"type": "strin"}}},
    {"items": {"minLength": -1}},
    {"items": {"$ref": "#"}, "$defs": {"d": {"type": "integer"}}},
    {"$defs": {"d": {"required": "x"}}},
    {"dependencies": {"a": ["b"]}},
    {"dependencies": {"a": [1]}},
    {"dependencies": {"a": {"type": "nope"}}},
    {"dependentSchemas": {"a": {"required": ["b"]}}},
    {"dependentSchemas": {"a": {"required": [2]}}},
    {"allOf": []},
    {"anyOf": [{"maxItems": "3"}]},
    {"not": {"not": {"enum": 5}}},
    {"if": {"const": 1}, "then": {"minimum": "0"}},
    {"contentSchema": {"type": 1}},
    {"unevaluatedProperties": {"minProperties": 1.5}},
    {"propertyNames": {"maxLength": -2}},
    {"format": 5},
    {"title": ["no"]},
    {"$comment": 3},
    {"$comment": "the keywords of the core vocabulary are checked too"},
    {"$schema": 5},
    {"$vocabulary": 1},
    {"$id": "https://example.com/s.json", "properties": {"a": {"$anchor": "ok"}}},
    {"$id": "https://example.com/s.json", "properties": {"a": {"$id": 7}}},
]


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_meta_schema_verdicts_match_jsonschema(dialect: str) -> None:
    uri, stock = DIALECTS[dialect]
    meta = stock(stock.META_SCHEMA)
    verdicts = []
    for case in META_CASES:
        schema = {"$schema": uri, "$anchor": "root", **case}
        expected = meta.is_valid(schema)
        errors = validate(None, schema)
        assert (errors == [] or not errors[0].startswith("schema: ")) is expected, (schema, errors)
        verdicts.append(expected)
    assert verdicts.count(True) >= 6 and verdicts.count(False) >= 16  # both kinds are checked


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_messages_are_jsonschemas(dialect: str) -> None:
    """The keyword's message names the unexpected keys as jsonschema's own does (sorted for ``false``,
    in the instance's order for a schema; "was" for one key, "were" for more)."""
    uri, stock = DIALECTS[dialect]
    compared = 0
    for rule in (False, {"type": "integer"}):
        schema: dict[str, Any] = {"$schema": uri, "properties": {"a": {}}, "unevaluatedProperties": rule}
        for instance in ({"a": 1, "z": "s"}, {"z": "s", "b": "t", "a": 1}):
            expected = [
                e.message for e in stock(schema).iter_errors(instance) if e.validator == "unevaluatedProperties"
            ]
            assert expected
            found = validate(instance, schema)
            assert len(found) == len(expected), (found, expected)
            assert all(m.endswith(e) for m, e in zip(found, expected, strict=True)), (found, expected)
            compared += 1
    assert compared == 4
