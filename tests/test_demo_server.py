"""Tests of the bundled Teamspace demo server over its real transports (stdio and Streamable HTTP)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from mcp import Client, StdioServerParameters
from mcp_types import TextResourceContents, Tool

from generator.demo.server import PROFILES, build_server, main
from generator.demo.tools import tool_names

pytestmark = pytest.mark.anyio

REPO_ROOT = Path(__file__).resolve().parent.parent
ALL_TOOLS = [
    "search_chat",
    "query_research_conversations",
    "file_defect",
    "delete_document",
    "my_capabilities",
    "workspace_status",
]
READ_ONLY_TOOLS = ["search_chat", "query_research_conversations", "my_capabilities"]
WORKSPACE = "0b7e3c1a-5d2f-4e8a-9b6c-1f2e3d4c5b6a"

EXPECTED_ANNOTATIONS: dict[str, dict[str, bool] | None] = {
    "search_chat": {
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    },
    "query_research_conversations": {
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": True,
    },
    "file_defect": {
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": False,
        "openWorldHint": False,
    },
    "delete_document": {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": True,
        "openWorldHint": False,
    },
    "my_capabilities": {
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    },
    "workspace_status": None,
}

SAMPLE_CALLS: dict[str, dict[str, Any]] = {
    "search_chat": {"query": "search timeout", "limit": 3},
    "query_research_conversations": {"workspace_id": WORKSPACE, "limit": 4},
    "file_defect": {
        "title": "Search times out on id lookups",
        "description": "Searching for a message id takes 4-6 s.",
        "severity": "high",
        "steps_to_reproduce": ["Open #defects", "Search for a message id"],
        "chat_message_ids": ["msg-2026-09-03-0902"],
    },
    "delete_document": {"document_id": "7d4c2b1a-0f9e-4d8c-b7a6-5e4d3c2b1a09", "reason": "duplicate"},
    "my_capabilities": {},
    "workspace_status": {},
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def stdio_client(*extra_args: str, mode: str = "auto") -> Client:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "generator.demo", *extra_args], cwd=str(REPO_ROOT)
    )
    return Client(params, mode=mode)


def wire(tool: Tool) -> dict[str, Any]:
    return tool.model_dump(by_alias=True, exclude_none=True, mode="json")


def validate(instance: Any, schema: dict[str, Any]) -> None:
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    cls.check_schema(schema)
    cls(schema, format_checker=cls.FORMAT_CHECKER).validate(instance)


async def test_stdio_lists_tools_with_annotations_and_schemas() -> None:
    async with stdio_client() as client:
        assert client.protocol_version
        info = client.server_info
        assert info is not None
        assert (info.name, info.title, info.version) == ("teamspace-demo", "Teamspace (demo)", "2.4.0")
        assert info.website_url == "https://teamspace.example/"
        assert client.instructions and "my_capabilities" in client.instructions
        tools = [wire(t) for t in (await client.list_tools()).tools]

    assert [t["name"] for t in tools] == ALL_TOOLS
    for tool in tools:
        assert tool.get("annotations") == EXPECTED_ANNOTATIONS[tool["name"]], tool["name"]
        assert len(tool["description"]) > 80, tool["name"]
        assert tool["outputSchema"]["type"] == "object", tool["name"]
        jsonschema.Draft202012Validator.check_schema(tool["inputSchema"])
        jsonschema.Draft202012Validator.check_schema(tool["outputSchema"])
        for name, prop in tool["inputSchema"].get("properties", {}).items():
            assert prop.get("description"), f"{tool['name']}.{name} has no description"
    by_name = {t["name"]: t for t in tools}
    assert "annotations" not in by_name["workspace_status"]
    assert by_name["query_research_conversations"]["inputSchema"]["additionalProperties"] is False
    assert "additionalProperties" not in by_name["search_chat"]["inputSchema"]
    assert by_name["search_chat"]["inputSchema"]["required"] == ["query"]
    assert set(by_name["search_chat"]["outputSchema"]["required"]) == {"found", "messages"}


async def test_stdio_tool_results_match_output_schemas() -> None:
    async with stdio_client() as client:
        tools = {t.name: wire(t) for t in (await client.list_tools()).tools}
        results = {name: await client.call_tool(name, args) for name, args in SAMPLE_CALLS.items()}

    assert set(results) == set(tools)
    for name, result in results.items():
        assert not result.is_error, (name, result.content)
        assert result.structured_content is not None, name
        validate(result.structured_content, tools[name]["outputSchema"])

    chat = results["search_chat"].structured_content
    assert chat is not None
    assert chat["found"] >= len(chat["messages"]) == 3
    assert {m["is_full"] for m in chat["messages"]} == {True, False}
    defect = results["file_defect"].structured_content
    assert defect is not None and defect["status"] == "open"
    assert defect["url"].startswith("https://teamspace.example/defects/DEF-")


async def test_stdio_calls_are_deterministic_and_validated() -> None:
    async with stdio_client() as first, stdio_client() as second:
        assert (await first.list_tools()).model_dump() == (await second.list_tools()).model_dump()
        for name, args in SAMPLE_CALLS.items():
            one = await first.call_tool(name, args)
            two = await second.call_tool(name, args)
            assert one.structured_content == two.structured_content, name

        bad = await first.call_tool("query_research_conversations", {"workspace_id": WORKSPACE, "page": 2})
        assert bad.is_error
        too_big = await first.call_tool("search_chat", {"query": "x", "limit": 101})
        assert too_big.is_error
        short = await first.call_tool("file_defect", {"title": "no", "description": "d"})
        assert short.is_error
        unknown_chat = await first.call_tool("search_chat", {"query": "release", "chat": "#nope"})
        assert unknown_chat.structured_content is not None
        assert unknown_chat.structured_content["found"] == 0
        assert "#release" in unknown_chat.structured_content["error"]


async def test_stdio_research_pagination_walks_every_page() -> None:
    seen: list[str] = []
    cursor: str | None = None
    async with stdio_client() as client:
        for _ in range(10):
            args: dict[str, Any] = {"workspace_id": WORKSPACE, "limit": 5}
            if cursor is not None:
                args["cursor"] = cursor
            page = (await client.call_tool("query_research_conversations", args)).structured_content
            assert page is not None
            seen += [item["id"] for item in page["items"]]
            cursor = page["next_cursor"]
            if cursor is None:
                break
    assert len(seen) == len(set(seen)) == 12


async def test_stdio_prompt_and_resource() -> None:
    async with stdio_client() as client:
        prompts = (await client.list_prompts()).prompts
        resources = (await client.list_resources()).resources
        rendered = await client.get_prompt("triage_defect", {"defect": "DEF-1042"})
        handbook = await client.read_resource("teamspace://handbook")

    assert [p.name for p in prompts] == ["triage_defect"]
    arguments = {a.name: a for a in prompts[0].arguments or []}
    assert arguments["defect"].required and arguments["defect"].description
    assert not arguments["audience"].required
    assert "DEF-1042" in str(rendered.messages[0].content)
    assert [(str(r.uri), r.mime_type) for r in resources] == [("teamspace://handbook", "text/markdown")]
    content = handbook.contents[0]
    assert isinstance(content, TextResourceContents)
    assert content.text.startswith("# Teamspace handbook")


async def test_stdio_readonly_profile_and_legacy_handshake() -> None:
    async with stdio_client("--profile", "readonly", mode="legacy") as client:
        assert client.protocol_version
        names = [t.name for t in (await client.list_tools()).tools]
    assert names == READ_ONLY_TOOLS == tool_names(read_only=True)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize(("profile", "expected"), [("full", ALL_TOOLS), ("readonly", READ_ONLY_TOOLS)])
async def test_http_profiles(demo_url: str, mode: str, profile: str, expected: list[str]) -> None:
    async with Client(demo_url + PROFILES[profile], mode=mode) as client:
        assert client.protocol_version
        tools = (await client.list_tools()).tools
        prompts = (await client.list_prompts()).prompts
        resources = (await client.list_resources()).resources
        result = await client.call_tool("my_capabilities", {})
    assert [t.name for t in tools] == expected
    assert all(t.annotations and t.annotations.read_only_hint for t in tools) == (profile == "readonly")
    assert [p.name for p in prompts] == ["triage_defect"]
    assert [str(r.uri) for r in resources] == ["teamspace://handbook"]
    assert result.structured_content is not None
    assert "read_all" in result.structured_content["capabilities"]


async def test_http_paths_work_without_trailing_slash(demo_url: str) -> None:
    assert len(PROFILES) >= 2
    for path in PROFILES.values():
        async with Client(demo_url + path.rstrip("/")) as client:
            assert len((await client.list_tools()).tools) in (len(ALL_TOOLS), len(READ_ONLY_TOOLS))


async def test_build_server_is_deterministic_in_process() -> None:
    one = [wire(t) for t in await build_server().list_tools()]
    two = [wire(t) for t in await build_server().list_tools()]
    assert one == two
    assert [t.name for t in await build_server("readonly").list_tools()] == READ_ONLY_TOOLS


def test_unknown_profile_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown profile"):
        build_server("admin")


def test_help_exits_cleanly(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "--http" in out and "/mcp/readonly/" in out
