"""generator.schema.examples: validation, realistic examples that always validate, placeholders."""

from __future__ import annotations

import copy
import re
import time
from typing import Any

import pytest

from generator.schema.examples import Example, example_for, examples_for
from generator.schema.placeholders import placeholder_for
from generator.schema.regexgen import generate
from generator.schema.validation import too_deep, validate
from generator.schema.values import FORMAT_VALUES
from tests.test_schema import DATE_TIME_PATTERN, NODE, PYDANTIC_INPUT, REAL_OUTPUT


def ok(schema: object, **kwargs: Any) -> Any:
    """The example value, after checking it is ok and validates."""
    example = example_for(schema, **kwargs)
    assert example.ok, example.reason
    assert example.reason is None
    assert validate(example.value, schema) == []
    return example.value


def not_ok(schema: object) -> str:
    example = example_for(schema)
    assert not example.ok and example.value is None
    assert example.reason
    return example.reason


# --------------------------------------------------------------------------- validate


def test_validate_reports_json_paths() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "object", "properties": {"b": {"type": "array", "items": {"type": "integer"}}}}},
    }
    errors = validate({"a": {"b": [1, "x"]}}, schema)
    assert len(errors) == 1 and errors[0].startswith("$.a.b[1]: ")
    assert validate({"a": {"b": [1, 2]}}, schema) == []


def test_validate_quotes_odd_keys() -> None:
    errors = validate({"a b": 1}, {"properties": {"a b": {"type": "string"}}})
    assert errors[0].startswith("$['a b']: ")


@pytest.mark.parametrize(
    ("fmt", "bad"),
    [
        ("date-time", "2026-13-03T10:15:00Z"),
        ("date-time", "yesterday"),
        ("date", "2026-02-30"),
        ("time", "25:00:00Z"),
        ("duration", "3 days"),
        ("email", "not-an-email"),
        ("uuid", "1234"),
        ("ipv4", "300.1.1.1"),
        ("ipv6", "2001:db8:::1"),
        ("hostname", "-bad-.example.com"),
        ("uri", "not a uri"),
        ("json-pointer", "no-slash"),
        ("relative-json-pointer", "/abs"),
        ("uri-template", "https://example.com/{unclosed"),
        ("regex", "(unclosed"),
    ],
)
def test_validate_checks_formats(fmt: str, bad: str) -> None:
    errors = validate(bad, {"type": "string", "format": fmt})
    assert len(errors) == 1 and fmt in errors[0]


@pytest.mark.parametrize(
    ("dialect", "schema", "valid", "invalid"),
    [
        ("http://json-schema.org/draft-04/schema#", {"maximum": 5, "exclusiveMaximum": True}, 4, 5),
        ("http://json-schema.org/draft-07/schema#", {"items": [{"type": "string"}]}, ["a", 1], [1]),
        ("https://json-schema.org/draft/2020-12/schema", {"prefixItems": [{"type": "string"}]}, ["a", 1], [1]),
        (None, {"prefixItems": [{"type": "string"}]}, ["a"], [1]),
    ],
)
def test_validate_uses_the_declared_dialect(
    dialect: str | None, schema: dict[str, Any], valid: Any, invalid: Any
) -> None:
    if dialect:
        schema = {"$schema": dialect, **schema}
    assert validate(valid, schema) == []
    assert validate(invalid, schema)


@pytest.mark.parametrize("schema", [{"type": 5}, {"minimum": "x"}, {"pattern": "("}, {"required": "a"}, 5, "x"])
def test_validate_reports_invalid_schemas(schema: object) -> None:
    errors = validate("anything", schema)
    assert len(errors) == 1 and errors[0].startswith("schema: ")


def test_validate_never_fetches(monkeypatch: pytest.MonkeyPatch) -> None:
    import socket
    import urllib.request

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    errors = validate(1, {"$ref": "https://example.com/schema.json"})
    assert errors and errors[0].startswith("schema: unresolvable $ref 'https://example.com/schema.json'")
    assert "never fetched" in errors[0]
    # the standard meta-schemas are bundled, not fetched
    assert validate({"type": "string"}, {"$ref": "https://json-schema.org/draft/2020-12/schema"}) == []


def test_validate_survives_cycles_and_depth() -> None:
    assert validate(1, {"$ref": "#"})  # infinite $ref loop: reported, not raised
    schema: dict[str, Any] = {}
    schema["not"] = schema
    assert validate(1, schema)[0].startswith("schema: ")


def test_validate_names_identifier_keys_with_a_dot() -> None:
    # Any identifier, capitals and underscores included, is written `.name`; anything else is quoted.
    errors = validate({"Name": 1, "_x9": 2, "9a": 3}, {"additionalProperties": {"type": "string"}})
    assert [e.split(": ")[0] for e in errors] == ["$.Name", "$._x9", "$['9a']"]


def test_validate_reports_pattern_properties_at_the_matched_key() -> None:
    schema = {"patternProperties": {"^Id": {"type": "integer"}}}
    assert validate({"Id1": "x", "other": "y"}, schema) == ["$.Id1: 'x' is not of type 'integer'"]
    # Only an object has properties: any other instance passes the keyword, as JSON Schema says.
    assert validate("Id1", schema) == []
    assert validate(["Id1"], schema) == []


def test_validate_names_what_additional_properties_refuses() -> None:
    closed = {"properties": {"a": {}}, "additionalProperties": False}
    assert validate({"a": 1, "y": 2, "x": 3}, closed) == [
        "$: Additional properties are not allowed ('x', 'y' were unexpected)"
    ]
    assert validate({"b": 1}, closed) == ["$: Additional properties are not allowed ('b' was unexpected)"]
    by_pattern = {"patternProperties": {"^a": {}, "^b": {}}, "additionalProperties": False}
    assert validate({"ab": 1, "z": 2}, by_pattern) == ["$: 'z' does not match any of the regexes: '^a', '^b'"]
    assert validate({"z": 2, "y": 1}, by_pattern) == ["$: 'y', 'z' do not match any of the regexes: '^a', '^b'"]
    # Allowed extras (true, or a schema they meet) are no error; a schema they fail is checked at each.
    assert validate({"a": 1, "z": 2}, {"properties": {"a": {}}, "additionalProperties": True}) == []
    typed = {"properties": {"a": {}}, "additionalProperties": {"type": "integer"}}
    assert validate({"a": "s", "z": 2}, typed) == []
    assert validate({"z": "s"}, typed) == ["$.z: 's' is not of type 'integer'"]


def test_validate_says_which_pattern_a_string_misses() -> None:
    assert validate("abc", {"type": "string", "pattern": "^x"}) == ["$: 'abc' does not match '^x'"]


def test_validate_cuts_long_messages() -> None:
    # A message names the instance, which may be huge: it is cut to 300 characters, the last an ellipsis.
    (message,) = validate("x" * 400, {"type": "integer"})
    assert len(message) == 300 and message.endswith("x…")
    assert message.startswith("$: 'xxx")
    (whole,) = validate("x" * 270, {"type": "integer"})  # "$: '" + 270 x + "' is not of type 'integer'": 300
    assert len(whole) == 300 and whole.endswith("' is not of type 'integer'")
    (cut,) = validate("x" * 271, {"type": "integer"})
    assert cut == "$: '" + "x" * 271 + "' is not of type 'intege…"


def test_validate_reports_a_schema_too_deep_to_check() -> None:
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(3000):
        node["items"] = {}
        node = node["items"]
    assert validate([], deep) == ["schema: schema nested too deeply"]


def test_too_deep_knows_an_exhausted_stack_from_other_failures() -> None:
    # Near the recursion limit the Rust code under `referencing` panics instead of raising RecursionError.
    class PanicException(BaseException):
        pass

    assert too_deep(RecursionError()) and too_deep(PanicException())
    assert not too_deep(ValueError("recursion")) and not too_deep(KeyboardInterrupt())


# --------------------------------------------------------------------------- example_for: real schemas


def test_real_world_output_schema_example() -> None:
    value = ok(REAL_OUTPUT)
    item = value["items"][0]
    assert item["created_at"] == "2026-09-03T10:15:00Z"
    assert re.search(DATE_TIME_PATTERN, item["created_at"])
    assert item["id"] == "3f2b8c1e-4a5d-4e6f-9a7b-1c2d3e4f5a6b"
    assert value["availability"]["processor"] == "Google Gemini"
    assert value["availability"]["retention_hours"] == 24
    assert 1 <= len(item["context"]["evidence"]) <= 20
    assert item["context"]["evidence"][0]["revision"] >= 1
    assert value["next_cursor"] is not None  # the non-null branch is preferred


def test_pydantic_input_example() -> None:
    value = ok(PYDANTIC_INPUT)
    assert value["query"] == "quarterly report"
    assert value["mode"] == "fast" and value["limit"] == 10  # optional, but documented by a default
    assert set(value["billing"]) == {"street", "city"}
    assert "shipping" not in value  # optional with a null default: left out


def test_prefer_optional_includes_everything() -> None:
    value = ok(PYDANTIC_INPUT, prefer_optional=True)
    assert list(value) == ["query", "mode", "billing", "shipping", "limit"]


def test_recursive_structures_are_minimal() -> None:
    value = ok(NODE)
    assert value == {"children": [{"name": "my-child"}]}  # the optional recursive field is left out
    tree = {
        "$defs": {
            "T": {
                "type": "object",
                "required": ["v", "kids"],
                "properties": {"v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/T"}}},
            }
        },
        "$ref": "#/$defs/T",
    }
    value = ok(tree)
    assert value == {"v": 1, "kids": []}


# --------------------------------------------------------------------------- example_for: rules


@pytest.mark.parametrize("value", [False, 0, "", None, [], {}, 0.0])
def test_const_wins_even_when_falsy(value: object) -> None:
    result = ok({"const": value, "examples": ["other"], "default": "other"})
    assert result == value and type(result) is type(value)


def test_source_order_examples_default_enum() -> None:
    assert ok({"type": "string", "examples": [5, "second"], "default": "d", "enum": ["second", "d", "e"]}) == "second"
    assert ok({"type": "string", "default": "d", "enum": ["x", "d"]}) == "d"
    assert ok({"type": "string", "enum": ["x", "y"]}) == "x"
    assert ok({"type": "integer", "examples": [7]}) == 7


@pytest.mark.parametrize("fmt", sorted(FORMAT_VALUES))
def test_each_format_example_validates(fmt: str) -> None:
    value = ok({"type": "string", "format": fmt})
    assert value == FORMAT_VALUES[fmt][0]
    for dialect in ("http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2019-09/schema"):
        assert validate(value, {"$schema": dialect, "type": "string", "format": fmt}) == []


@pytest.mark.parametrize(
    ("name", "expected"),
    [("query", "quarterly report"), ("email", "alex@example.com"), ("user_id", "abc123"), ("zzz", "example")],
)
def test_name_hints(name: str, expected: str) -> None:
    assert ok({"type": "object", "properties": {name: {"type": "string"}}, "required": [name]}) == {name: expected}


def test_number_hints_respect_ranges() -> None:
    schema = {
        "type": "object",
        "required": ["limit", "page"],
        "properties": {"limit": {"type": "integer", "minimum": 1, "maximum": 5}, "page": {"type": "integer"}},
    }
    assert ok(schema) == {"limit": 5, "page": 1}


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "integer", "minimum": 3, "exclusiveMaximum": 4},
        {"type": "integer", "exclusiveMinimum": 0, "maximum": 9007199254740991},
        {"type": "integer", "minimum": 10**30},
        {"type": "integer", "maximum": -(10**30)},
        {"type": "integer", "multipleOf": 7, "minimum": 20, "maximum": 30},
        {"type": "integer", "multipleOf": 0.5, "minimum": 3.2},
        {"type": "number", "multipleOf": 0.01, "minimum": 0.25, "maximum": 0.26},
        {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 0.001},
        {"type": "number", "minimum": -1.5, "maximum": -1.5},
        {
            "$schema": "http://json-schema.org/draft-04/schema#",
            "type": "number",
            "minimum": 2,
            "exclusiveMinimum": True,
            "maximum": 3,
            "exclusiveMaximum": True,
        },
        {"type": "number", "maximum": 1e308, "minimum": 1e307},
    ],
)
def test_numeric_bounds(schema: dict[str, Any]) -> None:
    ok(schema)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "minLength": 30},
        {"type": "string", "maxLength": 3},
        {"type": "string", "maxLength": 0},
        {"type": "string", "pattern": "^[A-Z]{3}-\\d{4}$"},
        {"type": "string", "pattern": "^[a-z0-9_-]{3,16}$"},
        {"type": "string", "pattern": "^(?=.*[A-Z])(?=.*\\d)[A-Za-z\\d]{8,}$"},
        {"type": "string", "pattern": "^(foo|bar)baz?$", "minLength": 6},
        {"type": "string", "pattern": "^[a-z]+$", "minLength": 100, "maxLength": 100},
        {"type": "string", "pattern": "^\\+?[1-9]\\d{1,14}$"},
        {"type": "string", "pattern": "report"},
        {"type": "string", "format": "date-time", "pattern": DATE_TIME_PATTERN},
        {"type": "string", "format": "email", "maxLength": 16},
        {"type": "string", "contentEncoding": "base64"},
    ],
)
def test_strings(schema: dict[str, Any]) -> None:
    value = ok(schema)
    if "pattern" in schema:
        assert re.search(schema["pattern"], value)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "array", "items": {"type": "string"}, "minItems": 3, "uniqueItems": True},
        {"type": "array", "items": {"type": "string", "format": "uuid"}, "minItems": 3, "uniqueItems": True},
        {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 2}, "minItems": 3, "uniqueItems": True},
        {"type": "array", "items": {"enum": ["a", "b", "c"]}, "minItems": 3, "uniqueItems": True},
        {"type": "array", "items": {"type": "integer"}, "contains": {"minimum": 10}, "minContains": 2},
        {"type": "array", "contains": {"const": "x"}, "maxContains": 1},
        {"type": "array", "maxItems": 0},
        {"type": "array", "prefixItems": [{"type": "string"}, {"type": "boolean"}], "items": False},
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "array",
            "items": [{"type": "string"}, {"type": "integer"}],
            "additionalItems": False,
        },
    ],
)
def test_arrays(schema: dict[str, Any]) -> None:
    ok(schema)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "minProperties": 2, "additionalProperties": {"type": "integer"}},
        {
            "type": "object",
            "patternProperties": {"^x-[a-z]+$": {"type": "string"}},
            "additionalProperties": False,
            "minProperties": 1,
        },
        {
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
            "required": ["a"],
            "dependentRequired": {"a": ["b"]},
        },
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "required": ["a"],
            "properties": {"a": {"type": "string"}},
            "dependencies": {"a": ["b"]},
        },
        {
            "type": "object",
            "required": ["a"],
            "properties": {"a": {"type": "string"}},
            "dependentSchemas": {"a": {"required": ["c"], "properties": {"c": {"type": "integer", "minimum": 5}}}},
        },
        {
            "type": "object",
            "required": ["kind"],
            "properties": {"kind": {"enum": ["x", "y"]}, "x": {"type": "integer"}},
            "if": {"properties": {"kind": {"const": "x"}}},
            "then": {"required": ["x"]},
        },
        {
            "type": "object",
            "required": ["kind"],
            "properties": {"kind": {"enum": ["x", "y"]}},
            "if": {"properties": {"kind": {"const": "y"}}},
            "then": {"required": ["why"]},
            "else": {"required": ["other"]},
        },
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": False},
        {"type": "object", "required": ["a", "b"], "maxProperties": 2, "properties": {"c": {"default": 1}}},
        {"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}, "minProperties": 1},
    ],
)
def test_objects(schema: dict[str, Any]) -> None:
    ok(schema)


@pytest.mark.parametrize(
    "schema",
    [
        {
            "anyOf": [{"type": "string", "minLength": 100}, {"type": "integer"}],
            "not": {"type": "integer", "maximum": 1},
        },
        {"oneOf": [{"type": "integer"}, {"type": "number"}]},
        {"oneOf": [{"type": "string"}, {"type": "string", "maxLength": 3}]},
        {
            "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        },
        {
            "allOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"properties": {"b": {"type": "integer"}}, "required": ["b"]},
            ]
        },
        {"allOf": [{"type": "integer"}, {"minimum": 5}, {"multipleOf": 5}]},
        # A property that one branch allows as a boolean schema and the other types: merged, not an error.
        {"allOf": [{"properties": {"x": True}}, {"properties": {"x": {"type": "string"}}}], "required": ["x"]},
        {"allOf": [{"properties": {"x": {"type": "integer"}}}, {"properties": {"x": True}}], "required": ["x"]},
        {"not": {"type": "string"}},
        {"type": "string", "not": {"enum": ["example", "example 8"]}},
        {"type": ["null", "string"]},
        {"type": ["string", "null"], "minLength": 2},
        {"anyOf": [{"type": "null"}, {"type": "boolean"}]},
        {"$defs": {"A": {"type": "string", "minLength": 2}}, "$ref": "#/$defs/A", "maxLength": 4},
        {"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"type": "integer"}}, "$ref": "#/$defs/A"},
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": {"S": {"type": "string"}},
            "properties": {"s": {"$ref": "#/definitions/S"}},
            "required": ["s"],
        },
        {"type": "object", "required": ["n"], "properties": {"n": {"type": "number", "nullable": True}}},
        True,
        {},
    ],
)
def test_combinators_and_refs(schema: object) -> None:
    ok(schema)


def test_type_arrays_prefer_the_first_non_null_type() -> None:
    assert ok({"type": ["null", "integer"]}) == 1
    assert ok({"anyOf": [{"type": "null"}, {"type": "string", "format": "date"}]}) == "2026-09-03"


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "minLength": 5, "maxLength": 2},
        False,
        {"not": {}},
        {"type": "integer", "minimum": 5, "maximum": 4},
        {"allOf": [{"type": "string"}, {"type": "integer"}]},
        {"type": "object", "required": ["a"], "additionalProperties": False},
        {"enum": []},
        {"oneOf": [{"type": "string"}, {"type": "string"}]},
        {"type": "array", "minItems": 2, "maxItems": 1},
        {
            "$defs": {"Inf": {"type": "object", "required": ["next"], "properties": {"next": {"$ref": "#/$defs/Inf"}}}},
            "$ref": "#/$defs/Inf",
        },
    ],
)
def test_unsatisfiable_schemas_are_not_ok(schema: object) -> None:
    not_ok(schema)


def test_reasons_explain() -> None:
    assert "too short" in not_ok({"type": "string", "minLength": 5, "maxLength": 2})
    assert "false" in not_ok(False)
    assert not_ok({"type": 5}).startswith("invalid schema")
    assert "never fetched" in not_ok({"$ref": "https://example.com/remote.json"})
    assert "never fetched" in not_ok({"properties": {"a": {"$ref": "other.json"}}, "required": ["a"]})


def test_the_reason_names_the_dangling_ref_wherever_it_is() -> None:
    # The scan for the $ref to blame walks arrays (allOf) and nested properties, not the root alone.
    schema = {"allOf": [{"type": "object"}, {"properties": {"a": {"$ref": "#/$defs/nope"}}, "required": ["a"]}]}
    assert not_ok(schema) == "no valid instance found; dangling $ref '#/$defs/nope'"
    # A $ref inside a value (enum, const, default, examples) is data, not a reference.
    listed = {"enum": [{"$ref": "#/x"}], "allOf": [{"$ref": "#/$defs/gone"}]}
    assert not_ok(listed) == "no valid instance found; dangling $ref '#/$defs/gone'"


def test_remote_ref_in_an_optional_property_still_gives_an_example() -> None:
    assert ok(
        {
            "type": "object",
            "properties": {"a": {"$ref": "https://example.com/x.json"}, "b": {"type": "string"}},
            "required": ["b"],
        }
    ) == {"b": "example"}


def test_example_is_deterministic_and_input_untouched() -> None:
    for schema in (REAL_OUTPUT, PYDANTIC_INPUT, NODE):
        before = copy.deepcopy(schema)
        assert example_for(schema) == example_for(copy.deepcopy(schema))
        assert schema == before


def test_example_is_bounded_in_time() -> None:
    wide = {
        "type": "object",
        "properties": {f"p{i}": {"type": "string", "minLength": 5, "maxLength": 2} for i in range(300)},
        "required": [f"p{i}" for i in range(300)],
    }
    start = time.perf_counter()
    result = example_for(wide)
    assert not result.ok
    assert time.perf_counter() - start < 5
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(400):
        deep = {"type": "object", "properties": {"a": deep}, "required": ["a"]}
    start = time.perf_counter()
    assert isinstance(example_for(deep), Example)
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize(
    "schema",
    [
        None,
        5,
        "x",
        [],
        {"type": 5},
        {"properties": [1]},
        {"$ref": 5},
        {"$ref": "#/nope"},
        {"minimum": 10**5000},
        {"enum": [float("nan")]},
        {"pattern": "(?P<x>a)(?P=x)"},
        {"format": 5},
    ],
)
def test_example_for_never_raises(schema: object) -> None:
    result = example_for(schema)
    if result.ok:
        assert validate(result.value, schema) == []


# --------------------------------------------------------------------------- placeholder_for


def test_placeholder_shape() -> None:
    schema = {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "limit": {"type": "integer"},
            "ratio": {"type": "number"},
            "exact": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "filter": {"type": "object", "properties": {"owner": {"type": ["string", "null"]}}},
            "mode": {"enum": ["a", "b"]},
            "anything": {},
            "maybe": {"anyOf": [{"type": "null"}, {"type": "integer"}]},
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
        },
        "required": ["query", "other"],
    }
    assert placeholder_for(schema) == {
        "query": "<query>",
        "limit": 1,
        "ratio": 1.0,
        "exact": True,
        "tags": ["<tags>"],
        "filter": {"owner": "<owner>"},
        "mode": "a",
        "anything": "<anything>",
        "maybe": 1,
        "pair": ["<pair>", 1],
        "other": "<other>",
    }


def test_placeholder_follows_refs_and_stops_at_cycles() -> None:
    assert placeholder_for(NODE) == {"children": [{"name": "<name>", "children": [{}]}]}
    assert placeholder_for(PYDANTIC_INPUT)["billing"] == {"street": "<street>", "city": "<city>"}
    assert placeholder_for({"type": "object", "additionalProperties": {"type": "integer"}}) == {"<key>": 1}


def test_a_stub_merges_all_of_branches_into_one_object() -> None:
    schema = {
        "allOf": [
            {"type": "object", "properties": {"a": {"type": "string"}, "n": {"type": "integer", "minimum": 5}}},
            {"properties": {"b": {"type": "integer"}, "n": {"maximum": 9}}, "required": ["b", "c"]},
        ]
    }
    assert placeholder_for(schema) == {"a": "<a>", "n": 5, "b": 1, "c": "<c>"}


def test_a_stub_merges_all_of_nine_levels_deep() -> None:
    """``allOf`` inside ``allOf`` is merged down to the ninth level, whose own properties still show."""
    node: dict[str, Any] = {"properties": {"p12": {"type": "integer"}}}
    for level in reversed(range(1, 12)):
        node = {"properties": {f"p{level}": {"type": "integer"}}, "allOf": [node]}
    shown = placeholder_for({"type": "object", "allOf": [node]})
    assert sorted(shown, key=lambda name: int(name[1:])) == [f"p{level}" for level in range(1, 10)]


@pytest.mark.parametrize(
    ("schema", "stub"),
    [
        ({"type": "object", "additionalProperties": {"type": "string"}}, {"<key>": "<value>"}),
        ({"type": "object", "additionalProperties": True}, {}),
        (
            {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "string"}},
            {"a": 1},
        ),
        (
            {
                "$defs": {"N": {"type": "integer", "minimum": 4}},
                "type": "object",
                "additionalProperties": {"$ref": "#/$defs/N"},
            },
            {"<key>": 4},
        ),
    ],
)
def test_a_map_stub_shows_one_key_only_when_nothing_is_declared(schema: dict[str, Any], stub: Any) -> None:
    assert placeholder_for(schema) == stub


INT, BOOL = {"type": "integer"}, {"type": "boolean"}


@pytest.mark.parametrize(
    ("schema", "stub"),
    [
        ({"type": "array", "items": INT}, [1]),
        ({"type": "array"}, ["<value>"]),
        ({"type": "array", "items": INT, "minItems": 3}, [1, 1, 1]),
        ({"type": "array", "items": INT, "minItems": 40}, [1] * 16),  # at most 16 items shown
        ({"type": "array", "items": INT, "minItems": 3, "maxItems": 2}, [1, 1]),
        ({"type": "array", "items": INT, "minItems": 3, "maxItems": -1}, [1, 1, 1]),  # no bound
        ({"type": "array", "items": INT, "maxItems": 0}, []),
        ({"type": "array", "items": INT, "minItems": 0}, [1]),  # the shape still shows one item
        ({"type": "array", "items": INT, "minItems": -1}, [1]),
        ({"type": "array", "items": INT, "minItems": "3"}, [1]),
        ({"type": "array", "prefixItems": [{"type": "string"}, INT]}, ["<value>", 1]),
        (
            {"type": "array", "prefixItems": [{"type": "string"}, INT], "items": BOOL, "minItems": 4},
            ["<value>", 1, True, True],
        ),
        ({"type": "array", "prefixItems": [INT], "items": False, "minItems": 4}, [1]),
        ({"type": "array", "prefixItems": [INT] * 20}, [1] * 16),
        ({"type": "array", "items": [INT], "additionalItems": BOOL, "minItems": 3}, [1, True, True]),  # draft-07 tuple
    ],
)
def test_an_array_stub_shows_its_positions_then_as_many_items_as_asked(schema: dict[str, Any], stub: Any) -> None:
    assert placeholder_for(schema) == stub


@pytest.mark.parametrize(("enum", "shown"), [([None, "ready"], "ready"), (["a", None], "a"), ([None], None)])
def test_a_stub_shows_the_first_member_that_is_not_null(enum: list[Any], shown: Any) -> None:
    assert placeholder_for({"type": "object", "properties": {"state": {"enum": enum}}}) == {"state": shown}


def test_a_stub_stops_at_thirteen_levels_of_properties() -> None:
    """Past twelve levels below the top, a property is shown by its name, as a placeholder."""
    schema: dict[str, Any] = {"type": "string"}
    for level in reversed(range(16)):
        schema = {"type": "object", "properties": {f"p{level}": schema}}
    stub, depth = placeholder_for(schema), 0
    while isinstance(stub, dict):
        ((_name, stub),) = stub.items()
        depth += 1
    assert (depth, stub) == (13, "<p12>")


@pytest.mark.parametrize(
    ("schema", "stub"),
    [
        ({"type": "integer", "minimum": 5}, 5),
        ({"type": "integer", "maximum": -3}, -3),
        ({"type": "integer", "minimum": 2.5}, 3),
        ({"type": "integer", "exclusiveMinimum": 1}, 2),
        ({"type": "number", "exclusiveMinimum": 1}, 1.5),
        ({"type": "number", "exclusiveMaximum": 1}, 0.5),
        ({"type": "integer", "exclusiveMaximum": 1}, 0),
        ({"type": "integer", "minimum": 1, "exclusiveMinimum": True}, 2),  # draft-04's flag
        ({"type": "integer", "maximum": 1, "exclusiveMaximum": True}, 0),
        ({"type": "integer", "maximum": 9, "exclusiveMaximum": False}, 1),
        ({"type": "integer", "multipleOf": 7}, 7),
        ({"type": "number", "minimum": 1.1, "multipleOf": 0.25}, 1.25),
        ({"type": "number", "exclusiveMinimum": 2, "multipleOf": 0.5}, 2.5),
        ({"type": "number", "exclusiveMaximum": -2, "multipleOf": 0.5}, -2.5),
        ({"type": "number", "multipleOf": -2}, 1.0),  # a step that is no step is left out
        ({"type": "number", "minimum": "5", "maximum": float("inf")}, 1.0),  # not finite numbers: no bounds
    ],
)
def test_a_number_stub_lies_within_the_bounds_and_on_the_step(schema: dict[str, Any], stub: float) -> None:
    """The shape's number is 1 moved inside the bounds and onto ``multipleOf``: an integer for an integer."""
    found = placeholder_for(schema)
    assert found == stub and type(found) is type(stub), found


@pytest.mark.parametrize("schema", [None, 5, "x", [], True, False, {"type": 5}, {"$ref": "#"}, {"items": 3}])
def test_placeholder_never_raises(schema: object) -> None:
    placeholder_for(schema)


# --------------------------------------------------------------------------- regexgen


@pytest.mark.parametrize(
    "pattern",
    [
        DATE_TIME_PATTERN,
        r"^[a-z0-9_-]+$",
        r"^\d{3}-\d{2}-\d{4}$",
        r"^[^\s@]+@[^\s@]+\.[^\s@]+$",
        r"^(?:[A-Z][a-z]+ ?){2,3}$",
        r"^(a|b)\1$",
        r"^(?P<y>\d{4})-(?P=y)$",
        r"^[\w.-]+$",
        r"^[^a-zA-Z0-9]$",
        r"^\x41\u0042[.]$",
        r"colou?r",
        r"^$",
    ],
)
def test_regex_generator_matches(pattern: str) -> None:
    found = generate(pattern)
    assert found
    assert all(re.search(pattern, s) for s in found)


@pytest.mark.parametrize("pattern", [r"^\p{L}+$", "(", r"[[:alpha:]]", "a{5000}"])
def test_regex_generator_gives_up_quietly(pattern: str) -> None:
    assert generate(pattern) == []


def test_regex_generator_lengths() -> None:
    assert all(len(s) == 40 for s in generate(r"^[a-z]+$", min_len=40, max_len=40))
    assert generate(r"^[a-z]{5}$", max_len=4) == []


def test_regex_generator_bounds_each_candidate_s_length_and_steps() -> None:
    """At most 4,096 characters and 20,000 steps per candidate (regexgen's _MAX_OUTPUT and _MAX_STEPS):
    a pattern that needs one more gives nothing; a repetition of nothing writes no output but takes steps."""
    assert [len(s) for s in generate(r"^(a{64}){64}$")] == [4096]
    assert generate(r"^(a{64}){65}$") == []
    assert generate(r"^(?:(?:){99}){99}$") == [""]
    assert generate(r"^(?:(?:){100}){100}$") == []


def test_regex_generator_picks_from_the_class_and_counts_it_should() -> None:
    # A class outside the preferred characters: its first character, or, negated, the one past what it excludes.
    assert generate(r"^[α-ω]$") == ["α"]
    assert generate(r"^[^\x00-\x7f]$") == ["\x80"]
    assert "\n" not in "".join(generate(r"^.{3}$")) and generate(r"^.{3}$")
    # One of "x*" reads better than none, first; then more, and none.
    assert generate(r"^ab*c$") == ["abc", "abbc", "ac"]
    # A backreference to a group that took no part is empty.
    assert "b" in generate(r"^(?:(a)|b)\1$")


# --------------------------------------------------------------------------- examples_for


_OPTIONS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "limit": {"type": "integer", "examples": [5]},
        "query": {"type": "string"},
        "paper_id": {"type": "string"},
        "verbose": {"type": "boolean", "examples": [True]},
    },
    "required": ["name"],
}


@pytest.mark.parametrize(
    "options",
    [
        {"prefer_optional": True},
        {"max_optional": 1},
        {"prose": "Search papers. Give either `query` or `paper_id`."},
        {"subject": "delete_chart"},
    ],
)
def test_examples_for_starts_with_what_example_for_gives_with_the_same_options(options: dict[str, Any]) -> None:
    first = example_for(_OPTIONS_SCHEMA, **options)
    assert first.ok and first.value != example_for(_OPTIONS_SCHEMA).value  # the option makes a difference
    found = examples_for(_OPTIONS_SCHEMA, 3, **options)
    assert found[0] == first.value
    assert len(found) == 3 and all(validate(v, _OPTIONS_SCHEMA) == [] for v in found)


def test_examples_for_gives_count_distinct_values_and_no_more() -> None:
    # The enum's default repeats its first value: the next value of the property is the next *distinct* one.
    schema = {"type": "object", "properties": {"color": {"enum": ["red", "green", "blue"], "default": "red"}}}
    schema["required"] = ["color"]
    assert examples_for(schema, 3) == ({"color": "red"}, {"color": "green"}, {"color": "blue"})
    assert examples_for(schema, 2) == ({"color": "red"}, {"color": "green"})
    assert examples_for(schema, 1) == ({"color": "red"},)
    assert examples_for(schema, 9) == examples_for(schema, 3)
    assert examples_for(schema, 0) == ()


def _nested(levels: int, ref: dict[str, str], keyword: str = "anyOf") -> dict[str, Any]:
    node: dict[str, Any] = ref
    for _ in range(levels):
        node = {keyword: [node]} if keyword == "anyOf" else {keyword: node}
    return node


def test_optional_properties_that_lead_back_into_the_tree_are_left_out() -> None:
    """A recursive tree's example holds no optional property that only repeats the tree, whichever way it
    leads back (items, anyOf, oneOf, allOf, unions or arrays nested); the walk looks 3 levels deep and at 16
    branches, so what lies beyond either bound is shown like any property."""
    ref = {"$ref": "#/$defs/node"}
    node = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "children": {"type": "array", "items": ref},
            "parent": {"anyOf": [ref, {"type": "null"}]},
            "next": {"oneOf": [{"type": "null"}, ref]},
            "merged": {"allOf": [ref]},
            "deep": _nested(3, ref),
            "deeper": _nested(4, ref),
            "wide": {"anyOf": [{"type": "null"}] * 16 + [ref]},
            "grid": _nested(3, ref, "items"),
            "cube": _nested(4, ref, "items"),
            "size": {"type": "integer"},
        },
        "required": ["name"],
    }
    schema = {"$defs": {"node": node}, "$ref": "#/$defs/node"}
    found = example_for(schema, prefer_optional=True)
    assert found.ok and isinstance(found.value, dict), found
    assert set(found.value) == {"name", "size", "deeper", "wide", "cube"}, found.value
    assert not validate(found.value, schema)
