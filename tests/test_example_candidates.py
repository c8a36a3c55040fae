"""The candidate values behind ``example_for`` (``generator.schema.example_candidates``), decided case by case.

The example tests check that a generated instance validates, and a valid instance leaves most of the
candidate rules free: a conditional requirement met by a wrong value, an array cut to a different size,
an item that lost its name hint would all still pass. Mutation testing (scripts/mutants) showed those
rules unpinned. Each case here is a schema (as a server would write it where one rule can be seen so, else
built to reach that rule) and the exact instance the generator, which is deterministic, must give for it,
compared as JSON text; where no instance is the answer, the exact reason. The bounds of the search (items,
retries, passes, candidates tried, the budget of validations) are pinned too, where they decide the outcome.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from generator.schema.examples import example_for
from generator.schema.validation import validate

ALL_TYPES = ["string", "integer", "number", "boolean", "object", "array", "null"]
STRING = {"type": "string"}


def costly(properties: int) -> dict[str, Any]:
    """An object schema no instance of which the generator finds, at a known cost: each of its optional
    *properties* rejects all 32 of its candidates under three salts (96 validations), and every property
    is tried three times (with all, then again for ``minProperties``, then with none): 288 per property
    of the 4000 validations one example may spend."""
    return {
        "type": "object",
        "properties": {f"p{i}": {"enum": list(range(32)), "not": {}} for i in range(properties)},
        "minProperties": 1,
        "additionalProperties": False,
    }


def example_json(schema: object, **options: Any) -> str:
    """The example's value as JSON text, after checking that it is ok and validates against *schema*.
    Compared as text, ``1`` differs from ``1.0`` and ``true``, and the order of properties counts."""
    example = example_for(schema, **options)
    assert example.ok, example.reason
    assert validate(example.value, schema) == []
    return json.dumps(example.value)


def reason_of(schema: object, **options: Any) -> str:
    """Why no example is given for *schema*."""
    example = example_for(schema, **options)
    assert not example.ok and example.value is None
    assert example.reason
    return example.reason


# --------------------------------------------------------------------------- where a value comes from


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        # Eight declared examples are tried, no more: the ninth loses to a value typed by the schema.
        ({"type": "integer", "minimum": 100, "examples": [1, 2, 3, 4, 5, 6, 7, 8, 150]}, 100),
        # `example` and `default` are one value each, whatever their type.
        ({"type": "array", "example": ["a", "b"]}, ["a", "b"]),
        ({"type": "string", "example": "hello"}, "hello"),
        ({"type": "integer", "default": 5}, 5),
        # A `true` schema is anything: a string first.
        ({"type": "object", "properties": {"a": True}}, {"a": "example"}),
        # The non-null branch or type first.
        ({"anyOf": [{"type": "null"}, {"type": "string"}]}, "example"),
        ({"type": ["null", "integer"]}, 1),
        # A `false` branch gives nothing; a `true` one gives the keywords beside the union.
        ({"type": "integer", "anyOf": [False, {"examples": [7]}]}, 7),
        ({"type": "integer", "anyOf": [True, {"type": "string"}]}, 1),
    ],
)
def test_candidate_sources(schema: dict[str, Any], value: Any) -> None:
    assert example_json(schema) == json.dumps(value)


def test_an_empty_enum_is_reported_not_crashed_on() -> None:
    assert reason_of({"enum": []}) == "no valid instance found; e.g. 'example' fails: $: 'example' is not one of []"


def test_only_the_first_32_enum_values_are_tried() -> None:
    reason = reason_of({"type": "string", "enum": [*range(32), "x"]})
    assert reason == "no valid instance found; e.g. 0 fails: $: 0 is not of type 'string'"


# --------------------------------------------------------------------------- the type a schema without `type` means


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        # Object keywords.
        ({"minProperties": 1}, {"key1": "example"}),
        ({"maxProperties": 1}, {}),
        ({"additionalProperties": {"type": "integer"}}, {}),
        ({"patternProperties": {"^x": {"type": "integer"}}}, {}),
        ({"properties": {"a": {"type": "integer"}}, "required": ["a"]}, {"a": 1}),
        # Array keywords.
        ({"minItems": 2}, ["example", "example"]),
        ({"maxItems": 1}, ["example"]),
        ({"contains": {"const": 3}}, [3]),
        ({"uniqueItems": True}, ["example"]),
        ({"prefixItems": [{"type": "integer"}]}, [1]),
        ({"items": {"type": "integer"}}, [1]),
        # Number keywords: a number, not the string every one of them would let pass.
        ({"minimum": 5}, 5.0),
        ({"maximum": -3}, -3.0),
        ({"exclusiveMinimum": 5}, 6.0),
        ({"exclusiveMaximum": -3}, -4.0),
        ({"multipleOf": 4}, 0.0),
        # String keywords.
        ({"maxLength": 3}, "exa"),
        ({"pattern": "^ab$"}, "ab"),
        ({"format": "email"}, "alex@example.com"),
        # Nothing to go by: every type in turn, the most readable first.
        ({}, "example"),
        ({"not": {"type": "string"}}, 1),
        ({"not": {"type": ["string", "integer"]}}, True),
        ({"not": {"type": ["string", "integer", "boolean"]}}, {}),
        ({"not": {"type": ["string", "integer", "boolean", "object"]}}, ["example"]),
        ({"not": {"type": ["string", "integer", "boolean", "object", "array"]}}, None),
    ],
)
def test_the_type_is_inferred_from_the_keywords(schema: dict[str, Any], value: Any) -> None:
    assert example_json(schema) == json.dumps(value)


@pytest.mark.parametrize(
    ("keywords", "value"),
    [
        ({"properties": {"a": {"type": "integer"}}}, {"a": 1}),
        ({"patternProperties": {"^a": {"type": "integer"}}}, {}),
        ({"items": {"type": "integer"}}, [1]),
        ({"items": [{"type": "integer"}]}, [1]),
        # draft-03's boolean `required` says the property must be given, nothing of its type.
        ({"required": True}, "example"),
        ({"required": True, "maxLength": 3}, "exa"),
        ({"required": True, "minProperties": 1}, {"key1": "example"}),
    ],
)
def test_draft_03_any_type_is_inferred_from_the_keywords(keywords: dict[str, Any], value: Any) -> None:
    """draft-03's ``"type": "any"`` names no type: the keywords beside it decide, as for a schema without one
    (an object for `properties`, not the string every value of `any` would allow)."""
    schema = {"$schema": "http://json-schema.org/draft-03/schema#", "type": "any", **keywords}
    assert example_json(schema) == json.dumps(value)


@pytest.mark.parametrize(
    ("keyword", "first"),
    [
        ({"minLength": 1}, "example"),
        ({"maxLength": 3}, "exa"),
        ({"pattern": "^a"}, "a"),
        ({"format": "email"}, "alex@example.com"),
    ],
)
def test_string_keywords_mean_a_string_even_where_none_fits(keyword: dict[str, Any], first: str) -> None:
    """Only strings are tried for a schema whose keywords are about strings: when `not` refuses them all,
    no example, rather than a number those keywords happen not to apply to."""
    reason = reason_of({**keyword, "not": {"type": "string"}})
    assert (
        reason
        == f"no valid instance found; e.g. {first!r} fails: $: {first!r} should not be valid under {{'type': 'string'}}"
    )


# --------------------------------------------------------------------------- strings

PAIRS = "^(ab|cd|ef|gh)+$"
"""A pattern the generator draws nine strings from, in this order: ab, abab, ababab, cd, cdcd, cdcdcd, ef..."""


def unique_strings(count: int, **item: Any) -> dict[str, Any]:
    """An array of *count* unique strings, each meeting the keywords *item*."""
    return {"type": "array", "uniqueItems": True, "minItems": count, "items": {"type": "string", **item}}


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        # A pattern that allows the empty string: generated from length 0 up.
        ({"type": "string", "pattern": "^$"}, ""),
        # Pattern strings are generated within maxLength: "y", where the first unbounded ones ("xxx"...) are too long.
        ({"type": "string", "pattern": "^(x{3,}|y)$", "maxLength": 2}, "y"),
        # A pattern the generator cannot draw from (a lookbehind): the description's example fits it.
        ({"type": "string", "pattern": "(?<=x)y", "description": "e.g. xy"}, "xy"),
        # A format the generator does not know: the name's hint.
        ({"type": "string", "format": "no-such-format"}, "example"),
        # Encoded content: the hint in base64; JSON content: an empty object.
        ({"type": "string", "contentEncoding": "base64"}, "ZXhhbXBsZQ=="),
        ({"type": "string", "contentMediaType": "application/json"}, "{}"),
        # When every hint is refused, "example" is the last resort, cut to maxLength like the hints.
        (
            {
                "type": "object",
                "properties": {"query": {"type": "string", "maxLength": 3, "allOf": [{"not": {"const": "qua"}}]}},
            },
            {"query": "exa"},
        ),
        # Eight hints are tried: the ninth value the description lists is not, "example" is.
        (
            {
                "type": "string",
                "description": "One of (a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)",
                "allOf": [{"not": {"enum": ["a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8"]}}],
            },
            "example",
        ),
        # Unique items: each takes the next value the array's description lists (two or more of them)...
        ({**unique_strings(2), "description": "One of (status, history)"}, ["status", "history"]),
        ({**unique_strings(3), "description": "One of (status, history, restart)"}, ["status", "history", "restart"]),
        # ...or, with one hint, the hint numbered.
        (unique_strings(3), ["example", "example 2", "example 3"]),
        # ...or the next string of the pattern: item i asks for i + 1 of them and takes the last.
        (unique_strings(3, pattern="^[a-z]{1,8}$", maxLength=2), ["a", "ab", "ac"]),
        (unique_strings(7, pattern=PAIRS), ["ab", "abab", "ababab", "cd", "cdcd", "cdcdcd", "ef"]),
        # A refused pattern string gives way to the next generated (for item 2: "ab", a repeat, so a retry).
        (unique_strings(3, pattern=PAIRS, allOf=[{"not": {"const": "ababab"}}]), ["ab", "abab", "cdcdcd"]),
        (
            unique_strings(6, pattern=PAIRS, allOf=[{"not": {"const": "cdcdcd"}}]),
            ["ab", "abab", "ababab", "cd", "cdcd", "ghghgh"],
        ),
    ],
)
def test_strings(schema: dict[str, Any], value: Any) -> None:
    assert example_json(schema) == json.dumps(value)


# --------------------------------------------------------------------------- numbers

DRAFT_04 = "http://json-schema.org/draft-04/schema#"


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        # No hint: 1.5 for a number, whole numbers for an integer.
        ({"type": "number"}, 1.5),
        # Unique items walk the candidates: the hint, one and two units either side, 0 and 1 (nearest first).
        (
            {"type": "array", "uniqueItems": True, "minItems": 7, "items": {"type": "number"}},
            [1.5, 1.0, 2.5, 0.5, 0.0, 3.5, -0.5],
        ),
        # Past those, each further item steps on one unit: up where the range allows, else down...
        (
            {"type": "array", "uniqueItems": True, "minItems": 10, "items": {"type": "integer"}},
            [1, 2, 0, 3, -1, 4, 5, 6, 7, 8],
        ),
        (
            {"type": "array", "uniqueItems": True, "minItems": 3, "items": {"type": "integer", "exclusiveMinimum": 5}},
            [6, 7, 8],
        ),
        (
            {
                "type": "array",
                "uniqueItems": True,
                "minItems": 8,
                "items": {"type": "integer", "maximum": 5, "multipleOf": 3},
            },
            [0, 3, -3, -6, -9, -12, -15, -18],
        ),
        # ...in steps of multipleOf.
        (
            {
                "type": "array",
                "uniqueItems": True,
                "minItems": 12,
                "items": {"type": "integer", "minimum": 0, "multipleOf": 3},
            },
            [0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33],
        ),
        # ...in steps of multipleOf, snapped up to a multiple.
        (
            {"type": "array", "uniqueItems": True, "minItems": 3, "items": {"type": "number", "multipleOf": 0.5}},
            [1.5, 2.0, 1.0],
        ),
        # ...and the bound and the two units past it, an exclusive bound itself left out.
        (
            {"type": "array", "uniqueItems": True, "minItems": 2, "items": {"type": "number", "exclusiveMinimum": 5}},
            [6.0, 7.0],
        ),
        (
            {"type": "array", "uniqueItems": True, "minItems": 2, "items": {"type": "number", "exclusiveMaximum": -3}},
            [-4.0, -5.0],
        ),
        # Inside the bounds first, nearest the hint first: 5, 6, 7 from an inclusive minimum.
        (
            {"type": "array", "uniqueItems": True, "minItems": 3, "items": {"type": "number", "minimum": 5}},
            [5.0, 6.0, 7.0],
        ),
        (
            {"type": "array", "uniqueItems": True, "minItems": 3, "items": {"type": "number", "maximum": -3}},
            [-3.0, -4.0, -5.0],
        ),
        # Far from the hint, the bound's multiples of multipleOf: 102 and 105 (a unit is three).
        (
            {
                "type": "array",
                "uniqueItems": True,
                "minItems": 2,
                "items": {"type": "number", "minimum": 100, "multipleOf": 3},
            },
            [102.0, 105.0],
        ),
        # Between two bounds the midpoint (5) comes after the candidates nearer the hint.
        (
            {
                "type": "array",
                "uniqueItems": True,
                "minItems": 7,
                "items": {"type": "number", "minimum": 0, "maximum": 10},
            },
            [1.5, 1.0, 2.0, 2.5, 0.5, 0.0, 3.5],
        ),
        # A salt picks a start in the whole list of candidates, out-of-range ones included: the inner arrays
        # share their outer item's salt, and item 3 starts past 5 and 6, comes round, and takes 5 again.
        (
            {
                "type": "array",
                "uniqueItems": True,
                "minItems": 4,
                "items": {
                    "type": "array",
                    "prefixItems": [{"type": "integer", "minimum": 5, "maximum": 6}, {"type": "integer"}],
                },
            },
            [[5, 1], [6, 2], [5, 0], [5, 3]],
        ),
        # The multiples of multipleOf inside the bounds, fractional ones included.
        ({"type": "number", "minimum": 1, "multipleOf": 5}, 5.0),
        ({"type": "integer", "minimum": 1, "multipleOf": 5}, 5),
        ({"type": "number", "minimum": 1.6, "multipleOf": 0.5}, 2.0),
        # A fraction is the decimal the server wrote: the integer multiples of 0.4 (2/5) are the even numbers.
        ({"type": "integer", "multipleOf": 0.4}, 2),
        ({"type": "integer", "minimum": 3, "multipleOf": 0.4}, 4),
        ({"type": "number", "minimum": 0.1, "exclusiveMaximum": 0.3, "multipleOf": 0.01}, 0.2),
        # draft-03 knows no multipleOf (it has divisibleBy): a zero or negative one is no step.
        ({"$schema": "http://json-schema.org/draft-03/schema#", "type": "number", "multipleOf": 0}, 1.5),
        ({"$schema": "http://json-schema.org/draft-03/schema#", "type": "integer", "multipleOf": 0}, 1),
        ({"$schema": "http://json-schema.org/draft-03/schema#", "type": "number", "multipleOf": -2}, 1.5),
        # A number is offered as a float, then as an int: 1.5 refused, 1.0 is next (and 1 after it).
        ({"type": "number", "allOf": [{"not": {"const": 1.5}}]}, 1.0),
        # draft-04 tells 1 from 1.0: only the int is an integer, and it is tried after the float is refused.
        ({"$schema": DRAFT_04, "type": "number", "not": {"not": {"type": "integer"}}}, 1),
        # Up to 1000 bits a whole number is a float first too; past that only the int (no float would hold it).
        ({"type": "number", "minimum": 2**999}, float(2**999)),
        ({"type": "number", "minimum": 2**1000}, 2**1000),
        # The name or the description suggests the number; a whole one reads as an int even for `number`.
        (
            {"type": "object", "properties": {"x": {"type": "number", "description": "Delay in milliseconds"}}},
            {"x": 1000},
        ),
        ({"type": "object", "properties": {"pageId": {"type": "number"}}}, {"pageId": 42}),
        # A fractional hint (temperature 0.7) keeps whole candidates in number form.
        ({"type": "object", "properties": {"temperature": {"type": "number", "minimum": 1}}}, {"temperature": 1.0}),
        # draft-04's boolean exclusiveMinimum/exclusiveMaximum make the bound exclusive: unique items 6 and 7
        # (with the bound taken as inclusive, 5 would come first and item 1 would repeat 6).
        (
            {
                "$schema": DRAFT_04,
                "type": "array",
                "uniqueItems": True,
                "minItems": 2,
                "items": {"type": "integer", "minimum": 5, "exclusiveMinimum": True},
            },
            [6, 7],
        ),
        (
            {
                "$schema": DRAFT_04,
                "type": "array",
                "uniqueItems": True,
                "minItems": 2,
                "items": {"type": "integer", "maximum": -5, "exclusiveMaximum": True},
            },
            [-6, -7],
        ),
    ],
)
def test_numbers(schema: dict[str, Any], value: Any) -> None:
    assert example_json(schema) == json.dumps(value)


# --------------------------------------------------------------------------- requirements stated in prose

EITHER = "Give either `text` or `regex`."


@pytest.mark.parametrize(
    ("schema", "prose", "value"),
    [
        pytest.param(
            # The object's own description states the requirement: the first of the two is sent.
            {
                "type": "object",
                "description": EITHER,
                "properties": {"x": STRING, "text": STRING, "regex": STRING},
                "required": ["x"],
            },
            "",
            {"x": "example", "text": "Hello, world!"},
            id="own-description",
        ),
        pytest.param(
            # The tool's description speaks of the root object only, not of the objects inside it.
            {
                "type": "object",
                "properties": {
                    "filter": {
                        "type": "object",
                        "properties": {"x": STRING, "text": STRING, "regex": STRING},
                        "required": ["x"],
                    }
                },
                "required": ["filter"],
            },
            EITHER,
            {"filter": {"x": "example"}},
            id="prose-not-for-nested-objects",
        ),
        pytest.param(
            # A stated property gets a value rather than null where its schema allows one...
            {
                "type": "object",
                "properties": {"x": STRING, "text": {"enum": [None, "fast"]}, "regex": STRING},
                "required": ["x"],
            },
            EITHER,
            {"x": "example", "text": "fast"},
            id="stated-value-not-null",
        ),
        pytest.param(
            # ...and null where that is all there is.
            {
                "type": "object",
                "properties": {"x": STRING, "text": {"type": "null"}, "regex": STRING},
                "required": ["x"],
            },
            EITHER,
            {"x": "example", "text": None},
            id="stated-null-where-nothing-else",
        ),
        pytest.param(
            # A stated property that was added starts another pass, in which it triggers its dependency (`c`,
            # undeclared); the full plan is no way round, since `w` is refused.
            {
                "type": "object",
                "properties": {"a": STRING, "b": STRING, "z": STRING, "w": STRING},
                "required": ["a"],
                "additionalProperties": STRING,
                "dependentRequired": {"b": ["c"]},
                "not": {"required": ["w"]},
            },
            "Give either `b` or `z`.",
            {"a": "example", "b": "example", "c": "example"},
            id="stated-property-triggers-a-dependency",
        ),
        pytest.param(
            # ...even when a later stated property (`y`) could not be added.
            {
                "type": "object",
                "properties": {"a": STRING, "b": STRING, "z": STRING, "y": {"not": {}}, "q": STRING, "w": STRING},
                "required": ["a"],
                "additionalProperties": STRING,
                "dependentRequired": {"b": ["c"]},
                "not": {"required": ["w"]},
            },
            "Give either `b` or `z`. Give either `y` or `q`.",
            {"a": "example", "b": "example", "c": "example"},
            id="stated-change-survives-a-later-failure",
        ),
    ],
)
def test_stated_requirements(schema: dict[str, Any], prose: str, value: Any) -> None:
    assert example_json(schema, prose=prose) == json.dumps(value)


# --------------------------------------------------------------------------- booleans and integers


NOT_FALSE = {"type": "boolean", "allOf": [{"not": {"const": False}}]}


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"type": "integer"}, 1),
        ({"type": "boolean"}, True),
        # Both values are tried (no salt retries here: the `not` is inside allOf).
        ({"type": "boolean", "allOf": [{"not": {"const": True}}]}, False),
        # An even salt offers true first, an odd one false first: unique items 1 and 2 of an array.
        ({"type": "array", "uniqueItems": True, "prefixItems": [{"const": "a"}, {"type": "boolean"}]}, ["a", False]),
        (
            {
                "type": "array",
                "uniqueItems": True,
                "prefixItems": [{"const": "a"}, {"const": "b"}, {"type": "boolean"}],
            },
            ["a", "b", True],
        ),
        ({"type": "array", "uniqueItems": True, "prefixItems": [{"const": False}, NOT_FALSE]}, [False, True]),
    ],
)
def test_booleans_and_integers(schema: dict[str, Any], value: Any) -> None:
    assert example_json(schema) == json.dumps(value)


# --------------------------------------------------------------------------- which properties an object shows


@pytest.mark.parametrize(
    ("schema", "options", "value"),
    [
        pytest.param(
            # draft-03 marks a required property in its own schema (`required: false` is optional): only `a`.
            {
                "$schema": "http://json-schema.org/draft-03/schema#",
                "type": "object",
                "properties": {"a": {"type": "string", "required": True}, "b": {"type": "integer", "required": False}},
            },
            {},
            {"a": "example"},
            id="draft-03-required-flag",
        ),
        pytest.param(
            # An optional `true` schema documents nothing: not shown beside the required property.
            {"type": "object", "properties": {"a": STRING, "b": True}, "required": ["a"]},
            {},
            {"a": "example"},
            id="true-property-is-not-documented",
        ),
        pytest.param(
            # An optional property with a (singular) example is documented: shown.
            {"type": "object", "properties": {"a": STRING, "b": {"type": "string", "example": "x"}}, "required": ["a"]},
            {},
            {"a": "example", "b": "x"},
            id="example-documents-a-property",
        ),
        pytest.param(
            # prefer_optional: every property first; `c` is refused, so required and documented ones next...
            {
                "type": "object",
                "properties": {"a": STRING, "b": {"type": "string", "default": "x"}, "c": STRING},
                "required": ["a"],
                "not": {"required": ["c"]},
            },
            {"prefer_optional": True},
            {"a": "example", "b": "x"},
            id="prefer-optional-then-documented",
        ),
        pytest.param(
            # ...and the required ones alone last.
            {
                "type": "object",
                "properties": {"a": STRING, "b": {"type": "string", "default": "x"}, "c": STRING},
                "required": ["a"],
                "not": {"anyOf": [{"required": ["b"]}, {"required": ["c"]}]},
            },
            {"prefer_optional": True},
            {"a": "example"},
            id="prefer-optional-then-required",
        ),
        pytest.param(
            # A call that requires something shows what it requires, even a knob with a default: the point of
            # the tool (`query`) is added only to calls that require nothing.
            {
                "type": "object",
                "properties": {"mode": {"type": "string", "default": "fast"}, "query": STRING},
                "required": ["mode"],
            },
            {},
            {"mode": "fast"},
            id="required-knob-gets-no-point-added",
        ),
        pytest.param(
            # Inside recursion an object is minimal: the nested node has its required properties only (no `extra`).
            {
                "$defs": {
                    "node": {
                        "type": "object",
                        "properties": {
                            "name": STRING,
                            "extra": {"type": "integer"},
                            "next": {"anyOf": [{"$ref": "#/$defs/node"}, {"type": "null"}]},
                        },
                        "required": ["name", "next"],
                    }
                },
                "$ref": "#/$defs/node",
            },
            {},
            {"name": "my-item", "next": {"name": "my-next", "next": None}},
            id="recursion-is-minimal",
        ),
        pytest.param(
            # The object's own description says the two are alternatives: one is sent.
            {
                "type": "object",
                "description": "Give either `text` or `regex`.",
                "properties": {"text": STRING, "regex": STRING},
            },
            {},
            {"text": "Hello, world!"},
            id="own-description-makes-alternatives",
        ),
        pytest.param(
            # ...at any depth.
            {
                "type": "object",
                "properties": {
                    "filter": {
                        "type": "object",
                        "description": "Give either `text` or `regex`.",
                        "properties": {"text": STRING, "regex": STRING},
                    }
                },
                "required": ["filter"],
            },
            {},
            {"filter": {"text": "Hello, world!"}},
            id="nested-description-makes-alternatives",
        ),
        pytest.param(
            # The tool's description (prose) speaks of its arguments, the root object...
            {"type": "object", "properties": {"text": STRING, "regex": STRING}},
            {"prose": "Give either `text` or `regex`."},
            {"text": "Hello, world!"},
            id="prose-makes-alternatives-at-the-root",
        ),
        pytest.param(
            # ...not of the objects inside it.
            {
                "type": "object",
                "properties": {"filter": {"type": "object", "properties": {"text": STRING, "regex": STRING}}},
                "required": ["filter"],
            },
            {"prose": "Give either `text` or `regex`."},
            {"filter": {"text": "Hello, world!", "regex": "example"}},
            id="prose-says-nothing-of-nested-objects",
        ),
        pytest.param(
            # Of a chain of alternatives (a|b, b|c) the second of the first pair goes, and with it the second
            # pair, which no longer has both: `a` and `c` are sent.
            {"type": "object", "properties": {"a": STRING, "b": STRING, "c": STRING}},
            {"prose": "Give either `a` or `b`. Give either `b` or `c`."},
            {"a": "example", "c": "example"},
            id="chain-of-alternatives",
        ),
        pytest.param(
            # A pair only decides when both are in the plan: the documented `b` alone stays.
            {"type": "object", "properties": {"a": STRING, "b": {"type": "string", "default": "x"}}},
            {"prose": "Give either `a` or `b`."},
            {"b": "x"},
            id="alternative-alone-stays",
        ),
        pytest.param(
            # Of two alternatives the optional one goes when the other is required.
            {
                "type": "object",
                "properties": {"a": {"type": "string", "default": "x"}, "b": STRING, "c": STRING},
                "required": ["b"],
            },
            {"prose": "Give either `a` or `b`."},
            {"b": "example"},
            id="alternative-of-a-required-one-goes",
        ),
        pytest.param(
            # A call that requires nothing and documents only knobs gets its point added: the first property
            # the caller chooses (no default) named like one. A connection setting (`tenant_id`) is not one.
            {
                "type": "object",
                "properties": {"limit": {"type": "integer", "default": 10}, "tenant_id": STRING, "query": STRING},
            },
            {},
            {"limit": 10, "query": "quarterly report"},
            id="point-is-added-not-a-setting",
        ),
        pytest.param(
            # A documented property named like the point does not count as the point: `id` is added.
            {"type": "object", "properties": {"query": {"type": "string", "default": "cats"}, "id": STRING}},
            {},
            {"query": "cats", "id": "abc123"},
            id="point-is-added-beside-a-documented-query",
        ),
        pytest.param(
            # A name is read in its first 100 characters (bounded regex work): these end in "id", so it is a point.
            {"type": "object", "properties": {"limit": {"type": "integer", "default": 10}, "a" * 98 + "ids": STRING}},
            {},
            {"limit": 10, "a" * 98 + "ids": "example"},
            id="point-name-read-in-100-characters",
        ),
        pytest.param(
            # A property with an example is no mere knob, even with a default: no point is added.
            {
                "type": "object",
                "properties": {"a": {"type": "string", "example": "x", "default": "y"}, "query": STRING},
            },
            {},
            {"a": "x"},
            id="example-is-not-a-knob",
        ),
        pytest.param(
            # ...nor one with `examples`.
            {
                "type": "object",
                "properties": {"a": {"type": "string", "examples": ["x"], "default": "y"}, "query": STRING},
            },
            {},
            {"a": "x"},
            id="examples-is-not-a-knob",
        ),
        pytest.param(
            # max_optional keeps the properties with examples first, then those the caller chooses, in order:
            # `a` and `b`, not `c` (every plan before the full one has too few properties for the `not`).
            {
                "type": "object",
                "properties": {"b": STRING, "c": STRING, "a": {"type": "string", "examples": ["x"]}},
                "not": {"maxProperties": 1},
            },
            {"max_optional": 2},
            {"b": "example", "a": "x"},
            id="max-optional-keeps-examples-first",
        ),
        pytest.param(
            # A connection setting is found in the first 100 characters of a name: this one ends in "tl", a choice.
            {"type": "object", "properties": {"a" * 98 + "tls": STRING, "b": STRING}},
            {"max_optional": 1},
            {"a" * 98 + "tls": "example"},
            id="setting-name-read-in-100-characters",
        ),
        pytest.param(
            # max_optional ranks a `true` property like one the caller chooses: kept first, in order.
            {"type": "object", "properties": {"a": True, "b": STRING, "c": STRING}},
            {"max_optional": 1},
            {"a": "example"},
            id="max-optional-ranks-a-true-property",
        ),
        pytest.param(
            # max_optional caps the optional properties unless prefer_optional asks for them all.
            {"type": "object", "properties": {"a": STRING, "b": STRING, "c": STRING}},
            {"prefer_optional": True, "max_optional": 1},
            {"a": "example", "b": "example", "c": "example"},
            id="prefer-optional-overrides-max-optional",
        ),
        pytest.param(
            # maxProperties drops the last optional properties before the object is built.
            {"type": "object", "properties": {"a": STRING, "b": STRING}, "maxProperties": 1},
            {},
            {"a": "example"},
            id="max-properties-drops-the-last",
        ),
        pytest.param(
            # ...and only as many as it must: none at two or more.
            {"type": "object", "properties": {"a": STRING, "b": STRING}, "maxProperties": 2},
            {},
            {"a": "example", "b": "example"},
            id="max-properties-two-keeps-both",
        ),
        pytest.param(
            {"type": "object", "properties": {"a": STRING, "b": STRING}, "maxProperties": 5},
            {},
            {"a": "example", "b": "example"},
            id="max-properties-five-keeps-both",
        ),
        pytest.param(
            # maxProperties 0: the optional property is dropped before it is solved (it would spend the budget).
            {"type": "object", "properties": {"a": costly(15)}, "maxProperties": 0},
            {},
            {},
            id="max-properties-zero-solves-nothing",
        ),
        pytest.param(
            # The required-only plan repeats the first (nothing is documented) and is skipped, not the end:
            # every property is tried next.
            {
                "type": "object",
                "properties": {"a": STRING, "b": STRING},
                "required": ["a"],
                "not": {"maxProperties": 1},
            },
            {},
            {"a": "example", "b": "example"},
            id="repeated-plan-is-skipped",
        ),
    ],
)
def test_object_properties(schema: dict[str, Any], options: dict[str, Any], value: Any) -> None:
    assert example_json(schema, **options) == json.dumps(value)


# --------------------------------------------------------------------------- minProperties


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        pytest.param(
            # No minProperties: an object with nothing to show is empty, no invented key.
            {"type": "object"},
            {},
            id="no-min-properties",
        ),
        pytest.param(
            # The declared properties fill up to minProperties, in order, and no further.
            {
                "type": "object",
                "properties": {"a": STRING, "b": STRING, "c": STRING},
                "required": ["a"],
                "minProperties": 2,
            },
            {"a": "example", "b": "example"},
            id="declared-properties-fill-min-properties",
        ),
        pytest.param(
            # Extra properties allowed in so many words: a generic key.
            {"type": "object", "minProperties": 1, "additionalProperties": True},
            {"key1": "example"},
            id="generic-key-where-extras-are-allowed",
        ),
        pytest.param(
            # Invented keys come from propertyNames, solved as a string named "key" (its hint, "api-key")...
            {"type": "object", "minProperties": 1, "propertyNames": {"minLength": 2}},
            {"api-key": "abc123"},
            id="key-from-property-names",
        ),
        pytest.param(
            # ...eight of them at most (salts 0-7), then the generic key1.
            {"type": "object", "minProperties": 9, "propertyNames": {"minLength": 2}},
            {**{"api-key": "abc123"}, **{f"api-key {i}": "abc123" for i in range(2, 9)}, "key1": "example"},
            id="eight-keys-from-property-names",
        ),
        pytest.param(
            # A key is a string: an enum's numbers never make one.
            {"type": "object", "minProperties": 1, "propertyNames": {"enum": [1, 2, 3, 4, 5, 6, 7, 8, "ab"]}},
            {"ab": "example"},
            id="property-names-give-strings",
        ),
        pytest.param(
            # A key drawn from a pattern that propertyNames refuses ("a") is passed over for the next ("bb").
            {
                "type": "object",
                "minProperties": 1,
                "patternProperties": {"^a$": {"type": "string"}, "^bb$": {"type": "string"}},
                "propertyNames": {"pattern": "(?<=b)b"},
            },
            {"bb": "example"},
            id="refused-key-is-passed-over",
        ),
        pytest.param(
            # draft-04 does not check patternProperties' keys: `\Z` is no ECMA-262 pattern and is passed over
            # when the value of `n` is looked up, so `^n` gives its schema.
            {
                "$schema": DRAFT_04,
                "type": "object",
                "patternProperties": {"\\Z": {"type": "string"}, "^n": {"type": "integer"}},
                "minProperties": 1,
            },
            {"n": 1},
            id="undecidable-pattern-is-passed-over",
        ),
    ],
)
def test_min_properties(schema: dict[str, Any], value: Any) -> None:
    assert example_json(schema) == json.dumps(value)


@pytest.mark.parametrize(
    "schema",
    [
        # minProperties 1: one generic key (key1) is tried, not key2, which alone meets propertyNames.
        pytest.param(
            {"type": "object", "minProperties": 1, "propertyNames": {"pattern": "(?<=y)2"}}, id="one-generic-key"
        ),
        # ...and one key drawn from each pattern ("a"), not "aa", the first that meets propertyNames.
        pytest.param(
            {
                "type": "object",
                "minProperties": 1,
                "patternProperties": {"^a+$": {"type": "string"}},
                "propertyNames": {"pattern": "(?<=a)a"},
            },
            id="one-key-per-pattern",
        ),
    ],
)
def test_min_properties_tries_as_many_keys_as_it_needs(schema: dict[str, Any]) -> None:
    """Invented keys are bounded: as many generic keys, and as many from each pattern, as minProperties asks
    for (besides those solved from propertyNames, which the generator cannot draw from a lookbehind)."""
    assert reason_of(schema) == "no valid instance found; e.g. {} fails: $: {} should be non-empty"


# --------------------------------------------------------------------------- conditional requirements


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        pytest.param(
            # The branch's own property list names `b`, but only what it requires (`query`) is added.
            {
                "type": "object",
                "properties": {"a": {"type": "string"}, "b": {"type": "integer"}, "query": {"type": "integer"}},
                "required": ["a"],
                "if": {"required": ["a"]},
                "then": {"required": ["query"], "properties": {"b": {"type": "integer"}}},
            },
            {"a": "example", "query": 1},
            id="then-adds-what-it-requires-from-the-declared-schema",
        ),
        pytest.param(
            # The added property keeps its name: its hint, not the bare "example".
            {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "query": {"type": "string"}},
                "required": ["a"],
                "dependentRequired": {"a": ["query"]},
            },
            {"a": 1, "query": "quarterly report"},
            id="dependent-required-value-keeps-its-name-hint",
        ),
        pytest.param(
            # null is a value: a required property whose only value is null is added as null.
            {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "required": ["a"],
                "additionalProperties": {"type": "null"},
                "dependentRequired": {"a": ["c"]},
            },
            {"a": "example", "c": None},
            id="dependent-required-null-value-is-added",
        ),
        pytest.param(
            # A branch the object already meets changes nothing: its `examples` are not taken up.
            {
                "type": "object",
                "properties": {"query": {"type": "string"}},
                "required": ["query"],
                "if": {"required": ["query"]},
                "then": {"properties": {"query": {"examples": ["other"]}}},
            },
            {"query": "quarterly report"},
            id="met-branch-leaves-values-alone",
        ),
        pytest.param(
            # A branch only `a` outside JSON could meet: `a` is left out rather than given a placeholder.
            {
                "type": "object",
                "properties": {"b": {"type": "integer"}, "a": {"default": "x"}},
                "required": ["b"],
                "if": {"required": ["a"]},
                "then": {"properties": {"a": {"not": {"type": ALL_TYPES}}}},
            },
            {"b": 1},
            id="impossible-branch-drops-the-property",
        ),
        pytest.param(
            # The branch's value for `a` cannot be found: the object goes without `a` instead of failing.
            {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "if": {"required": ["a"]},
                "then": {"properties": {"a": {"const": 5}}},
            },
            {},
            id="unsolvable-branch-falls-back-to-fewer-properties",
        ),
        pytest.param(
            # A chain of dependencies listed last to first takes one pass each: b, then c, then d (the extra
            # properties are not declared, so no plan of declared properties can supply them).
            {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "required": ["a"],
                "additionalProperties": {"type": "string"},
                "dependentRequired": {"c": ["d"], "b": ["c"], "a": ["b"]},
            },
            {"a": "example", "b": "example", "c": "example", "d": "example"},
            id="dependency-chain-three-passes",
        ),
        pytest.param(
            # A pass that adds something is followed by another, whatever the met if/then and the descriptions say.
            {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "required": ["a"],
                "additionalProperties": {"type": "string"},
                "dependentRequired": {"b": ["c"], "a": ["b"]},
                "if": {"required": ["a"]},
                "then": {"required": ["a"]},
            },
            {"a": "example", "b": "example", "c": "example"},
            id="dependency-chain-beside-a-met-condition",
        ),
        pytest.param(
            # A dependency whose trigger is absent is skipped, not the end of the list.
            {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "required": ["a"],
                "additionalProperties": {"type": "string"},
                "dependentRequired": {"x": ["a"], "a": ["query"]},
            },
            {"a": "example", "query": "quarterly report"},
            id="absent-trigger-is-skipped",
        ),
        pytest.param(
            # Three passes at most: a chain of four is not completed, so the optional trigger `a` is left out.
            {
                "type": "object",
                "properties": {"r": {"type": "string"}, "a": {"type": "string", "default": "x"}},
                "required": ["r"],
                "additionalProperties": {"type": "string"},
                "dependentRequired": {"d": ["e"], "c": ["d"], "b": ["c"], "a": ["b"]},
            },
            {"r": "example"},
            id="three-passes-at-most",
        ),
        pytest.param(
            # draft-03: `required: true` in a dependency's schema is a flag, not a list of names to add.
            {
                "$schema": "http://json-schema.org/draft-03/schema#",
                "type": "object",
                "properties": {"a": {"type": "string", "required": True}, "b": {"type": "integer"}},
                "dependencies": {"a": {"required": True, "properties": {"b": {"type": "integer", "required": True}}}},
            },
            {"a": "example", "b": 1},
            id="draft-03-required-flag-in-a-dependency",
        ),
    ],
)
def test_conditional_requirements(schema: dict[str, Any], value: Any) -> None:
    assert example_json(schema) == json.dumps(value)


# --------------------------------------------------------------------------- arrays


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        pytest.param(
            {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "items": False},
            [1, "example"],
            id="prefix-items",
        ),
        pytest.param(
            {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "array",
                "items": [{"type": "integer"}, {"type": "string"}],
            },
            [1, "example"],
            id="draft-07-tuple-items",
        ),
        pytest.param(
            # maxItems cuts the tuple before it is built: the first two, not an empty array.
            {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}, {"type": "boolean"}],
                "maxItems": 2,
            },
            [1, "example"],
            id="max-items-cuts-the-prefix",
        ),
        pytest.param(
            # Only the first minContains items after the prefix are asked to match `contains`.
            {"type": "array", "items": {"type": "integer"}, "contains": {"const": 5}, "minItems": 3},
            [5, 1, 1],
            id="contains-only-the-first-item",
        ),
        pytest.param(
            {
                "type": "array",
                "prefixItems": [{"type": "string"}],
                "items": {"type": "integer"},
                "contains": {"const": 5},
                "minContains": 2,
                "minItems": 3,
            },
            ["example", 5, 5],
            id="contains-counted-after-the-prefix",
        ),
        pytest.param(
            # ...so the array holds the prefix and then minContains items, with no minItems to ask it.
            {"type": "array", "prefixItems": [{"type": "string"}], "contains": {"const": 5}, "minContains": 2},
            ["example", 5, 5],
            id="contains-sized-after-the-prefix",
        ),
        pytest.param(
            # The second size tried is the least the keywords allow: no item at all, the prefix included.
            {"type": "array", "prefixItems": [{"type": "integer"}], "not": {"minItems": 1}},
            [],
            id="least-size-leaves-out-the-prefix",
        ),
        pytest.param(
            # draft-07: the items after the tuple follow additionalItems.
            {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "array",
                "items": [{"type": "integer"}, {"type": "string"}],
                "additionalItems": {"type": "boolean"},
                "minItems": 3,
            },
            [1, "example", True],
            id="draft-07-additional-items",
        ),
        pytest.param(
            # Unique items: item i asks for its own salt, the i-th value of the enum.
            {"type": "array", "uniqueItems": True, "minItems": 3, "items": {"enum": ["a", "b", "c", "d"]}},
            ["a", "b", "c"],
            id="unique-items-take-the-next-enum-value",
        ),
        pytest.param(
            # Items that may repeat are all the first value: no retries, no rotation.
            {"type": "array", "minItems": 3, "items": {"enum": ["a", "b", "c"]}},
            ["a", "a", "a"],
            id="repeatable-items-are-all-alike",
        ),
        pytest.param(
            # "b" is refused, so item 1 falls on "c" and item 2 ("c" again) is retried with salt 2 + 3 = 5.
            {
                "type": "array",
                "uniqueItems": True,
                "minItems": 3,
                "items": {"enum": ["a", "b", "c", "d", "e", "f", "g"], "not": {"const": "b"}},
            },
            ["a", "c", "f"],
            id="unique-item-retried-with-another-salt",
        ),
        pytest.param(
            # No item can be made: the one-item array is given up and the empty one is next.
            {"type": "array", "items": {"not": {}}},
            [],
            id="unmakeable-item-falls-back-to-empty",
        ),
        pytest.param(
            # Items that may be anything: one item, not the empty array a closed tuple would give.
            {"type": "array", "items": True},
            ["example"],
            id="open-items-give-one-item",
        ),
        pytest.param(
            # A retried item keeps its name: both hints refused, items 0 and 1 fall on "example", and the
            # retry (salt 1 + 2) asks for the hint again, numbered.
            {
                "type": "object",
                "properties": {
                    "queries": {
                        "type": "array",
                        "uniqueItems": True,
                        "minItems": 2,
                        "items": {
                            "type": "string",
                            "allOf": [{"not": {"enum": ["quarterly report", "quarterly report 2"]}}],
                        },
                    }
                },
            },
            {"queries": ["example", "quarterly report 4"]},
            id="retried-item-keeps-its-name",
        ),
        pytest.param(
            # ...and its array's description: "beta" refused, item 2 repeats "gamma" until a retry reaches "delta".
            {
                "type": "array",
                "uniqueItems": True,
                "minItems": 3,
                "description": "One of (alpha, beta, gamma, delta)",
                "items": {"type": "string", "allOf": [{"not": {"const": "beta"}}]},
            },
            ["alpha", "gamma", "delta"],
            id="retried-item-keeps-its-array-description",
        ),
        pytest.param(
            {"type": "array", "maxItems": 0, "items": costly(15)},
            [],
            id="max-items-zero-solves-no-item",
        ),
        pytest.param(
            # An item is named after its array, singular: the hint of a query.
            {"type": "object", "properties": {"queries": {"type": "array", "items": {"type": "string"}}}},
            {"queries": ["quarterly report"]},
            id="item-named-after-its-array",
        ),
        pytest.param(
            # An item reads its array's description: numeric ids.
            {
                "type": "object",
                "properties": {
                    "ids": {"type": "array", "description": "Numeric project IDs", "items": {"type": "string"}}
                },
            },
            {"ids": ["42"]},
            id="item-reads-its-array-description",
        ),
    ],
)
def test_arrays(schema: dict[str, Any], value: Any) -> None:
    assert example_json(schema) == json.dumps(value)


def test_an_array_holds_at_most_256_generated_items() -> None:
    assert example_json({"type": "array", "minItems": 256, "items": {"type": "integer"}}) == json.dumps([1] * 256)
    reason = reason_of({"type": "array", "minItems": 257, "items": {"type": "integer"}})
    assert reason.startswith("no valid instance found; e.g. [1, 1, 1")


def test_a_repeated_unique_item_is_retried_seven_times_then_given_up() -> None:
    """Only "h" and "i" are allowed: item 1 lands on "h" again under each of its seven retries (salts
    1 + 2k), and the generator gives up rather than search on (bounded work)."""
    schema = {
        "type": "array",
        "uniqueItems": True,
        "minItems": 2,
        "items": {"enum": list("abcdefghi"), "not": {"enum": list("abcdefg")}},
    }
    assert reason_of(schema) == "no valid instance found; e.g. ['h', 'h'] fails: $: ['h', 'h'] has non-unique elements"


# --------------------------------------------------------------------------- the attempt budget


def test_the_costly_schema_costs_what_it_says() -> None:
    """The cases below rely on these costs: ten properties fit in the budget, fifteen do not."""
    assert reason_of(costly(10)) == "no valid instance found; e.g. {} fails: $: {} should be non-empty"
    assert reason_of(costly(15)) == "no valid instance found within 4000 attempts"


def test_a_conditional_requirement_that_cannot_be_met_is_tried_once() -> None:
    """The passes over the conditional requirements stop at the first that changes nothing: `c` (2880
    validations to give up on) is asked for once, and the example is the object without `b`. A met
    dependency (`d`) or a required name that keeps its value (`d` again) is no change."""
    schema = {
        "type": "object",
        "properties": {"d": {"type": "integer"}, "b": {"type": "string", "default": "x"}},
        "required": ["d"],
        "additionalProperties": costly(10),
        "dependentRequired": {"b": ["d", "c"]},
        "dependentSchemas": {"d": {"required": ["d"]}},
    }
    assert example_json(schema) == json.dumps({"d": 1})


def test_an_inner_array_takes_its_items_hint_from_the_description_above_it() -> None:
    """An array with no description of its own passes on what its parent said: the items of a list of
    lists get the value the outer description gives."""
    inner = {"type": "array", "items": {"type": "string"}}
    schema = {
        "type": "object",
        "properties": {"labels": {"type": "array", "description": "Label groups, e.g. 'urgent'", "items": inner}},
        "required": ["labels"],
    }
    assert example_json(schema) == json.dumps({"labels": [["urgent"]]})


def test_bounds_no_number_meets_give_no_example() -> None:
    """No candidate falls in an empty range: the first one tried is named, nothing is invented."""
    assert reason_of({"type": "integer", "minimum": 5, "maximum": 4}) == (
        "no valid instance found; e.g. 1 fails: $: 1 is less than the minimum of 5"
    )
