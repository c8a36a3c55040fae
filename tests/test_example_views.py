"""How the example generator sees a schema (``generator.schema.example_views``): references, ``allOf`` and recursion.

Each case is a schema and the exact example it gets (or that it gets none), compared as JSON text. An
example only has to validate, and most ways of reading a reference wrongly still give a valid one:
mutation testing (scripts/mutants) showed the dialect's rules for a reference's siblings, the bounds of
the walk (32 references in a row, 16 branches of an ``allOf``, 16 levels of nesting), the smaller
example written for a recursive tree's inner levels and the context a wrapper passes down unpinned.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from generator.schema.examples import example_for
from generator.schema.validation import validate

DRAFT_04 = "http://json-schema.org/draft-04/schema#"
DRAFT_07 = "http://json-schema.org/draft-07/schema#"
DRAFT_2019 = "https://json-schema.org/draft/2019-09/schema"
STRING = {"type": "string"}
SEVEN = {"type": "integer", "minimum": 7}


def example_json(schema: object, **options: Any) -> str | None:
    """The example as JSON text after checking that it validates; None when there is none."""
    example = example_for(schema, **options)
    if not example.ok:
        return None
    assert validate(example.value, schema) == []
    return json.dumps(example.value)


def references(count: int) -> dict[str, Any]:
    """A schema that reaches SEVEN through *count* references in a row (the root's own is the first)."""
    names = [f"r{i}" for i in range(1, count)] + ["end"]
    defs: dict[str, Any] = {name: {"$ref": f"#/$defs/{after}"} for name, after in itertools.pairwise(names)}
    return {"$defs": {**defs, "end": SEVEN}, "$ref": f"#/$defs/{names[0]}"}


def nested_all_of(levels: int) -> dict[str, Any]:
    """SEVEN inside *levels* ``allOf`` of one branch each."""
    node: dict[str, Any] = SEVEN
    for _ in range(levels):
        node = {"allOf": [node]}
    return node


TREE = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "examples": ["root"]},
        "note": {"type": "string", "examples": ["a documented optional property"]},
        "next": {"anyOf": [{"$ref": "#/$defs/node"}, {"type": "null"}]},
    },
    "required": ["name", "next"],
}


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        # draft-07 ignores the siblings of $ref but for annotations: the example is the sibling's, maxLength is not.
        pytest.param(
            {
                "$schema": DRAFT_07,
                "definitions": {"a": STRING},
                "type": "object",
                "properties": {"x": {"$ref": "#/definitions/a", "maxLength": 2, "examples": ["abc"]}},
                "required": ["x"],
            },
            {"x": "abc"},
            id="draft-07-ref-siblings-annotations-only",
        ),
        # draft-04 names a subschema with "id": "#foo".
        pytest.param(
            {
                "$schema": DRAFT_04,
                "definitions": {"a": {"id": "#foo", **SEVEN}},
                "type": "object",
                "properties": {"x": {"$ref": "#foo"}},
                "required": ["x"],
            },
            {"x": 7},
            id="draft-04-plain-name-id",
        ),
        # 2019-09's $recursiveRef means the root, whatever it says: p is an object like the root (kept small).
        pytest.param(
            {
                "$schema": DRAFT_2019,
                "type": "object",
                "properties": {"p": {"$recursiveRef": "#/$defs/s"}},
                "$defs": {"s": STRING},
            },
            {"p": {}},
            id="recursive-ref-is-the-root",
        ),
        # A reference to `true` with siblings: the siblings are the schema.
        pytest.param(
            {
                "$defs": {"any": True},
                "type": "object",
                "properties": {"x": {"$ref": "#/$defs/any", **SEVEN}},
                "required": ["x"],
            },
            {"x": 7},
            id="ref-to-true-with-siblings",
        ),
        # A recursive tree: its inner levels hold only what they require, not the documented optional `note`.
        pytest.param(
            {"$defs": {"node": TREE}, "$ref": "#/$defs/node"},
            {"name": "root", "note": "a documented optional property", "next": {"name": "root", "next": None}},
            id="recursive-tree-inner-levels-minimal",
        ),
        # An array of the tree's own nodes is left empty: the smallest example of a recursive tree.
        pytest.param(
            {
                "$defs": {
                    "node": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string", "examples": ["root"]},
                            "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                        },
                        "required": ["name", "children"],
                    }
                },
                "$ref": "#/$defs/node",
            },
            {"name": "root", "children": []},
            id="recursive-array-left-empty",
        ),
        # The walk follows 31 references in a row, not 32.
        pytest.param(references(31), 7, id="31-references"),
        pytest.param(references(32), None, id="32-references"),
        # 16 branches of an allOf are merged, a 17th is not (and then no example holds).
        pytest.param({"type": "integer", "allOf": [{}] * 15 + [{"minimum": 7}]}, 7, id="16-branches"),
        pytest.param({"type": "integer", "allOf": [{}] * 16 + [{"minimum": 7}]}, None, id="17-branches"),
        # allOf inside allOf is merged down to 17 levels.
        pytest.param(nested_all_of(2), 7, id="2-levels"),
        pytest.param(nested_all_of(17), 7, id="17-levels"),
        pytest.param(nested_all_of(18), None, id="18-levels"),
        # After a root allOf the example is still the root's: its point is added (only a root gets one).
        pytest.param(
            {
                "allOf": [
                    {"type": "object", "properties": {"limit": {"type": "integer", "default": 10}, "query": STRING}}
                ]
            },
            {"limit": 10, "query": "quarterly report"},
            id="root-all-of-keeps-the-root",
        ),
    ],
)
def test_example(schema: dict[str, Any], expected: Any) -> None:
    assert example_json(schema) == (None if expected is None else json.dumps(expected))


def test_a_wrapper_passes_the_subject_on() -> None:
    """``data`` says nothing of what a value is about, so a ``name`` inside it is named for the tool."""
    schema = {
        "type": "object",
        "properties": {"data": {"type": "object", "properties": {"name": STRING}, "required": ["name"]}},
        "required": ["data"],
    }
    assert example_json(schema, subject="create_chart") == json.dumps({"data": {"name": "my-chart"}})
