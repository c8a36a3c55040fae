"""The quick meta-schema walk (generator.schema.plain) never calls a schema valid that jsonschema rejects."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.schema import validation
from generator.schema.plain import plainly_valid

GOLDEN = Path(__file__).parent / "golden"
DRAFT = validation._VALIDATORS["2020-12"]
META = validation._meta_validator(DRAFT)
FORMATS = validation._format_test(DRAFT)

_TEXTS = st.sampled_from(["", "a", "string", "(", "^x$", "#/$defs/a", "https://x.example/s", "a b"])
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-2, 2) | _TEXTS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "b", "x-y"]), inner, max_size=2),
    max_leaves=5,
)
_KEYWORDS = st.sampled_from(
    [
        "type", "title", "description", "format", "default", "const", "enum", "examples", "minimum", "maximum",
        "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "maxLength", "minLength", "maxItems", "minItems",
        "minProperties", "maxContains", "required", "dependentRequired", "pattern", "patternProperties",
        "uniqueItems", "deprecated", "readOnly", "contentMediaType", "$ref", "$schema", "$comment", "$defs", "$id",
        "definitions", "dependencies", "x-vendor", "nullable",
    ]
)  # fmt: skip
_SCHEMA_KEYWORDS = st.sampled_from(
    ["items", "additionalProperties", "not", "if", "then", "contains", "propertyNames", "unevaluatedProperties"]
)
_ARRAY_KEYWORDS = st.sampled_from(["allOf", "anyOf", "oneOf", "prefixItems"])
_MAP_KEYWORDS = st.sampled_from(["properties", "$defs", "dependentSchemas"])
_SIMPLE = st.sampled_from(["string", "integer", "number", "boolean", "null", "array", "object", "str"])
_GOOD_VALUES = st.one_of(
    _SIMPLE, st.lists(_SIMPLE, max_size=3), st.integers(0, 5), st.lists(st.sampled_from(["a", "b"]), max_size=2)
)


def _schemas() -> Any:
    return st.recursive(
        st.booleans() | st.dictionaries(_KEYWORDS, _GOOD_VALUES | _VALUES, max_size=3),
        lambda inner: st.dictionaries(_KEYWORDS, _GOOD_VALUES | _VALUES, max_size=2).flatmap(
            lambda base: st.one_of(
                st.tuples(_SCHEMA_KEYWORDS, inner).map(lambda kv: {**base, kv[0]: kv[1]}),
                st.tuples(_ARRAY_KEYWORDS, st.lists(inner, max_size=2)).map(lambda kv: {**base, kv[0]: kv[1]}),
                st.tuples(_MAP_KEYWORDS, st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2)).map(
                    lambda kv: {**base, kv[0]: kv[1]}
                ),
            )
        ),
        max_leaves=6,
    )


@settings(max_examples=750, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_schemas())
def test_what_the_quick_walk_calls_valid_jsonschema_finds_valid(schema: Any) -> None:
    if plainly_valid(schema, FORMATS):
        assert not list(META.iter_errors(schema)), schema


def _every_schema() -> list[Any]:
    found = []
    for path in sorted(GOLDEN.glob("*.snapshot.json")):
        for tool in json.loads(path.read_text(encoding="utf-8")).get("tools", []):
            found += [tool[key] for key in ("inputSchema", "outputSchema") if key in tool]
    return found


def test_the_real_servers_schemas_mostly_take_the_quick_walk_and_agree() -> None:
    """Every schema of the recorded real servers: same verdict as jsonschema; most need no jsonschema walk."""
    schemas = _every_schema()
    quick = [s for s in schemas if plainly_valid(s, FORMATS)]
    assert all(not list(META.iter_errors(s)) for s in quick)
    assert len(quick) >= len(schemas) * 0.6, (len(quick), len(schemas))


def test_keywords_it_does_not_follow_are_left_to_jsonschema() -> None:
    for schema in (
        {"$id": "https://example.com/a", "type": "string"},
        {"$anchor": "a"},
        {"$ref": 3},
        {"$schema": "not a uri"},
        {"dependencies": {"a": ["b"]}},
        {"minLength": 1.0},  # integral float: jsonschema's integer, left to it
        {"type": "string", "pattern": "("},  # not a regex: invalid
        {"properties": {"a": {"items": [{"type": "string"}]}}},  # an array for items: invalid in 2020-12
    ):
        assert not plainly_valid(schema, FORMATS), schema
    assert plainly_valid({"type": ["string", "null"], "x-vendor": {"$ref": 1}, "pattern": "^a+$"}, FORMATS)
    assert plainly_valid({"$ref": "#/$defs/a", "$defs": {"a": {"type": "string"}}, "$comment": "x"}, FORMATS)
    assert plainly_valid({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}, FORMATS)


def test_the_deprecated_dependencies_keyword_is_checked_not_a_crash() -> None:
    """The one-document meta-schema keeps ``dependencies``' reference to the validation vocabulary's $defs."""
    assert validation.Checker({"dependencies": {"a": ["b"]}, "type": "object"}).error is None
    error = validation.Checker({"dependencies": {"a": 3}}).error
    assert error is not None and "dependencies.a" in error and "Unresolvable" not in error
    draft = "https://json-schema.org/draft/2019-09/schema"
    assert "non-unique" in str(validation.Checker({"$schema": draft, "dependencies": {"a": ["b", "b"]}}).error)


S = {"type": "string"}
BAD = {"type": 5}


@pytest.mark.parametrize(
    ("schema", "quick"),
    [
        ({"description": "x"}, True), ({"description": 1}, False),
        ({"readOnly": True}, True), ({"readOnly": 1}, False),
        ({"enum": [1]}, True), ({"enum": 1}, False),
        ({"minimum": 1.5}, True), ({"minimum": "1"}, False), ({"minimum": True}, False),
        ({"minLength": 0}, True), ({"minLength": -1}, False), ({"minLength": 1.0}, False),
        ({"items": S}, True), ({"items": BAD}, False),
        ({"allOf": [S]}, True), ({"allOf": [S, True]}, True), ({"allOf": []}, False), ({"allOf": [S, BAD]}, False),
        ({"properties": {"a": S}}, True), ({"properties": {"a": BAD}}, False), ({"properties": [S]}, False),
        ({"type": "null"}, True), ({"type": ["string", "null"]}, True), ({"type": "text"}, False),
        ({"type": []}, False), ({"type": ["string", "string"]}, False), ({"type": ["string", "text"]}, False),
        ({"required": ["a", "b"]}, True), ({"required": ["a", "a"]}, False),
        ({"dependentRequired": {"a": ["b"]}}, True), ({"dependentRequired": {"a": [1]}}, False),
        ({"dependentRequired": [["b"]]}, False),
        ({"multipleOf": 0.5}, True), ({"multipleOf": 0}, False), ({"multipleOf": "2"}, False),
        ({"pattern": "^a+$"}, True), ({"pattern": "("}, False),
        ({"patternProperties": {"^a": S}}, True), ({"patternProperties": {"(": S}}, False),
        ({"patternProperties": {"^a": BAD}}, False),
        ({"$ref": "#/$defs/a"}, True), ({"$ref": 1}, False),
        ({"$comment": "x"}, True), ({"$comment": 1}, False),
        ({"x-vendor": {"type": 5}}, True),  # no keyword of the dialect: anything goes
    ],
)  # fmt: skip
def test_each_keyword_it_follows_is_judged_by_its_rule(schema: dict[str, Any], quick: bool) -> None:
    """Valid values take the quick walk (that is its speed); a value the rule refuses never does."""
    assert plainly_valid(schema, FORMATS) is quick
    if quick:
        assert not list(META.iter_errors(schema)), schema
