"""A complete example call carries at most three optional arguments (issue 37, item 3), chosen so that a
reader's first call is the one they would write: declared examples first, then what the caller
chooses, then knobs with defaults, and connection settings (retries, timeouts, tenant, auth) last."""

from __future__ import annotations

from collections.abc import Mapping

import jsonschema
import pytest

from generator.model.tool import MAX_OPTIONAL_ARGUMENTS
from generator.schema.examples import example_for

AZURE_VM_GET = {
    "type": "object",
    "properties": {
        "subscription": {"type": "string", "description": "The Azure subscription ID or name."},
        "tenant": {"type": "string", "description": "The Microsoft Entra ID tenant ID or name."},
        "auth-method": {"type": "string", "description": "Authentication method to use."},
        "retry-delay": {"type": "number", "description": "Initial delay in seconds between retries."},
        "retry-max-delay": {"type": "number", "description": "Maximum delay in seconds between retries."},
        "retry-max-retries": {"type": "integer", "description": "Maximum number of retry attempts."},
        "retry-mode": {"type": "string", "description": "Retry strategy (fixed or exponential)."},
        "retry-network-timeout": {"type": "number", "description": "Network operation timeout in seconds."},
        "vm-name": {"type": "string", "description": "The name of the virtual machine."},
        "resource-group": {"type": "string", "description": "The name of the Azure resource group."},
    },
    "required": [],
}


def _optional(value: dict[str, object], schema: Mapping[str, object]) -> list[str]:
    required = schema.get("required") or []
    assert isinstance(required, list)
    return [name for name in value if name not in required]


def test_nothing_required_sends_the_three_that_matter_not_the_settings() -> None:
    example = example_for(AZURE_VM_GET, max_optional=MAX_OPTIONAL_ARGUMENTS)
    assert example.ok
    jsonschema.validate(example.value, AZURE_VM_GET)
    assert list(example.value) == ["subscription", "vm-name", "resource-group"]


def test_without_a_cap_every_property_is_still_shown() -> None:
    assert len(example_for(AZURE_VM_GET).value) == len(AZURE_VM_GET["properties"])


def test_required_ones_stay_and_declared_examples_come_first() -> None:
    schema = {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            **{f"knob{i}": {"type": "integer", "default": i} for i in range(5)},
            "tag": {"type": "string", "examples": ["release"]},
        },
        "required": ["query"],
    }
    value = example_for(schema, max_optional=3).value
    assert "query" in value and value["tag"] == "release"
    assert len(_optional(value, schema)) == 3
    assert list(value) == ["query", "knob0", "knob1", "tag"]  # declaration order is kept in the call


@pytest.mark.parametrize("cap", [0, 1, 3])
def test_the_cap_holds_in_nested_objects_and_the_value_validates(cap: int) -> None:
    inner = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(6)}}
    schema = {"type": "object", "properties": {"filter": inner, "x": {"type": "string"}}, "required": ["filter"]}
    example = example_for(schema, max_optional=cap)
    assert example.ok
    jsonschema.validate(example.value, schema)
    assert len(_optional(example.value, schema)) <= cap
    assert len(example.value["filter"]) <= max(cap, 1) or cap == 0


def test_a_property_the_schema_needs_is_not_dropped_to_meet_the_cap() -> None:
    # minProperties forces more than the cap: the example still validates (it may show more).
    schema = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(6)}, "minProperties": 5}
    example = example_for(schema, max_optional=3)
    assert example.ok
    jsonschema.validate(example.value, schema)
