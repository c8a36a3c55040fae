"""How the flattener sees a subschema (``generator.schema.resolve``), decided case by case.

The schema tests reach the resolver through whole tables of rows, where several answers print the
same row; mutation testing (scripts/mutants) showed the union rules and the reference bookkeeping
unpinned. Each case is a subschema as servers write them and what the resolver must say of it.
"""

from __future__ import annotations

from typing import Any

import pytest

from generator.schema.resolve import MAX_HOPS, MAX_WARNINGS, SchemaResolver

DEFS = {"$defs": {"s": {"type": "string"}, "n": {"type": "integer", "minimum": 1}, "any": {}}}


def _collapse(kind: str, branches: list[Any], **rest: Any) -> Any:
    schema = {kind: branches, **rest}
    return SchemaResolver(schema).collapse(schema, kind)


@pytest.mark.parametrize(
    ("branches", "collapsed"),
    [
        # X | null: the one type, with null added.
        ([{"type": "string"}, {"type": "null"}], ({"type": "string"}, True, {})),
        # Only null, in each way a schema can say it.
        ([{"const": None}], ({"type": "null"}, False, {})),
        ([{"enum": [None]}], ({"type": "null"}, False, {})),
        ([{"type": ["null"]}], ({"type": "null"}, False, {})),
        ([{"type": "null"}, {"type": "null"}], ({"type": "null"}, False, {})),
        # A rule binds when every branch it could constrain states it: integers have no length...
        (
            [{"type": "string", "maxLength": 5}, {"type": "integer"}],
            ({"maxLength": 5, "type": ["string", "integer"]}, False, {}),
        ),
        (
            [{"type": "integer", "minimum": 0}, {"type": "string"}],
            ({"minimum": 0, "type": ["integer", "string"]}, False, {}),
        ),
        (
            [{"type": "array", "minItems": 1}, {"type": "string"}],
            ({"minItems": 1, "type": ["array", "string"]}, False, {}),
        ),
        (
            [{"type": "object", "minProperties": 1}, {"type": "string"}],
            ({"minProperties": 1, "type": ["object", "string"]}, False, {}),
        ),
        # ...but a format in one of two string branches, a minimum beside an integer branch, or a keyword
        # that constrains every type in one branch only, holds "in some variants".
        (
            [{"type": "string"}, {"type": "string", "format": "date-time"}],
            ({"type": ["string"]}, False, {"format": "date-time"}),
        ),
        (
            [{"type": "number", "minimum": 0}, {"type": "integer"}],
            ({"type": ["number", "integer"]}, False, {"minimum": 0}),
        ),
        (
            [{"type": "string", "x-custom": 1}, {"type": "integer"}],
            ({"type": ["string", "integer"]}, False, {"x-custom": 1}),
        ),
        (
            [{"type": "string", "x-custom": 1}, {"type": "integer", "x-custom": 1}],
            ({"x-custom": 1, "type": ["string", "integer"]}, False, {}),
        ),
        # Values: constants and enums become one enum, each value once.
        ([{"const": "a"}, {"const": "b"}], ({"enum": ["a", "b"], "type": ["string"]}, False, {})),
        (
            [{"type": "string", "enum": ["a", "b"]}, {"type": "string", "const": "a"}],
            ({"enum": ["a", "b"], "type": ["string"]}, False, {}),
        ),
        # One description is the row's; two are not.
        (
            [{"type": "string", "description": "A name."}, {"type": "integer"}],
            ({"type": ["string", "integer"], "description": "A name."}, False, {}),
        ),
        (
            [{"type": "string", "description": "A name."}, {"type": "integer", "description": "An id."}],
            ({"type": ["string", "integer"]}, False, {}),
        ),
        (
            [{"type": "string", "$id": "x", "title": "T"}, {"type": "integer"}],
            ({"type": ["string", "integer"]}, False, {}),
        ),
        # A false branch adds nothing.
        ([{"type": "string"}, False], ({"type": "string"}, False, {})),
        # Real alternatives stay variants.
        ([{"type": "string", "enum": ["a"]}, {"type": "integer"}], None),  # values in one branch only
        ([{"type": "string", "pattern": "a"}, {"type": "string", "pattern": "b"}], None),
        ([{"type": "object", "properties": {}}, {"type": "string"}], None),
        ([{"maxLength": 3}, {"type": "string"}], None),  # a branch without a type
        ([True, {"type": "string"}], None),
        ([{"$ref": "#/nowhere"}, {"type": "string"}], None),
        ([{"type": "string"}] * 64, ({"type": ["string"]}, False, {})),
        ([{"type": "string"}] * 65, None),  # past 64 branches
        ([False], None),  # nothing left
        ([True, {"type": "null"}], ({}, True, {})),  # any value, or null
        # Identifiers in a branch say nothing of its values.
        ([{"type": "string", "$anchor": "a"}, {"type": "integer"}], ({"type": ["string", "integer"]}, False, {})),
        ([{"type": "string", "$schema": "x"}, {"type": "integer"}], ({"type": ["string", "integer"]}, False, {})),
    ],
)
def test_a_union_of_simple_types_collapses_to_one_row(branches: list[Any], collapsed: Any) -> None:
    assert _collapse("anyOf", branches) == collapsed
    assert _collapse("oneOf", branches) == collapsed


@pytest.mark.parametrize(
    ("rest", "collapsed"),
    [
        ({"description": "Either"}, ({"description": "Either", "type": ["string", "integer"]}, False, {})),
        ({"enum": ["a", 1]}, ({"enum": ["a", 1], "type": ["string", "integer"]}, False, {})),
        ({"type": ["string", "integer", "null"]}, ({"type": ["string", "integer", "null"]}, False, {})),
    ],
)
def test_the_keywords_beside_a_union_are_kept(rest: dict[str, Any], collapsed: Any) -> None:
    assert _collapse("anyOf", [{"type": "string"}, {"type": "integer"}], **rest) == collapsed


def test_the_keywords_beside_x_or_null_are_merged_into_x() -> None:
    assert _collapse("anyOf", [{"type": "string"}, {"type": "null"}], maxLength=3) == (
        {"maxLength": 3, "type": "string"},
        True,
        {},
    )
    beside = {"properties": {"a": {"maxLength": 3}}}
    x = {"type": "object", "properties": {"a": {"type": "string"}}}
    assert _collapse("anyOf", [x, {"type": "null"}], **beside) == (
        {"properties": {"a": {"allOf": [{"maxLength": 3}, {"type": "string"}]}}, "type": "object"},
        True,
        {},
    )


@pytest.mark.parametrize(
    ("branches", "rest"),
    [
        ([{"const": "a"}, {"const": "b"}], {"enum": ["a"]}),  # values beside values: variants
        ([{"const": "a"}, {"const": "b"}], {"const": "a"}),
        ([{"type": "null"}], {"type": "string"}),  # null beside a string: nothing fits
        ([{"type": "integer"}, {"type": "null"}], {"type": "string"}),
    ],
)
def test_a_union_whose_keywords_beside_it_disagree_stays_variants(branches: list[Any], rest: dict[str, Any]) -> None:
    assert _collapse("anyOf", branches, **rest) is None


def test_one_description_beside_the_union_wins_over_a_branch_s() -> None:
    branches = [{"type": "string", "description": "A name."}, {"type": "integer"}]
    assert _collapse("anyOf", branches, description="Outer") == (
        {"description": "Outer", "type": ["string", "integer"]},
        False,
        {},
    )


@pytest.mark.parametrize("other", [{"type": ["null", "string"]}, {"const": 0}, {"enum": [None, 1]}, {}])
def test_only_a_schema_that_admits_null_alone_adds_null(other: dict[str, Any]) -> None:
    collapsed = _collapse("anyOf", [{"type": "string", "maxLength": 2}, other])
    assert collapsed is None or collapsed[1] is False


@pytest.mark.parametrize(
    ("node", "types"),
    [
        ({"$ref": "#/$defs/s"}, ("string",)),
        ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, ("string", "integer")),
        ({"oneOf": [{"type": "string"}, {}]}, ()),  # a branch of any type
        ({"allOf": [{}, {"type": "number"}]}, ("number",)),  # the first branch that says
        ({"anyOf": []}, ()),
        (True, ()),
        ({"$ref": "#/nope"}, ()),
        ({"anyOf": [{"anyOf": [{"anyOf": [{"type": "string"}]}]}]}, ("string",)),  # three unions deep
        ({"anyOf": [{"anyOf": [{"anyOf": [{"anyOf": [{"type": "string"}]}]}]}]}, ()),  # four: not looked into
        ({"oneOf": [{"type": "string"}, {"type": "integer"}]}, ("string", "integer")),
        ({"anyOf": [], "allOf": [{"type": "string"}]}, ("string",)),
        ({"allOf": [{}]}, ()),
        ({"allOf": [{"allOf": [{"allOf": [{"type": "string"}]}]}]}, ("string",)),
        ({"allOf": [{"allOf": [{"allOf": [{"allOf": [{"type": "string"}]}]}]}]}, ()),
        ({"allOf": [{}] * 7 + [{"type": "string"}]}, ("string",)),
        ({"allOf": [{}] * 8 + [{"type": "string"}]}, ()),  # the first eight branches only
        ({"$ref": "#/$defs/any", "type": "string"}, ("string",)),  # what is written beside the $ref counts
    ],
)
def test_the_types_of_a_subschema_are_found_through_refs_and_unions(node: Any, types: tuple[str, ...]) -> None:
    assert SchemaResolver(DEFS).plain_types(node) == types


@pytest.mark.parametrize(
    ("schema", "types"),
    [
        (
            {"prefixItems": [{"type": "string"}, {"type": "integer"}], "items": {"type": "boolean"}},
            ("string", "integer", "boolean"),
        ),
        ({"items": [{"type": "string"}], "additionalItems": {"type": "null"}}, ("string", "null")),
        ({"items": {"type": "string"}}, ("string",)),
        ({"items": {}}, ()),
        ({"prefixItems": [{}]}, ()),
        ({}, ()),
    ],
)
def test_the_types_of_an_array_s_items(schema: dict[str, Any], types: tuple[str, ...]) -> None:
    assert SchemaResolver(DEFS).item_types(schema) == types


@pytest.mark.parametrize(
    ("node", "bare"),
    [
        (True, True),
        ({}, True),
        ({"type": "string"}, True),
        ({"$ref": "#/$defs/s"}, True),
        ({"type": "object"}, False),
        ({"type": "array"}, False),
        ({"type": "string", "maxLength": 1}, False),
        (False, False),
        ({"$ref": "#/nope"}, False),
    ],
)
def test_an_item_schema_is_bare_when_its_type_says_it_all(node: Any, bare: bool) -> None:
    assert SchemaResolver(DEFS).is_bare(node) is bare


@pytest.mark.parametrize(
    ("schema", "merged"),
    [
        ({"allOf": [{"type": "string"}, {"maxLength": 3}]}, ({"type": "string", "maxLength": 3}, [])),
        (
            {"allOf": [{"$ref": "#/$defs/n"}, {"maximum": 9}], "description": "d"},
            ({"description": "d", "type": "integer", "minimum": 1, "maximum": 9}, [{"type": "integer", "minimum": 1}]),
        ),
        ({"allOf": [True, {"type": "string"}]}, ({"type": "string"}, [])),
        (
            {"allOf": [{"allOf": [{"type": "string"}, {"minLength": 1}]}, {"maxLength": 2}]},
            ({"type": "string", "minLength": 1, "maxLength": 2}, []),
        ),
        ({"allOf": [False]}, (None, [])),
        ({"allOf": [{"$ref": "#/nope"}]}, (None, [])),
        ({"allOf": [{"type": "string"}, {"type": "integer"}]}, (None, [])),
    ],
)
def test_all_of_is_merged_into_one_schema_when_its_branches_agree(schema: dict[str, Any], merged: Any) -> None:
    assert SchemaResolver(DEFS).merge_all_of(schema, "x") == merged


def _nested_all_of(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = {"allOf": [schema, {"minLength": 1}]}
    return schema


@pytest.mark.parametrize(("depth", "flat"), [(4, True), (5, True), (6, False)])
def test_all_of_within_all_of_is_merged_five_levels_deep(depth: int, flat: bool) -> None:
    merged, _ = SchemaResolver({}).merge_all_of(_nested_all_of(depth), "x")
    assert merged is not None and ("allOf" not in merged) is flat


def test_all_of_gathers_the_refs_entered_at_every_level_and_warns_where_it_was() -> None:
    resolver = SchemaResolver({"$defs": {"s": {"type": "string"}, "s2": {"type": "string", "maxLength": 3}}})
    schema = {"allOf": [{"$ref": "#/$defs/s"}, {"allOf": [{"$ref": "#/$defs/s2"}]}]}
    assert resolver.merge_all_of(schema, "x") == (
        {"type": "string", "maxLength": 3},
        [{"type": "string"}, {"type": "string", "maxLength": 3}],
    )
    assert resolver.merge_all_of({"allOf": [{"$ref": "#/nope"}]}, "a.b") == (None, [])
    assert resolver.merge_all_of({"allOf": [{"allOf": [{"$ref": "#/gone"}]}]}, "x.y") == (None, [])
    assert resolver.warnings == ["dangling $ref '#/nope' at 'a.b'", "dangling $ref '#/gone' at 'x.y'"]
    unmergeable = {"allOf": [{"type": "string"}, {"allOf": [{"type": "string"}, {"type": "integer"}]}]}
    assert resolver.merge_all_of(unmergeable, "x") == (None, [])


def test_the_ref_keyword_decides_how_a_reference_is_read() -> None:
    """``$recursiveRef`` goes to the root whatever it says; a problem names the keyword; draft-04 anchors are
    ``id``s."""
    draft_2019 = {
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "type": "object",
        "$defs": {"s": {"type": "string"}},
    }
    assert SchemaResolver(draft_2019).plain_types({"$recursiveRef": "#/$defs/s"}) == ("object",)
    resolver = SchemaResolver({})
    assert resolver.resolve({"$dynamicRef": 5}, "p").ref == "5"
    assert resolver.resolve({"$ref": {"a": 1}}, "q").ref == '{"a":1}'
    assert resolver.warnings == ["dangling $dynamicRef (not a string) at 'p'", "dangling $ref (not a string) at 'q'"]
    draft_04 = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "definitions": {"a": {"id": "#foo", "type": "string"}},
    }
    assert SchemaResolver(draft_04).plain_types({"$ref": "#foo"}) == ("string",)


def test_a_ref_is_followed_with_what_is_written_beside_it() -> None:
    root = {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"type": "string"}, "self": {"$ref": "#/$defs/self"}}}
    resolver = SchemaResolver(root)
    found = resolver.resolve({"$ref": "#/$defs/a", "description": "D", "maxLength": 3}, "p.x")
    assert (found.schema, found.entered) == (
        {"type": "string", "description": "D", "maxLength": 3},
        [{"$ref": "#/$defs/b"}, {"type": "string"}],
    )
    assert (found.recursive, found.ref, resolver.warnings) == (None, None, [])
    looped = resolver.resolve({"$ref": "#/$defs/self"}, "p.y")
    assert (looped.schema, looped.recursive) == ({"$ref": "#/$defs/self"}, "p.y")
    dangling = resolver.resolve({"$ref": "#/nope", "title": "T", "$dynamicRef": "#x"}, "p.z")
    assert (dangling.schema, dangling.ref) == ({"title": "T"}, "#/nope")
    assert resolver.resolve(5, "p.w").schema == {} and resolver.resolve(False, "p").schema is False
    assert resolver.warnings == ["dangling $ref '#/nope' at 'p.z'", "invalid subschema at 'p.w': int, not an object"]


def test_a_schema_being_expanded_is_shown_where_it_first_was() -> None:
    target = {"type": "object"}
    resolver = SchemaResolver({})
    resolver.active[id(target)] = "first.path"
    assert resolver.resolve(target, "second").recursive == "first.path"


def test_a_ref_chain_stops_after_its_hops() -> None:
    chain = {"$defs": {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(40)}}
    resolver = SchemaResolver(chain)
    found = resolver.resolve({"$ref": "#/$defs/d0"}, "q")
    assert (found.schema, found.ref, len(found.entered)) == ({}, "…", MAX_HOPS)
    assert resolver.warnings == [f"$ref chain longer than {MAX_HOPS} at 'q'"]


@pytest.mark.parametrize(
    ("target", "siblings", "merged"),
    [
        (
            {"type": "string"},
            {"description": "D", "maxLength": 3},
            {"type": "string", "description": "D", "maxLength": 3},
        ),
        (
            {"type": "string"},
            {"type": "integer", "title": "T"},
            {"allOf": [{"type": "string"}, {"type": "integer"}], "title": "T"},
        ),
        ({"type": "string"}, {}, {"type": "string"}),
        (True, {"maxLength": 3}, {"maxLength": 3}),
        (False, {"maxLength": 3}, False),
        (5, {"maxLength": 3}, {"maxLength": 3}),
        (
            {"type": "object", "properties": {"a": {"type": "string"}}},
            {"properties": {"a": {"maxLength": 3}}},
            {"type": "object", "properties": {"a": {"allOf": [{"type": "string"}, {"maxLength": 3}]}}},
        ),
    ],
)
def test_the_keywords_beside_a_ref_apply_to_its_target(target: Any, siblings: dict[str, Any], merged: Any) -> None:
    assert SchemaResolver(DEFS).with_siblings(target, siblings) == merged


def test_before_2019_09_only_the_prose_beside_a_ref_is_kept() -> None:
    resolver = SchemaResolver({"$schema": "http://json-schema.org/draft-07/schema#"})
    assert resolver.legacy
    assert resolver.with_siblings({"type": "string"}, {"description": "D", "maxLength": 3}) == {
        "type": "string",
        "description": "D",
    }


def test_a_warning_is_kept_once_and_the_list_is_bounded() -> None:
    resolver = SchemaResolver({})
    for n in range(MAX_WARNINGS + 5):
        resolver.warn(f"w{n}")
    resolver.warn("w0")
    assert len(resolver.warnings) == MAX_WARNINGS + 1
    assert resolver.warnings[-2:] == [f"w{MAX_WARNINGS - 1}", "further warnings omitted"]
    assert resolver.warnings.count("w0") == 1


def test_a_dialect_the_resolver_does_not_know_is_a_warning() -> None:
    assert SchemaResolver({"$schema": "https://example.com/my-dialect"}).warnings
