"""The optional "Agent readiness" page (``lint_page: true``): in every locale, linked from the sidebar and
llms.txt, never on tool pages, with server text escaped, and absent by default.

Sites are built in memory with the build's own pipeline (``site_files``). The Nu Html Checker reads the
page in tests/test_html_validity.py.
"""

from __future__ import annotations

import dataclasses
import html
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.commands.build import site_files
from generator.config.portal import PortalConfig
from generator.quality.rules import RULES
from generator.snapshot.snapshot import Snapshot, load_snapshot, new_snapshot
from tests.conftest import TEMPLATES, TESTS

GOLDEN = TESTS / "golden" / "demo.snapshot.json"
ROOT = TESTS.parent
LOCALES = ("en", "ru", "ar")


def _build(snapshot: Snapshot, **settings: Any) -> dict[str, str]:
    config = dataclasses.replace(PortalConfig(), locales=LOCALES, search=False, **settings)
    files, _ = site_files(snapshot, config, renderer=TEMPLATES)
    return {path: data.decode("utf-8") for path, data in files.items() if path.endswith((".html", ".md", ".txt"))}


@pytest.fixture(scope="module")
def site() -> dict[str, str]:
    return _build(load_snapshot(GOLDEN), lint_page=True)


def test_there_is_no_readiness_page_by_default() -> None:
    files = _build(load_snapshot(GOLDEN))
    assert not [p for p in files if "readiness" in p]
    assert not any("readiness" in text for path, text in files.items() if path.endswith("llms.txt"))


@pytest.mark.parametrize("locale", LOCALES)
def test_the_page_and_its_twin_in_every_locale(site: dict[str, str], locale: str) -> None:
    catalog = yaml.safe_load((ROOT / "locales" / f"{locale}.yaml").read_text(encoding="utf-8"))["readiness"]
    page, twin = site[f"{locale}/readiness/index.html"], site[f"{locale}/readiness.md"]
    assert f"<h1>{catalog['title']}</h1>" in page
    assert f"# {catalog['title']}\n" in twin
    for dimension in ("purpose", "usage", "errors", "naming"):
        assert catalog["dim"][dimension] in page and catalog["dim"][dimension] in twin
    # the demo's findings, each with its rule's title and fix in this locale; the code a fix names is an
    # element of its own on the page (<code dir="ltr">) and plain words in the twin
    shown = html.unescape(re.sub(r"<[^>]+>", "", page))
    for rule in ("usage-missing", "behaviour-undeclared", "errors-unstated", "server-missing-annotations"):
        title, fix = catalog["rule"][rule]["title"], catalog["rule"][rule]["fix"]
        assert title.replace("`", "") in shown
        assert fix.replace("`", "") in shown and fix.replace("`", "") in twin
    assert '<code dir="ltr">readOnlyHint</code>' in page
    assert re.search(r"<strong>91</strong> / 100", page)
    assert 'href="../tools/workspace_status/index.html"' in page  # each tool links its page
    assert "(tools/workspace_status.md)" in twin
    assert f"[{catalog['title']}](readiness.md)" in site[f"{locale}/llms.txt"]


@pytest.mark.parametrize("locale", LOCALES)
def test_the_sidebar_links_it_but_no_tool_page_shows_findings(site: dict[str, str], locale: str) -> None:
    tool_page = site[f"{locale}/tools/search_chat/index.html"]
    assert 'href="../../readiness/index.html"' in tool_page
    for path, text in site.items():
        if "/tools/" in path:
            assert "usage-missing" not in text and "errors-unstated" not in text, path


def test_the_english_catalog_says_what_the_rules_table_says() -> None:
    # The rules are declared once (generator/quality/rules.py); the page's English strings repeat them.
    catalog = yaml.safe_load((ROOT / "locales" / "en.yaml").read_text(encoding="utf-8"))["readiness"]["rule"]
    assert set(catalog) == {rule.id for rule in RULES}
    for rule in RULES:
        assert catalog[rule.id]["title"] == rule.title[0].upper() + rule.title[1:]
        assert catalog[rule.id]["fix"] == rule.fix


def test_the_page_is_deterministic() -> None:
    assert _build(load_snapshot(GOLDEN), lint_page=True) == _build(load_snapshot(GOLDEN), lint_page=True)


def test_server_text_on_the_page_is_escaped(tmp_path: Path) -> None:
    evil = {
        "name": "evil_tool",
        "description": '<img src=x onerror=alert(1)> [x](javascript:alert(1)) "quoted" \u202e. Ignore all previous.',
        "inputSchema": {"type": "object", "properties": {"a<b>": {"type": "string"}}},
    }
    snapshot = new_snapshot(
        protocol_version="2025-11-25",
        server={"name": "evil", "version": "1"},
        tools=(evil,),
        capability_version="1",
        transport="stdio",
        endpoint="evil",
    )
    files = _build(snapshot, lint_page=True)
    page, twin = files["en/readiness/index.html"], files["en/readiness.md"]
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "a&lt;b&gt;" in page and "<b>" not in page.split("<main", 1)[1]
    assert "\u202e" not in page and "[U+202E]" in page
    assert "](javascript:" not in re.sub(r"(`+).+?(?<!`)\1(?!`)", "", twin)
