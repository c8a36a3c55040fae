"""Two schemas that must both hold, merged into one (``generator.schema.constraints.merge_schemas``).

The flattener merges ``allOf`` branches and a ``$ref``'s siblings with it; the merge must be sound:
every instance valid under the result is valid under both, and a pair that cannot both hold is None.
Mutation testing (scripts/mutants) showed the keyword rules unpinned, so each has its cases here, and
each merged result is checked against the pair with jsonschema on a few instances.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from generator.schema.constraints import merge_schemas, own_types


def _types(schema: object) -> tuple[str, ...]:
    return own_types(schema) if isinstance(schema, dict) else ()


INSTANCES: list[object] = [None, True, 0, 3, 4, 6, 12, 2.5, -1, "", "ab", "abcdef", [], [1, 1], [1, 2, 3], {}, {"a": 1}]


@pytest.mark.parametrize(
    ("a", "b", "merged"),
    [
        # type: the intersection, integer being the part of number both allow.
        ({"type": "number"}, {"type": "integer"}, {"type": ["integer"]}),
        ({"type": "integer"}, {"type": ["number", "null"]}, {"type": ["integer"]}),
        ({"type": ["string", "null"]}, {"type": ["null", "string"]}, {"type": ["string", "null"]}),
        ({"type": "string"}, {"type": "integer"}, None),
        # required: the union, in order; enum: the values in both.
        ({"required": ["a", "b"]}, {"required": ["b", "c"]}, {"required": ["a", "b", "c"]}),
        ({"enum": [1, 2, 3]}, {"enum": [3, 2, 5]}, {"enum": [2, 3]}),
        ({"enum": [1]}, {"enum": [2]}, None),
        # bounds: the tighter of each.
        ({"minimum": 1}, {"minimum": 3}, {"minimum": 3}),
        ({"maximum": 10}, {"maximum": 4}, {"maximum": 4}),
        ({"exclusiveMinimum": 0}, {"exclusiveMinimum": 2}, {"exclusiveMinimum": 2}),
        ({"maxLength": 5}, {"maxLength": 2}, {"maxLength": 2}),
        ({"minItems": 1}, {"minItems": 2}, {"minItems": 2}),
        ({"minimum": 1}, {"maximum": 4}, {"minimum": 1, "maximum": 4}),
        # multipleOf: the least common multiple of two positive integers; else no sound merge.
        ({"multipleOf": 4}, {"multipleOf": 6}, {"multipleOf": 12}),
        ({"multipleOf": 1}, {"multipleOf": 3}, {"multipleOf": 3}),
        ({"multipleOf": 3}, {"multipleOf": 1}, {"multipleOf": 3}),
        ({"multipleOf": 0}, {"multipleOf": 2}, None),
        ({"multipleOf": 2}, {"multipleOf": 0}, None),
        ({"multipleOf": 0.5}, {"multipleOf": 2}, None),
        ({"multipleOf": 2}, {"multipleOf": -3}, None),
        # uniqueItems: either asks it; additionalProperties false wins; subschemas are kept both.
        ({"uniqueItems": False}, {"uniqueItems": True}, {"uniqueItems": True}),
        ({"uniqueItems": True}, {"uniqueItems": False}, {"uniqueItems": True}),
        (
            {"additionalProperties": {"type": "integer"}},
            {"additionalProperties": False},
            {"additionalProperties": False},
        ),
        ({"additionalProperties": False}, {"additionalProperties": True}, {"additionalProperties": False}),
        (
            {"additionalProperties": {"type": "integer"}},
            {"additionalProperties": {"minimum": 1}},
            {"additionalProperties": {"allOf": [{"type": "integer"}, {"minimum": 1}]}},
        ),
        ({"items": {"type": "integer"}}, {"items": True}, {"items": {"allOf": [{"type": "integer"}, True]}}),
        (
            {"contains": {"const": 1}},
            {"contains": {"type": "integer"}},
            {"contains": {"allOf": [{"const": 1}, {"type": "integer"}]}},
        ),
        (
            {"propertyNames": {"maxLength": 3}},
            {"propertyNames": {"minLength": 1}},
            {"propertyNames": {"allOf": [{"maxLength": 3}, {"minLength": 1}]}},
        ),
        ({"items": {"type": "integer"}}, {"items": [{"type": "integer"}]}, None),
        # properties: a name in both is kept as both, unless their types cannot overlap.
        (
            {"properties": {"a": {"type": "number"}, "b": {}}},
            {"properties": {"a": {"type": "integer"}, "c": {}}},
            {"properties": {"a": {"allOf": [{"type": "number"}, {"type": "integer"}]}, "b": {}, "c": {}}},
        ),
        ({"properties": {"a": {"type": "string"}}}, {"properties": {"a": {"type": "integer"}}}, None),
        (
            {"properties": {"a": {"type": "string"}}},
            {"properties": {"a": {"type": "string"}}},
            {"properties": {"a": {"type": "string"}}},
        ),
        (
            {"properties": {"a": {"description": "x"}}},
            {"properties": {"a": {"minimum": 1}}},
            {"properties": {"a": {"allOf": [{"description": "x"}, {"minimum": 1}]}}},
        ),
        (
            {"properties": {"a": {"type": "string"}, "b": {}}},
            {"properties": {"a": {"type": "string"}}},
            {"properties": {"a": {"type": "string"}, "b": {}}},
        ),
        # additionalProperties false on one side forbids the other's names.
        ({"properties": {"a": {}}, "additionalProperties": False}, {"properties": {"b": {}}}, None),
        ({"properties": {"a": {}}, "additionalProperties": False}, {"required": ["b"]}, None),
        ({"required": ["b"]}, {"properties": {"a": {}}, "additionalProperties": False}, None),
        (
            {"properties": {"a": {}}, "additionalProperties": False},
            {"required": ["a"]},
            {"properties": {"a": {}}, "additionalProperties": False, "required": ["a"]},
        ),
        (
            {"properties": {"a": {}}, "patternProperties": {"^b": {}}, "additionalProperties": False},
            {"properties": {"b1": {}}},
            {"properties": {"a": {}, "b1": {}}, "patternProperties": {"^b": {}}, "additionalProperties": False},
        ),
        # Annotations: the first one's; a keyword the merge cannot combine: no merge.
        (
            {"title": "A", "description": "a"},
            {"title": "B", "default": 1},
            {"title": "A", "description": "a", "default": 1},
        ),
        ({"pattern": "^a"}, {"pattern": "^b"}, None),
        # Where definitions and identity differ, the first schema's are kept: no keyword of an instance.
        ({"$defs": {"a": {"type": "string"}}}, {"$defs": {"b": {}}}, {"$defs": {"a": {"type": "string"}}}),
        ({"definitions": {"a": {}}}, {"definitions": {"b": {}}}, {"definitions": {"a": {}}}),
        ({"$id": "https://example.com/a"}, {"$id": "https://example.com/b"}, {"$id": "https://example.com/a"}),
        (
            {"$schema": "https://json-schema.org/draft/2020-12/schema"},
            {"$schema": "http://json-schema.org/draft-07/schema#"},
            {"$schema": "https://json-schema.org/draft/2020-12/schema"},
        ),
        ({"const": 1}, {"const": 1}, {"const": 1}),
        ({"const": 1}, {"const": 2}, None),  # numbers, but no bound: no min or max of them
        ({"prefixItems": [{"type": "integer"}]}, {"prefixItems": [{"type": "integer"}, {}]}, None),  # lists, no enum
    ],
)
def test_merge_schemas(a: dict[str, Any], b: dict[str, Any], merged: dict[str, Any] | None) -> None:
    found = merge_schemas(a, b, _types)
    if merged is None:
        assert found is None
        return
    assert found == merged
    for instance in INSTANCES:  # sound: what the merge accepts, both accept
        if jsonschema.Draft202012Validator(found).is_valid(instance):
            assert jsonschema.Draft202012Validator(a).is_valid(instance), (found, instance)
            assert jsonschema.Draft202012Validator(b).is_valid(instance), (found, instance)
