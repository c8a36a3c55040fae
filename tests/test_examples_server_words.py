"""Example values from the server's own words (issue 47, item 2), one test per rule, on the real
descriptions of tests/corpus/ (servers the earlier tests never saw among them): each call is the one
the tool page shows (:attr:`ToolDoc.example_args`), and each still validates against its schema."""

from __future__ import annotations

import time
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from generator.model.site import SiteModel
from generator.model.tool import ToolDoc
from generator.schema.examples import example_for
from generator.schema.prose_values import given_values, listed_values, rejected_values
from generator.schema.uritemplate import parse, segment_words
from tests.example_audit import CORPUS, model_of


@cache
def _model(stem: str) -> SiteModel:
    return model_of(CORPUS / f"{stem}.json")


def _tool(stem: str, name: str) -> ToolDoc:
    return next(t for t in _model(stem).tools if t.name == name)


def _call(stem: str, name: str) -> dict[str, Any]:
    tool = _tool(stem, name)
    example = tool.example_args
    assert example.ok, example.reason
    jsonschema.validate(example.value, tool.input_schema)
    assert isinstance(example.value, dict)
    return example.value


CIRCLECI = "npm-circleci-mcp-server-circleci"


def test_a_value_the_description_rejects_is_never_chosen() -> None:
    # 'System paths and hidden config directories (e.g. "/etc", "~/.ssh") are rejected.'
    out_dir = _call(CIRCLECI, "download_usage_api_data")["params"]["outputDir"]
    csv_path = _call(CIRCLECI, "find_underused_resource_classes")["params"]["csvFilePath"]
    for value in (out_dir, csv_path):
        assert value not in ("/etc", "~/.ssh") and not value.startswith(("/etc/", "~/.ssh/")), value
    assert rejected_values('Paths (e.g. "/etc", "~/.ssh") are rejected.') == {"/etc", "~/.ssh"}


def test_the_example_a_description_gives_is_used() -> None:
    assert _call("npm-n8n-mcp", "validate_node")["nodeType"] == "nodes-base.slack"  # 'Example: "nodes-base.slack"'
    assert _call("pypi-excel-mcp-server", "add_sparklines")["range"] == "G2:G9"  # "e.g. 'G2:G9'"
    workflow = _call(CIRCLECI, "rerun_workflow")["params"]["workflowId"]  # "An example workflowId is a1214..."
    assert workflow == "a12145c5-90f8-4cc9-98f2-36cb85db9e4b"
    assert _call("npm-mcp-time-linux-x64", "add_time")["duration"] == "1h2m3s"  # 'Examples:\n- "1h2m3s" to add...'
    assert _call("pypi-mcp-grafana", "create_datasource")["type"] == "prometheus"  # "for example prometheus"
    # A value quoted over a line break of the server's source is one value.
    instruction = _call("npm-browserbasehq-mcp-server-browserbase", "browserbase_stagehand_observe")["instruction"]
    assert instruction == "Find the red login button in the top right corner"


def test_an_allowed_value_listed_in_prose_is_used() -> None:
    rollout = _call("pypi-kubectl-mcp-server", "kubectl_rollout")  # "Rollout action (status, history, restart, ...)"
    assert rollout["action"] == "status"
    assert _call("npm-n8n-mcp", "get_node")["nodeType"] == "nodes-base.httpRequest"  # 'Full node type: "a" or "b"'
    assert _call("pypi-awslabs-eks-mcp-server", "manage_eks_stacks")["operation"] == "generate"
    assert listed_values("Type of resource (deployment, statefulset, daemonset)") == [
        "deployment",
        "statefulset",
        "daemonset",
    ]


def test_mutually_exclusive_arguments_are_never_sent_together() -> None:
    gitlab = "npm-zereight-mcp-gitlab"
    for name in ("list_issues", "list_merge_requests", "list_group_merge_requests"):
        call = _call(gitlab, name)
        for first, second in (("assignee_id", "assignee_username"), ("author_id", "author_username")):
            assert not (first in call and second in call), (name, call)
    # "Provide either text or regex, not both": exactly one.
    found = _call("npm-playwright-mcp", "browser_find")
    assert ("text" in found) != ("regex" in found), found


def test_template_variables_are_typed_by_their_name_and_path_segment() -> None:
    uris = {t.uri: t.example_uri for t in _model("pypi-kubectl-mcp-server").resource_templates}
    assert uris["manifest://deployments/{namespace}/{name}"] == "manifest://deployments/default/my-deployment"
    assert uris["manifest://ingresses/{namespace}/{name}"] == "manifest://ingresses/default/my-ingress"
    prompts = {p.name: p.example_arguments for p in _model("pypi-kubectl-mcp-server").prompts}
    assert prompts["resource_usage"] is not None and prompts["resource_usage"]["threshold_cpu"].isdigit()
    # A FastMCP argument described by '{"type":"integer"}' (deploy_application's replicas) is a number, as text.
    replicas = next(
        a
        for p in _model("pypi-kubectl-mcp-server").prompts
        for a in p.arguments
        if a.name == "replicas" and "integer" in (a.description or "")
    )
    prop = {"type": "string", "description": replicas.description}
    schema = {"type": "object", "properties": {"replicas": prop}, "required": ["replicas"]}
    assert example_for(schema).value == {"replicas": "3"}
    schema = {"type": "object", "properties": {"count": {"type": "string", "minLength": 1}}, "required": ["count"]}
    assert example_for(schema).value == {"count": "10"}  # a count is a number, even in a URI template
    assert segment_words(parse("k8s://pods/{namespace}/{name}{?limit}")) == {
        "namespace": "pod",
        "name": "pod",
        "limit": "pod",
    }


def test_directories_get_directories_and_files_the_extension_named() -> None:
    assert _call(CIRCLECI, "download_usage_api_data")["params"]["outputDir"] == "./project"  # "The directory to..."
    assert _call(CIRCLECI, "find_underused_resource_classes")["params"]["csvFilePath"].endswith(".csv")  # "CSV file"
    assert _call("pypi-excel-mcp-server", "insert_image")["image_path"].endswith(".png")  # "PNG or JPEG in ..."
    assert _call("pypi-mcp-server-git", "git_create_branch")["repo_path"] == "./project"


def test_no_placeholder_where_the_name_or_description_says_more() -> None:
    gitlab = _call("npm-zereight-mcp-gitlab", "approve_merge_request")  # "The IID of the merge request"
    assert gitlab["merge_request_iid"].isdigit() and gitlab["project_id"].isdigit()  # "Project ID or URL-encoded path"
    assert _call("pypi-excel-mcp-server", "delete_chart")["name"] == "my-chart"  # a chart's name, not a person's
    assert _call("npm-launchdarkly-mcp-server", "get-feature-flag")["request"] == {
        "featureFlagKey": "my-feature-flag",
        "projectKey": "my-project",
    }
    assert _call("pypi-mcp-server-git", "git_create_branch")["branch_name"] == "my-branch"
    sheet = _call("pypi-excel-mcp-server", "describe_sheet")["sheet"]
    assert sheet == "Sheet1"
    policy = _call("pypi-awslabs-iam-mcp-server", "attach_user_policy")["policy_arn"]
    assert policy.startswith("arn:aws:iam::")


def test_prose_is_read_in_bounded_time() -> None:
    hostile = [
        "e.g. " + "'a" * 50_000,
        "Options: " + "a, " * 50_000,
        "(" + "x, " * 50_000 + ")",
        "Example: " + "{" * 50_000,
        "rejected " + '"x" ' * 50_000,
        "- a:\n" * 20_000,
    ]
    for text in hostile:  # CPU time: another process's load stretches the wall clock, not this one's work
        start = time.process_time()
        given_values(text), listed_values(text), rejected_values(text)
        assert time.process_time() - start < 0.5, text[:20]


def test_every_example_in_the_new_servers_validates() -> None:
    checked = 0
    for stem in ("npm-zereight-mcp-gitlab", "npm-n8n-mcp", "pypi-kubectl-mcp-server", CIRCLECI):
        for tool in _model(stem).tools:
            if tool.example_args.ok:
                jsonschema.validate(tool.example_args.value, tool.input_schema)
                checked += 1
    assert checked > 250
    assert Path(CORPUS).is_dir()
