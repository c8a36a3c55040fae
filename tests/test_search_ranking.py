"""How often the search dialog puts the right page first, on a 160-tool portal, in Debian's chromium.

The portal is the demo's six tools and the first 154 of bench/scale_server.py's workload (realistic
names, descriptions and parameters), built with search in en, ru and ar. tests/search/queries.json is
the fixed list of queries a reader types (names, a parameter, a reader's words, misspellings of up to
two edits), each with the page that must come first. The figure is printed; the target is at least 23
of the first 25 and no fewer than all but two of the list.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from generator.commands.build import site_files
from generator.config.portal import PortalConfig
from generator.publish.write import publish
from generator.snapshot.snapshot import load_snapshot, new_snapshot
from tests.conftest import ROOT, TEMPLATES, serving
from tests.golden_tool import SNAPSHOT

pytestmark = pytest.mark.browser

QUERIES = json.loads((Path(__file__).parent / "search" / "queries.json").read_text(encoding="utf-8"))["queries"]


def _portal() -> Any:
    sys.path.insert(0, str(ROOT))
    from bench.scale_server import workload

    demo = load_snapshot(SNAPSHOT)
    tools = tuple(demo.tools) + tuple(workload(154))
    return new_snapshot(
        protocol_version="2026-07-28",
        server={"name": "teamspace-and-more", "version": "1.0.0"},
        tools=tools,
        capability_version="1.0.0",
        transport="streamable-http",
        endpoint="https://mcp.example/mcp",
    )


@pytest.fixture(scope="module")
def portal(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    snapshot = _portal()
    assert len(snapshot.tools) == 160
    files, _ = site_files(snapshot, PortalConfig(search=True), renderer=TEMPLATES)
    site = tmp_path_factory.mktemp("ranking") / "site"
    publish(site, files)
    with serving(site) as url:
        yield url


def _first(page: Any, query: str) -> str:
    """The path of the first result the dialog shows for *query*."""
    page.fill("#search-input", "")
    page.fill("#search-input", query)
    page.wait_for_function(
        "() => { const s = document.getElementById('search-status').textContent;"
        " const d = document.getElementById('search-dialog');"
        " return s && s !== d.getAttribute('data-loading') }",
        timeout=20_000,
    )
    links = page.eval_on_selector_all("#search-results > li > a", "els => els.map(e => e.href)")
    return urlsplit(links[0]).path if links else ""


def test_the_right_page_comes_first_for_the_committed_queries(browser: Any, portal: str) -> None:
    assert len(QUERIES) >= 25 and {q["locale"] for q in QUERIES} == {"en", "ru", "ar"}
    missed = []
    for locale in ("en", "ru", "ar"):
        page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        try:
            page.goto(f"{portal}{locale}/")
            page.locator("header.top .search-open").click()
            for item in (q for q in QUERIES if q["locale"] == locale):
                got = _first(page, item["query"])
                if not got.endswith(f"/{locale}/{item['first']}"):
                    missed.append(f"{locale} {item['query']!r}: {got or 'nothing'} (wanted {item['first']})")
        finally:
            page.context.close()
    landed = len(QUERIES) - len(missed)
    print(f"search ranking: {landed} of {len(QUERIES)} queries put the right page first", *missed, sep="\n")
    assert landed >= len(QUERIES) - 2, f"{landed} of {len(QUERIES)} first:\n" + "\n".join(missed)
