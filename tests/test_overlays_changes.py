"""Author overlays (validated examples, extra troubleshooting rows) and the --previous changelog page."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from generator.snapshot.snapshot import load_snapshot, new_snapshot
from tests.conftest import tree_bytes
from tests.golden_tool import SNAPSHOT

LOCALES = ("en", "ru", "ar")


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


GOOD = """tool: search_chat
examples:
  - title: Release talk in the work chat
    arguments: {query: "release 2.4", chat: "work", limit: 5}
troubleshooting:
  - symptom: "error: unknown chat"
    cause: The chat alias is misspelled.
    action: Use an alias your workspace admin gave you.
"""


def test_overlay_examples_and_rows_appear_in_every_locale(cli: Any, tmp_path: Path) -> None:
    overlays = tmp_path / "overlays"
    _write(overlays / "search.yaml", GOOD)
    out = tmp_path / "site"
    run = cli("build", "--from", str(SNAPSHOT), "--overlays", str(overlays), "--out", str(out), "--no-search")
    assert run.code == 0, run.err
    for locale in LOCALES:
        html = (out / locale / "tools" / "search_chat" / "index.html").read_text(encoding="utf-8")
        assert "Release talk in the work chat" in html and "release 2.4" in html
        assert "The chat alias is misspelled." in html
        twin = (out / locale / "tools" / "search_chat.md").read_text(encoding="utf-8")
        assert '"query": "release 2.4"' in twin and "The chat alias is misspelled." in twin
    other = (out / "en" / "tools" / "file_defect" / "index.html").read_text(encoding="utf-8")
    assert "Release talk" not in other


@pytest.mark.parametrize(
    ("arguments", "path"),
    [('{query: "x", limit: 500}', "limit"), ("{limit: 5}", "query"), ("{query: 5}", "query")],
)
def test_an_invalid_overlay_example_fails_the_build_and_names_it(
    cli: Any, tmp_path: Path, arguments: str, path: str
) -> None:
    out = tmp_path / "site"
    assert cli("build", "--from", str(SNAPSHOT), "--out", str(out), "--no-search").code == 0
    before = tree_bytes(out)
    overlays = tmp_path / "overlays"
    _write(overlays / "bad.yaml", f"tool: search_chat\nexamples:\n  - title: Broken one\n    arguments: {arguments}\n")
    run = cli("build", "--from", str(SNAPSHOT), "--overlays", str(overlays), "--out", str(out), "--no-search")
    assert run.code == 1
    assert "search_chat" in run.err and "Broken one" in run.err and path in run.err
    assert "Traceback" not in run.err
    assert tree_bytes(out) == before


def test_an_overlay_for_an_unknown_tool_warns_and_fails_strict(cli: Any, tmp_path: Path) -> None:
    overlays = tmp_path / "overlays"
    _write(overlays / "ghost.yaml", "tool: no_such_tool\ntroubleshooting: []\n")
    base = ("build", "--from", str(SNAPSHOT), "--overlays", str(overlays), "--no-search", "--out")
    run = cli(*base, str(tmp_path / "a"))
    assert run.code == 0 and "no_such_tool" in run.err
    strict = cli(*base, str(tmp_path / "b"), "--strict")
    assert strict.code == 1 and "no_such_tool" in strict.err


def test_a_malformed_overlay_is_a_clear_error(cli: Any, tmp_path: Path) -> None:
    overlays = tmp_path / "overlays"
    _write(overlays / "x.yaml", "tool: search_chat\nexamples: [{title: t}]\ncolour: red\n")
    run = cli("build", "--from", str(SNAPSHOT), "--overlays", str(overlays), "--out", str(tmp_path / "s"))
    assert run.code == 1 and "colour" in run.err and "x.yaml" in run.err


def _previous(tmp_path: Path) -> Path:
    """An older release: it had an extra tool, lacked search_chat's `author`, and allowed limit up to 50."""
    snap = load_snapshot(SNAPSHOT)
    tools = copy.deepcopy(list(snap.tools))
    search = next(t for t in tools if t["name"] == "search_chat")
    del search["inputSchema"]["properties"]["author"]
    search["inputSchema"]["properties"]["limit"]["maximum"] = 50
    tools.append({"name": "legacy_export", "description": "Export everything.", "inputSchema": {"type": "object"}})
    old = new_snapshot(
        protocol_version=snap.protocol_version,
        server={**snap.server, "version": "2.3.0"},
        tools=tuple(tools),
        capability_version="2.3.0",
        transport=snap.transport,
        endpoint=snap.endpoint,
    )
    return _write(tmp_path / "old.json", old.to_json())


def test_previous_adds_a_localized_changelog_linked_from_index_and_tools(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "site"
    run = cli(
        "build",
        "--from",
        str(SNAPSHOT),
        "--previous",
        str(_previous(tmp_path)),
        "--out",
        str(out),
        "--no-search",
        "--base-url",
        "https://docs.example.com/",
    )
    assert run.code == 0, run.err
    words = {
        "en": ("Tool removed", "Optional parameter added", "Changes since 2.3.0"),
        "ru": ("Инструмент удалён", "Добавлен необязательный параметр", "Изменения с версии 2.3.0"),
        "ar": ("أُزيلت أداة", "أُضيف معامل اختياري", "التغييرات منذ الإصدار 2.3.0"),
    }
    for locale in LOCALES:
        page = (out / locale / "changes" / "index.html").read_text(encoding="utf-8")
        for word in words[locale]:
            assert word in page, (locale, word)
        assert "legacy_export" in page and "search_chat" in page
        assert (out / locale / "changes.md").is_file()
        index = (out / locale / "index.html").read_text(encoding="utf-8")
        assert 'href="changes/index.html"' in index
        tool = (out / locale / "tools" / "search_chat" / "index.html").read_text(encoding="utf-8")
        # Every page's sidebar links the changes once; a changed tool's page also says it changed.
        assert tool.count('href="../../changes/index.html"') == 2
        untouched = (out / locale / "tools" / "file_defect" / "index.html").read_text(encoding="utf-8")
        assert untouched.count("changes/index.html") == 1
        assert f"{locale}/changes.md" in (out / locale / "llms.txt").read_text(encoding="utf-8") or (
            "changes.md" in (out / locale / "llms.txt").read_text(encoding="utf-8")
        )
    assert "https://docs.example.com/ru/changes/" in (out / "sitemap.xml").read_text(encoding="utf-8")
    # The classification is the diff command's: a removed tool is breaking, a new optional parameter is not.
    en = (out / "en" / "changes.md").read_text(encoding="utf-8")
    assert en.index("breaking change") < en.index("legacy_export")


def test_without_previous_there_is_no_changelog(tmp_path: Path, cli: Any) -> None:
    out = tmp_path / "site"
    assert cli("build", "--from", str(SNAPSHOT), "--out", str(out), "--no-search").code == 0
    assert not (out / "en" / "changes").exists()
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert not any("changes" in path for path in manifest["files"])
