"""What ``--prove`` records and shows, without a server: the snapshot's ``proofs`` checked on load and kept
out of the fingerprint, answer shapes compared by keys and types, several example candidates, secrets
masked, and hostile server text in a proof escaped on every page (the answers of real servers are tested
in ``tests/test_prove.py``)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from generator.commands.prove import check_named
from generator.compare.answers import shape_changes
from generator.config.portal import PortalConfig
from generator.connect.secrets import Redactor
from generator.errors import UsageError
from generator.model.site import build_model
from generator.schema.examples import example_for, examples_for
from generator.schema.validation import validate
from generator.snapshot.snapshot import SnapshotError, load_snapshot, parse_snapshot
from tests.conftest import TEMPLATES
from tests.golden_tool import SNAPSHOT, golden_files

GOLDEN: dict[str, Any] = json.loads(SNAPSHOT.read_text(encoding="utf-8"))


def _written(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / f"snapshot-{len(list(tmp_path.iterdir()))}.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


# --- the record ----------------------------------------------------------------------------------------


def test_the_golden_demo_snapshot_records_proofs_apart_from_what_was_listed() -> None:
    proofs = GOLDEN["proofs"]
    assert sorted(proofs) == ["endpoints", "prompts", "resource_templates", "resources", "tools"]
    assert set(proofs["endpoints"]) == {"stdio"}
    assert "probe" in proofs["endpoints"]["stdio"]
    assert not any("proofs" in json.dumps(tool) for tool in GOLDEN["tools"])


def test_proofs_do_not_change_the_fingerprint(tmp_path: Path) -> None:
    bare = {key: value for key, value in GOLDEN.items() if key != "proofs"}
    with_proofs, without = load_snapshot(SNAPSHOT), load_snapshot(_written(tmp_path, bare))
    assert with_proofs.fingerprint == without.fingerprint == GOLDEN["fingerprint"]
    assert with_proofs.tool_keys == without.tool_keys
    assert without.proofs is None and "proofs" not in without.to_json()


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda p: p["tools"]["search_chat"].update(accepted="yes"), "`proofs.tools.search_chat.accepted`"),
        (lambda p: p["tools"]["search_chat"].update(attempts=[]), "`proofs.tools.search_chat.attempts`"),
        (lambda p: p["tools"]["search_chat"]["attempts"][0].update(answer={}), "answer"),
        (lambda p: p["tools"]["search_chat"].update(when="2026-01-01T00:00:00Z"), "when"),
        (lambda p: p["endpoints"]["stdio"]["probe"].update(form="maybe"), "`proofs.endpoints.stdio.probe.form`"),
        (lambda p: p["tools"]["search_chat"].update(endpoint="nowhere"), 'names the endpoint "nowhere"'),
    ],
    ids=["accepted-not-boolean", "no-attempts", "empty-answer", "unknown-key", "unknown-form", "unknown-endpoint"],
)
def test_a_damaged_proof_is_refused_on_load(tmp_path: Path, edit: Any, said: str) -> None:
    data = copy.deepcopy(GOLDEN)
    edit(data["proofs"])
    with pytest.raises(SnapshotError) as caught:
        load_snapshot(_written(tmp_path, data))
    assert said in caught.value.problem, caught.value.problem


def test_the_snapshot_text_is_stable_through_a_second_write() -> None:
    text = SNAPSHOT.read_text(encoding="utf-8")
    assert parse_snapshot(text, SNAPSHOT).to_json() == text


# --- shapes --------------------------------------------------------------------------------------------


def _tool(structured: Any, *, error: bool = False) -> dict[str, Any]:
    return {"result": {"content": [{"type": "text", "text": json.dumps(structured)}], "structuredContent": structured,
                       "isError": error}}  # fmt: skip


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ({"found": 4, "messages": [{"at": "a", "chat": "#r"}]}, {"found": 9, "messages": []}, []),
        ({"found": 4, "error": None}, {"found": 4, "error": "narrowed"}, []),
        ({"found": 4}, {"found": 4.5}, []),
        ({"found": 4}, {"found": "4"}, ["`result.structuredContent.found` was number, now string"]),
        ({"found": 4, "error": None}, {"found": 4}, ["`result.structuredContent` no longer has `error`"]),
        ({"it": [{"id": "a"}]}, {"it": [{"id": "a", "x": 1}]}, ["`result.structuredContent.it[]` has a new key `x`"]),
    ],
    ids=["values", "null-and-string", "integer-and-number", "type", "key-removed", "key-added"],
)  # fmt: skip
def test_shape_changes_are_keys_and_types_never_values(before: Any, after: Any, expected: list[str]) -> None:
    found = [change for change in shape_changes(_tool(before), _tool(after)) if "text(JSON)" not in change]
    assert found == expected


def test_a_json_text_block_is_compared_by_its_shape() -> None:
    before = {"result": {"content": [{"type": "text", "text": '{"a": 1}'}]}}
    after = {"result": {"content": [{"type": "text", "text": '{"a": "1"}'}]}}
    assert shape_changes(before, after) == ["`result.content[].text(JSON).a` was number, now string"]
    assert shape_changes(before, {"result": {"content": [{"type": "text", "text": '{"a": 2}'}]}}) == []


# --- candidates ----------------------------------------------------------------------------------------

SCHEMAS = [
    {"type": "object", "properties": {"id": {"type": "string", "format": "uuid"},
                                      "cursor": {"type": "string", "examples": ["c-1"]},
                                      "limit": {"type": "integer", "minimum": 1, "maximum": 5, "default": 2}},
     "required": ["id"]},
    {"type": "object", "properties": {"kind": {"enum": ["a", "b", "c"]}, "flag": {"type": "boolean"}},
     "required": ["kind", "flag"], "additionalProperties": False},
    {"type": "object", "properties": {}},
    {"type": "string", "minLength": 3},
]  # fmt: skip


@pytest.mark.parametrize("schema", SCHEMAS, ids=["optional-example", "enum-and-boolean", "empty", "string"])
def test_candidates_are_distinct_valid_and_start_with_the_example(schema: dict[str, Any]) -> None:
    found = examples_for(schema, 5, max_optional=3)
    assert found and found[0] == example_for(schema, max_optional=3).value
    assert len(found) <= 5
    assert len({json.dumps(value, sort_keys=True) for value in found}) == len(found)
    for value in found:
        assert validate(value, schema) == [], value


def test_a_refused_optional_example_has_a_candidate_without_it() -> None:
    found = examples_for(SCHEMAS[0], 5, max_optional=3)
    assert "cursor" in found[0] and any("cursor" not in value for value in found[1:])
    # One property varied at a time: both other kinds, the other flag.
    assert examples_for(SCHEMAS[1], 5) == (
        {"kind": "a", "flag": True},
        {"kind": "b", "flag": True},
        {"kind": "a", "flag": False},
        {"kind": "c", "flag": True},
    )
    assert examples_for({"type": "string", "pattern": "["}, 5) == ()  # no example, no candidate


# --- secrets and usage ---------------------------------------------------------------------------------


def test_every_string_of_an_answer_is_masked() -> None:
    redactor = Redactor()
    redactor.add(["tok-1234567890"])
    answer = {"result": {"content": [{"type": "text", "text": "PROOF_TOKEN=tok-1234567890"}],
                         "structuredContent": {"tok-1234567890": ["Bearer tok-1234567890", 3, None]}}}  # fmt: skip
    masked = json.dumps(redactor.redact_json(answer))
    assert "tok-1234567890" not in masked and masked.count("***") == 3


def test_prove_tools_may_not_name_a_destructive_tool() -> None:
    site = build_model(load_snapshot(SNAPSHOT), PortalConfig())
    with pytest.raises(UsageError) as caught:
        check_named(site, ("file_defect", "delete_document"))
    assert caught.value.exit_code == 2 and "delete_document" in caught.value.message
    assert "destructiveHint: true" in caught.value.message and "file_defect" not in caught.value.message
    assert check_named(site, ("file_defect", "no_such_tool")) == [
        "prove_tools names tools the server does not list: no_such_tool"
    ]


# --- pages ---------------------------------------------------------------------------------------------

HOSTILE = "<script>alert(1)</script>\n## Injected heading\n| a | b |\n[link](javascript:alert(1)) \u202eevil"


@pytest.fixture(scope="module")
def hostile_pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    data = copy.deepcopy(GOLDEN)
    tools = data["proofs"]["tools"]
    refused = {"request": tools["search_chat"]["attempts"][0]["request"],
               "answer": {"result": {"content": [{"type": "text", "text": HOSTILE}], "isError": True}}}  # fmt: skip
    tools["search_chat"]["attempts"].insert(0, refused)
    tools["my_capabilities"]["attempts"][-1]["answer"]["result"]["content"].append({"type": "text", "text": HOSTILE})
    tools["my_capabilities"].update(output="invalid", output_problem=HOSTILE)
    tools["query_research_conversations"].update(accepted=False)
    tools["query_research_conversations"]["attempts"][0]["answer"] = {"error": {"code": -32602, "message": HOSTILE}}
    data["proofs"]["prompts"]["triage_defect"]["attempts"][-1]["answer"]["result"]["messages"][0]["role"] = HOSTILE
    path = tmp_path_factory.mktemp("hostile") / "snapshot.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    files = golden_files(load_snapshot(path), TEMPLATES)
    return {name: content.decode("utf-8") for name, content in files.items() if name.endswith((".md", ".html"))}


PAGES = ["tools/search_chat", "tools/my_capabilities", "tools/query_research_conversations", "prompts/triage_defect"]


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("locale", ["en", "ru", "ar"])
def test_server_text_in_a_proof_is_escaped_on_every_page(hostile_pages: dict[str, str], locale: str, page: str) -> None:
    html = hostile_pages[f"{locale}/{page}/index.html"]
    twin = hostile_pages[f"{locale}/{page}.md"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>alert" not in html
    assert "javascript:" not in re.findall(r'href="([^"]*)"', html)
    assert "[U+202E]" in html and "\u202e" not in html
    outside = _outside_fences(twin)
    assert "<script>" not in outside and "\n## Injected heading" not in outside
    assert not re.search(r"(?<!\\)\]\(javascript:", outside)  # an escaped "\](" is no link


def test_the_hostile_refusal_is_said_before_the_call_that_worked(hostile_pages: dict[str, str]) -> None:
    twin = hostile_pages["en/tools/search_chat.md"]
    assert "The server refused the example first made from the schema" in twin and "proven: true" in twin
    refused = hostile_pages["en/tools/query_research_conversations.md"]
    assert "proven: false" in refused and "Not accepted by the server" in refused
    assert (
        "Its structuredContent does not validate against the output schema"
        in hostile_pages["en/tools/my_capabilities.md"]
    )


def _outside_fences(text: str) -> str:
    """*text* without its fenced code blocks and code spans (where a server's text is kept as it came)."""
    out, fence = [], None
    for line in text.splitlines():
        marker = re.match(r"(`{3,})", line)
        if fence is None and marker:
            fence = marker.group(1)
        elif fence is not None and line.startswith(fence) and not line[len(fence) :].strip():
            fence = None
        elif fence is None:
            out.append(re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", line))
    return "\n".join(out)


def test_prove_needs_a_server(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "site"
    run = cli("build", "--from", str(SNAPSHOT), "--prove", "--out", str(out))
    assert run.code == 2 and "--from builds from a snapshot file without one" in run.err
    assert not out.exists()
    bare = _written(tmp_path, {key: value for key, value in GOLDEN.items() if key != "proofs"})
    assert cli("build", "--from", str(bare), "--out", str(out), "--no-search", "--locales", "en").code == 0
    run = cli("check", "--from", str(bare), "--prove", "--out", str(out), "--no-search", "--locales", "en")
    assert run.code == 1 and "was built without --prove, so it records none" in run.err
