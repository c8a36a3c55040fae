"""Requirements stated only in prose (issue 37, item 3): a property the schema leaves optional but its
description says a call needs ("Required for workspace", "Required unless queries is provided"), and a
tool description's "either `query` or `paper_id`", are satisfied by the example call. Shapes taken from
real servers (mongodb-mcp-server, arXiv, mcp-atlassian, Grafana, AWS CloudWatch, Kubernetes); every
call still validates against its schema."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from generator.model.tool import MAX_OPTIONAL_ARGUMENTS, ToolDoc
from generator.schema.examples import example_for
from generator.schema.prose_requirements import MAX_TEXT, stated_requirements


def _call(schema: dict[str, Any], prose: str = "") -> dict[str, Any]:
    example = example_for(schema, max_optional=MAX_OPTIONAL_ARGUMENTS, prose=prose)
    assert example.ok, example.reason
    jsonschema.validate(example.value, schema)
    assert isinstance(example.value, dict)
    return example.value


def _streams(resources: list[str]) -> dict[str, Any]:
    """mongodb-mcp-server's ``atlas-streams-build``, as the issue found it."""
    return {
        "type": "object",
        "properties": {
            "projectId": {"type": "string", "description": "Atlas project ID."},
            "resource": {"type": "string", "enum": resources, "description": "What to build."},
            "workspaceName": {"type": "string", "description": "Workspace name. Required for workspace."},
            "connectionName": {"type": "string", "description": "Connection name. Required for connection."},
            "tier": {"type": "string", "default": "SP10"},
            "region": {"type": "string", "default": "VIRGINIA_USA"},
            "cloudProvider": {"type": "string", "default": "AWS"},
        },
        "required": ["projectId", "resource"],
    }


def test_a_property_required_for_the_chosen_value_is_sent() -> None:
    call = _call(_streams(["workspace", "connection"]))
    assert call["resource"] == "workspace"
    assert "workspaceName" in call and "connectionName" not in call


def test_the_requirement_follows_the_value_the_call_chose() -> None:
    call = _call(_streams(["connection", "workspace"]))
    assert call["resource"] == "connection"
    assert "connectionName" in call and "workspaceName" not in call


def _papers(first: str, second: str) -> dict[str, Any]:
    """arXiv's semantic_search with its two ways to search named *first* and *second*."""
    return {
        "type": "object",
        "properties": {
            first: {"type": "string", "description": "Free-text semantic query."},
            second: {"type": "string", "description": "Find papers similar to this arXiv paper ID."},
            "max_results": {"type": "integer", "default": 10},
        },
        "additionalProperties": False,
    }


def test_either_of_two_in_the_tool_description_sends_the_first() -> None:
    schema = _papers("topic", "paper")
    assert list(_call(schema)) == ["max_results"]
    assert "topic" in _call(schema, "Find similar papers. Provide either topic or paper.")
    call = _call(schema, "Give either a `paper` or a `topic`.")
    assert "paper" in call and "topic" not in call


def test_of_two_each_required_if_the_other_is_not_given_only_the_first_is_sent() -> None:
    props = {
        "project_key": {"type": "string", "description": "Project key. Required if issue_key is not given."},
        "issue_key": {"type": "string", "description": "Issue key. Required if project_key is not given."},
    }
    assert stated_requirements(props, {}) == ["project_key"]
    assert stated_requirements(props, {"issue_key": "DT-1"}) == []


@pytest.mark.parametrize(
    ("value", "needed"),
    [({}, ["namespace"]), ({"queries": []}, [])],
)
def test_required_unless_another_is_provided(value: dict[str, object], needed: list[str]) -> None:
    props = {
        "namespace": {"type": "string", "description": "Metric namespace. Required unless queries is provided."},
        "queries": {"type": "array"},
    }
    assert stated_requirements(props, value) == needed


@pytest.mark.parametrize(("query_type", "needed"), [("range", ["startTime"]), ("instant", [])])
def test_a_condition_on_another_propertys_value(query_type: str, needed: list[str]) -> None:
    props = {
        "queryType": {"type": "string", "enum": ["range", "instant"]},
        "startTime": {
            "type": "string",
            "description": "Required if queryType is 'range', ignored if queryType is 'instant'.",
        },
    }
    assert stated_requirements(props, {"queryType": query_type}) == needed


@pytest.mark.parametrize(("operation", "needed"), [("create", []), ("delete", ["name"])])
def test_required_for_every_choice_except_one(operation: str, needed: list[str]) -> None:
    props = {
        "operation": {"type": "string", "enum": ["create", "delete"]},
        "name": {"type": "string", "description": "Resource name. Required for all operations except create."},
    }
    assert stated_requirements(props, {"operation": operation}) == needed


def test_a_boolean_condition() -> None:
    props = {
        "external": {"type": "boolean"},
        "key": {"type": "string", "description": "Required when external is true."},
    }
    assert stated_requirements(props, {"external": True}) == ["key"]
    assert stated_requirements(props, {"external": False}) == []
    assert stated_requirements(props, {}) == []


@pytest.mark.parametrize(
    "description",
    [
        "Container name (required when pod has multiple containers).",  # names nothing the call holds
        "Optional. Not required for listing.",  # no 'required <condition>' at all
    ],
)
def test_a_condition_the_call_cannot_be_tied_to_adds_nothing(description: str) -> None:
    props = {"pod": {"type": "string"}, "container": {"type": "string", "description": description}}
    assert stated_requirements(props, {"pod": "web-1"}) == []


def test_only_the_start_of_a_long_description_is_read() -> None:
    props = {
        "mode": {"type": "string", "enum": ["a", "b"]},
        "late": {"type": "string", "description": "x" * MAX_TEXT + " Required for a."},
    }
    assert stated_requirements(props, {"mode": "a"}) == []


def test_a_description_that_would_make_the_call_invalid_is_not_followed() -> None:
    schema = _streams(["workspace"])
    schema["properties"]["workspaceName"]["not"] = {}  # no value is allowed: the call goes without it
    call = _call(schema)
    assert "workspaceName" not in call


def test_the_tool_page_reads_its_tools_description() -> None:
    schema = {
        "type": "object",
        "properties": {"query": {"type": "string"}, "paper_id": {"type": "string"}, "limit": {"type": "integer"}},
    }
    raw = {"name": "semantic_search", "description": "Provide either query or paper_id.", "inputSchema": schema}
    tool = ToolDoc(name="semantic_search", slug="semantic_search", raw=raw, endpoints=())
    assert tool.example_args.ok and "query" in tool.example_args.value


def test_a_call_that_requires_nothing_sends_the_point_of_the_tool_not_only_its_knobs() -> None:
    # arXiv's semantic_search as the server lists it: the description says "free-text queries ... or
    # ... a given paper_id", with no "either"; the call was {"max_results": 10}.
    assert list(_call(_papers("query", "paper_id"))) == ["query", "max_results"]


def test_a_list_tool_gets_no_invented_filter_or_cursor() -> None:
    schema = {
        "type": "object",
        "properties": {
            "limit": {"type": "number", "default": 100},
            "cursor": {"type": "string", "description": "Pagination cursor for the next page."},
            "region": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        },
    }
    assert _call(schema) == {"limit": 100}
