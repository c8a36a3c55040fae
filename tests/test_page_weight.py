"""Page weight: the sidebar stays cheap, and every page of the demo stays within a budget.

The sidebar's tool list lives in one cached ``L/nav.js`` per locale, so a tool page must not
grow with the number of tools on the server; only ``nav.js`` and the index page (which lists
every tool) may. Budgets below have about 2x headroom over what the demo measured when they
were set (largest HTML page 25.9 KB, portal.css 7.8 KB, portal.js 3.8 KB, nav.js 1.3 KB);
see docs/performance.md and ``python bench/page_weight.py``.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
from types import ModuleType

import pytest

from generator.commands.build import site_files
from generator.config.portal import PortalConfig
from generator.snapshot.snapshot import Snapshot, load_snapshot
from tests.conftest import ROOT, TEMPLATES

SNAPSHOT = ROOT / "tests" / "golden" / "demo.snapshot.json"
LOCALES = ("en", "ru", "ar")
SMALL, LARGE = 10, 150
"""Tool counts of the two synthetic servers: at 150, two bytes per tool on a 25 KB tool page (half a byte on its
7 KB twin) would already pass the 1 % bound, and a 150-tool build takes about a third of a 400-tool one."""
LAST = f"tool_{LARGE - 1:05d}"
TOOL = "tool_00005"  # present in both synthetic servers

HTML_BUDGET = 60_000
TWIN_BUDGET = 30_000
CSS_BUDGET = 7_000
JS_BUDGET = 10_000
"""The shared assets, gzip-compressed as every static host sends them (and cached after the first page).
portal.js: sidebar and its groups, the modal drawer, contents, theme, copy buttons, tables on phones and
the search dialog. It replaced Pagefind's 134 KB UI, which every page loaded; Pagefind itself now loads
only when someone searches."""
DEMO_NAV_BUDGET = 4_000


def _bench_build() -> ModuleType:
    """bench/bench_build.py is a script, not a package: load it by path for its synthetic()."""
    spec = importlib.util.spec_from_file_location("bench_build", ROOT / "bench" / "bench_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def synthetic(n: int) -> Snapshot:
    snapshot = _bench_build().synthetic(n)
    assert isinstance(snapshot, Snapshot)
    return snapshot


def _files(snapshot: Snapshot) -> dict[str, bytes]:
    files, _ = site_files(snapshot, PortalConfig(search=False, locales=LOCALES), renderer=TEMPLATES)
    return files


@pytest.fixture(scope="module")
def small() -> dict[str, bytes]:
    return _files(synthetic(SMALL))


@pytest.fixture(scope="module")
def large() -> dict[str, bytes]:
    return _files(synthetic(LARGE))


@pytest.mark.parametrize("locale", LOCALES)
def test_tool_page_does_not_grow_with_the_number_of_tools(
    small: dict[str, bytes], large: dict[str, bytes], locale: str
) -> None:
    for path in (f"{locale}/tools/{TOOL}/index.html", f"{locale}/tools/{TOOL}.md"):
        a, b = len(small[path]), len(large[path])
        assert abs(b - a) < 0.01 * a, f"{path}: {a} bytes with {SMALL} tools, {b} with {LARGE}"
    page = large[f"{locale}/tools/{TOOL}/index.html"].decode("utf-8")
    assert LAST not in page, "the tool page inlines the sidebar's tool list"
    assert '<script src="../../nav.js" defer></script>' in page, "the page does not load its locale's nav.js"


@pytest.mark.parametrize("locale", LOCALES)
def test_the_tool_list_lives_in_nav_js(small: dict[str, bytes], large: dict[str, bytes], locale: str) -> None:
    a, b = len(small[f"{locale}/nav.js"]), len(large[f"{locale}/nav.js"])
    assert b > 10 * a, f"{locale}/nav.js: {a} bytes with {SMALL} tools, {b} with {LARGE}"
    assert LAST.encode() in large[f"{locale}/nav.js"]
    # The index lists every tool, so it may grow; the connecting page may not.
    assert len(large[f"{locale}/index.html"]) > len(small[f"{locale}/index.html"])
    assert len(large[f"{locale}/connecting/index.html"]) == len(small[f"{locale}/connecting/index.html"])


def test_nav_js_states_each_access_label_once(large: dict[str, bytes]) -> None:
    """One JSON document per locale; its tool list is the same in every locale, and the locale's
    word for each access level is written once (``labels``), not once per tool."""
    prefix, suffix = "window.PORTAL_NAV = ", ";\n"
    bodies = {}
    for locale in LOCALES:
        text = large[f"{locale}/nav.js"].decode("ascii")
        assert text.startswith(prefix) and text.endswith(suffix)
        body = json.loads(text[len(prefix) : -len(suffix)])
        assert text == prefix + json.dumps(body, ensure_ascii=True, sort_keys=True) + suffix
        assert set(body["labels"]) == {tool["a"] for tool in body["tools"]}
        for level, label in body["labels"].items():
            assert label == level or text.count(json.dumps(label)) == 1, label  # English: the word is the level
        bodies[locale] = body
    assert bodies["en"]["tools"] == bodies["ru"]["tools"] == bodies["ar"]["tools"]
    assert len({json.dumps(body["labels"]) for body in bodies.values()}) == len(LOCALES)


@pytest.fixture(scope="module")
def demo() -> dict[str, bytes]:
    return _files(load_snapshot(SNAPSHOT))


def test_every_demo_page_is_within_budget(demo: dict[str, bytes]) -> None:
    html = {path: len(data) for path, data in demo.items() if path.endswith(".html")}
    assert len(html) >= 3 * 12 + 4  # 12 pages per locale, 404s and the chooser
    over = {path: size for path, size in html.items() if size > HTML_BUDGET}
    assert not over, f"HTML pages over {HTML_BUDGET} bytes: {over}"
    twins = {path: len(data) for path, data in demo.items() if path.endswith(".md")}
    over = {path: size for path, size in twins.items() if size > TWIN_BUDGET}
    assert not over, f"Markdown twins over {TWIN_BUDGET} bytes: {over}"


def test_shared_assets_are_within_budget(demo: dict[str, bytes]) -> None:
    assert len(gzip.compress(demo["assets/portal.css"], mtime=0)) < CSS_BUDGET
    assert len(gzip.compress(demo["assets/portal.js"], mtime=0)) < JS_BUDGET
    for locale in LOCALES:
        assert len(demo[f"{locale}/nav.js"]) < DEMO_NAV_BUDGET
