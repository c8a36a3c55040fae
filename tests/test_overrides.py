"""Overrides that work: a theme (``--templates DIR``) changes one block, one macro or one string.

Every build here is the demo from the golden snapshot, once as shipped and once with a theme, and
the two are compared byte for byte: a theme changes what it says it changes and nothing else.

- Templates: ``shipped/NAME`` always names the shipped template, so a theme's ``html/tool.html.j2``
  can extend ``shipped/html/tool.html.j2`` and override one block; a theme's macro library
  (``html/_macros.html.j2``) holds only the macros it changes and can wrap the shipped one.
- Catalogs: ``DIR/locales/<code>.yaml`` holds only the keys it changes, layered over the shipped
  catalog of that locale.
- Mistakes (a template extending its own name, a Jinja syntax error, an undefined name, a cycle,
  a mistyped key, a value that is not a string) end in one paragraph naming the file and the line,
  exit 1, no traceback, and no site written.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from generator.commands.build import site_files
from generator.commands.cli import main
from generator.errors import PortalError
from generator.render.i18n import load_catalog
from generator.snapshot.snapshot import load_snapshot
from tests.conftest import TEMPLATES
from tests.golden_tool import SNAPSHOT, demo_config

Files = dict[str, bytes]
# The manifest hashes every other file, so it changes whenever anything does; it is compared through them.
SKIP = {"manifest.json"}


def _build(theme: Path | None) -> tuple[Files, list[str]]:
    config = demo_config()
    if theme is not None:
        config = dataclasses.replace(config, template_dir=str(theme))
    files, warnings = site_files(load_snapshot(SNAPSHOT), config, renderer=TEMPLATES)
    return {path: data for path, data in files.items() if path not in SKIP}, warnings


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def shipped() -> Files:
    files, _ = _build(None)
    return files


def _changed(before: Files, after: Files) -> set[str]:
    assert set(after) == set(before), "a theme must not add or drop files"
    return {path for path in before if before[path] != after[path]}


def _tool_pages(files: Files) -> set[str]:
    return {p for p in files if "/tools/" in p and p.endswith("/index.html")}


# --- templates -----------------------------------------------------------------------------------


def test_a_block_overridden_through_shipped_changes_that_block_only(tmp_path: Path, shipped: Files) -> None:
    theme = _write(
        tmp_path,
        {
            "html/tool.html.j2": '{% extends "shipped/html/tool.html.j2" %}\n'
            "{% block title %}Theme: {{ super() }}{% endblock %}\n"
        },
    )
    files, _ = _build(theme)
    tools = _tool_pages(shipped)
    assert len(tools) >= 18  # 6 tools in en, ru, ar
    assert _changed(shipped, files) == tools
    for path in tools:
        old, new = shipped[path].decode(), files[path].decode()
        assert "<title>Theme: " in new
        # The link-preview title is the title block again, so it follows the override.
        expected = old.replace("<title>", "<title>Theme: ", 1).replace(
            '<meta property="og:title" content="', '<meta property="og:title" content="Theme: ', 1
        )
        assert new == expected, path


def test_one_macro_overridden_wraps_the_shipped_one(tmp_path: Path, shipped: Files) -> None:
    # Only badge() is defined: every other macro of html/_macros.html.j2 still comes from the shipped file.
    theme = _write(
        tmp_path,
        {
            "html/_macros.html.j2": '{% import "shipped/html/_macros.html.j2" as base with context %}\n'
            "{% macro badge(access) -%}\n"
            '<b class="theme">{{ base.badge(access) }}</b>\n'
            "{%- endmacro %}\n"
        },
    )
    files, _ = _build(theme)
    changed = _changed(shipped, files)
    assert _tool_pages(shipped) <= changed
    assert {p for p in changed if not p.endswith(".html")} == set()  # twins, llms.txt, nav.js untouched
    for path in changed:
        old, new = shipped[path].decode(), files[path].decode()
        assert '<b class="theme"><span class="badge' in new
        assert "</b>" not in old
        assert new.replace('<b class="theme">', "").replace("</b>", "") == old, path


def test_a_markdown_macro_library_inherits_what_it_does_not_define(tmp_path: Path, shipped: Files) -> None:
    # An empty macro library changes nothing: every shipped macro is still there.
    theme = _write(tmp_path, {"md/_macros.md.j2": "{# nothing changed #}\n"})
    files, _ = _build(theme)
    assert _changed(shipped, files) == set()


def _cli_build(theme: Path, out: Path, *extra: str) -> int:
    return main(
        ["build", "--from", str(SNAPSHOT), "--templates", str(theme), "--no-search", "--out", str(out), *extra],
        renderer=TEMPLATES,
    )


def _fails_clearly(capsys: pytest.CaptureFixture[str], theme: Path, tmp_path: Path, *extra: str) -> str:
    """Build with *theme* through the CLI: exit 1, one paragraph, no traceback, no site."""
    out = tmp_path / "site"
    assert _cli_build(theme, out, *extra) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err
    assert err.startswith("mcp-portal: error: ") and err.count("\n") == 1, err
    assert not out.exists()
    return err


def test_extending_its_own_name_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    theme = _write(
        tmp_path / "theme",
        {"html/tool.html.j2": '{% extends "html/tool.html.j2" %}\n{% block title %}X{% endblock %}\n'},
    )
    err = _fails_clearly(capsys, theme, tmp_path)
    assert f"{theme / 'html' / 'tool.html.j2'}, line 1," in err
    assert '{% extends "shipped/html/tool.html.j2" %}' in err


def test_importing_its_own_name_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    theme = _write(
        tmp_path / "theme",
        {"html/_macros.html.j2": '\n{% import "html/_macros.html.j2" as base with context %}\n'},
    )
    err = _fails_clearly(capsys, theme, tmp_path)
    assert f"{theme / 'html' / '_macros.html.j2'}, line 2," in err
    assert '{% import "shipped/html/_macros.html.j2" as base with context %}' in err


@pytest.mark.parametrize(
    ("source", "line", "says"),
    [
        ('{% extends "shipped/html/tool.html.j2" %}\n{% block title %}{{ x }{% endblock %}\n', 2, "not valid Jinja"),
        ('{% extends "shipped/html/tool.html.j2" %}\n\n{% block title %}{{ no_such_name }}{% endblock %}\n', 3,
         "'no_such_name' is undefined"),
        ('{% extends "shipped/html/no-such.html.j2" %}\n', 1, "'shipped/html/no-such.html.j2'"),
        ('{% extends "shipped/html/tool.html.j2" %}\n{% block title %}{{ t("no.such.key") }}{% endblock %}\n', 2,
         "asks for a UI string no catalog has: no UI string 'no.such.key'"),
    ],
    ids=["syntax", "undefined", "missing-template", "unknown-ui-string"],
)  # fmt: skip
def test_a_broken_theme_template_names_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str, line: int, says: str
) -> None:
    theme = _write(tmp_path / "theme", {"html/tool.html.j2": source})
    err = _fails_clearly(capsys, theme, tmp_path)
    assert f"{theme / 'html' / 'tool.html.j2'}, line {line}," in err
    assert says in err


def test_a_cycle_between_theme_templates_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    theme = _write(
        tmp_path / "theme",
        {
            "html/tool.html.j2": '{% extends "html/base.html.j2" %}\n',
            "html/base.html.j2": '{% extends "html/tool.html.j2" %}\n',
        },
    )
    err = _fails_clearly(capsys, theme, tmp_path)
    assert "cycle" in err and "shipped/" in err


# --- catalogs ------------------------------------------------------------------------------------

EN_MARK, RU_MARK = "ThemeContentsEn", "ThemeContentsRu"


def test_a_partial_catalog_changes_its_keys_only(tmp_path: Path, shipped: Files) -> None:
    theme = _write(
        tmp_path,
        {
            "locales/en.yaml": f"meta:\n  tools_nav: {EN_MARK}\n",
            "locales/ru.yaml": f"meta:\n  tools_nav: {RU_MARK}\n",
        },
    )
    files, warnings = _build(theme)
    assert warnings == _build(None)[1]  # no new warning: both keys exist
    en, ru = load_catalog("en").t("meta.tools_nav"), load_catalog("ru").t("meta.tools_nav")
    changed = _changed(shipped, files)
    assert "en/index.html" in changed and "ru/index.html" in changed
    assert not any(p.startswith("ar/") for p in changed)  # Arabic keeps its own shipped string
    for path in changed:
        old, new = shipped[path].decode(), files[path].decode()
        assert EN_MARK not in old and RU_MARK not in old
        assert new.replace(EN_MARK, en).replace(RU_MARK, ru) == old, path


def test_theme_keys_layer_over_the_shipped_locale_key_by_key(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "ru.yaml": "index:\n  tool_count:\n    one: '{n} штука'\n    few: '{n} штуки'\n    other: '{n} штук'\n"
            "theme:\n  banner: Баннер\n",
            "en.yaml": "theme:\n  banner: Banner\n  footer: Footer\n",
        },
    )
    ru, shipped_ru = load_catalog("ru", extra=tmp_path), load_catalog("ru")
    assert ru.plural("index.tool_count", 3) == "3 штуки"
    assert ru.t("meta.tools_nav") == shipped_ru.t("meta.tools_nav")  # the shipped Russian, not English
    assert ru.t("theme.banner") == "Баннер"
    assert ru.t("theme.footer") == "Footer"  # a theme string Russian lacks falls back to the theme's English
    assert ru.missing_keys == ("theme.footer",)
    assert ru.notes == ()


def test_a_theme_string_used_by_a_theme_template(tmp_path: Path, shipped: Files) -> None:
    theme = _write(
        tmp_path,
        {
            "locales/en.yaml": "theme:\n  prefix: Reference\n",
            "html/tool.html.j2": '{% extends "shipped/html/tool.html.j2" %}\n'
            "{% block title %}{{ t('theme.prefix') }}: {{ super() }}{% endblock %}\n",
        },
    )
    files, warnings = _build(theme)
    assert "<title>Reference: " in files["en/tools/file_defect/index.html"].decode()
    assert "<title>Reference: " in files["ar/tools/file_defect/index.html"].decode()  # English fallback
    # Russian and Arabic lack the theme's string: reported like any missing translation.
    assert any(w.startswith("locale ru:") and "theme.prefix" in w for w in warnings)


def test_an_unknown_key_is_a_warning_and_fails_strict(
    tmp_path: Path, shipped: Files, capsys: pytest.CaptureFixture[str]
) -> None:
    theme = _write(tmp_path / "theme", {"locales/en.yaml": "meta:\n  tools_nav: Contents\n  tols_nav: Typo\n"})
    files, warnings = _build(theme)
    assert _changed(shipped, files) == set()  # the typo is ignored; tools_nav is the shipped text
    path = theme / "locales" / "en.yaml"
    typo = [w for w in warnings if "tols_nav" in w]
    assert typo == [
        f"{path}, line 3: 'meta.tols_nav' is not a UI string mcp-portal knows, so it is ignored; check its "
        f"spelling against the shipped locales/en.yaml (strings for your own templates go under `theme:`)"
    ]  # once, though every locale falls back to English
    err = _fails_clearly(capsys, theme, tmp_path, "--strict")
    assert "--strict" in err and "meta.tols_nav" in err


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ("meta:\n  tools_nav: [unclosed\n", 3, "is not valid YAML"),
        ("meta:\n  tools_nav: 3\n", 2, "'meta.tools_nav' a value that is a number"),
        ("meta:\n  tools_nav: yes\n", 2, "a value that is a boolean"),
        ("meta:\n  tools_nav:\n", 2, "a value that is empty"),
        ("meta:\n  tools_nav:\n    - a\n", 3, "a value that is a list"),
        ("- meta\n", 1, "is not a mapping of keys to strings"),
        ("index:\n  tool_count:\n    one: x\n", 3, "no `other` form"),
    ],
    ids=["yaml", "number", "boolean", "empty", "list", "top-level-list", "plural-without-other"],
)  # fmt: skip
def test_a_broken_theme_catalog_is_a_clear_error(tmp_path: Path, text: str, line: int, says: str) -> None:
    (tmp_path / "en.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(PortalError) as info:
        load_catalog("ru", extra=tmp_path)  # English is read as every locale's fallback
    assert f"{tmp_path / 'en.yaml'}, line {line}," in info.value.message
    assert says in info.value.message


def test_a_broken_theme_catalog_fails_the_build(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    theme = _write(tmp_path / "theme", {"locales/ru.yaml": "meta:\n  tools_nav: 3\n"})
    err = _fails_clearly(capsys, theme, tmp_path)
    assert f"{theme / 'locales' / 'ru.yaml'}, line 2," in err and "write the text in quotes" in err
