"""The whole product on one portal: several endpoints, scopes, API operations, prompts, resources.

Real servers over real transports: the demo's stdio endpoint and its two Streamable HTTP
profiles (``/mcp/`` and ``/mcp/readonly/``), introspected together into one snapshot, and
the pinned server-everything for prompts, resources and resource templates.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from generator.commands.build import site_files
from generator.commands.demo_portal import demo_config, demo_endpoints
from generator.config.portal import Limits, PortalConfig, ServerSpec
from generator.connect.introspect import introspect_all
from generator.demo.launch import running_http_demo
from generator.errors import PortalError
from generator.snapshot.records import EndpointRecord
from generator.snapshot.snapshot import Snapshot, frozen, load_snapshot, parse_snapshot, revised
from tests.conftest import TEMPLATES, Run, free_port, node_bin
from tests.golden_tool import EVERYTHING_SNAPSHOT, SNAPSHOT

Cli = Callable[..., Run]
FAST = Limits(request_timeout=10, total_timeout=30)


@pytest.fixture(scope="module")
def three() -> Snapshot:
    """The demo over stdio, /mcp/ and /mcp/readonly/, introspected live and concurrently."""
    with running_http_demo() as base:
        return frozen(introspect_all(demo_endpoints(base), FAST))


@pytest.fixture(scope="module")
def demo_site(three: Snapshot) -> dict[str, str]:
    files, _ = site_files(three, demo_config(PortalConfig(search=False)), renderer=TEMPLATES)
    return {path: data.decode("utf-8") for path, data in files.items() if not path.endswith((".png", ".yaml"))}


def endpoint(snap: Snapshot, name: str) -> EndpointRecord:
    return next(e for e in snap.endpoints if e.name == name)


def test_three_endpoints_fold_into_one_snapshot(three: Snapshot) -> None:
    assert [e.name for e in three.endpoints] == ["stdio", "http", "readonly"]
    assert [e.address for e in three.endpoints] == [
        "python -m generator.demo",
        "http://127.0.0.1:8765/mcp/",
        "http://127.0.0.1:8765/mcp/readonly/",
    ]
    assert endpoint(three, "readonly").tools == ("search_chat", "query_research_conversations", "my_capabilities")
    assert len(endpoint(three, "http").tools) == len(three.tools) == 6
    # The readonly profile serves smaller pages: its search_chat is kept whole, as a variant.
    variants = endpoint(three, "readonly").variants
    assert list(variants) == ["search_chat"]
    assert variants["search_chat"]["inputSchema"]["properties"]["limit"]["maximum"] == 25
    assert not endpoint(three, "http").variants
    # A 2026-era server lists the revisions it speaks; the negotiated one is among them.
    for record in three.endpoints:
        assert record.protocol_version in record.supported_versions


def test_the_multi_endpoint_snapshot_round_trips_and_is_deterministic(three: Snapshot, tmp_path: Path) -> None:
    path = tmp_path / "snap.json"
    path.write_text(three.to_json(), encoding="utf-8")
    again = load_snapshot(path)
    assert again.to_json() == three.to_json() and again.fingerprint == three.fingerprint
    # The endpoint records are part of the fingerprint: dropping a tool from one profile is drift.
    data = json.loads(three.to_json())
    data["endpoints"][2]["tools"] = data["endpoints"][2]["tools"][:-1]
    with pytest.raises(PortalError, match="fingerprint"):
        parse_snapshot(json.dumps(data), path)


def test_golden_snapshot_is_the_three_endpoint_demo(three: Snapshot) -> None:
    golden = load_snapshot(SNAPSHOT)
    # What the demo listed; the golden snapshot adds what it answered (--prove), which this listing did not ask.
    assert replace(golden, proofs=None).to_json() == three.to_json()


def test_tool_on_both_profiles_lists_them_and_shows_the_difference(demo_site: dict[str, str]) -> None:
    md = demo_site["en/tools/search_chat.md"]
    assert "- `/mcp/` (Streamable HTTP, profile full)" in md
    assert "- `/mcp/readonly/` (Streamable HTTP, profile readonly) **differs here**" in md
    assert "**Profiles:** `full`, `readonly`" in md
    assert re.search(r"\| Constraint tightened \| `params\.limit` \| `100` \| `25` \|", md)
    html = demo_site["ru/tools/search_chat/index.html"]
    assert '<code dir="ltr">/mcp/readonly/</code>' in html


def test_tool_on_the_full_profile_only_says_where_it_is_missing(demo_site: dict[str, str]) -> None:
    md = demo_site["en/tools/file_defect.md"]
    assert "- `/mcp/` (Streamable HTTP, profile full)" in md
    assert "`/mcp/readonly/` (" not in md
    assert "Not offered on: `/mcp/readonly/`" in md
    assert "differs here" not in md


def test_scope_from_meta_is_near_the_top_and_in_the_tool_list(demo_site: dict[str, str]) -> None:
    md = demo_site["en/tools/delete_document.md"]
    assert md.index("**Requires:** `documents_delete`") < md.index("## Description")
    index = demo_site["en/index.html"]
    # The scope breaks only at its underscore (<wbr>), never mid-word.
    assert re.search(r'delete_document.*?<code dir="ltr" class="ident">documents_<wbr>delete</code>', index, re.S)
    assert "| Requires |" in demo_site["en/index.md"]


def test_openapi_operations_are_shown_linked_and_published(three: Snapshot) -> None:
    files, warnings = site_files(three, demo_config(PortalConfig(search=False)), renderer=TEMPLATES)
    assert files["openapi.yaml"] == (Path(demo_config(PortalConfig()).openapi or "")).read_bytes()
    expected = {
        "search_chat": "GET /api/v1/chat/messages/search",  # x-mcp-tool
        "query_research_conversations": "POST /research-api/conversations/query",  # _meta
        "file_defect": "POST /api/v1/defects",  # x-mcp-tool
        "delete_document": "DELETE /api/v1/documents/{document_id}",  # x-mcp-tool, list form
    }
    for tool, label in expected.items():
        md = files[f"en/tools/{tool}.md"].decode()
        assert f"`{label}`" in md, tool
        assert "[openapi.yaml](../../openapi.yaml)" in md  # every twin's header links the contract
    assert "`defects_write`" in files["en/tools/file_defect.md"].decode()
    for llms in ("llms.txt", "en/llms.txt", "ar/llms.txt"):
        assert "openapi.yaml)" in files[llms].decode()
    assert not [w for w in warnings if "API operation" in w]


def test_the_api_page_lists_every_operation_with_its_tools(three: Snapshot) -> None:
    files, _ = site_files(three, demo_config(PortalConfig(search=False)), renderer=TEMPLATES)
    for locale in ("en", "ru", "ar"):
        assert f"{locale}/api/index.html" in files and f"{locale}/api.md" in files
        assert "](api.md): " in files[f"{locale}/llms.txt"].decode()
    html = files["en/api/index.html"].decode()
    row = re.search(r'<tr id="op-searchChatMessages">(.*?)</tr>', html, re.S)
    assert row is not None, "the operation's row has no anchor"
    assert '<code dir="ltr">GET /api/v1/chat/messages/search</code>' in row.group(1)
    assert '<a href="../tools/search_chat/index.html"><code dir="ltr">search_chat</code></a>' in row.group(1)
    # An operation no tool maps to is listed too, with no tool.
    health = re.search(r'<tr id="op-getHealth">(.*?)</tr>', html, re.S)
    assert health is not None and '<td data-label="MCP tools">none</td></tr>' in health.group(0)
    # Tool pages link each of their operations to its row.
    tool = files["en/tools/search_chat/index.html"].decode()
    assert '<a href="../../api/index.html#op-searchChatMessages"><code dir="ltr">GET /api/v1/chat' in tool
    assert "[`GET /api/v1/chat/messages/search`](../api.md)" in files["en/tools/search_chat.md"].decode()
    md = files["ru/api.md"].decode()
    defects = "| `POST /api/v1/defects` (`createDefect`) | `defects_write` | File a defect |"
    assert f"{defects} [`file_defect`](tools/file_defect.md) |" in md
    assert "[Операции HTTP API](api/index.html)" not in md  # twins link twins
    assert "Операции HTTP API" in files["ru/index.html"].decode()


def test_no_api_page_without_an_openapi_document(three: Snapshot) -> None:
    files, _ = site_files(three, PortalConfig(search=False), renderer=TEMPLATES)
    assert not [path for path in files if "/api" in path]


def test_unmapped_and_dangling_operations_warn_and_strict_fails(three: Snapshot, tmp_path: Path, cli: Cli) -> None:
    doc = tmp_path / "api.json"
    doc.write_text(
        json.dumps(
            {
                "openapi": "3.0.3",
                "info": {"title": "Mini", "version": "1"},
                "paths": {"/x": {"get": {"operationId": "x", "x-mcp-tool": "no_such_tool"}}},
            }
        ),
        encoding="utf-8",
    )
    overlays = tmp_path / "overlays"
    overlays.mkdir()
    (overlays / "search_chat.yaml").write_text("tool: search_chat\noperation: missingOp\n", encoding="utf-8")
    snap = tmp_path / "snap.json"
    snap.write_text(three.to_json(), encoding="utf-8")
    config = tmp_path / "portal.yaml"
    config.write_text("openapi: api.json\noverlays: overlays\nsearch: false\n", encoding="utf-8")
    run = cli("build", "--from", str(snap), "--config", str(config), "--out", str(tmp_path / "site"))
    assert run.code == 0, run.err
    assert "its overlay names the API operation 'missingOp'" in run.err
    assert "names the tool 'no_such_tool' in x-mcp-tool" in run.err
    assert "tool 'file_defect' is mapped to no API operation" in run.err
    out = tmp_path / "strict"
    run = cli("build", "--from", str(snap), "--config", str(config), "--out", str(out), "--strict")
    assert run.code == 1 and "--strict" in run.err and "missingOp" in run.err
    assert not out.exists()


def test_prompts_resources_and_templates_of_server_everything() -> None:
    snap = load_snapshot(EVERYTHING_SNAPSHOT)
    assert snap.prompts and snap.resources and snap.resource_templates
    files, _ = site_files(snap, PortalConfig(search=False), renderer=TEMPLATES)
    for locale in ("en", "ru", "ar"):
        prompt_pages = [p for p in files if p.startswith(f"{locale}/prompts/") and p.endswith("/index.html")]
        assert len(prompt_pages) == len(snap.prompts)
        assert len([p for p in files if p.startswith(f"{locale}/resources/") and p.endswith(".md")]) == len(
            snap.resources
        )
        templates = [p for p in files if p.startswith(f"{locale}/resource-templates/") and p.endswith(".md")]
        assert len(templates) == len(snap.resource_templates)

    def en_twins(directory: str) -> list[str]:
        return [data.decode() for p, data in files.items() if p.startswith(f"en/{directory}/") and p.endswith(".md")]

    # Every prompt argument is listed with whether it is required.
    for prompt in snap.prompts:
        page = next(twin for twin in en_twins("prompts") if f"# {prompt['name']}" in twin)
        for arg in prompt.get("arguments", []):
            row = next(line for line in page.splitlines() if line.startswith(f"| `{arg['name']}`"))
            assert ("| yes |" in row) is bool(arg.get("required")), row
    # Every template's variables are listed.
    for template in snap.resource_templates:
        names = re.findall(r"\{[+#./;?&]?([A-Za-z0-9_.,%*:]+)\}", template["uriTemplate"])
        page = next(twin for twin in en_twins("resource-templates") if template["uriTemplate"] in twin)
        for group in names:
            for name in group.split(","):
                assert f"| `{name.split(':')[0].rstrip('*')}` |" in page
    llms = files["en/llms.txt"].decode()
    assert "## Prompts" in llms and "## Resources" in llms and "## Resource templates" in llms


def test_server_instructions_get_a_page_with_safe_markdown(tmp_path: Path) -> None:
    snap = load_snapshot(SNAPSHOT)
    hostile = frozen(
        revised(
            snap,
            server={
                **snap.server,
                "instructions": "# Hi\n<script>alert(1)</script> [x](javascript:alert(1)) **bold**",
            },
        )
    )
    files, _ = site_files(hostile, PortalConfig(search=False), renderer=TEMPLATES)
    html = files["en/instructions/index.html"].decode()
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)" in html
    assert 'href="javascript:' not in html  # the link stays text
    assert "<strong>bold</strong>" in html
    assert "en/instructions.md" in files and "instructions.md" in files["en/llms.txt"].decode()


def test_connecting_page_has_client_configs_for_every_endpoint(demo_site: dict[str, str]) -> None:
    md = demo_site["en/connecting.md"]
    blocks = re.findall(r"```json\n(.*?)\n```", md, re.S)
    configs = [json.loads(b) for b in blocks]
    urls = {s.get("url") for c in configs for s in (c.get("mcpServers") or c.get("servers") or {}).values()}
    assert {"http://127.0.0.1:8765/mcp/", "http://127.0.0.1:8765/mcp/readonly/"} <= urls
    assert "claude mcp add --transport http teamspace-demo-readonly http://127.0.0.1:8765/mcp/readonly/" in md
    assert "Protocol versions negotiated when this portal was generated: `2026-07-28`" in md


def test_auth_header_patterns_never_leak_values(tmp_path: Path) -> None:
    snap = load_snapshot(SNAPSHOT)
    data = json.loads(snap.to_json())
    data["endpoints"][1]["auth"] = [["Authorization", "Bearer ${TEAMSPACE_TOKEN}"], ["X-Api-Key", None]]
    from generator.snapshot.snapshot import fingerprint

    data["fingerprint"] = fingerprint(data["tools"], data["endpoints"])
    data["capability_version"] = "2.4.0"
    edited = parse_snapshot(json.dumps(data), tmp_path / "s.json")
    files, _ = site_files(edited, PortalConfig(search=False), renderer=TEMPLATES)
    md = files["en/connecting.md"].decode()
    assert "Authorization: Bearer ${TEAMSPACE_TOKEN}" in md
    assert "X-Api-Key: <X-Api-Key value>" in md
    assert '"Authorization": "Bearer ${input:teamspace-token}"' in md  # VS Code prompts for it


def test_a_failing_endpoint_is_named(cli: Cli, tmp_path: Path) -> None:
    dead = free_port()
    config = tmp_path / "portal.yaml"
    config.write_text(
        "endpoints:\n"
        "  - {name: local, stdio: 'python -m generator.demo'}\n"
        f"  - {{name: remote, url: 'http://127.0.0.1:{dead}/mcp/'}}\n"
        "limits: {request_timeout: 5, total_timeout: 20}\n",
        encoding="utf-8",
    )
    run = cli("build", "--config", str(config), "--out", str(tmp_path / "site"))
    assert run.code == 1
    assert "(endpoint `remote`)" in run.err and "Traceback" not in run.err
    assert not (tmp_path / "site").exists()


def test_version_one_snapshots_still_load(tmp_path: Path) -> None:
    data = json.loads(load_snapshot(EVERYTHING_SNAPSHOT).to_json())
    data["snapshot_version"] = 1
    del data["endpoints"]
    snap = parse_snapshot(json.dumps(data), tmp_path / "old.json")
    assert [e.name for e in snap.endpoints] == ["default"]
    assert snap.endpoints[0].tools == tuple(t["name"] for t in snap.tools)


def test_everything_live_over_stdio_has_prompts_and_templates() -> None:
    spec = ServerSpec(command=(node_bin("mcp-server-everything"), "stdio"), label="mcp-server-everything stdio")
    snap = introspect_all((spec,), FAST)
    assert {p["name"] for p in snap.prompts} == {p["name"] for p in load_snapshot(EVERYTHING_SNAPSHOT).prompts}
    assert snap.resource_templates and all("uriTemplate" in t for t in snap.resource_templates)
    # A 2025-11-25 server names its version only through the initialize handshake.
    assert snap.protocol_version == "2025-11-25" and not snap.endpoints[0].supported_versions


CONFIG_ERRORS = [
    ("endpoints: []\n", "`endpoints` must be a non-empty list of endpoints"),
    ("endpoints: {a: 1}\n", "`endpoints` must be a non-empty list of endpoints"),
    ("endpoints: [{url: 'http://x/mcp/'}]\n", "`endpoints[0].name` is required"),
    ("endpoints: [{name: 'bad name', url: 'http://x/mcp/'}]\n", "`endpoints[0].name` is required"),
    (
        "endpoints: [{name: a, url: 'http://x/'}, {name: a, url: 'http://y/'}]\n",
        "`endpoints[1].name` repeats 'a', the name of endpoints[0]",
    ),
    ("endpoints: [{name: a}]\n", "`endpoints[0]` needs exactly one of `stdio` (a command) or `url`"),
    ("endpoints: [{name: a, url: 'ftp://x/'}]\n", "`endpoints[0].url` must be an http:// or https:// URL"),
    ("endpoints: [{name: a, url: 'http://x/', env: [T]}]\n", "`endpoints[0].env` only applies to `stdio` servers"),
    ("endpoints: [{name: a, stdio: 'x', headers: {A: b}}]\n", "`endpoints[0].headers` only applies to `url`"),
    ("endpoints: [{name: a, url: 'http://x/', transport: stdio}]\n", "`endpoints[0].transport` is stdio, but"),
    ("endpoints: [{name: a, url: 'http://x/', transport: sse}]\n", "`endpoints[0].transport` must be one of"),
    ("endpoints: [{name: a, url: 'http://x/', profile: 'no way'}]\n", "`endpoints[0].profile` must be a name"),
    ("endpoints: [{name: a, url: 'http://x/', public: 'mcp.example'}]\n", "`endpoints[0].public` must be the"),
    ("endpoints: [{name: a, url: 'http://x/', colour: red}]\n", "`endpoints[0].colour` is not a known key"),
    (
        "server: {url: 'http://x/'}\nendpoints: [{name: a, url: 'http://x/'}]\n",
        "`server` and `endpoints` cannot both be given",
    ),
    ("scope_meta_key: ''\n", "`scope_meta_key` must be a non-empty string"),
    ("openapi: 5\n", "`openapi` must be a non-empty string"),
]


@pytest.mark.parametrize(("text", "message"), CONFIG_ERRORS, ids=[m[:40] for _, m in CONFIG_ERRORS])
def test_each_config_error_names_its_key(tmp_path: Path, cli: Cli, text: str, message: str) -> None:
    config = tmp_path / "portal.yaml"
    config.write_text(text, encoding="utf-8")
    run = cli("build", "--config", str(config), "--out", str(tmp_path / "site"))
    assert run.code == 1 and message in run.err, run.err
    assert run.err.count("\n") == 1 and "Traceback" not in run.err


def test_config_errors_are_reported_together(tmp_path: Path, cli: Cli) -> None:
    config = tmp_path / "portal.yaml"
    config.write_text(
        "endpoints: [{name: a, url: 'ftp://x/'}, {stdio: ''}]\nscope_meta_key: 3\ncolour: red\n", encoding="utf-8"
    )
    run = cli("build", "--config", str(config))
    assert run.code == 1
    for part in ("`endpoints[0].url`", "`endpoints[1]", "`scope_meta_key`", "`colour` is not a known key"):
        assert part in run.err


def test_a_missing_openapi_file_is_a_clear_error(tmp_path: Path, cli: Cli) -> None:
    config = tmp_path / "portal.yaml"
    config.write_text("openapi: nowhere.yaml\nsearch: false\n", encoding="utf-8")
    run = cli("build", "--from", str(SNAPSHOT), "--config", str(config), "--out", str(tmp_path / "site"))
    assert run.code == 1 and "nowhere.yaml" in run.err and "Traceback" not in run.err


def test_overlay_notes_rows_related_and_scope_render_per_locale(tmp_path: Path) -> None:
    overlays = tmp_path / "overlays"
    overlays.mkdir()
    (overlays / "file_defect.yml").write_text(
        "tool: file_defect\n"
        "notes:\n  en: 'File one defect per problem; **search first**.'\n  ru: 'Один дефект на одну проблему.'\n"
        "troubleshooting:\n"
        "  en:\n    - {symptom: 'error: duplicate', cause: Already filed., action: Link the existing defect.}\n"
        "  ar:\n    - {symptom: 'خطأ: مكرر', cause: سبق تسجيله., action: اربط العيب الموجود.}\n"
        "related: [search_chat, no_such_tool]\n"
        "scope: [defects_write, project:core]\n",
        encoding="utf-8",
    )
    config = demo_config(PortalConfig(search=False, overlays_dir=str(overlays)))
    files, warnings = site_files(load_snapshot(SNAPSHOT), config, renderer=TEMPLATES)
    en = files["en/tools/file_defect.md"].decode()
    ru = files["ru/tools/file_defect/index.html"].decode()
    ar = files["ar/tools/file_defect.md"].decode()
    assert "File one defect per problem; **search first**." in en
    assert "Один дефект на одну проблему." in ru and "<strong>search first</strong>" not in ru
    assert "Link the existing defect." in en and "اربط العيب الموجود." not in en
    assert "اربط العيب الموجود." in ar and "Link the existing defect." not in ar
    # ar has no note of its own: the English one is shown, marked as English.
    assert 'lang="en"' in files["ar/tools/file_defect/index.html"].decode()
    assert "[search_chat](search_chat.md)" in en and "`no_such_tool`" in en
    assert "**Requires:** `defects_write`, `project:core`" in en  # the overlay wins over _meta
    assert any("no_such_tool" in w for w in warnings)


@pytest.mark.parametrize(
    ("value", "kept"),
    [
        ("Bearer ${TOKEN}", True),
        ("${API_KEY}", True),
        ("Basic ${USER}${PASS}", True),
        ("Bearer abc123", False),  # a literal secret
        ("key=abc ${X}", False),  # a literal mixed in with a reference
        ("${X} trailing", False),
        ("", False),
    ],
)
def test_only_pure_header_templates_are_recorded(value: str, kept: bool) -> None:
    spec = ServerSpec(url="http://127.0.0.1:1/mcp/", headers=(("Authorization", value),))
    assert spec.auth_template() == (("Authorization", value if kept else None),)


def test_endpoints_on_several_hosts_are_named_in_full() -> None:
    from generator.model.product import endpoints_of

    def record(name: str, address: str) -> EndpointRecord:
        return EndpointRecord(name, name, "streamable-http", address, "2025-11-25")

    same = endpoints_of([record("a", "https://x.example/mcp/"), record("b", "https://x.example/mcp/ro/")])
    assert [e.short for e in same] == ["/mcp/", "/mcp/ro/"]
    split = endpoints_of([record("eu", "https://eu.example/mcp/"), record("us", "https://us.example/mcp/")])
    assert [e.short for e in split] == ["https://eu.example/mcp/", "https://us.example/mcp/"]


def test_overlay_locale_codes_match_either_spelling() -> None:
    from generator.authoring.overlays import Overlay, TroubleRow

    row = TroubleRow("s", "c", "a")
    overlay = Overlay("t", "f.yaml", notes=(("pt-BR", "olá"), ("en", "hi")), troubleshooting=(("pt-br", row),))
    assert overlay.note_for("pt_BR") == ("pt-BR", "olá")
    assert overlay.troubleshooting_for("pt_BR") == (row,)
    assert overlay.note_for("de") == ("en", "hi")


def test_demo_resource_and_template_pages_show_their_facts(demo_site: dict[str, str]) -> None:
    handbook = demo_site["en/resources/handbook.md"]
    for row in (
        "| URI | `teamspace://handbook` |",
        "| MIME type | `text/markdown` |",
        "| Size | not declared |",
        "| Audience | `user`, `assistant` |",
        "| Priority | 0.8 |",
        "| Last modified | `2026-09-01T09:00:00Z` |",
    ):
        assert row in handbook
    template = demo_site["en/resource-templates/document.md"]
    assert "| URI template | `teamspace://documents/{document_id}` |" in template
    assert "| `document_id` | simple |" in template
    assert "resource-templates/document.md" in demo_site["en/llms.txt"]
    prompt = demo_site["ru/prompts/triage_defect/index.html"]
    assert '<code dir="ltr">defect</code>' in prompt and '<code dir="ltr">audience</code>' in prompt


def _edited(snap: Snapshot, tmp_path: Path, edit: Callable[[dict[str, Any]], None]) -> Snapshot:
    from generator.snapshot.snapshot import fingerprint

    data = json.loads(snap.to_json())
    edit(data)
    data["fingerprint"] = fingerprint(data["tools"], data["endpoints"])
    return parse_snapshot(json.dumps(data), tmp_path / "edited.json")


def test_diff_and_changelog_see_a_tool_leave_or_join_an_endpoint(tmp_path: Path) -> None:
    from generator.compare.diff import diff_snapshots

    old = load_snapshot(SNAPSHOT)

    def move(data: dict[str, Any]) -> None:
        readonly = data["endpoints"][2]
        readonly["tools"] = [t for t in readonly["tools"] if t != "my_capabilities"] + ["workspace_status"]

    new = _edited(old, tmp_path, move)
    changes = {(c.cls, c.kind, c.tool, c.path) for c in diff_snapshots(old, new)}
    assert changes == {
        ("breaking", "offered-removed", "my_capabilities", "http://127.0.0.1:8765/mcp/readonly/"),
        ("non-breaking", "offered-added", "workspace_status", "http://127.0.0.1:8765/mcp/readonly/"),
    }
    previous = tmp_path / "old.json"
    previous.write_text(old.to_json(), encoding="utf-8")
    files, _ = site_files(new, PortalConfig(search=False, previous=str(previous)), renderer=TEMPLATES)
    assert "| No longer offered on an endpoint |" in files["en/changes.md"].decode()
    assert "Теперь предлагается на эндпоинте" in files["ru/changes/index.html"].decode()


def test_diff_classifies_a_change_confined_to_one_endpoint(tmp_path: Path) -> None:
    from generator.compare.diff import diff_snapshots

    old = load_snapshot(SNAPSHOT)

    def tighten_readonly(data: dict[str, Any]) -> None:
        limit = data["endpoints"][2]["variants"]["search_chat"]["inputSchema"]["properties"]["limit"]
        limit["maximum"] = 10

    new = _edited(old, tmp_path, tighten_readonly)
    [change] = diff_snapshots(old, new)
    assert (change.cls, change.kind, change.tool, change.path) == (
        "breaking",
        "constraint-tightened",
        "search_chat",
        "params.limit",
    )
    assert (change.old, change.new, change.endpoint) == (25, 10, "readonly")
    assert change.message.endswith("on the endpoint `readonly` (http://127.0.0.1:8765/mcp/readonly/)")
    assert change.to_dict()["endpoint"] == "readonly"

    previous = tmp_path / "old.json"
    previous.write_text(old.to_json(), encoding="utf-8")
    files, _ = site_files(new, demo_config(PortalConfig(search=False, previous=str(previous))), renderer=TEMPLATES)
    assert "| `params.limit` on `/mcp/readonly/` | `25` | `10` |" in files["en/changes.md"].decode()
    assert (
        '<code dir="ltr">params.limit</code> на <code dir="ltr">/mcp/readonly/</code>'
        in files["ru/changes/index.html"].decode()
    )


def test_diff_reports_a_change_every_endpoint_made_once_for_the_tool(tmp_path: Path) -> None:
    from generator.compare.diff import diff_snapshots

    old = load_snapshot(SNAPSHOT)

    def describe_everywhere(data: dict[str, Any]) -> None:
        for tool in [data["tools"][0], data["endpoints"][2]["variants"]["search_chat"]]:
            assert tool["name"] == "search_chat"
            tool["inputSchema"]["properties"]["query"]["minLength"] = 2

    new = _edited(old, tmp_path, describe_everywhere)
    [change] = diff_snapshots(old, new)
    assert (change.kind, change.path, change.endpoint) == ("constraint-tightened", "params.query", None)


def test_diff_sees_an_endpoint_catch_up_with_the_documented_listing(tmp_path: Path) -> None:
    from generator.compare.diff import diff_snapshots

    old = load_snapshot(SNAPSHOT)

    def drop_variant(data: dict[str, Any]) -> None:
        del data["endpoints"][2]["variants"]

    new = _edited(old, tmp_path, drop_variant)
    [change] = diff_snapshots(old, new)
    assert (change.cls, change.path, change.old, change.new, change.endpoint) == (
        "non-breaking",
        "params.limit",
        25,
        100,
        "readonly",
    )


def test_endpoints_running_different_releases_are_flagged(tmp_path: Path, cli: Cli) -> None:
    from dataclasses import replace

    from generator.connect.merge import merge

    snap = load_snapshot(SNAPSHOT)
    parts = [replace(snap, endpoints=(record,)) for record in snap.endpoints]
    parts[2] = replace(parts[2], server={**snap.server, "version": "2.3.9"})
    merged = merge(parts, "server")
    assert merged.capability_version == "2.4.0"
    assert [r.server for r in merged.endpoints] == [{}, {}, {"name": "teamspace-demo", "version": "2.3.9"}]
    assert not merge(parts[:2], "server").endpoints[1].server

    saved = tmp_path / "mixed.json"
    saved.write_text(merged.to_json(), encoding="utf-8")
    assert load_snapshot(saved).endpoints[2].server == {"name": "teamspace-demo", "version": "2.3.9"}
    _, warnings = site_files(load_snapshot(saved), PortalConfig(search=False), renderer=TEMPLATES)
    assert warnings == [
        "endpoint readonly reports server teamspace-demo 2.3.9, but the portal is stamped with teamspace-demo "
        "2.4.0 from endpoint stdio; pages document stdio's listing, so deploy one release everywhere and build again"
    ]
    run = cli("build", "--from", str(saved), "--out", str(tmp_path / "site"), "--no-search", "--strict")
    assert run.code != 0 and "endpoint readonly reports server teamspace-demo 2.3.9" in run.err
    assert not (tmp_path / "site").exists()


def test_a_prompt_or_resource_an_endpoint_lists_differently_is_shown(tmp_path: Path) -> None:
    from dataclasses import replace

    from generator.connect.merge import merge

    snap = load_snapshot(SNAPSHOT)
    parts = [replace(snap, endpoints=(record,)) for record in snap.endpoints]
    prompt = {**snap.prompts[0], "arguments": [{"name": "defect", "required": True}]}
    handbook = {**snap.resources[0], "mimeType": "text/plain"}
    parts[2] = replace(parts[2], prompts=(prompt,), resources=(handbook, *snap.resources[1:]))
    merged = merge(parts, "server")
    assert not merged.endpoints[1].item_variants
    assert merged.endpoints[2].item_variants == {
        "prompts": {"triage_defect": prompt},
        "resources": {"teamspace://handbook": handbook},
    }
    saved = tmp_path / "items.json"
    saved.write_text(merged.to_json(), encoding="utf-8")
    files, _ = site_files(load_snapshot(saved), demo_config(PortalConfig(search=False)), renderer=TEMPLATES)
    html = files["en/prompts/triage_defect/index.html"].decode()
    assert (
        '<p class="warn">On <code dir="ltr">/mcp/readonly/</code> this is listed differently from '
        '<code dir="ltr">python -m generator.demo</code>, whose listing this page documents.'
    ) in html
    assert html.count('<p class="warn">On ') == 1
    md = files["ru/resources/handbook.md"].decode()
    assert "> На `/mcp/readonly/` это описано иначе, чем на `python -m generator.demo`" in md
    assert '"mimeType": "text/plain"' in md
    untouched = files["en/resource-templates/document/index.html"].decode()
    assert "listed differently" not in untouched

    data = json.loads(merged.to_json())
    data["endpoints"][2]["item_variants"]["prompts"] = {"no_such_prompt": {"name": "no_such_prompt"}}
    with pytest.raises(PortalError, match="has `item_variants` that are not prompts or resources it offers"):
        parse_snapshot(json.dumps(data), tmp_path / "bad.json")


def test_diff_classifies_prompt_and_resource_changes(tmp_path: Path, cli: Cli) -> None:
    from generator.compare.diff import diff_snapshots

    old = load_snapshot(SNAPSHOT)

    def change_items(data: dict[str, Any]) -> None:
        prompt = data["prompts"][0]
        assert [a["name"] for a in prompt["arguments"]] == ["defect", "audience"]
        prompt["arguments"][1]["required"] = True  # audience: optional -> required
        prompt["arguments"].append({"name": "severity"})  # optional, added
        prompt["description"] = "Reworded."
        data["resources"][0]["mimeType"] = "text/plain"
        data["resource_templates"] = []
        data["prompts"].append({"name": "summarize_chat", "arguments": [{"name": "chat", "required": True}]})
        for record in data["endpoints"]:
            record.pop("resource_templates", None)

    new = _edited(old, tmp_path, change_items)
    found = {(c.cls, c.subject, c.name, c.kind, c.path) for c in diff_snapshots(old, new)}
    assert found == {
        ("breaking", "prompt", "triage_defect", "param-required", "arguments.audience"),
        ("non-breaking", "prompt", "triage_defect", "param-added-optional", "arguments.severity"),
        ("cosmetic", "prompt", "triage_defect", "description-changed", ""),
        ("non-breaking", "prompt", "summarize_chat", "prompt-added", ""),
        ("breaking", "resource", "teamspace://handbook", "mime-type-changed", "mimeType"),
        ("breaking", "resource-template", "teamspace://documents/{document_id}", "resource-template-removed", ""),
    }
    previous = tmp_path / "old.json"
    previous.write_text(old.to_json(), encoding="utf-8")
    saved = tmp_path / "new.json"
    saved.write_text(new.to_json(), encoding="utf-8")
    run = cli("diff", str(previous), str(saved), "--format", "json", "--fail-on", "breaking")
    assert run.code == 4, run.err
    body = json.loads(run.out)
    assert body["counts"] == {"breaking": 3, "non-breaking": 2, "cosmetic": 1}
    removed = next(c for c in body["changes"] if c["kind"] == "resource-template-removed")
    assert (removed["subject"], removed["name"], removed["tool"]) == (
        "resource-template",
        "teamspace://documents/{document_id}",
        None,
    )
    text = cli("diff", str(previous), str(saved)).out
    assert "  prompt triage_defect\n    - [param-required] argument `audience` is now required" in text

    files, _ = site_files(new, demo_config(PortalConfig(search=False, previous=str(previous))), renderer=TEMPLATES)
    html = files["en/changes/index.html"].decode()
    assert (
        '<td><a href="../prompts/triage_defect/index.html"><code dir="ltr">triage_defect</code></a>'
        ' <span class="badge">Prompt</span></td>'
    ) in html
    # A removed template has no page left to link to.
    assert (
        '<code dir="ltr">teamspace://documents/{document_id}</code> <span class="badge">Resource template</span>'
        in html
    )
    md = files["ru/changes.md"].decode()
    assert "| [`teamspace://handbook`](resources/handbook.md) (Ресурс) | Изменён MIME-тип | `mimeType` |" in md


def test_diff_classifies_a_prompt_change_confined_to_one_endpoint() -> None:
    from dataclasses import replace

    from generator.compare.diff import diff_snapshots
    from generator.connect.merge import merge

    snap = load_snapshot(SNAPSHOT)

    def with_readonly_arguments(arguments: list[dict[str, Any]]) -> Snapshot:
        parts = [replace(snap, endpoints=(record,)) for record in snap.endpoints]
        parts[2] = replace(parts[2], prompts=({**snap.prompts[0], "arguments": arguments},))
        return merge(parts, "server")

    old = with_readonly_arguments([{"name": "defect", "required": True}])
    new = with_readonly_arguments([{"name": "defect", "required": True}, {"name": "urgent", "required": True}])
    [change] = diff_snapshots(old, new)
    assert (change.cls, change.subject, change.name, change.kind, change.path, change.endpoint) == (
        "breaking",
        "prompt",
        "triage_defect",
        "param-added-required",
        "arguments.urgent",
        "readonly",
    )
    assert change.message == (
        "required argument `urgent` was added on the endpoint `readonly` (http://127.0.0.1:8765/mcp/readonly/)"
    )
    assert diff_snapshots(old, old) == []


def test_a_version_one_snapshot_is_not_compared_by_endpoint(tmp_path: Path) -> None:
    from generator.compare.diff import diff_snapshots

    new = load_snapshot(SNAPSHOT)
    data = json.loads(new.to_json())
    data["snapshot_version"] = 1
    del data["endpoints"]
    from generator.snapshot.snapshot import fingerprint

    data["fingerprint"] = fingerprint(data["tools"])
    old = parse_snapshot(json.dumps(data), tmp_path / "v1.json")
    assert diff_snapshots(old, new) == []


def test_every_table_and_heading_in_a_twin_starts_its_own_block(demo_site: dict[str, str]) -> None:
    # Some Markdown renderers do not let a table or a heading interrupt a paragraph.
    everything, _ = site_files(load_snapshot(EVERYTHING_SNAPSHOT), PortalConfig(search=False), renderer=TEMPLATES)
    twins = {p: t for p, t in demo_site.items() if p.endswith(".md")}
    twins.update({p: d.decode() for p, d in everything.items() if p.endswith(".md")})
    assert len(twins) > 100
    for path, text in twins.items():
        lines = text.split("\n")
        fenced = False
        for before, line in itertools.pairwise(lines):
            if line.startswith("```"):
                fenced = not fenced
            if fenced:
                continue
            starts_block = line.startswith(("| ", "#")) and not before.startswith("|")
            assert not starts_block or before == "", f"{path}: {line[:60]!r} follows {before[:60]!r}"


def test_cwd_is_relative_to_the_config_file(tmp_path: Path) -> None:
    from generator.config.portal import load_config

    (tmp_path / "conf").mkdir()
    path = tmp_path / "conf" / "portal.yaml"
    path.write_text("endpoints: [{name: a, stdio: 'srv', cwd: work}, {name: b, stdio: 'srv', cwd: /abs}]\n", "utf-8")
    first, second = load_config(path).connections
    assert first.cwd == str(tmp_path / "conf" / "work") and second.cwd == "/abs"


def test_overlay_text_in_a_locale_the_site_does_not_build_is_reported(tmp_path: Path) -> None:
    overlays = tmp_path / "overlays"
    overlays.mkdir()
    (overlays / "a.yaml").write_text("tool: search_chat\nnotes: {en: hi, de: hallo}\n", encoding="utf-8")
    config = PortalConfig(search=False, overlays_dir=str(overlays), locales=("en", "ru"))
    _, warnings = site_files(load_snapshot(SNAPSHOT), config, renderer=TEMPLATES)
    assert any("has text in de, which this site does not build" in w for w in warnings), warnings
