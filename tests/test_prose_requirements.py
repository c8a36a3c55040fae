"""Requirements and exclusions stated only in prose (``generator.schema.prose_requirements``), case by case.

tests/test_examples_prose.py checks them on real servers' schemas through whole examples; mutation
testing (scripts/mutants) showed which of the rules those cases leave unpinned: a choice after "only
for" or "except", a ``const`` or boolean choice, ``=`` as the tie to the call, exclusions named in
the tool's description, and "either ... or ..." when one of the two is already sent.
"""

from __future__ import annotations

from typing import Any

import pytest

from generator.schema.prose_requirements import exclusive_pairs, stated_requirements

ACTION = {"type": "string", "enum": ["create", "delete"]}


def _props(**described: str) -> dict[str, Any]:
    """Properties of type string with these descriptions, after an ``action`` enum and a ``mode``."""
    return {"action": ACTION, "mode": {"type": "string"}} | {
        name: {"type": "string", "description": text} for name, text in described.items()
    }


@pytest.mark.parametrize(
    ("props", "value", "added"),
    [
        # A choice the call made, named after "only for", "except", or quoted.
        (_props(title="Required only for create and update."), {"action": "create"}, ["title"]),
        (_props(title="Required only for create and update."), {"action": "delete"}, []),
        (_props(reason="Required except delete."), {"action": "create"}, ["reason"]),
        (_props(reason="Required except delete."), {"action": "delete"}, []),
        (_props(reason="Required except when action is 'delete'."), {"action": "create"}, ["reason"]),
        (_props(reason="Required except when action is 'delete'."), {"action": "delete"}, []),
        (_props(title="Required when 'create'."), {"action": "create"}, ["title"]),
        # A condition that names no choice of the call says nothing, even after "except".
        (_props(note="Required except for archive."), {"action": "create"}, []),
        # A description that names its own property is about where else it may come from, not about the call.
        (_props(api_key="Required unless the api_key is set in the environment."), {}, []),
        # A property the prose adds counts as given, and as true: the value an example gives a boolean first.
        (
            {
                "mode": {"type": "string"},
                "verbose": {"type": "boolean", "description": "Required when mode is set."},
                "level": {"type": "integer", "description": "Required when verbose is true."},
            },
            {"mode": "x"},
            ["verbose", "level"],
        ),
        # "=" ties a property to the call as "is" does.
        (
            {"mode": {"enum": ["basic", "advanced"]}, "depth": {"description": "Required when mode=advanced."}},
            {"mode": "advanced"},
            ["depth"],
        ),
        (
            {"mode": {"enum": ["basic", "advanced"]}, "depth": {"description": "Required when mode=advanced."}},
            {"mode": "basic"},
            [],
        ),
        # A const and a boolean offer their choices too.
        ({"kind": {"const": "full"}, "extra": {"description": "Required for 'full'."}}, {"kind": "full"}, ["extra"]),
        (
            {"verbose": {"type": "boolean"}, "level": {"description": "Required when verbose is false."}},
            {"verbose": False},
            ["level"],
        ),
        (
            {"verbose": {"type": "boolean"}, "level": {"description": "Required when verbose is false."}},
            {"verbose": True},
            [],
        ),
    ],
)
def test_a_required_when_sentence_is_read_against_the_call(
    props: dict[str, Any], value: dict[str, object], added: list[str]
) -> None:
    assert stated_requirements(props, value) == added


EXCLUSIVE = {
    "a": {"description": "Required when mode is set."},
    "b": {"description": "Required when mode is set. Mutually exclusive with a."},
    "c": {"description": "Required when mode is set."},
    "mode": {"type": "string"},
}


@pytest.mark.parametrize(
    ("value", "added"),
    [
        ({"mode": "x"}, ["a", "c"]),  # b would be required too, but a is sent first
        ({"mode": "x", "b": "y"}, ["c"]),  # a goes with b, which the call has
        ({"mode": "x", "a": "y"}, ["c"]),  # b goes with a; c with neither
    ],
)
def test_of_two_exclusive_properties_only_one_is_added(value: dict[str, object], added: list[str]) -> None:
    assert stated_requirements(EXCLUSIVE, value) == added


def test_the_tool_s_description_can_make_two_properties_exclusive() -> None:
    props = {
        "a": {"description": "Required when mode is set."},
        "b": {"description": "Required when mode is set."},
        "mode": {"type": "string"},
    }
    assert stated_requirements(props, {"mode": "x"}) == ["a", "b"]
    assert stated_requirements(props, {"mode": "x"}, "Send a or b: they are mutually exclusive.") == ["a"]


@pytest.mark.parametrize(
    ("props", "value", "prose", "added"),
    [
        ({"query": {}, "paper_id": {}}, {}, "Give either `query` or `paper_id`.", ["query"]),
        ({"query": {}, "paper_id": {}}, {"paper_id": "1"}, "Give either `query` or `paper_id`.", []),
        ({"query": {}, "paper_id": {}}, {"query": "q"}, "Give either `query` or `paper_id`.", []),
        ({"query": {}}, {}, "Give either `query` or `title`.", []),  # title is no property
    ],
)
def test_either_or_adds_the_first_when_neither_is_sent(
    props: dict[str, Any], value: dict[str, object], prose: str, added: list[str]
) -> None:
    assert stated_requirements(props, value, prose) == added


@pytest.mark.parametrize(
    ("props", "prose", "pairs"),
    [
        ({"a": {"description": "Mutually exclusive with b."}, "b": {}}, "", [("a", "b")]),
        (
            {"a": {}, "b": {}, "c": {}},
            "Send a, b or c; they are mutually exclusive.",
            [("a", "b"), ("a", "c"), ("b", "c")],
        ),
        ({"query": {}, "paper_id": {}}, "Give either `query` or `paper_id`.", [("query", "paper_id")]),
        ({"query": {}, "paper_id": {}}, "Give either `paper_id` or `query`.", [("query", "paper_id")]),
        ({"query": {}}, "Give either `query` or `title`.", []),
        ({"query": {}}, "Give either `query` or `query`.", []),
    ],
)
def test_exclusive_pairs(props: dict[str, Any], prose: str, pairs: list[tuple[str, str]]) -> None:
    assert exclusive_pairs(props, prose) == pairs
