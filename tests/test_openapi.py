"""OpenAPI cross-links: loading real documents from disk and mapping tools to operations."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.authoring.openapi import MAX_BYTES, ApiDocument, Operation, ToolOperations, load_openapi, map_tools
from generator.errors import PortalError

FIXTURE = Path(__file__).parent / "fixtures" / "openapi" / "teamspace.yaml"
META_KEY = "teamspace.example/operation"


def _doc(paths: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "paths": paths, **top}


def _write(tmp_path: Path, data: Any, name: str = "api.json") -> Path:
    path = tmp_path / name
    if name.endswith(".json"):
        path.write_text(json.dumps(data), encoding="utf-8")
    else:
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _load(tmp_path: Path, data: Any, name: str = "api.json") -> ApiDocument:
    return load_openapi(_write(tmp_path, data, name))


def _error(path: Path) -> str:
    with pytest.raises(PortalError) as info:
        load_openapi(path)
    return str(info.value)


# --- loading ----------------------------------------------------------------------------------------


def test_loads_json_and_keeps_the_exact_bytes(tmp_path: Path) -> None:
    path = tmp_path / "spec.json"
    path.write_bytes(b'{"openapi": "3.1.0",\n "info": {"title": "Acme", "version": 7},\n "paths": {}}\n')
    doc = load_openapi(path)
    assert doc.published_name == "openapi.json"
    assert doc.content == path.read_bytes()
    assert (doc.source, doc.title, doc.version, doc.openapi_version) == (str(path), "Acme", "7", "3.1.0")
    assert doc.operations == ()


@pytest.mark.parametrize("name", ["spec.yaml", "spec.YML"])
def test_loads_yaml_and_keeps_the_exact_bytes(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"# comments survive publishing\nopenapi: 3.0.3\ninfo: {title: Acme, version: 2.4}\npaths: {}\n")
    doc = load_openapi(path)
    assert doc.published_name == "openapi.yaml"
    assert doc.content == path.read_bytes()
    assert (doc.title, doc.version, doc.openapi_version) == ("Acme", "2.4", "3.0.3")


def test_other_names_are_json_when_they_parse_as_json(tmp_path: Path) -> None:
    (tmp_path / "api.txt").write_text(json.dumps(_doc({})), encoding="utf-8")
    (tmp_path / "api").write_text(yaml.safe_dump(_doc({})), encoding="utf-8")
    assert load_openapi(tmp_path / "api.txt").published_name == "openapi.json"
    assert load_openapi(tmp_path / "api").published_name == "openapi.yaml"


def test_operations_in_document_order(tmp_path: Path) -> None:
    paths = {
        "/b": {"patch": {}, "get": {"operationId": "getB", "summary": "Get B"}, "parameters": []},
        "/a": {"trace": {}, "delete": {"deprecated": True}, "post": {}, "x-extra": {}},
        "/skipped": "not an object",
        "/c": {"get": "not an object", "put": ["nor", "this"], "head": {"summary": 3}},
    }
    doc = _load(tmp_path, _doc(paths))
    assert [op.label for op in doc.operations] == [
        "GET /b",
        "PATCH /b",
        "POST /a",
        "DELETE /a",
        "TRACE /a",
        "HEAD /c",
    ]
    assert doc.operations[0] == Operation("GET", "/b", "getB", "Get B", (), ())
    assert doc.operations[3].deprecated and not doc.operations[2].deprecated
    assert doc.operations[5].summary is None


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.yaml"
    assert _error(path) == (
        f"The OpenAPI document {path} cannot be read (No such file or directory). "
        "Check the path and that the file is readable, then build again."
    )


def test_bad_yaml(tmp_path: Path) -> None:
    path = tmp_path / "api.yaml"
    path.write_text("openapi: 3.1.0\npaths: {\n  /a: [\n", encoding="utf-8")
    message = _error(path)
    assert message.startswith(f"The OpenAPI document {path} is not valid YAML (")
    assert message.endswith("). Fix the file and build again.")
    assert "\n" not in message


def test_bad_json(tmp_path: Path) -> None:
    path = tmp_path / "api.json"
    path.write_text('{"openapi": "3.1.0",', encoding="utf-8")
    assert _error(path).startswith(f"The OpenAPI document {path} is not valid JSON (Expecting property name")


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "api.yaml"
    path.write_bytes(b"openapi: \xff\n")
    assert _error(path).startswith(f"The OpenAPI document {path} is not UTF-8 text (")


@pytest.mark.parametrize(("data", "kind"), [([1, 2], "an array"), ("openapi", "a string"), (None, "null")])
def test_not_an_object(tmp_path: Path, data: Any, kind: str) -> None:
    path = _write(tmp_path, data, "api.yaml")
    assert _error(path) == (
        f"The OpenAPI document {path} must be an object at the top level, but it is {kind}. "
        "Fix the file and build again."
    )


def test_swagger_2_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, {"swagger": "2.0", "info": {}, "paths": {}})
    assert _error(path) == (
        f"The OpenAPI document {path} is a Swagger (OpenAPI 2) document, and only OpenAPI 3.x is supported. "
        "Convert it to OpenAPI 3 (its `openapi` field must read 3.0.x or 3.1.x) and build again."
    )


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("paths: {}\n", "has no `openapi` field"),
        ("openapi: '2.0'\npaths: {}\n", "declares `openapi: 2.0`"),
        ("openapi: 3.0\npaths: {}\n", "has an `openapi` field that is a number, not a string"),
    ],
)
def test_openapi_version_must_be_3(tmp_path: Path, text: str, found: str) -> None:
    path = tmp_path / "api.yaml"
    path.write_text(text, encoding="utf-8")
    assert _error(path) == (
        f"The OpenAPI document {path} {found}, but only OpenAPI 3.x documents are supported. "
        'Set `openapi` to a quoted version string such as "3.1.0" and build again.'
    )


@pytest.mark.parametrize("paths", [None, [], "x"])
def test_no_paths_object(tmp_path: Path, paths: Any) -> None:
    data = {"openapi": "3.1.0"} if paths is None else {"openapi": "3.1.0", "paths": paths}
    path = _write(tmp_path, data)
    assert _error(path) == (
        f"The OpenAPI document {path} has no `paths` object. "
        "Add `paths`, an object from each URL path to its operations, and build again."
    )


def test_too_large(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b" " * MAX_BYTES + b"{}")
    assert _error(path) == (
        f"The OpenAPI document {path} is larger than 10 MiB, the most mcp-portal reads. "
        "Publish a smaller document (for example without bundled examples) and build again."
    )
    path.write_bytes(b" " * (MAX_BYTES - 40) + b'{"openapi": "3.0.0", "paths": {}}')
    assert load_openapi(path).openapi_version == "3.0.0"


def test_yaml_is_loaded_safely(tmp_path: Path) -> None:
    path = tmp_path / "api.yaml"
    path.write_text("openapi: !!python/object/apply:os.system ['true']\npaths: {}\n", encoding="utf-8")
    assert "is not valid YAML (line 1: could not determine a constructor" in _error(path)


# --- scopes -----------------------------------------------------------------------------------------


def test_scopes_from_operation_top_level_and_explicit_empty(tmp_path: Path) -> None:
    paths = {
        "/own": {"get": {"security": [{"oauth": ["b", "a"]}, {"oauth": ["a", "c"], "key": []}]}},
        "/inherited": {"get": {}},
        "/public": {"get": {"security": []}},
        "/malformed": {"get": {"security": [{"oauth": "a"}, "x", {"oauth": [1, "d"]}]}},
    }
    doc = _load(tmp_path, _doc(paths, security=[{"oauth": ["top", "level"]}, {"other": ["top"]}]))
    assert [op.scopes for op in doc.operations] == [("b", "a", "c"), ("top", "level"), (), ("d",)]


def test_no_top_level_security_means_no_scopes(tmp_path: Path) -> None:
    doc = _load(tmp_path, _doc({"/a": {"get": {}}}))
    assert doc.operations[0].scopes == ()


# --- find -------------------------------------------------------------------------------------------


def test_find_by_operation_id_and_by_method_and_path(tmp_path: Path) -> None:
    paths = {"/a": {"get": {"operationId": "getA"}, "post": {"operationId": "POST /a"}}, "/b/{id}": {"delete": {}}}
    doc = _load(tmp_path, _doc(paths))
    get_a, post_a, delete_b = doc.operations
    assert doc.find("getA") is get_a
    assert doc.find("GET /a") is get_a
    assert doc.find("get /a") is get_a
    assert doc.find("Delete /b/{id}") is delete_b
    assert doc.find("POST /a") is post_a
    for absent in ["getB", "GET /c", "GET  /a", "GET", "", "PUT /a", "GET /a/"]:
        assert doc.find(absent) is None, absent


def test_anchors_are_unique_safe_and_stable(tmp_path: Path) -> None:
    paths = {
        "/a": {"get": {"operationId": "getA"}, "post": {"operationId": "same"}},
        "/b/{id}": {"delete": {}, "put": {"operationId": "same"}},
        "/c": {"get": {"operationId": '"><script>alert(1)</script>'}},
    }
    doc = _load(tmp_path, _doc(paths))
    anchors = [doc.anchor(op) for op in doc.operations]
    by_label = {op.label: doc.anchor(op) for op in doc.operations}
    assert by_label["GET /a"] == "op-getA"  # a unique operationId is its own anchor
    assert len(set(anchors)) == len(anchors) == 5
    for anchor in anchors:
        assert re.fullmatch(r"op-[A-Za-z0-9_.-]+", anchor), anchor
    # A repeated or missing operationId falls back to the method and path: each row keeps its own id.
    assert by_label["POST /a"].startswith("op-POST-a-") and by_label["PUT /b/{id}"].startswith("op-PUT-b-id-")
    assert by_label["DELETE /b/{id}"].startswith("op-DELETE-b-id-")
    assert anchors == [_load(tmp_path, _doc(paths), "again.json").anchor(op) for op in doc.operations]


# --- mapping ----------------------------------------------------------------------------------------


@pytest.fixture
def mapped_doc(tmp_path: Path) -> ApiDocument:
    paths = {
        "/one": {"get": {"operationId": "one", "x-mcp-tool": "alpha"}},
        "/two": {"post": {"operationId": "two", "x-mcp-tool": ["alpha", "beta", "alpha"]}},
        "/three": {"put": {"operationId": "three"}},
        "/four": {"delete": {"operationId": "four", "x-mcp-tool": 5}},
    }
    return _load(tmp_path, _doc(paths), "mapped.yaml")


def test_list_valued_x_mcp_tool(mapped_doc: ApiDocument) -> None:
    assert [op.tools for op in mapped_doc.operations] == [("alpha",), ("alpha", "beta"), (), ()]
    result = map_tools(mapped_doc, [{"name": "alpha"}, {"name": "beta"}], meta_key=None, overlay_refs={})
    assert {name: [op.operation_id for op in ops] for name, ops in result.operations.items()} == {
        "alpha": ["one", "two"],
        "beta": ["two"],
    }
    assert result.warnings == ()


def test_precedence_overlay_then_meta_then_x_mcp_tool(mapped_doc: ApiDocument) -> None:
    tools = [
        {"name": "alpha", "_meta": {META_KEY: "three"}},
        {"name": "beta", "_meta": {META_KEY: ["PUT /three", "four"]}},
        {"name": "gamma", "_meta": {META_KEY: "four", "other/key": "one"}},
    ]
    result = map_tools(mapped_doc, tools, meta_key=META_KEY, overlay_refs={"gamma": "get /one", "alpha": "two"})
    ids = {name: [op.operation_id for op in ops] for name, ops in result.operations.items()}
    # alpha: the overlay wins over _meta, then x-mcp-tool without repeating `two`.
    # beta: _meta refs in their order, then x-mcp-tool. gamma: only the overlay, its _meta is ignored.
    assert ids == {"alpha": ["two", "one"], "beta": ["three", "four", "two"], "gamma": ["one"]}
    assert list(result.operations) == ["alpha", "beta", "gamma"]
    assert result.warnings == ()


def test_meta_is_ignored_without_a_meta_key(mapped_doc: ApiDocument) -> None:
    result = map_tools(mapped_doc, [{"name": "x", "_meta": {META_KEY: "one"}}], meta_key=None, overlay_refs={})
    assert result.operations == {}
    assert result.warnings[0] == f"tool 'x' is mapped to no API operation in {mapped_doc.source}"


def test_every_warning_kind_in_order(mapped_doc: ApiDocument) -> None:
    src = mapped_doc.source
    tools: list[dict[str, Any]] = [
        {"name": "zeta", "_meta": {META_KEY: "nowhere"}},
        {"name": "alpha", "_meta": {META_KEY: ["one", 3]}},
        {"name": "eta", "_meta": {META_KEY: {"op": "one"}}},
        {"name": "theta"},
        {"name": "iota", "_meta": {META_KEY: "PUT /three"}},
        {"title": "no name"},
    ]
    result = map_tools(mapped_doc, tools, meta_key=META_KEY, overlay_refs={"theta": "GET /gone", "nobody": "one"})
    assert result.warnings == (
        f"tool 'zeta': its _meta key '{META_KEY}' names the API operation 'nowhere', which {src} does not have",
        f"tool 'zeta' is mapped to no API operation in {src}",
        f"tool 'alpha': its _meta key '{META_KEY}' must be an API operation ref (an operationId or 'METHOD /path') "
        "or a list of them, but it is an array",
        f"tool 'eta': its _meta key '{META_KEY}' must be an API operation ref (an operationId or 'METHOD /path') "
        "or a list of them, but it is an object",
        f"tool 'eta' is mapped to no API operation in {src}",
        f"tool 'theta': its overlay names the API operation 'GET /gone', which {src} does not have",
        f"tool 'theta' is mapped to no API operation in {src}",
        f"API operation POST /two in {src} names the tool 'beta' in x-mcp-tool, but the server does not list it",
    )
    assert {name: [op.operation_id for op in ops] for name, ops in result.operations.items()} == {
        "alpha": ["one", "two"],
        "iota": ["three"],
    }


def test_mapping_is_deterministic(tmp_path: Path) -> None:
    tools: list[dict[str, Any]] = [
        {"name": "query_research_conversations", "_meta": {META_KEY: "queryResearchConversations"}},
        {"name": "search_chat"},
        {"name": "unknown"},
    ]
    first = map_tools(load_openapi(FIXTURE), tools, meta_key=META_KEY, overlay_refs={})
    second = map_tools(load_openapi(FIXTURE), list(tools), meta_key=META_KEY, overlay_refs={})
    assert first == second
    assert isinstance(first, ToolOperations)
    assert load_openapi(FIXTURE) == load_openapi(FIXTURE)


# --- the Teamspace fixture --------------------------------------------------------------------------


def test_teamspace_fixture_maps_the_demo_tools() -> None:
    doc = load_openapi(FIXTURE)
    assert (doc.title, doc.version, doc.openapi_version, doc.published_name) == (
        "Teamspace API",
        "2.4.0",
        "3.1.0",
        "openapi.yaml",
    )
    tools: list[dict[str, Any]] = [
        {"name": "search_chat"},
        {"name": "query_research_conversations", "_meta": {META_KEY: "queryResearchConversations"}},
        {"name": "file_defect"},
        {"name": "delete_document"},
        {"name": "my_capabilities"},
    ]
    result = map_tools(doc, tools, meta_key=META_KEY, overlay_refs={})
    shown = {name: [(op.label, op.operation_id, op.scopes) for op in ops] for name, ops in result.operations.items()}
    assert shown == {
        "search_chat": [("GET /api/v1/chat/messages/search", "searchChatMessages", ("read_all",))],
        "query_research_conversations": [
            ("POST /research-api/conversations/query", "queryResearchConversations", ("research_read",))
        ],
        "file_defect": [("POST /api/v1/defects", "createDefect", ("defects_write",))],
        "delete_document": [("DELETE /api/v1/documents/{document_id}", "deleteDocument", ("documents_delete",))],
    }
    assert result.warnings == (f"tool 'my_capabilities' is mapped to no API operation in {FIXTURE}",)
    health = doc.find("GET /api/v1/health")
    assert health is not None and health.scopes == () and health.tools == ()
