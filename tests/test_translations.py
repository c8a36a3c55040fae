"""Translations of server text, pinned by the sha256 of the exact text they translate.

Built through the command line from the demo's golden snapshot: a current translation is
shown with the original one click away, a stale one falls back to the original with a
notice (and fails ``--strict``), a broken file is a clear error, and
``mcp-portal translations`` writes a to-do file that is itself a valid translations file
once its ``text`` fields are filled in.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.authoring.translations import _KEYS, load_translations
from generator.snapshot.snapshot import load_snapshot
from tests.conftest import ROOT

SNAPSHOT = ROOT / "tests" / "golden" / "demo.snapshot.json"
TOOL = "search_chat"
RU_TEXT = (
    "Ищет в архиве чатов Teamspace сообщения, где есть любое из слов `query`.\n\n"
    "Поиск сужают параметры `chat`, `author` и `since_days`."
)
RU_MARKER = "Ищет в архиве чатов Teamspace"


def _tools() -> list[dict[str, Any]]:
    tools = json.loads(SNAPSHOT.read_text(encoding="utf-8"))["tools"]
    assert isinstance(tools, list)
    return tools


def _description(name: str = TOOL) -> str:
    (tool,) = [t for t in _tools() if t["name"] == name]
    text = tool["description"]
    assert isinstance(text, str)
    return text


def _sha256(text: str) -> str:
    # Computed here, not with generator.authoring.translations.source_hash: the test pins the file format.
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _write(directory: Path, locale: str, entries: dict[str, Any]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{locale}.yaml"
    path.write_text(yaml.safe_dump({"tools": entries}, allow_unicode=True), encoding="utf-8")
    return path


def _build(cli, out: Path, translations: Path, *extra: str):  # type: ignore[no-untyped-def]
    return cli(
        "build",
        "--from",
        str(SNAPSHOT),
        "--no-search",
        "--translations",
        str(translations),
        "--out",
        str(out),
        *extra,
    )


def _page(out: Path, locale: str, name: str = TOOL) -> str:
    return (out / locale / "tools" / name / "index.html").read_text(encoding="utf-8")


def _twin(out: Path, locale: str, name: str = TOOL) -> str:
    return (out / locale / "tools" / f"{name}.md").read_text(encoding="utf-8")


# --- a current translation ------------------------------------------------------------------------


@pytest.fixture
def current(tmp_path: Path) -> Path:
    return _write(
        tmp_path / "translations",
        "ru",
        {TOOL: {"description": {"source_sha256": _sha256(_description()), "text": RU_TEXT}}},
    ).parent


def test_current_translation_is_shown_with_the_original_in_details(cli, tmp_path: Path, current: Path) -> None:
    out = tmp_path / "site"
    run = _build(cli, out, current, "--strict")
    assert run.code == 0, run.err
    assert "warning" not in run.err
    page = _page(out, "ru")
    translated = re.search(r'<div class="translated" dir="auto">(.*?)</div>', page, re.S)
    assert translated is not None, "the ru page does not show the translation"
    assert RU_MARKER in translated.group(1)
    assert '<code dir="ltr">query</code>' in translated.group(1), "the translation is rendered as Markdown"
    details = re.search(r"<details><summary>(.*?)</summary>(.*?)</details>", page, re.S)
    assert details is not None, "the original is not kept in a <details>"
    assert details.group(1) == "Исходный текст сервера"
    assert "Search the Teamspace chat archive for messages" in details.group(2)
    assert page.index(RU_MARKER) < page.index(details.group(0))
    assert "Перевод сделан сопровождающими портала" in page  # the "translated" note
    assert 'class="warn"' not in page.split('id="description"', 1)[1].split("<h2", 1)[0]


def test_current_translation_leaves_other_locales_and_tools_alone(cli, tmp_path: Path, current: Path) -> None:
    out = tmp_path / "site"
    assert _build(cli, out, current).code == 0
    plain = tmp_path / "plain"
    assert cli("build", "--from", str(SNAPSHOT), "--no-search", "--out", str(plain)).code == 0
    for locale in ("en", "ar"):
        assert _page(out, locale) == _page(plain, locale), f"{locale} page changed"
        assert _twin(out, locale) == _twin(plain, locale), f"{locale} twin changed"
        assert RU_MARKER not in _page(out, locale)
    assert _page(out, "ru", "file_defect") == _page(plain, "ru", "file_defect")
    assert "<details><summary>Исходный текст сервера" not in _page(plain, "ru")


def test_twin_shows_the_translation_then_the_original(cli, tmp_path: Path, current: Path) -> None:
    out = tmp_path / "site"
    assert _build(cli, out, current).code == 0
    twin = _twin(out, "ru")
    original = _description()
    assert f"```text\n{RU_TEXT}\n```" in twin
    assert f"```text\n{original}\n```" in twin
    translation_at = twin.index(f"```text\n{RU_TEXT}")
    original_at = twin.index(f"```text\n{original}")
    assert translation_at < twin.index("Исходный текст сервера:") < original_at
    # The front matter keeps the server's own summary (verbatim), as on untranslated pages.
    assert twin.startswith('---\ntitle: "search_chat"\ndescription: "Search the Teamspace chat archive')
    # llms-full.txt carries the same twin.
    assert RU_TEXT in (out / "ru" / "llms-full.txt").read_text(encoding="utf-8")


def test_a_translated_title_replaces_the_subtitle(cli, tmp_path: Path) -> None:
    (tool,) = [t for t in _tools() if t["name"] == TOOL]
    directory = _write(
        tmp_path / "tr", "ru", {TOOL: {"title": {"source_sha256": _sha256(tool["title"]), "text": "Поиск по чатам"}}}
    ).parent
    out = tmp_path / "site"
    assert _build(cli, out, directory, "--strict").code == 0
    assert '<p class="subtitle" dir="auto">Поиск по чатам</p>' in _page(out, "ru")
    assert f'<p class="subtitle" dir="auto">{tool["title"]}</p>' in _page(out, "en")


# --- a stale translation --------------------------------------------------------------------------


@pytest.fixture
def stale(tmp_path: Path) -> Path:
    wrong = _sha256(_description() + " (an older text)")
    return _write(tmp_path / "stale", "ru", {TOOL: {"description": {"source_sha256": wrong, "text": RU_TEXT}}}).parent


def test_stale_translation_shows_the_original_with_a_notice(cli, tmp_path: Path, stale: Path) -> None:
    out = tmp_path / "site"
    run = _build(cli, out, stale)
    assert run.code == 0
    assert "warning: stale translation (the server's text changed): ru: tools.search_chat.description" in run.err
    page = _page(out, "ru")
    assert RU_MARKER not in page
    assert '<p class="warn">Перевод есть, но текст на сервере с тех пор изменился' in page
    assert '<div class="verbatim" dir="auto" lang="en"><p>Search the Teamspace chat archive' in page
    assert "<details><summary>Исходный текст сервера" not in page
    twin = _twin(out, "ru")
    assert RU_MARKER not in twin
    assert "_Перевод есть, но текст на сервере с тех пор изменился" in twin
    assert f"```text\n{_description()}\n```" in twin
    assert "warn" not in _page(out, "en").split('id="description"', 1)[1].split("<h2", 1)[0]


def test_strict_build_fails_on_a_stale_translation_and_names_it(cli, tmp_path: Path, stale: Path) -> None:
    out = tmp_path / "site"
    run = _build(cli, out, stale, "--strict")
    assert run.code == 1
    assert "--strict" in run.err
    assert "ru: tools.search_chat.description" in run.err
    assert "Traceback" not in run.err
    assert not out.exists(), "a failed build wrote a site"


def test_a_translation_of_a_removed_tool_is_stale(cli, tmp_path: Path) -> None:
    directory = _write(tmp_path / "tr", "ru", {"no_such_tool": {"title": {"source_sha256": "0" * 64, "text": "x"}}})
    run = _build(cli, tmp_path / "site", directory.parent, "--strict")
    assert run.code == 1
    assert "ru: tools.no_such_tool.title" in run.err


# --- invalid files ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "what"),
    [
        ("tools: [\n", "cannot be read as YAML"),
        ("- a list\n", "the top level may hold only `tools`, `prompts`, `resources`, `resource_templates`"),
        ("tools: {}\nextra: 1\n", "the top level may hold only `tools`, `prompts`"),
        ("prompts: [a]\n", "`prompts` must be a mapping of names to fields"),
        (
            "resources:\n  'teamspace://handbook': text\n",
            "`resources.teamspace://handbook` must be a mapping of fields",
        ),
        ("tools:\n  search_chat: text\n", "`tools.search_chat` must be a mapping of fields"),
        ("tools:\n  search_chat:\n    summary: {source_sha256: ab, text: x}\n", "is not a translatable field"),
        ("tools:\n  search_chat:\n    description: {text: x}\n", "needs `source_sha256` and `text`"),
        ("tools:\n  search_chat:\n    description: {source_sha256: ab, text: x, note: y}\n", "needs `source_sha256`"),
        ("tools:\n  search_chat:\n    description: {source_sha256: ab, text: [x]}\n", "has a non-string value"),
    ],
)
def test_an_invalid_translations_file_is_a_clear_error(cli, tmp_path: Path, content: str, what: str) -> None:
    directory = tmp_path / "tr"
    directory.mkdir()
    (directory / "ru.yaml").write_text(content, encoding="utf-8")
    out = tmp_path / "site"
    run = _build(cli, out, directory)
    assert run.code == 1
    assert run.err.startswith(f"mcp-portal: error: The translation file {directory / 'ru.yaml'} is invalid: ")
    assert what in run.err
    assert "mcp-portal translations --locale" in run.err, "the message says how to get a valid template"
    assert "Traceback" not in run.err
    assert not out.exists()


def test_a_missing_translations_directory_is_a_clear_error(cli, tmp_path: Path) -> None:
    run = _build(cli, tmp_path / "site", tmp_path / "nowhere")
    assert run.code == 1
    assert "The translations directory" in run.err and "does not exist" in run.err


def test_a_file_of_a_locale_not_built_is_ignored(cli, tmp_path: Path) -> None:
    directory = tmp_path / "tr"
    directory.mkdir()
    (directory / "de.yaml").write_text("not: [valid", encoding="utf-8")
    assert _build(cli, tmp_path / "site", directory, "--strict").code == 0


# --- the translators' to-do file ----------------------------------------------------------------


def _todo(cli, directory: Path):  # type: ignore[no-untyped-def]
    return cli("translations", "--locale", "ru", "--from", str(SNAPSHOT), "--translations", str(directory))


def _translatable() -> dict[tuple[str, str, str], str]:
    """(section, key, field) -> source text, read straight from the snapshot JSON."""
    data = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    keys = {"tools": "name", "prompts": "name", "resources": "uri", "resource_templates": "uriTemplate"}
    return {
        (section, item[key], field): item[field]
        for section, key in keys.items()
        for item in data.get(section, [])
        for field in ("title", "description")
        if isinstance(item.get(field), str) and item[field].strip()
    }


def _listed(data: dict[str, Any]) -> dict[tuple[str, str, str], Any]:
    return {
        (section, name, field): entry
        for section, items in data.items()
        for name, fields in items.items()
        for field, entry in fields.items()
    }


def test_todo_lists_missing_and_stale_entries_with_source_and_hash(cli, stale: Path) -> None:
    run = _todo(cli, stale)
    assert run.code == 0, run.err
    path = stale / "ru.todo.yaml"
    expected = _translatable()
    assert f"Wrote {path}: {len(expected)} missing or stale entries for locale ru." in run.out
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    listed = _listed(data)
    assert set(listed) == set(expected)
    assert {section for section, _, _ in listed} == {"tools", "prompts", "resources", "resource_templates"}
    for key, source in expected.items():
        entry = listed[key]
        assert entry["source"] == source, key
        assert entry["source_sha256"] == _sha256(source), key
        assert set(entry) <= _KEYS
    assert listed[("tools", TOOL, "description")]["status"] == "stale"
    # The old translation is kept aside to start from, never as `text`: merged as is, a stale
    # translation would otherwise pass as current.
    assert listed[("tools", TOOL, "description")]["text"] == ""
    assert listed[("tools", TOOL, "description")]["previous_text"] == RU_TEXT
    assert listed[("tools", TOOL, "title")] == {
        "source": expected[("tools", TOOL, "title")],
        "source_sha256": _sha256(expected[("tools", TOOL, "title")]),
        "text": "",
        "status": "missing",
    }


def test_todo_leaves_out_current_entries(cli, current: Path) -> None:
    assert _todo(cli, current).code == 0
    data = yaml.safe_load((current / "ru.todo.yaml").read_text(encoding="utf-8"))
    assert "description" not in data["tools"][TOOL]
    assert "title" in data["tools"][TOOL]
    assert len(_translatable()) - 1 == len(_listed(data))


def test_filled_in_todo_is_accepted_as_a_translations_file_as_is(cli, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    assert _todo(cli, work).code == 0
    raw = (work / "ru.todo.yaml").read_text(encoding="utf-8")
    counter = iter(range(1000))
    # Only the empty `text: ''` values change; comments, `source` and `status` stay as written.
    filled, n = re.subn(r"^(\s+)text: ''$", lambda m: f"{m.group(1)}text: Перевод {next(counter)}", raw, flags=re.M)
    assert n == len(_translatable())
    directory = tmp_path / "translations"
    directory.mkdir()
    (directory / "ru.yaml").write_text(filled, encoding="utf-8")
    loaded = load_translations(directory, ["ru"])
    assert len(loaded.entries["ru"]) == n
    assert loaded.stale(load_snapshot(SNAPSHOT)) == []
    out = tmp_path / "site"
    run = _build(cli, out, directory, "--strict")
    assert run.code == 0, run.err
    for tool in _tools():
        page = _page(out, "ru", tool["name"])
        assert re.search(r'<div class="translated" dir="auto"><p>Перевод \d+</p>', page), tool["name"]
    for page in ("prompts/triage_defect", "resources/handbook", "resource-templates/document"):
        html = (out / "ru" / page / "index.html").read_text(encoding="utf-8")
        assert re.search(r'<p class="subtitle" dir="auto">Перевод \d+</p>', html), page
        assert re.search(r'<div class="translated" dir="auto"><p>Перевод \d+</p>', html), page
    # Nothing is left to do afterwards.
    assert _todo(cli, directory).code == 0
    assert yaml.safe_load((directory / "ru.todo.yaml").read_text(encoding="utf-8")) == {"tools": {}}


def test_prompts_and_resources_are_translated_and_go_stale_like_tools(cli, tmp_path: Path) -> None:
    sources = _translatable()
    prompt = sources[("prompts", "triage_defect", "description")]
    handbook = sources[("resources", "teamspace://handbook", "title")]
    directory = tmp_path / "tr"
    directory.mkdir()
    body = {
        "prompts": {"triage_defect": {"description": {"source_sha256": _sha256(prompt), "text": "Разбор дефекта."}}},
        "resources": {"teamspace://handbook": {"title": {"source_sha256": _sha256(handbook), "text": "Справочник"}}},
        "resource_templates": {
            "teamspace://documents/{document_id}": {"description": {"source_sha256": "0" * 64, "text": "Старое"}}
        },
    }
    (directory / "ru.yaml").write_text(yaml.safe_dump(body, allow_unicode=True), encoding="utf-8")
    out = tmp_path / "site"
    run = _build(cli, out, directory)
    assert run.code == 0, run.err
    assert (
        "stale translation (the server's text changed): ru: resource_templates.teamspace://documents/{document_id}.description"
        in run.err
    )
    prompt_page = (out / "ru" / "prompts" / "triage_defect" / "index.html").read_text(encoding="utf-8")
    assert '<div class="translated" dir="auto"><p>Разбор дефекта.</p>' in prompt_page
    assert "<details><summary>Исходный текст сервера" in prompt_page
    twin = (out / "ru" / "prompts" / "triage_defect.md").read_text(encoding="utf-8")
    assert "```text\nРазбор дефекта.\n```" in twin and f"```text\n{prompt}\n```" in twin
    handbook_page = (out / "ru" / "resources" / "handbook" / "index.html").read_text(encoding="utf-8")
    assert '<p class="subtitle" dir="auto">Справочник</p>' in handbook_page
    assert "Справочник" in (out / "ru" / "resources" / "handbook.md").read_text(encoding="utf-8")
    template_page = (out / "ru" / "resource-templates" / "document" / "index.html").read_text(encoding="utf-8")
    assert "Старое" not in template_page and '<p class="warn">Перевод есть' in template_page
    english = (out / "en" / "prompts" / "triage_defect" / "index.html").read_text(encoding="utf-8")
    assert "Разбор дефекта" not in english


@pytest.mark.parametrize(
    ("locale", "message"),
    [
        ("de", "There is no locale 'de': no locales/de.yaml was found. Available locales: ar, en, ru."),
        ("ru-RU", "Did you mean ru?"),
        ("../../x", "'../../x' is not a locale code"),
        ("", "'' is not a locale code"),
    ],
)
def test_a_locale_without_a_catalog_is_refused_before_anything_is_written(
    cli, tmp_path: Path, locale: str, message: str
) -> None:
    """A todo list for a locale no build can make (no catalog, not even a theme's) would be work for nothing, and
    the locale names the file it is written to: it is refused as ``build --locales`` refuses it."""
    directory = tmp_path / "translations"
    run = cli("translations", "--locale", locale, "--from", str(SNAPSHOT), "--translations", str(directory))
    assert run.code == 1 and message in run.err, run.err
    assert not directory.exists() and not list(tmp_path.parent.glob("*.todo.yaml"))


def test_a_locale_only_the_theme_has_gets_its_todo_list(cli, tmp_path: Path) -> None:
    theme = tmp_path / "theme"
    (theme / "locales").mkdir(parents=True)
    (theme / "locales" / "de.yaml").write_text("nav:\n  tools: Werkzeuge\n", encoding="utf-8")
    config = tmp_path / "portal.yaml"
    config.write_text(f"templates: {theme}\n", encoding="utf-8")
    directory = tmp_path / "translations"
    run = cli("translations", "--locale", "de", "--config", str(config), "--from", str(SNAPSHOT),
              "--translations", str(directory))  # fmt: skip
    assert run.code == 0, run.err
    assert (directory / "de.todo.yaml").is_file()
