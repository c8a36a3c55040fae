"""``mcp-portal diff``: every kind of change is classified breaking, non-breaking or cosmetic.

Each case is a pair of small snapshots built here in Python (real ``Snapshot``
objects with real fingerprints, written to disk when the CLI reads them); a
few stored pairs live in ``tests/diff_cases/``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from generator.compare.diff import diff_snapshots
from generator.snapshot.snapshot import Snapshot, load_snapshot, new_snapshot
from tests.conftest import TESTS, Run

Cli = Callable[..., Run]
Tool = dict[str, Any]
Triple = tuple[str, str, str]

CASES = TESTS / "diff_cases"
GOLDEN = TESTS / "golden" / "demo.snapshot.json"
B, N, C = "breaking", "non-breaking", "cosmetic"


def snapshot(*tools: Tool) -> Snapshot:
    return new_snapshot(
        protocol_version="2025-06-18",
        server={"name": "diff-test", "version": "1.0.0"},
        tools=tuple(tools),
        capability_version="1.0.0",
        transport="stdio",
        endpoint="test",
    )


def tool(
    props: dict[str, Any] | None = None,
    required: tuple[str, ...] = (),
    *,
    name: str = "t",
    output: dict[str, Any] | None = None,
    annotations: dict[str, Any] | None = None,
    strict: bool = False,
    **extra: Any,
) -> Tool:
    """A tool whose input schema is an object with *props*; *output* (if given) is its output schema."""
    schema: dict[str, Any] = {"type": "object", "properties": props or {}}
    if required:
        schema["required"] = list(required)
    if strict:
        schema["additionalProperties"] = False
    out: Tool = {"name": name, "inputSchema": schema, **extra}
    if output is not None:
        out["outputSchema"] = output
    if annotations is not None:
        out["annotations"] = annotations
    return out


def obj(props: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(required)}


def triples(old: list[Tool], new: list[Tool]) -> set[Triple]:
    return {(c.cls, c.kind, c.path) for c in diff_snapshots(snapshot(*old), snapshot(*new))}


S = {"type": "string"}
NULLABLE = {"anyOf": [{"type": "string"}, {"type": "null"}]}
OUT = obj({"id": S, "note": S}, ("id", "note"))

# (id, old tools, new tools, the exact set of (class, kind, path) expected)
PAIRS: list[tuple[str, list[Tool], list[Tool], set[Triple]]] = [
    # ---- breaking
    ("tool removed", [tool(), tool(name="u")], [tool()], {(B, "tool-removed", "")}),
    ("required param added", [tool()], [tool({"a": S}, ("a",))], {(B, "param-added-required", "params.a")}),
    ("param removed", [tool({"a": S})], [tool()], {(B, "param-removed", "params.a")}),
    (
        "param renamed = removed + added",
        [tool({"a": S}, ("a",))],
        [tool({"b": S}, ("b",))],
        {(B, "param-removed", "params.a"), (B, "param-added-required", "params.b")},
    ),
    ("nullable narrowed", [tool({"a": NULLABLE})], [tool({"a": S})], {(B, "type-narrowed", "params.a")}),
    (
        "number narrowed to integer",
        [tool({"a": {"type": "number"}})],
        [tool({"a": {"type": "integer"}})],
        {(B, "type-narrowed", "params.a")},
    ),
    ("type changed", [tool({"a": S})], [tool({"a": {"type": "integer"}})], {(B, "type-changed", "params.a")}),
    (
        "enum value removed",
        [tool({"a": {"type": "string", "enum": ["x", "y"]}})],
        [tool({"a": {"type": "string", "enum": ["x"]}})],
        {(B, "enum-value-removed", "params.a")},
    ),
    (
        "enum added where there was none",
        [tool({"a": S})],
        [tool({"a": {"type": "string", "enum": ["x"]}})],
        {(B, "constraint-tightened", "params.a")},
    ),
    (
        "minimum raised",
        [tool({"a": {"type": "integer", "minimum": 1}})],
        [tool({"a": {"type": "integer", "minimum": 5}})],
        {(B, "constraint-tightened", "params.a")},
    ),
    (
        "maximum lowered",
        [tool({"a": {"type": "integer", "maximum": 100}})],
        [tool({"a": {"type": "integer", "maximum": 50}})],
        {(B, "constraint-tightened", "params.a")},
    ),
    (
        "maximum added",
        [tool({"a": {"type": "integer"}})],
        [tool({"a": {"type": "integer", "maximum": 50}})],
        {(B, "constraint-tightened", "params.a")},
    ),
    (
        "maxLength lowered",
        [tool({"a": {"type": "string", "maxLength": 200}})],
        [tool({"a": {"type": "string", "maxLength": 20}})],
        {(B, "constraint-tightened", "params.a")},
    ),
    (
        "minLength raised",
        [tool({"a": {"type": "string", "minLength": 1}})],
        [tool({"a": {"type": "string", "minLength": 3}})],
        {(B, "constraint-tightened", "params.a")},
    ),
    (
        "minItems raised",
        [tool({"a": {"type": "array", "items": S, "minItems": 0}})],
        [tool({"a": {"type": "array", "items": S, "minItems": 1}})],
        {(B, "constraint-tightened", "params.a")},
    ),
    (
        "maxItems lowered",
        [tool({"a": {"type": "array", "items": S, "maxItems": 10}})],
        [tool({"a": {"type": "array", "items": S, "maxItems": 5}})],
        {(B, "constraint-tightened", "params.a")},
    ),
    (
        "pattern added",
        [tool({"a": S})],
        [tool({"a": {"type": "string", "pattern": "^[a-z]+$"}})],
        {(B, "constraint-tightened", "params.a")},
    ),
    (
        "pattern changed",
        [tool({"a": {"type": "string", "pattern": "^[a-z]+$"}})],
        [tool({"a": {"type": "string", "pattern": "^[0-9]+$"}})],
        {(B, "constraint-changed", "params.a")},
    ),
    (
        "additionalProperties newly false",
        [tool({"a": S})],
        [tool({"a": S}, strict=True)],
        {(B, "constraint-tightened", "params")},
    ),
    ("param becomes required", [tool({"a": S})], [tool({"a": S}, ("a",))], {(B, "param-required", "params.a")}),
    (
        "nested param removed",
        [tool({"filter": obj({"since": S, "until": S})})],
        [tool({"filter": obj({"until": S})})],
        {(B, "param-removed", "params.filter.since")},
    ),
    (
        "nested required param added in array items",
        [tool({"tags": {"type": "array", "items": obj({"name": S}, ("name",))}})],
        [tool({"tags": {"type": "array", "items": obj({"name": S, "kind": S}, ("name", "kind"))}})],
        {(B, "param-added-required", "params.tags[].kind")},
    ),
    (
        "array item type narrowed",
        [tool({"a": {"type": "array", "items": {"type": "number"}}})],
        [tool({"a": {"type": "array", "items": {"type": "integer"}}})],
        {(B, "type-narrowed", "params.a[]")},
    ),
    (
        "union alternative removed",
        [tool({"a": {"oneOf": [obj({"x": S}), obj({"y": S}), {"type": "integer"}]}})],
        [tool({"a": {"oneOf": [obj({"x": S}), obj({"y": S})]}})],
        {(B, "alternative-removed", "params.a"), (B, "type-narrowed", "params.a")},
    ),
    (
        "output field removed",
        [tool(output=OUT)],
        [tool(output=obj({"id": S}, ("id",)))],
        {(B, "output-field-removed", "returns.note")},
    ),
    (
        "output field made optional",
        [tool(output=OUT)],
        [tool(output=obj({"id": S, "note": S}, ("id",)))],
        {(B, "output-field-optional", "returns.note")},
    ),
    (
        "output field widened to nullable",
        [tool(output=obj({"id": S}, ("id",)))],
        [tool(output=obj({"id": NULLABLE}, ("id",)))],
        {(B, "type-widened", "returns.id")},
    ),
    (
        "output enum value added",
        [tool(output=obj({"s": {"type": "string", "enum": ["a"]}}, ("s",)))],
        [tool(output=obj({"s": {"type": "string", "enum": ["a", "b"]}}, ("s",)))],
        {(B, "enum-value-added", "returns.s")},
    ),
    ("output schema removed", [tool(output=OUT)], [tool()], {(B, "output-schema-removed", "returns")}),
    (
        "no longer read-only (false)",
        [tool(annotations={"readOnlyHint": True})],
        [tool(annotations={"readOnlyHint": False, "destructiveHint": False})],
        {(B, "annotation-less-safe", "annotations.readOnlyHint")},
    ),
    (
        "no longer read-only (absent)",
        [tool(annotations={"readOnlyHint": True, "destructiveHint": False})],
        [tool(annotations={"destructiveHint": False})],
        {(B, "annotation-less-safe", "annotations.readOnlyHint")},
    ),
    (
        "becomes destructive",
        [tool(annotations={"readOnlyHint": False, "destructiveHint": False})],
        [tool(annotations={"readOnlyHint": False, "destructiveHint": True})],
        {(B, "annotation-less-safe", "annotations.destructiveHint")},
    ),
    (
        "non-destructive no longer declared",
        [tool(annotations={"destructiveHint": False})],
        [tool(annotations={})],
        {(B, "annotation-less-safe", "annotations.destructiveHint")},
    ),
    # ---- non-breaking
    ("tool added", [tool()], [tool(), tool(name="u")], {(N, "tool-added", "")}),
    ("optional param added", [tool()], [tool({"a": S})], {(N, "param-added-optional", "params.a")}),
    ("param becomes optional", [tool({"a": S}, ("a",))], [tool({"a": S})], {(N, "param-optional", "params.a")}),
    ("nullable widened", [tool({"a": S})], [tool({"a": NULLABLE})], {(N, "type-widened", "params.a")}),
    (
        "integer widened to number",
        [tool({"a": {"type": "integer"}})],
        [tool({"a": {"type": "number"}})],
        {(N, "type-widened", "params.a")},
    ),
    (
        "enum value added",
        [tool({"a": {"type": "string", "enum": ["x"]}})],
        [tool({"a": {"type": "string", "enum": ["x", "y"]}})],
        {(N, "enum-value-added", "params.a")},
    ),
    (
        "minimum lowered and maximum raised",
        [tool({"a": {"type": "integer", "minimum": 5, "maximum": 10}})],
        [tool({"a": {"type": "integer", "minimum": 1, "maximum": 20}})],
        {(N, "constraint-loosened", "params.a")},
    ),
    (
        "maxLength raised, pattern removed",
        [tool({"a": {"type": "string", "maxLength": 5, "pattern": "^x"}})],
        [tool({"a": {"type": "string", "maxLength": 50}})],
        {(N, "constraint-loosened", "params.a")},
    ),
    (
        "additionalProperties false dropped",
        [tool({"a": S}, strict=True)],
        [tool({"a": S})],
        {(N, "constraint-loosened", "params")},
    ),
    (
        "default changed",
        [tool({"a": {"type": "integer", "default": 10}})],
        [tool({"a": {"type": "integer", "default": 20}})],
        {(N, "default-changed", "params.a")},
    ),
    (
        "union alternative added",
        [tool({"a": {"oneOf": [obj({"x": S}), obj({"y": S})]}})],
        [tool({"a": {"oneOf": [obj({"x": S}), obj({"y": S}), {"type": "integer"}]}})],
        {(N, "alternative-added", "params.a"), (N, "type-widened", "params.a")},
    ),
    (
        "output field added",
        [tool(output=OUT)],
        [tool(output=obj({"id": S, "note": S, "n": S}, ("id", "note")))],
        {(N, "output-field-added", "returns.n")},
    ),
    (
        "output constraint tightened",
        [tool(output=obj({"n": {"type": "integer"}}, ("n",)))],
        [tool(output=obj({"n": {"type": "integer", "minimum": 0}}, ("n",)))],
        {(N, "constraint-tightened", "returns.n")},
    ),
    ("output schema added", [tool()], [tool(output=OUT)], {(N, "output-schema-added", "returns")}),
    (
        "becomes read-only",
        [tool(annotations={"readOnlyHint": False, "destructiveHint": False})],
        [tool(annotations={"readOnlyHint": True, "destructiveHint": False})],
        {(N, "annotation-safer", "annotations.readOnlyHint")},
    ),
    (
        "idempotence declared",
        [tool(annotations={"readOnlyHint": True})],
        [tool(annotations={"readOnlyHint": True, "idempotentHint": True})],
        {(N, "annotation-changed", "annotations.idempotentHint")},
    ),
    # ---- cosmetic
    ("tool description", [tool(description="old")], [tool(description="new")], {(C, "description-changed", "")}),
    ("tool title", [tool(title="Old")], [tool(title="New")], {(C, "title-changed", "")}),
    (
        "annotation title",
        [tool(annotations={"title": "Old"})],
        [tool(annotations={"title": "New"})],
        {(C, "title-changed", "annotations.title")},
    ),
    (
        "param description and title",
        [tool({"a": {"type": "string", "description": "old", "title": "A"}})],
        [tool({"a": {"type": "string", "description": "new", "title": "Aa"}})],
        {(C, "description-changed", "params.a"), (C, "title-changed", "params.a")},
    ),
    (
        "output field description",
        [tool(output=obj({"id": {"type": "string", "description": "old"}}, ("id",)))],
        [tool(output=obj({"id": {"type": "string", "description": "new"}}, ("id",)))],
        {(C, "description-changed", "returns.id")},
    ),
    (
        "examples",
        [tool({"a": {"type": "string", "examples": ["x"]}})],
        [tool({"a": {"type": "string", "examples": ["y"]}})],
        {(C, "examples-changed", "params.a")},
    ),
    ("nothing changed", [tool({"a": S}, output=OUT)], [tool({"a": S}, output=OUT)], set()),
]


@pytest.mark.parametrize(("old", "new", "expected"), [p[1:] for p in PAIRS], ids=[p[0] for p in PAIRS])
def test_each_change_is_classified(old: list[Tool], new: list[Tool], expected: set[Triple]) -> None:
    assert triples(old, new) == expected


def test_every_class_and_kind_is_covered_by_a_case() -> None:
    kinds = {(cls, kind) for _, _, _, expected in PAIRS for cls, kind, _ in expected}
    assert {cls for cls, _ in kinds} == {B, N, C}
    wanted = {
        (B, "tool-removed"), (B, "param-added-required"), (B, "param-removed"), (B, "type-narrowed"),
        (B, "enum-value-removed"), (B, "constraint-tightened"), (B, "constraint-changed"), (B, "param-required"),
        (B, "output-field-removed"), (B, "output-field-optional"), (B, "annotation-less-safe"),
        (N, "tool-added"), (N, "param-added-optional"), (N, "constraint-loosened"), (N, "type-widened"),
        (N, "enum-value-added"), (N, "output-field-added"), (C, "description-changed"), (C, "title-changed"),
    }  # fmt: skip
    assert wanted <= kinds


def test_messages_name_the_parameter_and_values() -> None:
    old = snapshot(tool({"limit": {"type": "integer", "maximum": 100}}))
    new = snapshot(tool({"limit": {"type": "integer", "maximum": 50}}))
    (change,) = diff_snapshots(old, new)
    assert "`limit`" in change.message and "100" in change.message and "50" in change.message
    assert (change.old, change.new) == (100, 50)


def test_removed_object_is_reported_once_not_per_nested_field() -> None:
    old = [tool({"filter": obj({"since": S, "until": obj({"day": S})})})]
    assert triples(old, [tool()]) == {(B, "param-removed", "params.filter")}


def test_demo_snapshot_against_itself_has_no_changes() -> None:
    demo = load_snapshot(GOLDEN)
    assert diff_snapshots(demo, demo) == []


def test_breaking_changes_are_listed_first() -> None:
    old = [tool(description="a"), tool(name="gone")]
    new = [tool(description="b"), tool(name="new")]
    classes = [c.cls for c in diff_snapshots(snapshot(*old), snapshot(*new))]
    assert classes == [B, N, C]


# --------------------------------------------------------------------------- the command line


def write(path: Path, snap: Snapshot) -> Path:
    path.write_text(snap.to_json(), encoding="utf-8")
    return path


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    """One breaking, one non-breaking and one cosmetic change."""
    old = snapshot(tool({"a": S}, ("a",), description="old"), tool(name="gone"))
    new = snapshot(tool({"a": S, "b": S}, ("a",), description="new"))
    return write(tmp_path / "old.json", old), write(tmp_path / "new.json", new)


def test_exit_codes_follow_fail_on(cli: Cli, pair: tuple[Path, Path], tmp_path: Path) -> None:
    old, new = map(str, pair)
    assert cli("diff", old, new).code == 0
    assert cli("diff", old, new, "--fail-on", "breaking").code == 4
    assert cli("diff", old, new, "--fail-on", "any").code == 4
    same = str(write(tmp_path / "same.json", snapshot(tool({"a": S}, ("a",), description="old"))))
    cosmetic = str(write(tmp_path / "cosmetic.json", snapshot(tool({"a": S}, ("a",), description="new"))))
    assert cli("diff", same, cosmetic, "--fail-on", "breaking").code == 0
    assert cli("diff", same, cosmetic, "--fail-on", "any").code == 4
    assert cli("diff", same, same, "--fail-on", "any").code == 0


def test_text_report_groups_by_class_and_tool(cli: Cli, pair: tuple[Path, Path]) -> None:
    run = cli("diff", *map(str, pair))
    assert run.code == 0, run.err
    out = run.out
    assert "1 breaking, 1 non-breaking, 1 cosmetic" in out
    assert out.index("Breaking (1)") < out.index("Non-breaking (1)") < out.index("Cosmetic (1)")
    assert "tool `gone` was removed" in out and "optional parameter `b` was added" in out


def test_json_report_lists_every_change_with_counts(cli: Cli, pair: tuple[Path, Path]) -> None:
    run = cli("diff", *map(str, pair), "--format", "json")
    body = json.loads(run.out)
    assert body["counts"] == {B: 1, N: 1, C: 1}
    assert {c["kind"] for c in body["changes"]} == {"tool-removed", "param-added-optional", "description-changed"}
    for change in body["changes"]:
        assert set(change) == {"subject", "name", "tool", "class", "kind", "path", "old", "new", "message", "endpoint"}
        assert change["subject"] == "tool" and change["tool"] == change["name"]


def test_markdown_report_has_a_table_per_class(cli: Cli, pair: tuple[Path, Path]) -> None:
    out = cli("diff", *map(str, pair), "--format", "markdown").out
    for heading in ("## Breaking (1)", "## Non-breaking (1)", "## Cosmetic (1)"):
        assert heading in out
    assert out.count("| tool | change | where | old | new | details |") == 3
    assert "| `gone` | tool-removed |" in out


def test_markdown_escapes_pipes_and_newlines(tmp_path: Path, cli: Cli) -> None:
    old = write(tmp_path / "a.json", snapshot(tool(description="a | b")))
    new = write(tmp_path / "b.json", snapshot(tool(description="line\nbreak |")))
    out = cli("diff", str(old), str(new), "--format", "markdown").out
    row = next(line for line in out.splitlines() if "description-changed" in line)
    assert row.count(" | ") == 5 and "`line break \\|`" in row


def test_no_changes_says_so(cli: Cli) -> None:
    for fmt in ("text", "markdown"):
        assert "No changes" in cli("diff", str(GOLDEN), str(GOLDEN), "--format", fmt).out


def test_a_built_site_directory_is_one_side(cli: Cli, tmp_path: Path) -> None:
    site = tmp_path / "site"
    assert cli("build", "--from", str(GOLDEN), "--out", str(site), "--locales", "en").code == 0
    data = json.loads(GOLDEN.read_text(encoding="utf-8"))
    tools = [t for t in data["tools"] if t["name"] != "delete_document"]
    smaller = new_snapshot(
        protocol_version=data["protocol_version"],
        server=data["server"],
        tools=tuple(tools),
        capability_version="2.5.0",
        transport=data["transport"],
        endpoint=data["endpoint"],
        prompts=tuple(data["prompts"]),
        resources=tuple(data["resources"]),
        resource_templates=tuple(data["resource_templates"]),
    )
    new = write(tmp_path / "new.json", smaller)
    run = cli("diff", str(site), str(new), "--format", "json", "--fail-on", "breaking")
    assert run.code == 4, run.err
    changes = json.loads(run.out)["changes"]
    assert [(c["tool"], c["kind"]) for c in changes] == [("delete_document", "tool-removed")]
    assert cli("diff", str(new), str(site)).code == 0


def test_stored_case_pair(cli: Cli) -> None:
    run = cli("diff", str(CASES / "search_v1.json"), str(CASES / "search_v2.json"), "--format", "json")
    assert run.code == 0, run.err
    found = {(c["class"], c["kind"], c["path"]) for c in json.loads(run.out)["changes"]}
    assert found == {
        (B, "param-required", "params.query"),
        (B, "constraint-tightened", "params.limit"),
        (N, "param-added-optional", "params.since_days"),
        (B, "output-field-removed", "returns.total"),
        (C, "description-changed", ""),
    }


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("not json", "not valid JSON"),
        ("[]", "top level must be a JSON object"),
        (None, "does not exist"),
    ],
)
def test_malformed_input_is_a_one_paragraph_error(cli: Cli, tmp_path: Path, content: str | None, fragment: str) -> None:
    bad = tmp_path / "bad.json"
    if content is not None:
        bad.write_text(content, encoding="utf-8")
    run = cli("diff", str(GOLDEN), str(bad))
    assert run.code == 1
    assert fragment in run.err and "Traceback" not in run.err
    assert run.out == ""


def test_tampered_snapshot_and_empty_directory_are_errors(cli: Cli, tmp_path: Path) -> None:
    data = json.loads(GOLDEN.read_text(encoding="utf-8"))
    data["tools"][0]["description"] = "edited"
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(data), encoding="utf-8")
    run = cli("diff", str(tampered), str(GOLDEN))
    assert run.code == 1 and "fingerprint" in run.err
    empty = tmp_path / "empty"
    empty.mkdir()
    run = cli("diff", str(empty), str(GOLDEN))
    assert run.code == 1 and "without a snapshot.json" in run.err


def test_usage_errors_exit_2(cli: Cli) -> None:
    assert cli("diff", str(GOLDEN)).code == 2
    assert cli("diff", str(GOLDEN), str(GOLDEN), "--fail-on", "sometimes").code == 2
