"""What one schema node says on its own (``generator.schema.constraints``), pinned exactly.

The page and example tests see a node's types and rules only through what they change on a
page, and a valid example leaves most of them free.  Mutation testing (scripts/mutants) found
the types a keyword implies, the draft-07 ``dependencies`` split, the singular ``examples`` and
the paths in warnings unpinned; each has its case here.
"""

from __future__ import annotations

from typing import Any

import pytest

from generator.jsonutil import MAX_LIST
from generator.schema.constraints import constraints, merge_schemas, own_types


@pytest.mark.parametrize(
    ("schema", "types"),
    [
        # With no usable type, the keywords say which type a node holds.
        ({"const": 3}, ("integer",)),
        ({"enum": ["a", 1, None]}, ("string", "integer", "null")),
        ({"properties": {"a": {}}}, ("object",)),
        ({"patternProperties": {"^x-": {}}}, ("object",)),
        ({"required": ["a"]}, ("object",)),
        ({"required": True}, ()),  # draft-03's boolean is about the property, not an object's names
        ({"additionalProperties": {"type": "string"}}, ("object",)),
        ({"additionalProperties": False}, ()),
        ({"items": {"type": "string"}}, ("array",)),
        ({"prefixItems": [{"type": "string"}]}, ("array",)),
        ({"minimum": 1}, ()),
        ({"type": "string", "nullable": True}, ("string", "null")),
        ({"items": {}, "nullable": True}, ("array", "null")),
        # A type the node states, even one this tool does not know, is not second-guessed.
        ({"type": "any", "const": 3}, ()),
        ({"type": "any", "required": ["a"]}, ()),
        ({"type": "string", "items": {}}, ("string",)),
    ],
)
def test_own_types(schema: dict[str, Any], types: tuple[str, ...]) -> None:
    assert own_types(schema) == types


def _rules(schema: dict[str, Any], path: str = "") -> tuple[list[tuple[str, Any]], list[str]]:
    warnings: list[str] = []
    found = constraints(schema, warnings.append, path) if path else constraints(schema, warnings.append)
    return [(c.kind, c.value) for c in found], warnings


@pytest.mark.parametrize(
    ("schema", "rules"),
    [
        # draft-07's dependencies: a list is dependentRequired, a schema dependentSchemas.
        (
            {"dependencies": {"a": ["b"], "c": {"required": ["d"]}, "e": True}},
            [("dependentRequired", {"a": ["b"]}), ("dependentSchemas", {"c": {"required": ["d"]}, "e": True})],
        ),
        # Each modern keyword takes only its own form; anything else is not a rule.
        ({"dependentSchemas": {"a": ["b"]}}, []),
        ({"dependentRequired": {"a": {"required": ["b"]}}}, []),
        ({"dependentRequired": {"a": True}}, []),
        ({"dependencies": {"a": "b"}}, []),
        ({"dependencies": {"a": 3}}, []),
        # examples: a list as given; a single value (not valid, but meant) as a list of one.
        ({"examples": 5}, [("examples", [5])]),
        ({"examples": [5, 6]}, [("examples", [5, 6])]),
        ({"examples": {"a": 1}}, [("examples", [{"a": 1}])]),
        ({"example": "x"}, [("examples", ["x"])]),
    ],
)
def test_rules(schema: dict[str, Any], rules: list[tuple[str, Any]]) -> None:
    assert _rules(schema) == (rules, [])


def test_a_long_enum_is_kept_and_named_in_a_warning() -> None:
    full = list(range(MAX_LIST))
    assert _rules({"enum": full}, "a.b") == ([("enum", full)], [])
    longer = list(range(MAX_LIST + 1))
    rules, warnings = _rules({"enum": longer}, "a.b")
    assert rules == [("enum", longer[:MAX_LIST])]
    assert warnings == [f"enum at 'a.b' has {MAX_LIST + 1} values; only {MAX_LIST} are shown"]


@pytest.mark.parametrize(
    ("schema", "path", "warnings"),
    [
        ({"enum": 3}, "", ["ignored malformed enum at (root)"]),
        ({"enum": 3}, "filters.kind", ["ignored malformed enum at 'filters.kind'"]),
        ({"minimum": "1"}, "", ["ignored non-numeric minimum at (root)"]),
        ({"maxItems": None}, "tags", ["ignored non-numeric maxItems at 'tags'"]),
    ],
)
def test_warnings_name_the_node(schema: dict[str, Any], path: str, warnings: list[str]) -> None:
    assert _rules(schema, path) == ([], warnings)


def test_a_closed_object_merges_with_a_draft03_required() -> None:
    """draft-03's ``required: true`` names no property, so a closed object's merge with it holds."""
    closed = {"properties": {"a": {}}, "additionalProperties": False}

    def types_of(node: object) -> tuple[str, ...]:
        return own_types(node) if isinstance(node, dict) else ()

    assert merge_schemas(closed, {"required": True}, types_of) == {**closed, "required": True}
    assert merge_schemas({"required": True}, closed, types_of) == {"required": True, **closed}
