"""Overlay files: their format, every error with file, key path and line, and the checks against the server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from generator.authoring.overlays import (
    MAX_BYTES,
    OVERLAY_SCHEMA,
    AuthorExample,
    Overlay,
    TroubleRow,
    check_overlays,
    load_overlays,
)
from generator.errors import PortalError

FULL = """\
tool: search_chat
notes:
  en: "Results are capped at 50; page with `since_days`."
  ru: "Не больше 50 результатов."
  no: "Høyst 50 treff."
troubleshooting:
  en:
    - symptom: "error: chat not found"
      cause: The chat alias is misspelled.
      action: Use one of the aliases the workspace admin lists.
  ru:
    - {symptom: "ошибка", cause: "опечатка", action: "исправьте"}
examples:
  - title: Find what was said about the release
    arguments: {query: "release 2.4", limit: 5}
    result: {found: 1}
  - arguments: {query: "since", day: 2024-05-01}
related: [my_capabilities, file_defect]
scope: read_all
operation: searchChatMessages
"""

TOOLS: list[dict[str, Any]] = [
    {
        "name": "search_chat",
        "inputSchema": {
            "type": "object",
            "properties": {"query": {"type": "string"}, "limit": {"type": "integer", "maximum": 50}},
            "required": ["query"],
        },
        "outputSchema": {"type": "object", "properties": {"found": {"type": "integer"}}, "required": ["found"]},
    },
    {"name": "my_capabilities", "inputSchema": {"type": "object"}},
]


def _dir(tmp_path: Path, **files: str) -> Path:
    """An overlay directory holding *files* (keyword ``a_yaml`` is written as ``a.yaml``)."""
    directory = tmp_path / "overlays"
    directory.mkdir(exist_ok=True)
    for name, text in files.items():
        (directory / name.replace("_yaml", ".yaml").replace("_yml", ".yml")).write_text(text, encoding="utf-8")
    return directory


def _one(tmp_path: Path, text: str) -> Overlay:
    return load_overlays(_dir(tmp_path, x_yaml=text))["search_chat"]


def _error(tmp_path: Path, text: str | bytes) -> tuple[str, str]:
    """The error message for an overlay file with *text*, and the file's name as it is reported."""
    directory = _dir(tmp_path)
    path = directory / "search_chat.yaml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(PortalError) as caught:
        load_overlays(directory)
    return caught.value.message, str(path)


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    Draft202012Validator.check_schema(OVERLAY_SCHEMA)
    assert OVERLAY_SCHEMA["additionalProperties"] is False


def test_a_full_overlay_is_read_into_frozen_data(tmp_path: Path) -> None:
    overlay = _one(tmp_path, FULL)
    assert overlay.tool == "search_chat" and overlay.source.endswith("x.yaml")
    # `no` is a locale code (Norwegian), not YAML's false.
    assert [code for code, _ in overlay.notes] == ["en", "ru", "no"]
    assert overlay.notes[0] == ("en", "Results are capped at 50; page with `since_days`.")
    en_row = TroubleRow(
        "error: chat not found", "The chat alias is misspelled.", "Use one of the aliases the workspace admin lists."
    )
    assert overlay.troubleshooting == (("en", en_row), ("ru", TroubleRow("ошибка", "опечатка", "исправьте")))
    assert overlay.examples == (
        AuthorExample("Find what was said about the release", {"query": "release 2.4", "limit": 5}, {"found": 1}, True),
        # An untitled example is numbered; a date stays the string the author wrote, as in JSON.
        AuthorExample("Example 2", {"query": "since", "day": "2024-05-01"}),
    )
    assert overlay.related == ("my_capabilities", "file_defect")
    assert overlay.scopes == ("read_all",)
    assert overlay.operation == "searchChatMessages"
    with pytest.raises(AttributeError):
        overlay.tool = "other"  # type: ignore[misc]


def test_the_minimal_overlay_has_empty_parts(tmp_path: Path) -> None:
    assert _one(tmp_path, "tool: search_chat\n") == Overlay("search_chat", str(tmp_path / "overlays" / "x.yaml"))


def test_a_scope_list_becomes_scopes(tmp_path: Path) -> None:
    assert _one(tmp_path, "tool: search_chat\nscope: [read_all, write]\n").scopes == ("read_all", "write")


def test_a_plain_troubleshooting_list_is_for_every_locale(tmp_path: Path) -> None:
    overlay = _one(
        tmp_path,
        "tool: search_chat\ntroubleshooting:\n  - {symptom: s1, cause: c1, action: a1}\n"
        "  - {symptom: s2, cause: c2, action: a2}\n",
    )
    assert overlay.troubleshooting == (("*", TroubleRow("s1", "c1", "a1")), ("*", TroubleRow("s2", "c2", "a2")))
    assert overlay.troubleshooting_for("ar") == (TroubleRow("s1", "c1", "a1"), TroubleRow("s2", "c2", "a2"))


def test_troubleshooting_for_gives_every_locale_rows_plus_the_locales_own_in_file_order() -> None:
    rows = {k: TroubleRow(k, "c", "a") for k in ("all1", "ru", "en", "all2")}
    overlay = Overlay(
        "t",
        "t.yaml",
        troubleshooting=(("*", rows["all1"]), ("ru", rows["ru"]), ("en", rows["en"]), ("*", rows["all2"])),
    )
    assert overlay.troubleshooting_for("en") == (rows["all1"], rows["en"], rows["all2"])
    assert overlay.troubleshooting_for("ru") == (rows["all1"], rows["ru"], rows["all2"])
    assert overlay.troubleshooting_for("ar") == (rows["all1"], rows["all2"])
    assert Overlay("t", "t.yaml").troubleshooting_for("en") == ()


def test_note_for_falls_back_to_the_fallback_locale_then_the_first_note() -> None:
    overlay = Overlay("t", "t.yaml", notes=(("ru", "Заметка"), ("en", "A note")))
    assert overlay.note_for("ru") == ("ru", "Заметка")
    assert overlay.note_for("ar") == ("en", "A note")
    assert overlay.note_for("ar", fallback="ru") == ("ru", "Заметка")
    assert Overlay("t", "t.yaml", notes=(("fr", "Une note"), ("de", "Notiz"))).note_for("ar") == ("fr", "Une note")
    assert Overlay("t", "t.yaml").note_for("en") is None


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        pytest.param(
            "tool: search_chat\ncolour: red\n",
            2,
            "`colour` is not a known key (known keys: examples, notes, operation, related, scope, tool, "
            "troubleshooting)",
            id="unknown top-level key",
        ),
        pytest.param(
            "tool: search_chat\nexamples:\n  - titel: t\n    arguments: {}\n",
            3,
            "`examples[0].titel` is not a known key; did you mean `title`? (known keys: arguments, result, title)",
            id="unknown key in an example",
        ),
        pytest.param(
            "tool: search_chat\ntroubleshooting:\n  en:\n    - symptom: s\n      cause: c\n      action: a\n"
            "      fix: f\n",
            7,
            "`troubleshooting.en[0].fix` is not a known key (known keys: action, cause, symptom)",
            id="unknown key in a row",
        ),
        pytest.param("tool: 42\n", 1, "`tool` must be a string, but it is a number", id="wrong type of tool"),
        pytest.param(
            "tool: search_chat\nrelated: file_defect\n",
            2,
            "`related` must be a list, but it is a string",
            id="wrong type of related",
        ),
        pytest.param(
            "tool: search_chat\nexamples:\n  - arguments: [1, 2]\n",
            3,
            "`examples[0].arguments` must be a mapping, but it is a list",
            id="wrong type of arguments",
        ),
        pytest.param(
            "tool: search_chat\nscope: [read, 7]\n",
            2,
            "`scope[1]` must be a string, but it is a number",
            id="scope item",
        ),
        pytest.param(
            "# about search\n\nnotes: {en: hi}\n", 3, "the file lacks the required key `tool`", id="missing tool"
        ),
        pytest.param(
            "tool: search_chat\nexamples:\n  - title: no arguments\n",
            3,
            "`examples[0]` lacks the required key `arguments`",
            id="example without arguments",
        ),
        pytest.param(
            "tool: search_chat\ntroubleshooting:\n  en:\n    - symptom: s\n",
            4,
            "`troubleshooting.en[0]` lacks the required keys `cause`, `action`",
            id="row without cause and action",
        ),
        pytest.param(
            "tool: search_chat\nnotes:\n  en: fine\n  FR_fr: mal\n",
            4,
            "`notes.FR_fr` is not a locale code such as `en`, `ru` or `pt-BR` (did you mean `fr-fr`?)",
            id="bad locale code in notes",
        ),
        pytest.param(
            "tool: search_chat\ntroubleshooting:\n  English: []\n",
            3,
            "`troubleshooting.English` is not a locale code such as `en`, `ru` or `pt-BR`",
            id="bad locale code in troubleshooting",
        ),
        pytest.param("tool: search_chat\nnotes: {en: '   '}\n", 2, "`notes.en` must not be blank", id="blank note"),
        pytest.param(
            "tool: search_chat\nrelated: [a, b, a]\n", 2, "`related` lists 'a' more than once", id="duplicate related"
        ),
        pytest.param(
            "- search_chat\n",
            1,
            "the top level must be a mapping that starts with `tool: NAME`, but it is a list",
            id="top level is a list",
        ),
        pytest.param(
            "", 1, "the top level must be a mapping that starts with `tool: NAME`, but it is empty", id="empty file"
        ),
        pytest.param("tool: search_chat\ntool: other\n", 2, "`tool` is given twice", id="duplicate key"),
        pytest.param(
            "tool: search_chat\nnotes: {en: !shout hello}\n",
            2,
            "`notes.en` has the tag !shout, which an overlay cannot use",
            id="unknown tag",
        ),
        pytest.param(
            "tool: search_chat\nnotes:\n  en: fine\n   ru: indented wrongly\n",
            4,
            "it is not valid YAML: mapping values are not allowed here",
            id="YAML syntax error",
        ),
        pytest.param(
            "tool: search_chat\nexamples:\n  - arguments: [1\n",
            4,
            "it is not valid YAML: expected ',' or ']', but got '<stream end>' while parsing a flow sequence "
            "that starts on line 3",
            id="unclosed YAML bracket",
        ),
        pytest.param(
            'tool: search_chat\nnotes: {en: "a\x07b"}\n',
            2,
            "it holds a character YAML does not allow (#x0007)",
            id="control character",
        ),
    ],
)
def test_each_problem_names_the_file_the_key_path_and_the_line(
    tmp_path: Path, text: str, line: int, problem: str
) -> None:
    message, source = _error(tmp_path, text)
    assert message == f"The overlay {source} is invalid: {source}:{line}: {problem}. Fix the file and build again."


def test_every_problem_of_a_file_is_reported_at_once_sorted_by_line(tmp_path: Path) -> None:
    message, source = _error(
        tmp_path,
        "tool: search_chat\n"  # 1
        "colour: red\n"  # 2
        "notes:\n"  # 3
        "  FR_fr: Bonjour\n"  # 4
        "troubleshooting:\n"  # 5
        "  en:\n"  # 6
        "    - symptom: s\n"  # 7
        "      cause: c\n"  # 8
        "examples:\n"  # 9
        "  - {title: t, arguments: {}, reslt: {}}\n",  # 10
    )
    assert message == (
        f"The overlay {source} is invalid: "
        f"{source}:2: `colour` is not a known key (known keys: examples, notes, operation, related, scope, tool, "
        f"troubleshooting); "
        f"{source}:4: `notes.FR_fr` is not a locale code such as `en`, `ru` or `pt-BR` (did you mean `fr-fr`?); "
        f"{source}:7: `troubleshooting.en[0]` lacks the required key `action`; "
        f"{source}:10: `examples[0].reslt` is not a known key; did you mean `result`? "
        f"(known keys: arguments, result, title). "
        "Fix the file and build again."
    )


def test_a_value_yaml_cannot_turn_into_json_is_reported_once(tmp_path: Path) -> None:
    message, source = _error(tmp_path, "tool: search_chat\nnotes:\n  en: !!binary aGk=\n")
    assert f"{source}:3: `notes.en` is bytes, which JSON cannot hold." in message
    assert "must be a string" not in message


def test_a_file_that_is_not_utf8_gives_the_line(tmp_path: Path) -> None:
    message, source = _error(tmp_path, b"tool: search_chat\nnotes:\n  en: caf\xe9\n")
    assert f"{source}:3: it is not UTF-8 text (byte 0xe9); save it as UTF-8" in message


def test_a_file_larger_than_1_mib_is_refused(tmp_path: Path) -> None:
    message, source = _error(tmp_path, "tool: search_chat\nnotes:\n  en: " + "a" * MAX_BYTES + "\n")
    assert message == (
        f"The overlay {source} is invalid: it is larger than 1 MiB, the most an overlay may be. "
        "Fix the file and build again."
    )


def test_deeply_nested_yaml_is_refused(tmp_path: Path) -> None:
    message, source = _error(tmp_path, "tool: search_chat\nnotes: " + "[" * 3000 + "]" * 3000 + "\n")
    assert message.startswith(f"The overlay {source} is invalid: ")
    assert "nests too deeply" in message


@pytest.mark.parametrize(
    ("text", "line", "shown"),
    [
        pytest.param(
            "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
            + "".join(f"{n}: &{n} [{', '.join([f'*{p}'] * 10)}]\n" for p, n in zip("abcdefg", "bcdefgh", strict=True)),
            1,
            "anchor &a",
            id="billion laughs",
        ),
        pytest.param("tool: search_chat\nexamples: &loop [*loop]\n", 2, "anchor &loop", id="recursive alias"),
        pytest.param(
            "tool: search_chat\nexamples:\n  - arguments: &base {query: release, limit: 5}\n"
            "  - arguments:\n      <<: *base\n      limit: 10\n",
            3,
            "anchor &base",
            id="merge key",
        ),
    ],
)
def test_yaml_anchors_and_aliases_are_refused_with_their_line(tmp_path: Path, text: str, line: int, shown: str) -> None:
    message, source = _error(tmp_path, text)
    assert (
        f"{source}:{line}: it is not valid YAML: it uses the YAML {shown}, but mcp-portal accepts no anchors" in message
    )


def test_a_merge_key_with_a_mapping_written_out_works_and_own_keys_override_it(tmp_path: Path) -> None:
    overlay = _one(
        tmp_path,
        "tool: search_chat\nexamples:\n  - arguments:\n      <<: {query: release, limit: 5}\n      limit: 10\n",
    )
    assert [ex.arguments for ex in overlay.examples] == [{"query": "release", "limit": 10}]


def test_python_tags_are_not_loaded(tmp_path: Path) -> None:
    message, _ = _error(tmp_path, "tool: !!python/object/apply:os.getcwd []\n")
    assert "`tool` has the tag !!python/object/apply:os.getcwd, which an overlay cannot use" in message


def test_two_overlays_for_one_tool_name_both_files(tmp_path: Path) -> None:
    directory = _dir(tmp_path, a_yaml="tool: search_chat\n", b_yml="tool: search_chat\n")
    with pytest.raises(PortalError) as caught:
        load_overlays(directory)
    assert caught.value.message == (
        f"The overlays {directory / 'a.yaml'} and {directory / 'b.yml'} are both for tool 'search_chat'. "
        "Keep one file per tool: merge them and build again."
    )


def test_yml_files_are_read_and_other_files_ignored(tmp_path: Path) -> None:
    directory = _dir(tmp_path, a_yml="tool: search_chat\n", b_yaml="tool: my_capabilities\n")
    (directory / "notes.txt").write_text("colour: red\n", encoding="utf-8")
    (directory / "old.yaml.bak").write_text("colour: red\n", encoding="utf-8")
    (directory / "sub.yaml").mkdir()
    assert sorted(load_overlays(directory)) == ["my_capabilities", "search_chat"]


def test_no_directory_means_no_overlays_and_a_missing_one_is_an_error(tmp_path: Path) -> None:
    assert load_overlays(None) == {}
    with pytest.raises(PortalError, match="does not exist"):
        load_overlays(tmp_path / "missing")


def test_files_are_read_in_name_order_so_the_first_error_is_always_the_same(tmp_path: Path) -> None:
    directory = _dir(tmp_path, z_yaml="tool: 1\n", a_yaml="colour: red\n", m_yaml="tool: search_chat\n")
    for _ in range(3):
        with pytest.raises(PortalError) as caught:
            load_overlays(directory)
        assert f"The overlay {directory / 'a.yaml'} is invalid" in caught.value.message


def test_loading_is_deterministic(tmp_path: Path) -> None:
    first = load_overlays(_dir(tmp_path, b_yaml=FULL, a_yaml="tool: my_capabilities\nnotes: {ru: x, en: y}\n"))
    again = load_overlays(tmp_path / "overlays")
    assert first == again and list(first) == list(again) == ["my_capabilities", "search_chat"]
    assert first["my_capabilities"].notes == (("ru", "x"), ("en", "y"))


def test_check_warns_about_unknown_tools_and_related_tools(tmp_path: Path) -> None:
    overlays = load_overlays(
        _dir(
            tmp_path,
            a_yaml="tool: search_chat\nrelated: [my_capabilities, file_defect, ghost]\n",
            b_yaml="tool: no_such_tool\nrelated: [also_missing]\n",
        )
    )
    a, b = tmp_path / "overlays" / "a.yaml", tmp_path / "overlays" / "b.yaml"
    assert check_overlays(overlays, TOOLS) == [  # by tool name, then in file order
        f"overlay {b} is for tool 'no_such_tool', which the server does not list",
        f"overlay {a}: related tool 'file_defect' is not listed by the server",
        f"overlay {a}: related tool 'ghost' is not listed by the server",
    ]


def test_check_accepts_valid_examples(tmp_path: Path) -> None:
    overlays = load_overlays(_dir(tmp_path, x_yaml=FULL.replace("day: 2024-05-01", "limit: 50")))
    source = tmp_path / "overlays" / "x.yaml"
    assert check_overlays(overlays, TOOLS) == [
        f"overlay {source}: related tool 'file_defect' is not listed by the server"
    ]


@pytest.mark.parametrize(
    ("example", "problem"),
    [
        (
            "{title: Too many, arguments: {query: x, limit: 500}}",
            "`examples[1]` ('Too many'), its arguments, does not match the tool's input schema: "
            "$.limit: 500 is greater than the maximum of 50",
        ),
        (
            "{title: No query, arguments: {limit: 5}}",
            "`examples[1]` ('No query'), its arguments, does not match the tool's input schema: "
            "$: 'query' is a required property",
        ),
        (
            "{title: Bad result, arguments: {query: x}, result: {found: many}}",
            "`examples[1]` ('Bad result'), its result, does not match the tool's output schema: "
            "$.found: 'many' is not of type 'integer'",
        ),
    ],
)
def test_an_invalid_example_names_the_tool_the_example_and_the_path(tmp_path: Path, example: str, problem: str) -> None:
    fine = "{title: Fine, arguments: {query: x}}"
    overlays = load_overlays(_dir(tmp_path, x_yaml=f"tool: search_chat\nexamples:\n  - {fine}\n  - {example}\n"))
    with pytest.raises(PortalError) as caught:
        check_overlays(overlays, TOOLS)
    source = tmp_path / "overlays" / "x.yaml"
    assert caught.value.message == (
        f"The overlay {source} has an invalid example for tool 'search_chat': {problem}. "
        "A page never shows an example that does not validate; fix the example or the tool's schema."
    )


def test_a_result_for_a_tool_without_an_output_schema_is_an_error(tmp_path: Path) -> None:
    overlays = load_overlays(
        _dir(tmp_path, x_yaml="tool: my_capabilities\nexamples: [{title: T, arguments: {}, result: {a: 1}}]\n")
    )
    with pytest.raises(PortalError) as caught:
        check_overlays(overlays, TOOLS)
    assert "`examples[0]` ('T') has a `result`, but 'my_capabilities' declares no outputSchema" in caught.value.message


def test_every_invalid_example_of_a_file_is_reported_together(tmp_path: Path) -> None:
    overlays = load_overlays(
        _dir(tmp_path, x_yaml="tool: search_chat\nexamples:\n  - arguments: {}\n  - arguments: {query: 1}\n")
    )
    with pytest.raises(PortalError) as caught:
        check_overlays(overlays, TOOLS)
    message = caught.value.message
    assert "has invalid examples for tool 'search_chat'" in message
    assert "`examples[0]` ('Example 1')" in message and "`examples[1]` ('Example 2')" in message
    assert "$.query: 1 is not of type 'string'" in message
