"""Every real tool schema in tests/corpus/ gets complete rows and an example that validates against it.

The corpus holds tools/list dumps of 59 published MCP servers (see tests/corpus/README.md).
Run ``python -m tests.test_corpus`` to print the example rate per source.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from generator.model.tool import MAX_OPTIONAL_ARGUMENTS
from generator.schema.examples import example_for
from generator.schema.flatten import flatten
from generator.schema.prose_requirements import stated_requirements
from generator.schema.validation import validate

CORPUS = Path(__file__).resolve().parent / "corpus"


def corpus_tools() -> Iterator[tuple[str, str, str, Any]]:
    """(source file, tool name, which schema, schema) for every schema in the corpus."""
    for path in sorted(CORPUS.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for tool in data["tools"]:
            yield path.stem, tool["name"], "inputSchema", tool["inputSchema"]
            if "outputSchema" in tool:
                yield path.stem, tool["name"], "outputSchema", tool["outputSchema"]


ALL = list(corpus_tools())


def test_corpus_is_large_and_sourced() -> None:
    files = sorted(CORPUS.glob("*.json"))
    tools = sum(len(json.loads(p.read_text(encoding="utf-8"))["tools"]) for p in files)
    assert tools >= 300
    for path in files:
        assert json.loads(path.read_text(encoding="utf-8"))["source"], path


def _properties(schema: Any) -> list[str]:
    props = schema.get("properties") if isinstance(schema, dict) else None
    return list(props) if isinstance(props, dict) else []


INPUTS = [(s, t, schema) for s, t, which, schema in ALL if which == "inputSchema"]


def _stated(name: str, call: dict[str, Any], props: dict[str, Any]) -> bool:
    """Whether *name*'s description says the rest of *call* needs it (:mod:`generator.schema.prose_requirements`)."""
    return name in stated_requirements(props, {k: v for k, v in call.items() if k != name})


def test_no_call_in_the_corpus_carries_more_than_three_optional_arguments() -> None:
    """As the tool pages make them (:data:`MAX_OPTIONAL_ARGUMENTS`); every call still validates. What a
    description says the call needs ("Required for cordon, drain") counts as required."""
    over = []
    for source, tool, schema in INPUTS:
        example = example_for(schema, max_optional=MAX_OPTIONAL_ARGUMENTS)
        assert example.ok, f"{source}:{tool}: {example.reason}"
        assert validate(example.value, schema) == [], f"{source}:{tool}"
        required = schema.get("required") if isinstance(schema.get("required"), list) else []
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        optional = [name for name in example.value if name not in required and not _stated(name, example.value, props)]
        if len(optional) > MAX_OPTIONAL_ARGUMENTS:
            over.append(f"{source}:{tool}: {optional}")
    assert not over, "\n".join(over)


@pytest.mark.parametrize(("source", "tool", "which", "schema"), ALL, ids=[f"{s}:{t}:{w}" for s, t, w, _ in ALL])
def test_rows_are_complete_and_example_validates(source: str, tool: str, which: str, schema: Any) -> None:
    flat = flatten(schema)
    top_level = {row.path for row in flat.rows if row.depth == 0}
    # Every declared top-level field is shown (names with dots or brackets are quoted by the flattener).
    for name in _properties(schema):
        assert name in top_level or any(name in path for path in top_level), f"{name} missing from rows"
    # Every real schema in the corpus can be satisfied, so every one gets an example, and it validates.
    example = example_for(schema)
    assert example.ok, f"no example: {example.reason}"
    assert validate(example.value, schema) == []


def rates() -> dict[str, tuple[int, int]]:
    counts: dict[str, tuple[int, int]] = {}
    for source, _tool, _which, schema in ALL:
        ok, total = counts.get(source, (0, 0))
        counts[source] = (ok + int(example_for(schema).ok), total + 1)
    return counts


if __name__ == "__main__":
    table = rates()
    ok = sum(v[0] for v in table.values())
    total = sum(v[1] for v in table.values())
    for source, (good, count) in sorted(table.items()):
        print(f"{source:<45} {good:>4}/{count:<4}")
    print(f"all sources: {ok}/{total} schemas with a valid example ({100 * ok / total:.1f}%)")
    sys.exit(0)
