"""generator.schema.flatten: JSON Schema -> table rows."""

from __future__ import annotations

import copy
import json
import time
from typing import Any

import pytest

from generator.schema.constraints import KINDS, Constraint
from generator.schema.flatten import flatten
from generator.schema.refs import detect_dialect
from generator.schema.rows import Flattened, Row

UUID: dict[str, Any] = {
    "type": "string",
    "format": "uuid",
    "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
}
DATE_TIME_PATTERN = (
    r"^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-"
    r"(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-"
    r"(?:0[1-9]|1\d|2[0-8])))T(?:(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?"
    r"(?:Z|([+-](?:[01]\d|2[0-3]):[0-5]\d)))$"
)
# A draft-07 output schema from a real portal (zod-to-json-schema style).
REAL_OUTPUT: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": UUID,
                    "title": {"anyOf": [{"type": "string", "minLength": 1, "maxLength": 200}, {"type": "null"}]},
                    "context": {
                        "type": "object",
                        "properties": {
                            "project_id": UUID,
                            "evidence": {
                                "type": "array",
                                "minItems": 1,
                                "maxItems": 20,
                                "items": {
                                    "type": "object",
                                    "properties": {
                                        "evidence_id": UUID,
                                        "revision": {
                                            "type": "integer",
                                            "exclusiveMinimum": 0,
                                            "maximum": 9007199254740991,
                                        },
                                    },
                                    "required": ["evidence_id", "revision"],
                                    "additionalProperties": False,
                                },
                            },
                        },
                        "required": ["project_id", "evidence"],
                        "additionalProperties": False,
                    },
                    "availability": {"type": "string", "enum": ["available", "pending", "unavailable"]},
                    "created_at": {"type": "string", "format": "date-time", "pattern": DATE_TIME_PATTERN},
                },
                "required": ["id", "title", "context", "availability", "created_at"],
                "additionalProperties": False,
            },
        },
        "next_cursor": {"anyOf": [UUID, {"type": "null"}]},
        "availability": {
            "type": "object",
            "properties": {
                "configured": {"type": "boolean"},
                "reason": {
                    "anyOf": [{"type": "string", "enum": ["not_configured", "quota_exceeded"]}, {"type": "null"}]
                },
                "processor": {"type": "string", "const": "Google Gemini"},
                "retention_hours": {"type": "number", "const": 24},
            },
            "required": ["configured", "reason", "processor", "retention_hours"],
            "additionalProperties": False,
        },
    },
    "required": ["items", "next_cursor", "availability"],
    "additionalProperties": False,
}
# A pydantic v2 style input schema: $defs, $ref with siblings, Optional[...] as anyOf null.
PYDANTIC_INPUT: dict[str, Any] = {
    "$defs": {
        "Address": {
            "type": "object",
            "title": "Address",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
            "required": ["street", "city"],
        },
        "Mode": {"type": "string", "enum": ["fast", "thorough"], "title": "Mode"},
    },
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "What to search for", "minLength": 1},
        "mode": {"$ref": "#/$defs/Mode", "default": "fast", "description": "How hard to look"},
        "billing": {"$ref": "#/$defs/Address"},
        "shipping": {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}], "default": None},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
    },
    "required": ["query", "billing"],
}


def by_path(flat: Flattened, variant: str | None = None) -> dict[str, Row]:
    return {r.path: r for r in flat.rows if r.variant == variant}


def kinds(row: Row) -> dict[str, Any]:
    return {c.kind: c.value for c in row.constraints}


def paths(flat: Flattened) -> list[str]:
    return [r.path for r in flat.rows]


# --------------------------------------------------------------------------- dialects


@pytest.mark.parametrize(
    ("uri", "dialect"),
    [
        ("http://json-schema.org/draft-04/schema#", "draft-04"),
        ("https://json-schema.org/draft-04/schema", "draft-04"),
        ("http://json-schema.org/draft-06/schema#", "draft-06"),
        ("http://json-schema.org/draft-07/schema#", "draft-07"),
        ("http://json-schema.org/draft-07/schema", "draft-07"),
        ("https://json-schema.org/draft/2019-09/schema", "2019-09"),
        ("https://json-schema.org/draft/2020-12/schema", "2020-12"),
        ("http://json-schema.org/draft/2020-12/schema#", "2020-12"),
    ],
)
def test_dialect_detection(uri: str, dialect: str) -> None:
    flat = flatten({"$schema": uri, "type": "object", "properties": {"a": {"type": "string"}}})
    assert flat.dialect == dialect
    assert flat.warnings == ()
    assert detect_dialect({"$schema": uri}) == (dialect, None)


def test_no_schema_keyword_means_no_dialect() -> None:
    assert flatten({"type": "object"}).dialect is None


@pytest.mark.parametrize("uri", ["https://example.com/my-meta", 42, "json-schema.org/draft-99/schema"])
def test_unknown_dialect_warns_and_still_flattens(uri: object) -> None:
    flat = flatten({"$schema": uri, "type": "object", "properties": {"a": {"type": "string"}}})
    assert flat.dialect is None
    assert any("$schema" in w for w in flat.warnings)
    assert paths(flat) == ["a"]


# --------------------------------------------------------------------------- types


@pytest.mark.parametrize(
    ("schema", "label"),
    [
        ({"type": "string"}, "string"),
        ({"type": ["string", "null"]}, "string | null"),
        ({"type": ["null", "string"]}, "string | null"),
        ({"type": ["string", "null", "string", "null"]}, "string | null"),
        ({"anyOf": [{"type": "string"}, {"type": "null"}]}, "string | null"),
        ({"oneOf": [{"type": "null"}, {"type": "integer"}]}, "integer | null"),
        ({"anyOf": [{"type": ["string", "null"]}, {"type": "null"}]}, "string | null"),
        ({"type": ["string", "null"], "anyOf": [{"type": "string"}, {"type": "null"}]}, "string | null"),
        ({"type": "string", "nullable": True}, "string | null"),
        ({"type": ["string", "null"], "nullable": True}, "string | null"),
        ({"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}, "string | integer | null"),
        ({"type": "array", "items": {"type": "string"}}, "array of string"),
        ({"type": "array", "items": {"type": ["string", "null"]}}, "array of (string | null)"),
        ({"type": ["array", "null"], "items": {"type": "object"}}, "array of object | null"),
        ({"type": "array"}, "array"),
        ({"enum": ["a", "b"]}, "string"),
        ({"const": 3}, "integer"),
        ({}, "any"),
        ({"description": "anything"}, "any"),
        ({"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]}, "string | null"),
    ],
)
def test_type_labels(schema: dict[str, Any], label: str) -> None:
    row = by_path(flatten({"type": "object", "properties": {"p": schema}}))["p"]
    assert row.type_label == label
    assert len(set(row.types)) == len(row.types)
    assert "null" not in row.types[:-1]


def test_nullable_is_a_constraint_too() -> None:
    row = by_path(flatten({"properties": {"p": {"type": "string", "nullable": True}}}))["p"]
    assert kinds(row)["nullable"] is True


def test_union_hoists_branch_constraints() -> None:
    row = by_path(flatten(REAL_OUTPUT))["items[].title"]
    assert row.type_label == "string | null"
    assert kinds(row) == {"minLength": 1, "maxLength": 200}
    assert row.variant is None


def test_union_of_enums_collapses_to_one_enum() -> None:
    schema = {"properties": {"p": {"anyOf": [{"const": "a"}, {"const": "b"}, {"enum": ["b", "c"]}, {"type": "null"}]}}}
    row = by_path(flatten(schema))["p"]
    assert row.type_label == "string | null"
    assert kinds(row)["enum"] == ["a", "b", "c"]


def test_branches_with_clashing_constraints_stay_alternatives() -> None:
    schema = {"properties": {"p": {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "array", "maxLength": 9}]}}}
    flat = flatten(schema)
    assert kinds(by_path(flat)["p"])["anyOf"] == 2
    assert [r.variant for r in flat.rows if r.path == "p"] == [None, "1", "2"]


@pytest.mark.parametrize("value", [False, 0, 0.0, "", None, [], {}])
def test_falsy_const_is_kept(value: object) -> None:
    row = by_path(flatten({"properties": {"p": {"const": value}}}))["p"]
    assert ("const", value) in [(c.kind, c.value) for c in row.constraints]
    assert type(kinds(row)["const"]) is type(value)


@pytest.mark.parametrize("value", [False, 0, "", None])
def test_falsy_default_is_kept(value: object) -> None:
    row = by_path(flatten({"properties": {"p": {"type": "string", "default": value}}}))["p"]
    assert kinds(row) == {"default": value}


@pytest.mark.parametrize("bad", [5, "strin", ["string", 7], {"a": 1}, None, True])
def test_weird_type_values_warn_and_do_not_crash(bad: object) -> None:
    flat = flatten({"properties": {"p": {"type": bad}}})
    row = by_path(flat)["p"]
    assert row.types in ((), ("string",))
    assert flat.warnings or row.types


# --------------------------------------------------------------------------- constraints


def test_every_kind_is_known_and_ordered() -> None:
    schema = {
        "type": "object",
        "properties": {
            "s": {
                "type": "string",
                "pattern": "^a",
                "format": "email",
                "minLength": 1,
                "maxLength": 9,
                "enum": ["a"],
                "default": "a",
                "examples": ["a"],
                "deprecated": True,
                "readOnly": True,
                "writeOnly": True,
                "contentMediaType": "text/plain",
                "contentEncoding": "base64",
                "not": {"const": "b"},
            },
            "n": {
                "type": "number",
                "minimum": 0,
                "maximum": 9,
                "exclusiveMinimum": -1,
                "exclusiveMaximum": 10,
                "multipleOf": 0.5,
            },
            "a": {
                "type": "array",
                "minItems": 1,
                "maxItems": 3,
                "uniqueItems": True,
                "contains": {"type": "integer"},
                "minContains": 1,
                "maxContains": 2,
            },
            "o": {
                "type": "object",
                "minProperties": 1,
                "maxProperties": 4,
                "additionalProperties": False,
                "propertyNames": {"pattern": "^[a-z]+$"},
                "dependentRequired": {"a": ["b"]},
                "dependentSchemas": {"c": {"required": ["d"]}},
                "if": {"required": ["a"]},
                "then": {"required": ["b"]},
            },
        },
    }
    flat = flatten(schema)
    for row in flat.rows:
        order = [KINDS.index(c.kind) for c in row.constraints]
        assert order == sorted(order), row.path
    s, n, a, o = (by_path(flat)[p] for p in "snao")
    assert kinds(s) == {
        "deprecated": True,
        "readOnly": True,
        "writeOnly": True,
        "enum": ["a"],
        "default": "a",
        "examples": ["a"],
        "format": "email",
        "pattern": "^a",
        "contentMediaType": "text/plain",
        "contentEncoding": "base64",
        "minLength": 1,
        "maxLength": 9,
        "not": {"const": "b"},
    }
    assert kinds(n) == {"minimum": 0, "exclusiveMinimum": -1, "maximum": 9, "exclusiveMaximum": 10, "multipleOf": 0.5}
    assert kinds(a) == {
        "minItems": 1,
        "maxItems": 3,
        "uniqueItems": True,
        "contains": {"type": "integer"},
        "minContains": 1,
        "maxContains": 2,
    }
    assert kinds(o) == {
        "minProperties": 1,
        "maxProperties": 4,
        "noAdditional": True,
        "propertyNames": {"pattern": "^[a-z]+$"},
        "dependentRequired": {"a": ["b"]},
        "dependentSchemas": {"c": {"required": ["d"]}},
        "if": {"if": {"required": ["a"]}, "then": {"required": ["b"]}},
    }


def test_if_then_else_summary() -> None:
    schema = {"if": {"properties": {"k": {"const": 1}}}, "then": {"required": ["a"]}, "else": {"required": ["b"]}}
    row = flatten(schema).rows[0]
    assert kinds(row)["if"] == {
        "if": {"properties": {"k": {"const": 1}}},
        "then": {"required": ["a"]},
        "else": {"required": ["b"]},
    }


def test_not_is_a_schema_not_a_string() -> None:
    """A subschema in a constraint is the schema itself (shown once as JSON), never its JSON text."""
    schema = {"properties": {"p": {"not": {"type": "string", "enum": ["x", "y"], "description": "d"}}}}
    assert kinds(by_path(flatten(schema))["p"])["not"] == {"type": "string", "enum": ["x", "y"]}


def test_long_subschemas_are_shortened() -> None:
    schema = {"properties": {"p": {"not": {"type": "string", "enum": [f"value-{i}" for i in range(100)]}}}}
    shown = kinds(by_path(flatten(schema))["p"])["not"]
    assert isinstance(shown, dict) and shown["type"] == "string"
    assert len(json.dumps(shown, separators=(",", ":"))) <= 220
    assert shown["enum"][-1] == "…"


def test_draft04_boolean_exclusive_bounds() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "properties": {
            "a": {"type": "number", "maximum": 5, "exclusiveMaximum": True},
            "b": {"type": "number", "minimum": 1, "exclusiveMinimum": True},
            "c": {"type": "number", "maximum": 5, "exclusiveMaximum": False},
        },
    }
    rows = by_path(flatten(schema))
    assert kinds(rows["a"]) == {"exclusiveMaximum": 5}
    assert kinds(rows["b"]) == {"exclusiveMinimum": 1}
    assert kinds(rows["c"]) == {"maximum": 5}


def test_draft07_dependencies_both_forms() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "dependencies": {"card": ["billing"], "vip": {"required": ["tier"]}},
    }
    flat = flatten(schema)
    assert flat.root is not None
    assert kinds(flat.root) == {
        "dependentRequired": {"card": ["billing"]},
        "dependentSchemas": {"vip": {"required": ["tier"]}},
    }


def test_unevaluated_properties_false_is_no_additional() -> None:
    row = by_path(flatten({"properties": {"p": {"type": "object", "unevaluatedProperties": False}}}))["p"]
    assert kinds(row) == {"noAdditional": True}


def test_openapi_example_becomes_examples() -> None:
    row = by_path(flatten({"properties": {"p": {"type": "string", "example": "x"}}}))["p"]
    assert kinds(row) == {"examples": ["x"]}


def test_constraint_values_are_json() -> None:
    import json

    flat = flatten(REAL_OUTPUT)
    assert any(row.constraints for row in flat.rows)
    for row in flat.rows:
        for c in row.constraints:
            json.dumps(c.value, allow_nan=False)
            assert c.kind in KINDS


# --------------------------------------------------------------------------- nesting


def test_real_world_output_schema() -> None:
    flat = flatten(REAL_OUTPUT)
    assert flat.dialect == "draft-07"
    assert flat.warnings == ()
    assert not flat.truncated
    assert paths(flat) == [
        "items",
        "items[]",
        "items[].id",
        "items[].title",
        "items[].context",
        "items[].context.project_id",
        "items[].context.evidence",
        "items[].context.evidence[]",
        "items[].context.evidence[].evidence_id",
        "items[].context.evidence[].revision",
        "items[].availability",
        "items[].created_at",
        "next_cursor",
        "availability",
        "availability.configured",
        "availability.reason",
        "availability.processor",
        "availability.retention_hours",
    ]
    rows = by_path(flat)
    assert rows["items"].type_label == "array of object"
    assert rows["items[]"].depth == 1 and rows["items[].context.evidence[].revision"].depth == 5
    assert kinds(rows["items[].context.evidence"]) == {"minItems": 1, "maxItems": 20}
    assert kinds(rows["items[].context.evidence[].revision"]) == {"exclusiveMinimum": 0, "maximum": 9007199254740991}
    assert kinds(rows["items[].context"]) == {"noAdditional": True}
    assert kinds(rows["items[].created_at"]) == {"format": "date-time", "pattern": DATE_TIME_PATTERN}
    assert rows["next_cursor"].type_label == "string | null"
    assert kinds(rows["next_cursor"])["format"] == "uuid"
    assert rows["availability.reason"].type_label == "string | null"
    assert kinds(rows["availability.reason"]) == {"enum": ["not_configured", "quota_exceeded"]}
    assert kinds(rows["availability.processor"]) == {"const": "Google Gemini"}
    assert kinds(rows["availability.retention_hours"]) == {"const": 24}
    assert all(rows[p].required for p in ("items", "next_cursor", "items[].id", "availability.reason"))
    assert rows["items[]"].required  # items have no optionality of their own
    assert flat.root is not None and kinds(flat.root) == {"noAdditional": True}


def test_pydantic_style_schema() -> None:
    flat = flatten(PYDANTIC_INPUT)
    rows = by_path(flat)
    assert paths(flat) == [
        "query",
        "mode",
        "billing",
        "billing.street",
        "billing.city",
        "shipping",
        "shipping.street",
        "shipping.city",
        "limit",
    ]
    assert rows["mode"].type_label == "string"
    assert rows["mode"].description == "How hard to look"  # $ref sibling wins over the target's title
    assert kinds(rows["mode"]) == {"enum": ["fast", "thorough"], "default": "fast"}
    assert rows["billing"].title == "Address" and rows["billing"].required
    assert rows["shipping"].type_label == "object | null" and not rows["shipping"].required
    assert kinds(rows["shipping"]) == {"default": None}
    assert rows["shipping.street"].required  # required at its own level, though its parent is optional
    assert flat.warnings == ()


def test_required_is_per_level() -> None:
    schema = {
        "type": "object",
        "properties": {
            "opt": {
                "type": "object",
                "properties": {"x": {"type": "string"}, "y": {"type": "string"}},
                "required": ["x"],
            }
        },
    }
    rows = by_path(flatten(schema))
    assert not rows["opt"].required
    assert rows["opt.x"].required and not rows["opt.y"].required


def test_required_names_without_a_schema_are_listed() -> None:
    rows = by_path(flatten({"type": "object", "properties": {"a": {}}, "required": ["a", "b"]}))
    assert rows["b"].required and rows["b"].type_label == "any"


def test_properties_keep_declared_order() -> None:
    names = ["zeta", "alpha", "mu", "beta"]
    flat = flatten({"type": "object", "properties": {n: {"type": "string"} for n in names}})
    assert paths(flat) == names


@pytest.mark.parametrize(
    ("name", "path"),
    [("a.b", 'o["a.b"]'), ("x[0]", 'o["x[0]"]'), ("", 'o[""]'), ("with space", 'o["with space"]'), ("ok_1", "o.ok_1")],
)
def test_odd_property_names_are_quoted(name: str, path: str) -> None:
    flat = flatten({"properties": {"o": {"type": "object", "properties": {name: {"type": "string"}}}}})
    assert path in paths(flat)


def test_maps_and_pattern_properties() -> None:
    schema = {
        "type": "object",
        "properties": {
            "meta": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 5}},
            "headers": {
                "type": "object",
                "patternProperties": {"^x-": {"type": "integer"}},
                "additionalProperties": False,
            },
        },
    }
    flat = flatten(schema)
    assert paths(flat) == ["meta", "meta.{key}", "headers", "headers.{key}"]
    rows = by_path(flat)
    assert rows["meta.{key}"].type_label == "string" and kinds(rows["meta.{key}"]) == {"maxLength": 5}
    assert kinds(rows["headers.{key}"]) == {"pattern": "^x-"}
    assert kinds(rows["headers"]) == {"noAdditional": True}
    assert flatten({"type": "object", "additionalProperties": {"type": "number"}}).rows[0].path == "{key}"


def test_additional_properties_true_or_empty_adds_no_row() -> None:
    extra: object
    for extra in (True, {}):
        assert paths(flatten({"properties": {"m": {"type": "object", "additionalProperties": extra}}})) == ["m"]


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}], "minItems": 2},
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "array",
            "items": [{"type": "string"}, {"type": "number"}],
            "minItems": 2,
        },
    ],
)
def test_tuples(schema: dict[str, Any]) -> None:
    flat = flatten({"type": "object", "properties": {"pair": schema}})
    rows = by_path(flat)
    assert paths(flat) == ["pair", "pair[0]", "pair[1]"]
    assert rows["pair[0]"].type_label == "string" and rows["pair[1]"].type_label == "number"
    assert rows["pair[0]"].required and rows["pair[1]"].required
    assert rows["pair"].type_label == "array of (string | number)"


def test_tuple_with_rest_items() -> None:
    schema = {
        "type": "array",
        "prefixItems": [{"type": "string"}],
        "items": {"type": "object", "properties": {"x": {"type": "integer"}}},
    }
    assert paths(flatten(schema)) == ["", "[0]", "[]", "[].x"]


def test_non_object_roots() -> None:
    flat = flatten({"type": "array", "items": {"type": "object", "properties": {"x": {"type": "string"}}}})
    assert [(r.path, r.depth) for r in flat.rows] == [("", 0), ("[]", 1), ("[].x", 2)]
    assert flat.root is None
    scalar = flatten({"type": "string", "description": "just text"})
    assert [(r.path, r.type_label, r.description) for r in scalar.rows] == [("", "string", "just text")]


def test_object_root_has_no_row_but_is_exposed() -> None:
    flat = flatten({"type": "object", "description": "Args", "properties": {"a": {"type": "string"}}})
    assert paths(flat) == ["a"] and flat.rows[0].depth == 0
    assert flat.root is not None and flat.root.description == "Args"


@pytest.mark.parametrize(("schema", "label"), [(True, "any"), (False, "never")])
def test_boolean_schemas(schema: bool, label: str) -> None:
    flat = flatten({"properties": {"p": schema}})
    assert by_path(flat)["p"].type_label == label
    assert flatten(schema).rows[0].type_label == label
    if not schema:
        assert kinds(by_path(flat)["p"]) == {"not": True}


# --------------------------------------------------------------------------- unions and allOf


def test_object_union_shows_variants() -> None:
    schema = {
        "type": "object",
        "properties": {
            "target": {
                "oneOf": [
                    {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]},
                    {"type": "object", "properties": {"path": {"type": "string"}}},
                    {"type": "string"},
                ]
            }
        },
    }
    flat = flatten(schema)
    assert [(r.path, r.variant, r.type_label) for r in flat.rows] == [
        ("target", None, "object | string"),
        ("target", "1", "object"),
        ("target.url", "1", "string"),
        ("target", "2", "object"),
        ("target.path", "2", "string"),
        ("target", "3", "string"),
    ]
    assert kinds(flat.rows[0]) == {"oneOf": 3}
    assert by_path(flat, "1")["target.url"].required
    assert by_path(flat, "1")["target.url"].depth == 1


def test_any_of_next_to_one_of_are_both_shown() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
        "anyOf": [{"properties": {"a": {"maxLength": 3}}}, {"properties": {"b": {"maxLength": 3}}}],
    }
    flat = flatten(schema)
    root = flat.rows[0]
    assert root.path == "" and kinds(root) == {"oneOf": 2, "anyOf": 2}
    assert [r.variant for r in flat.rows if r.path == ""] == [None, "1", "2", "3", "4"]
    # a required-only variant row is typed from the outer properties
    assert by_path(flat, "1")["a"].required and by_path(flat, "1")["a"].type_label == "string"
    assert kinds(by_path(flat, "3")["a"]) == {"maxLength": 3}


def test_nested_variants_are_numbered_hierarchically() -> None:
    inner = {
        "oneOf": [
            {"type": "object", "properties": {"x": {"type": "string"}}},
            {"type": "object", "properties": {"y": {"type": "string"}}},
        ]
    }
    schema = {"properties": {"p": {"anyOf": [{"type": "object", "properties": {"q": inner}}, {"type": "integer"}]}}}
    variants = [(r.path, r.variant) for r in flatten(schema).rows]
    assert ("p.q", "1.1") in variants and ("p.q.y", "1.2") in variants and ("p", "2") in variants


def test_all_of_merges_objects() -> None:
    schema = {
        "allOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"properties": {"b": {"type": "integer"}, "a": {"maxLength": 3}}, "required": ["b"]},
        ]
    }
    flat = flatten(schema)
    rows = by_path(flat)
    assert paths(flat) == ["a", "b"]
    assert rows["a"].required and rows["b"].required
    assert rows["a"].type_label == "string" and kinds(rows["a"]) == {"maxLength": 3}


def test_all_of_with_refs_and_nested_all_of_merges() -> None:
    schema = {
        "$defs": {"Base": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}},
        "allOf": [{"$ref": "#/$defs/Base"}, {"allOf": [{"properties": {"n": {"type": "integer"}}}]}],
    }
    assert paths(flatten(schema)) == ["id", "n"]


def test_single_all_of_with_description_pattern() -> None:
    schema = {
        "$defs": {"Mode": {"enum": ["a", "b"]}},
        "properties": {"m": {"allOf": [{"$ref": "#/$defs/Mode"}], "description": "The mode"}},
    }
    row = by_path(flatten(schema))["m"]
    assert (row.type_label, row.description, kinds(row)) == ("string", "The mode", {"enum": ["a", "b"]})


@pytest.mark.parametrize(
    "branches",
    [
        [{"properties": {"a": {"type": "string"}}}, {"properties": {"a": {"type": "integer"}}}],
        [{"type": "string"}, {"type": "integer"}],
        [
            {"type": "object", "properties": {"a": {}}, "additionalProperties": False},
            {"properties": {"b": {"type": "string"}}},
        ],
        [{"format": "email"}, {"format": "uri"}],
    ],
)
def test_all_of_conflicts_are_shown_as_variants(branches: list[Any]) -> None:
    flat = flatten({"properties": {"p": {"allOf": branches}}})
    row = by_path(flat)["p"]
    assert kinds(row)["allOf"] == 2
    assert [r.variant for r in flat.rows if r.path == "p"] == [None, "1", "2"]


# --------------------------------------------------------------------------- references


NODE = {
    "$defs": {
        "Node": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
            },
        }
    },
    "type": "object",
    "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
}


def test_recursion_is_shown_once_then_marked() -> None:
    flat = flatten(NODE)
    assert paths(flat) == ["children", "children[]", "children[].name", "children[].children", "children[].children[]"]
    last = flat.rows[-1]
    assert kinds(last) == {"recursive": "children[]"}
    assert last.type_label == "object"
    assert not flat.truncated


def test_recursion_to_the_root() -> None:
    flat = flatten({"type": "object", "properties": {"next": {"$ref": "#"}, "v": {"type": "integer"}}})
    assert kinds(by_path(flat)["next"]) == {"recursive": ""}
    assert paths(flat) == ["next", "v"]


def test_a_recursive_row_keeps_its_place_and_points_back() -> None:
    # The row that stands for the recursion has the depth, requiredness, variant, title and description
    # of where it is, and only the "recursive" constraint: the target's own rules are on its first row.
    schema = {
        "type": "object",
        "minProperties": 1,
        "required": ["next"],
        "properties": {
            "next": {"$ref": "#", "description": "The next one", "title": "Next"},
            "alt": {"oneOf": [{"type": "string"}, {"$ref": "#"}]},
        },
    }
    rows = flatten(schema).rows
    nexts = [r for r in rows if r.path == "next"]
    assert [(r.depth, r.required, r.variant, r.title, r.description, r.item_types) for r in nexts] == [
        (0, True, None, "Next", "The next one", ())
    ]
    assert kinds(nexts[0]) == {"recursive": ""}
    alt = [(r.variant, r.depth, r.required, kinds(r)) for r in rows if r.path == "alt" and r.variant]
    assert alt == [("1", 0, False, {}), ("2", 0, False, {"recursive": ""})]
    deepest = flatten(NODE).rows[-1]
    assert (deepest.path, deepest.depth, deepest.required) == ("children[].children[]", 3, True)


def test_shared_definitions_are_expanded_at_each_use() -> None:
    rows = by_path(flatten(PYDANTIC_INPUT))
    assert "billing.city" in rows and "shipping.city" in rows
    assert "recursive" not in kinds(rows["shipping"])


def test_optional_recursive_reference() -> None:
    schema = {
        "$defs": {
            "L": {"type": "object", "properties": {"next": {"anyOf": [{"$ref": "#/$defs/L"}, {"type": "null"}]}}}
        },
        "$ref": "#/$defs/L",
    }
    row = by_path(flatten(schema))["next"]
    assert row.type_label == "object | null" and kinds(row) == {"recursive": ""}


@pytest.mark.parametrize(
    "schema",
    [
        {"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}, "$ref": "#/$defs/A"},
        {"$ref": "#"},
        {"properties": {"a": {"$ref": "#/properties/a"}}},
        {"$defs": {"A": {"allOf": [{"$ref": "#/$defs/A"}]}}, "properties": {"x": {"$ref": "#/$defs/A"}}},
        {"$defs": {"A": {"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/A"}]}}, "$ref": "#/$defs/A"},
        {"$defs": {"A": {"type": "object", "additionalProperties": {"$ref": "#/$defs/A"}}}, "$ref": "#/$defs/A"},
    ],
)
def test_reference_cycles_finish_fast(schema: dict[str, Any]) -> None:
    start = time.perf_counter()
    flat = flatten(schema)
    assert time.perf_counter() - start < 0.1
    assert len(flat.rows) < 20
    assert not any("internal error" in w for w in flat.warnings)


@pytest.mark.parametrize(
    ("ref", "target"),
    [
        ("#/$defs/Name", "string"),
        ("#/definitions/Count", "integer"),
        ("#/$defs/a~1b", "boolean"),
        ("#/$defs/t~0ilde", "number"),
        ("#/$defs/with%20space", "null"),
        ("#/$defs/list/1", "array"),
        ("#named", "string"),
        ("https://example.com/root.json#/$defs/Name", "string"),
        ("item.json", "object"),
    ],
)
def test_local_reference_forms(ref: str, target: str) -> None:
    schema = {
        "$id": "https://example.com/root.json",
        "$defs": {
            "Name": {"type": "string"},
            "a/b": {"type": "boolean"},
            "t~ilde": {"type": "number"},
            "with space": {"type": "null"},
            "list": [{"type": "string"}, {"type": "array"}],
            "Anchored": {"$anchor": "named", "type": "string"},
            "Item": {"$id": "item.json", "type": "object"},
        },
        "definitions": {"Count": {"type": "integer"}},
        "properties": {"p": {"$ref": ref}},
    }
    flat = flatten(schema)
    assert by_path(flat)["p"].type_label == target
    assert flat.warnings == ()


@pytest.mark.parametrize(
    ("ref", "word"),
    [
        ("https://example.com/other.json", "remote"),
        ("other.json#/x", "remote"),
        ("http://127.0.0.1:1/never", "remote"),
        ("#/$defs/Missing", "dangling"),
        ("#missing-anchor", "dangling"),
        ("#/definitions/x/y", "dangling"),
    ],
)
def test_unresolvable_references_are_shown_and_never_fetched(
    ref: str, word: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket
    import urllib.request

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    flat = flatten({"properties": {"p": {"$ref": ref, "description": "kept"}}})
    row = by_path(flat)["p"]
    assert kinds(row) == {"ref": ref}
    assert row.description == "kept"
    assert any(word in w and ref in w for w in flat.warnings)


def test_ref_siblings_merge_in_2020_12() -> None:
    schema = {"$defs": {"S": {"type": "string"}}, "properties": {"p": {"$ref": "#/$defs/S", "maxLength": 4}}}
    assert kinds(by_path(flatten(schema))["p"]) == {"maxLength": 4}


def test_ref_siblings_in_draft07_keep_only_annotations() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"S": {"type": "string"}},
        "properties": {"p": {"$ref": "#/definitions/S", "maxLength": 4, "description": "d"}},
    }
    row = by_path(flatten(schema))["p"]
    assert kinds(row) == {} and row.description == "d" and row.type_label == "string"


# --------------------------------------------------------------------------- limits and robustness


def _deep(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def test_depth_400_is_fast_and_truncated() -> None:
    # CPU time, not wall time: a loaded machine (the suite's other worker) stretches the wall clock, while
    # walking 400 levels instead of stopping at the limit would cost this process the CPU.
    start = time.process_time()
    flat = flatten(_deep(400))
    assert time.process_time() - start < 0.1
    assert flat.truncated
    assert any("depth limit" in w for w in flat.warnings)
    assert kinds(flat.rows[-1]) == {"truncated": True}
    assert len(flat.rows) == 26  # depths 0..24, then the marker row at depth 25
    assert flat.rows[-1].depth == 25


def test_depth_limit_is_configurable() -> None:
    flat = flatten(_deep(5), max_depth=2)
    assert paths(flat) == ["a", "a.a", "a.a.a", "a.a.a.a"] and kinds(flat.rows[-1]) == {"truncated": True}
    assert not flatten(_deep(5)).truncated


def test_row_cap() -> None:
    schema = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(50)}}
    flat = flatten(schema, max_rows=10)
    assert len(flat.rows) == 10 and flat.truncated
    assert any("row limit" in w for w in flat.warnings)


def test_exponential_fan_out_is_bounded() -> None:
    defs = {
        f"D{i}": {
            "type": "object",
            "properties": {"l": {"$ref": f"#/$defs/D{i + 1}"}, "r": {"$ref": f"#/$defs/D{i + 1}"}},
        }
        for i in range(40)
    }
    defs["D40"] = {"type": "string"}
    start = time.perf_counter()
    flat = flatten({"$defs": defs, "$ref": "#/$defs/D0"})
    assert time.perf_counter() - start < 1.0
    assert flat.truncated and len(flat.rows) <= 2000


def test_aliased_python_dicts_are_recursion() -> None:
    schema: dict[str, Any] = {"type": "object"}
    schema["properties"] = {"self": schema}
    flat = flatten(schema)
    assert kinds(by_path(flat)["self"]) == {"recursive": ""}


@pytest.mark.parametrize(
    "schema",
    [
        None,
        5,
        "string",
        [],
        [{"type": "string"}],
        1.5,
        float("nan"),
        {"type": 5},
        {"properties": [1, 2]},
        {"properties": {"a": 5}},
        {"items": "x"},
        {"required": "a"},
        {"enum": 3},
        {"allOf": {}},
        {"anyOf": []},
        {"oneOf": [5, None]},
        {"$ref": 5},
        {"$ref": "#/%%%"},
        {"$ref": "http://[::1"},
        {"minimum": "3"},
        {"minimum": 10**5000},
        {"maximum": float("inf")},
        {"const": float("nan")},
        {"enum": [10**5000]},
        {"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"},
        {"properties": {"a": {"$dynamicRef": "#meta"}}},
        {"properties": {"a": {"$recursiveRef": "#"}}},
        {"patternProperties": {"(": {"type": "string"}}},
        {"dependencies": {"a": 5}},
        {"type": "object", "properties": {1: {"type": "string"}}},
        {"prefixItems": 3, "items": [1]},
        {"if": 1, "then": 2},
        {"not": None},
        {"$schema": "http://json-schema.org/draft-04/schema#", "id": "#x", "properties": {"a": {"$ref": "#x"}}},
    ],
)
def test_never_raises(schema: object) -> None:
    original = copy.deepcopy(schema) if not isinstance(schema, float) else schema
    flat = flatten(schema)
    assert isinstance(flat, Flattened)
    assert not any("internal error" in w for w in flat.warnings)
    if not isinstance(schema, float):
        assert schema == original  # the input is never modified
    for row in flat.rows:
        row.type_label  # noqa: B018 - must not raise


def test_deterministic() -> None:
    for schema in (REAL_OUTPUT, PYDANTIC_INPUT, NODE):
        assert flatten(schema) == flatten(copy.deepcopy(schema))


def test_bad_limits_fall_back() -> None:
    flat = flatten({"type": "string"}, max_depth="x", max_rows=None)  # type: ignore[arg-type]
    assert len(flat.rows) == 1


def test_constraint_and_row_are_frozen() -> None:
    row = Row("a", ("string",), (), True, None, None, (Constraint("minLength", 1),), 0, None)
    with pytest.raises(AttributeError):
        row.path = "b"  # type: ignore[misc]
    assert row.type_label == "string"


# --- LocalRefs: the targets a $ref can reach inside one document -------------------------------------------


def _embedded() -> dict[str, Any]:
    return {
        "$id": "https://schemas.example/root.json",
        "allOf": [{"type": "object"}, {"required": []}],
        "$defs": {
            "item": {"$id": "item.json", "type": "string"},
            "named": {"$id": "#legacy-name", "type": "integer"},
            "anchored": {"$anchor": "modern-name", "type": "boolean"},
            "broken": {"$id": "http://[::1", "type": "null"},  # a malformed URI: indexing goes on past it
        },
    }


@pytest.mark.parametrize(
    ("ref", "target"),
    [
        ("item.json", "item"),  # as written
        ("./item.json", "item"),  # another spelling of it, resolved against the root's $id
        ("https://schemas.example/item.json", "item"),  # resolved against the root's $id
        ("#legacy-name", "named"),  # a draft-06 style plain-name fragment in $id
        ("#modern-name", "anchored"),
        ("https://schemas.example/root.json#/$defs/item", "item"),
        ("#/$defs/anchored", "anchored"),
    ],
)
def test_a_local_ref_reaches_its_embedded_target(ref: str, target: str) -> None:
    from generator.schema.refs import LocalRefs

    schema = _embedded()
    found, problem = LocalRefs(schema, "2020-12").lookup(ref)
    assert problem is None and found is schema["$defs"][target], (ref, found, problem)


def test_a_pointer_walks_arrays_by_index_and_stops_at_their_end() -> None:
    from generator.schema.refs import LocalRefs

    schema = _embedded()
    refs = LocalRefs(schema, "2020-12")
    assert refs.lookup("#/allOf/1") == (schema["allOf"][1], None)
    assert refs.lookup("#/allOf/0") == (schema["allOf"][0], None)
    assert refs.lookup("#/allOf/2") == (None, "dangling $ref '#/allOf/2'")
    assert refs.lookup("#/$defs/item/0") == (None, "dangling $ref '#/$defs/item/0'")  # no index into an object


@pytest.mark.parametrize(
    ("ref", "problem"),
    [
        ("https://elsewhere.example/item.json", "remote $ref 'https://elsewhere.example/item.json' was not fetched"),
        ("#/$defs/missing", "dangling $ref '#/$defs/missing'"),
        ("#no-such-name", "dangling $ref '#no-such-name' (no such anchor)"),
        ("http://[::2", "dangling $ref 'http://[::2' (malformed URI)"),
    ],
)
def test_a_ref_it_cannot_reach_is_named_and_never_fetched(ref: str, problem: str) -> None:
    from generator.schema.refs import LocalRefs

    assert LocalRefs(_embedded(), "2020-12").lookup(ref) == (None, problem)


def test_a_long_ref_is_quoted_cut_to_120_characters() -> None:
    from generator.schema.refs import LocalRefs

    refs = LocalRefs(_embedded(), "2020-12")
    remote, anchor, malformed = "https://elsewhere.example/" + "a" * 200, "#" + "n" * 200, "http://[::2/" + "m" * 200
    for ref, problem in (
        (remote, "remote $ref {!r} was not fetched"),
        (anchor, "dangling $ref {!r} (no such anchor)"),
        (malformed, "dangling $ref {!r} (malformed URI)"),
        ("#/$defs/" + "p" * 200, "dangling $ref {!r}"),
    ):
        assert refs.lookup(ref) == (None, problem.format(ref[:119] + "…")), ref


def test_an_embedded_id_without_a_root_id_is_found_as_written() -> None:
    from generator.schema.refs import LocalRefs

    schema = {"$defs": {"item": {"$id": "https://schemas.example/item.json", "type": "string"}}}
    found, problem = LocalRefs(schema, "2020-12").lookup("https://schemas.example/item.json")
    assert problem is None and found is schema["$defs"]["item"]


def test_a_recursive_ref_always_means_the_document_root() -> None:
    from generator.schema.refs import LocalRefs

    schema = _embedded()
    refs = LocalRefs(schema, "2019-09")
    # 2019-09 allows only "#" here; whatever else a server writes, the root is the target, as for "#".
    for written in ("#", "#/$defs/item", 7):
        assert refs.lookup(written, "$recursiveRef") == (schema, None), written
    assert refs.lookup(7, "$dynamicRef") == (None, "dangling $dynamicRef (not a string)")


@pytest.mark.parametrize(
    ("pattern", "groups", "names"),
    [
        (r"(a)(b)(c)", 3, set()),
        (r"(?:a)(?=b)(?!c)(?<=d)(?<!e)(f)", 1, set()),  # only capturing groups count
        (r"(?<year>\d{4})(?P<month>\d\d)", 2, {"year", "month"}),
        (r"\(a\)(b)", 1, set()),  # escaped parentheses are no group
        (r"\\(a)", 1, set()),  # an escaped backslash does not escape the group after it
        (r"\d(a)", 1, set()),
        (r"[(](a)", 1, set()),  # a parenthesis in a class is no group
        (r"[a(](b)", 1, set()),  # nor anywhere in it
        (r"[\]](a)", 1, set()),  # an escaped ] does not end the class
        (r"[a](b)[c](d)", 2, set()),
        ("(?<" + "n" * 253 + ">a)", 1, {"n" * 253}),  # the longest name read: the window ends at its >
        ("(?<" + "n" * 254 + ">a)", 0, set()),  # one longer is beyond the window: unsupported
    ],
)
def test_count_groups_counts_capturing_groups_and_names(pattern: str, groups: int, names: set[str]) -> None:
    from generator.schema.ecma_syntax import count_groups

    assert count_groups(pattern) == (groups, names)


@pytest.mark.parametrize("dialect", ["draft-03", "draft-04"])
def test_the_root_id_of_a_draft_04_document_is_its_id_keyword_and_of_a_later_one_only_dollar_id(dialect: str) -> None:
    from generator.schema.refs import LocalRefs

    item, other = {"id": "item.json", "type": "string"}, {"$id": "other.json", "type": "integer"}
    draft4 = {"id": "https://schemas.example/root.json", "definitions": {"item": item, "other": other}}
    assert LocalRefs(draft4, dialect).lookup("https://schemas.example/item.json") == (item, None)
    assert LocalRefs(draft4, dialect).lookup("https://schemas.example/root.json#/definitions/item") == (item, None)
    assert LocalRefs(draft4, dialect).lookup("other.json") == (other, None)  # $id is read there too
    # In 2020-12 "id" is no keyword: the document has no base, and nothing is named item.json.
    later = {"id": "https://schemas.example/root.json", "$defs": {"item": {"$id": "item.json"}, "x": {"id": "x.json"}}}
    assert LocalRefs(later, "2020-12").lookup("https://schemas.example/item.json") == (
        None,
        "remote $ref 'https://schemas.example/item.json' was not fetched",
    )
    assert LocalRefs(later, "2020-12").lookup("x.json") == (None, "remote $ref 'x.json' was not fetched")


def test_a_long_value_is_cut_to_60_characters_of_json() -> None:
    """A constraint's value shown in a table: whole up to 60 characters of compact JSON, else a list's
    first items and "…", or "…" alone."""
    from generator.schema.constraints import _shorter

    exact = "x" * 58  # 60 characters with its quotes
    assert _shorter(exact) == exact and _shorter(exact + "x") == "…"
    assert _shorter({"k": "v" * 70}) == "…"
    assert _shorter(["ab"] * 30) == ["ab"] * 11 + ["…"]  # exactly 60 characters
    numbers = list(range(100, 140))
    cut = _shorter(numbers)
    assert cut[-1] == "…" and cut[:-1] == numbers[: len(cut) - 1]
    assert len(json.dumps(cut, ensure_ascii=False, separators=(",", ":"))) <= 60
    # As many as fit: one more would pass 60 (each number is 3 characters and a comma).
    assert len(json.dumps([*cut[:-1], numbers[len(cut) - 1], "…"], ensure_ascii=False, separators=(",", ":"))) > 60


def test_a_subschema_in_a_constraint_is_shown_without_prose_and_cut_to_200_characters() -> None:
    from generator.schema.constraints import schema_value, where_label

    assert where_label("") == "(root)" and where_label("a.b") == "'a.b'"
    # Prose is left out, at every level; a property named like a prose keyword is kept; data is whole.
    assert schema_value({"description": "d", "type": "string", "title": "t", "maxLength": 20}) == {
        "type": "string",
        "maxLength": 20,
    }
    assert schema_value({"properties": {"title": {"type": "string", "description": "d"}, "b": {"examples": [1]}}}) == {
        "properties": {"title": {"type": "string"}, "b": {}}
    }
    assert schema_value({"items": {"type": "string", "description": "d"}}) == {"items": {"type": "string"}}
    data = {"const": {"description": "data"}, "enum": [{"title": "x"}], "default": {"examples": 1}}
    assert schema_value(data) == data
    assert schema_value({"anyOf": [{"type": "string", "description": "d"}, {"type": "null"}]}) == {
        "anyOf": [{"type": "string"}, {"type": "null"}]
    }
    # Up to 200 characters of JSON it is whole, whatever its parts; past that, rule by rule until 200.
    whole = {"enum": ["y" * 187]}  # exactly 200
    assert schema_value(whole) == whole
    assert schema_value({"enum": ["y" * 188]}) == {"enum": ["…"]}
    assert schema_value({"enum": ["a" * 30, "b" * 30, "c" * 30]}) == {"enum": ["a" * 30, "b" * 30, "c" * 30]}
    fifty = "x" * 50
    long = {"a1": fifty, "a2": fifty, "a3": fifty, "a4": "x" * 17, "a5": fifty}  # 200 characters up to a4
    assert schema_value(long) == {"a1": fifty, "a2": fifty, "a3": fifty, "a4": "x" * 17, "a5": "…"}
