"""Where a ``$ref`` points inside one document (``generator.schema.refs``), decided case by case.

The schema tests resolve references in documents of a few dozen nodes, where the index's bounds never
bind and every anchor sits in plain sight; mutation testing (scripts/mutants) showed the budget, the
guard against a node reached twice, the anchor keywords and the data keys unpinned. Each case builds a
document and says what a reference to it finds.
"""

from __future__ import annotations

from typing import Any

import pytest

from generator.jsonutil import clip
from generator.schema.refs import LocalRefs, detect_dialect


def test_a_schema_uri_that_is_not_a_string_or_not_known_is_read_as_2020_12() -> None:
    assert detect_dialect({"$schema": 7}) == (None, "$schema is not a string; interpreted as 2020-12")
    long = "https://example.com/" + "s" * 200
    assert detect_dialect({"$schema": long}) == (None, f"unknown $schema {clip(long, 120)!r}; interpreted as 2020-12")
    assert detect_dialect({"$schema": "http://json-schema.org/draft-07/schema#"}) == ("draft-07", None)


def test_the_index_reads_fifty_thousand_nodes_and_no_more() -> None:
    """The root is the first node read and the list the second, so the item at index i is node i + 3."""
    items = [{"$anchor": f"a{i}"} for i in range(50_000)]
    refs = LocalRefs({"items": items}, None)
    assert refs.lookup("#a49997") == (items[49_997], None)
    assert refs.lookup("#a49998") == (None, "dangling $ref '#a49998' (no such anchor)")


def test_a_node_reached_many_times_is_read_once() -> None:
    """Thirty levels, each reaching the next twice, are 2**30 paths to one leaf: read once each, the whole
    document takes 62 nodes of the budget, and the anchor after them is found."""
    node: dict[str, Any] = {"type": "string"}
    for _ in range(30):
        node = {"left": node, "right": node}
    end = {"$anchor": "end"}
    refs = LocalRefs({"a": node, "b": end}, None)
    assert refs.lookup("#end") == (end, None)


def test_a_dynamic_anchor_is_an_anchor() -> None:
    target = {"$dynamicAnchor": "node", "type": "object"}
    assert LocalRefs({"$defs": {"n": target}}, "2020-12").lookup("#node") == (target, None)


def test_a_recursive_anchor_names_nothing() -> None:
    """2019-09's ``$recursiveAnchor`` is a boolean; a string there is no name a ``$ref`` can use."""
    refs = LocalRefs({"$defs": {"n": {"$recursiveAnchor": "node"}}}, "2019-09")
    assert refs.lookup("#node") == (None, "dangling $ref '#node' (no such anchor)")


@pytest.mark.parametrize("key", ["enum", "const", "default", "examples", "example"])
def test_an_anchor_inside_data_names_nothing(key: str) -> None:
    """Values under ``enum``, ``const``, ``default`` and the examples are data: an ``$anchor`` in one is text."""
    refs = LocalRefs({key: [{"$anchor": "x"}]}, None)
    assert refs.lookup("#x") == (None, "dangling $ref '#x' (no such anchor)")
