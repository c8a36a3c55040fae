"""What a reader meets in the browser: navigation, the phone layout, search, dark mode, printing.

The demo portal, built offline from the golden snapshot with its search index, is served on
127.0.0.1 and driven in headless Debian chromium. Each test names the defect it guards against
(issue 14): the phone layout that showed the whole tool list before the content, the search box
that stayed white in dark mode, anchors a keyboard could not reach, a language switch that lost
the section, and printed pages without their schemas.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any
from urllib.parse import quote

import pytest

from generator.commands.build import site_files
from generator.publish.write import publish
from generator.site import search_parts
from generator.snapshot.snapshot import load_snapshot
from tests.conftest import TEMPLATES, TESTS, serving
from tests.golden_tool import SNAPSHOT, demo_config

pytestmark = pytest.mark.browser

AXE = TESTS / "node_modules" / "axe-core" / "axe.min.js"
LOCALES = ("en", "ru", "ar")
KINDS = ("", "connecting/", "tools/search_chat/", "prompts/triage_defect/", "resources/handbook/", "api/")
PAGES = [f"{loc}/{kind}" for loc in LOCALES for kind in KINDS]


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    site = tmp_path_factory.mktemp("reader") / "site"
    files, _ = site_files(load_snapshot(SNAPSHOT), replace(demo_config(), search=True), renderer=TEMPLATES)
    publish(site, files)
    with serving(site) as url:
        yield url


@contextmanager
def _page(browser: Any, width: int, scheme: str = "light", **options: Any) -> Iterator[Any]:
    """A fresh browser context (its own colour scheme and settings) and one page in it."""
    context = browser.new_context(viewport={"width": width, "height": 844}, color_scheme=scheme, **options)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture(scope="module")
def wide(browser: Any) -> Iterator[Any]:
    with _page(browser, 1280) as page:
        yield page


@pytest.fixture(scope="module")
def phone(browser: Any) -> Iterator[Any]:
    with _page(browser, 390) as page:
        yield page


# -- phone layout --------------------------------------------------------------------------------


@pytest.mark.parametrize("path", PAGES)
def test_on_a_phone_the_title_comes_first(phone: Any, base_url: str, path: str) -> None:
    phone.goto(base_url + path)
    top = phone.evaluate("document.querySelector('h1').getBoundingClientRect().top")
    assert top < 200, f"/{path}: the H1 starts {top:.0f} px down a 844 px screen"


# A table may be wider than its box only when the box shows it can scroll (its edge shadows are
# background gradients) or when the table is stacked into one card per row.
_OVERFLOW = """() => [...document.querySelectorAll('main table')].map(t => {
  const box = t.closest('.scroll') || t.parentElement;
  const style = getComputedStyle(box);
  return {
    caption: (t.querySelector('th') || t).textContent.trim().slice(0, 30),
    wider: t.scrollWidth > box.clientWidth + 1,
    scrolls: style.overflowX === 'auto' && style.backgroundImage.includes('gradient'),
    stacked: getComputedStyle(t).display === 'block',
  };
})"""


@pytest.mark.parametrize("path", PAGES)
def test_on_a_phone_no_table_overflows_unseen(phone: Any, base_url: str, path: str) -> None:
    phone.goto(base_url + path)
    tables = phone.evaluate(_OVERFLOW)
    assert tables or "/tools/" not in path  # a tool page has its parameters' table
    for table in tables:
        assert not table["wider"] or table["scrolls"] or table["stacked"], f"/{path}: {table}"


def test_on_a_phone_parameters_are_a_stacked_list(phone: Any, base_url: str) -> None:
    phone.goto(base_url + "ru/tools/search_chat/")
    fields = phone.locator("#parameters").locator("xpath=../following::table[1]")
    assert fields.evaluate("t => getComputedStyle(t).display") == "block"
    first = fields.locator("tbody tr").first
    # A card per field: its name and type (required marked, in the page's language) on the first line,
    # then the description; no cell needs a label to say what it is.
    cells = first.locator("td")
    assert cells.nth(1).inner_text().endswith("обязательный")
    name, kind = cells.nth(0).bounding_box(), cells.nth(1).bounding_box()
    assert name is not None and kind is not None and abs(name["y"] - kind["y"]) < 2
    assert first.bounding_box()["width"] <= 390


def test_on_a_phone_the_menu_opens_a_drawer(phone: Any, base_url: str) -> None:
    phone.goto(base_url + "en/tools/search_chat/")
    sidebar = phone.locator("#sidebar")
    assert not sidebar.is_visible()
    phone.click(".menu-open")
    assert sidebar.is_visible()
    assert phone.locator(".menu-open").get_attribute("aria-expanded") == "true"
    assert phone.evaluate("document.activeElement.className") == "menu-close"
    assert phone.locator("#tool-nav a").count() == 6
    phone.keyboard.press("Escape")
    assert not sidebar.is_visible()
    assert phone.evaluate("document.activeElement.className") == "menu-open"


def test_without_javascript_the_navigation_follows_the_content(browser: Any, base_url: str) -> None:
    with _page(browser, 390, java_script_enabled=False) as page:
        page.goto(base_url + "en/tools/search_chat/")
        main = page.locator("main").bounding_box()
        sidebar = page.locator("#sidebar").bounding_box()
        assert sidebar["y"] > main["y"] + main["height"] - 1
        assert page.locator(".menu-open").get_attribute("href") == "#sidebar"


# -- navigation ----------------------------------------------------------------------------------


def test_the_table_of_contents_lists_every_section(wide: Any, base_url: str) -> None:
    wide.goto(base_url + "en/tools/search_chat/")
    sections = wide.eval_on_selector_all("main h2[id]", "els => els.map(e => '#' + e.id)")
    links = wide.eval_on_selector_all(".toc a", "els => els.map(e => e.getAttribute('href'))")
    assert links == sections and len(links) >= 8
    # Beside a tool page's sections stands the call (issue 52): its contents are a folded control at the
    # top of the screen, which stays there as the page scrolls.
    toc = wide.locator(".toc ol")
    assert not toc.is_visible()
    wide.click(".toc summary")
    assert toc.is_visible()
    wide.click(".toc a[href='#returns']")
    wide.wait_for_function("() => location.hash === '#returns'")
    # The section being read is marked on the animation frame after the scroll.
    wide.wait_for_function(
        "() => document.querySelector('.toc a[aria-current=true]')?.getAttribute('href') === '#returns'"
    )
    assert 0 <= toc.bounding_box()["y"] < 844
    assert wide.locator(".toc a[aria-current=true]").get_attribute("href") == "#returns"
    assert 0 <= wide.locator("#sidebar").bounding_box()["y"] <= 60
    # Where no call stands beside the sections, the contents are a column of their own beside them.
    wide.goto(base_url + "en/connecting/")
    assert toc.is_visible()
    assert toc.bounding_box()["x"] > wide.locator("main h1").bounding_box()["x"] + 600


def test_the_table_of_contents_is_one_line_on_a_phone(phone: Any, base_url: str) -> None:
    phone.goto(base_url + "ar/tools/search_chat/")
    assert not phone.locator(".toc ol").is_visible()
    phone.click(".toc summary")
    assert phone.locator(".toc ol").is_visible()


def test_the_sidebar_links_every_section_of_the_site(wide: Any, base_url: str) -> None:
    wide.goto(base_url + "ru/tools/search_chat/")
    links = wide.eval_on_selector_all(".site-nav a", "els => els.map(e => e.getAttribute('href'))")
    assert links == [
        "../../index.html",
        "../../connecting/index.html",
        "../../instructions/index.html",
        "../../api/index.html",
    ]


@pytest.mark.parametrize(
    ("path", "trail"),
    [
        ("en/tools/file_defect/", ["Tools", "file_defect"]),
        ("en/connecting/", ["Tools", "Connecting"]),
        ("ru/prompts/triage_defect/", ["Инструменты", "Промпты", "triage_defect"]),
    ],
)
def test_the_breadcrumb_names_the_page(wide: Any, base_url: str, path: str, trail: list[str]) -> None:
    wide.goto(base_url + path)
    assert wide.eval_on_selector_all(".crumbs li", "els => els.map(e => e.textContent.trim())") == trail
    assert wide.locator(".crumbs li:last-child").get_attribute("aria-current") == "page"


def test_previous_and_next_walk_every_page(wide: Any, base_url: str) -> None:
    wide.goto(base_url + "en/tools/search_chat/")
    seen = ["search_chat"]
    while wide.locator(".pager .next").count():
        wide.click(".pager .next")
        wide.wait_for_load_state()
        seen.append(wide.locator("h1 code").inner_text())
    assert seen[:6] == [link for link in load_tool_names()]
    assert seen[6:] == ["triage_defect", "handbook", "document"]
    wide.click(".pager .prev")
    wide.wait_for_load_state()
    assert wide.locator("h1 code").inner_text() == "handbook"


def load_tool_names() -> list[str]:
    return [t["name"] for t in load_snapshot(SNAPSHOT).tools]


def test_the_keyboard_reaches_every_section_link(wide: Any, base_url: str) -> None:
    wide.goto(base_url + "en/tools/search_chat/")
    anchors = set(wide.eval_on_selector_all("main a.anchor", "els => els.map(e => e.getAttribute('href'))"))
    assert len(anchors) >= 8
    reached: set[str] = set()
    for _ in range(400):
        wide.keyboard.press("Tab")
        focused = wide.evaluate(
            "document.activeElement.matches('a.anchor') && document.activeElement.getAttribute('href')"
        )
        if focused:
            reached.add(focused)
        if reached == anchors:
            break
    assert reached == anchors
    # Each has a name a screen reader can announce, and is visible without hovering.
    link = wide.locator("main a.anchor[href='#parameters']")
    assert link.get_attribute("aria-hidden") is None
    assert "Parameters" in link.inner_text() or "Parameters" in (link.text_content() or "")
    assert float(link.evaluate("e => getComputedStyle(e).opacity")) == 1


@pytest.mark.parametrize("key", ["/", "Control+k"])
def test_a_shortcut_opens_search(wide: Any, base_url: str, key: str) -> None:
    wide.goto(base_url + "en/tools/search_chat/")
    wide.keyboard.press(key)
    assert wide.locator("#search-dialog").is_visible()
    assert wide.evaluate("document.activeElement.id") == "search-input"
    wide.keyboard.press("Escape")
    assert not wide.locator("#search-dialog").is_visible()


def test_switching_language_keeps_the_section(wide: Any, base_url: str) -> None:
    wide.goto(base_url + "en/tools/search_chat/#parameters")
    wide.click(".langs a[hreflang=ar]")
    wide.wait_for_url(base_url + "ar/tools/search_chat/#parameters", timeout=5000)
    # Directory addresses, as everywhere else, even though the files are linked as index.html.
    wide.click(".toc summary")  # folded beside the call on a tool page (issue 52)
    wide.click(".toc a[href='#returns']")
    wide.click(".langs a[hreflang=ru]")
    wide.wait_for_url(base_url + "ru/tools/search_chat/#returns", timeout=5000)


def test_printing_opens_every_section_but_the_raw_schemas(browser: Any, base_url: str) -> None:
    """A compact print: what the tables and the call already say (the raw schemas, the call's shape,
    the complete response) stays folded; everything else folded opens."""
    with _page(browser, 1280) as page:
        page.goto(base_url + "en/tools/search_chat/")
        schema = page.locator("#schemas").locator("xpath=following::details[1]//pre")
        assert not schema.is_visible()
        page.emulate_media(media="print")
        assert not schema.is_visible()
        assert not page.locator("#sidebar").is_visible()
        assert not page.locator(".toc").is_visible()
        # The script opens the others, for browsers whose print styles cannot reach inside <details>.
        page.emulate_media(media="screen")
        page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
        assert page.evaluate(
            "[...document.querySelectorAll('main .content details')].every(d => d.open === !d.matches('.no-print'))"
        )
        page.evaluate("window.dispatchEvent(new Event('afterprint'))")
        assert page.evaluate("[...document.querySelectorAll('main .content details')].every(d => !d.open)")


# -- search --------------------------------------------------------------------------------------


def _search(page: Any, base_url: str, path: str, query: str) -> list[dict[str, str]]:
    page.goto(base_url + path)
    page.click(".search-open")
    page.fill("#search-input", query)
    page.wait_for_selector("#search-results > li", timeout=15000)
    page.wait_for_function("() => !document.querySelector('#search-status').textContent.includes('…')")
    results: list[dict[str, str]] = page.eval_on_selector_all(
        "#search-results > li",
        "els => els.map(e => ({href: e.querySelector(':scope > a').getAttribute('href'),"
        " title: e.querySelector(':scope > a').textContent, text: e.querySelector(':scope > p').textContent}))",
    )
    return results


def test_search_results_name_the_tool_and_its_section(wide: Any, base_url: str) -> None:
    results = _search(wide, base_url, "en/", "archive")
    hit = next(r for r in results if "/tools/search_chat/" in r["href"])
    assert hit["title"] == "search_chat"  # no badge text in titles
    assert re.search(r"/en/tools/search_chat/\?highlight=archive#[a-z-]+$", hit["href"]), hit
    for r in results:
        assert "read-only" not in r["title"] and "destructive" not in r["title"], r
        # Cells and headings are separated, not run together ("Requiresread_all").
        assert "Requiresread" not in r["text"] and "NameDescription" not in r["text"], r


def test_search_counts_in_the_readers_language(wide: Any, base_url: str) -> None:
    _search(wide, base_url, "ru/", "archive")
    status = wide.inner_text("#search-status")
    count = int(status.split()[0])
    forms = {1: "результат", 2: "результата", 3: "результата", 4: "результата"}
    assert status == f"{count} {forms.get(count, 'результатов')}"


def test_search_does_not_repeat_the_shared_troubleshooting_rows(wide: Any, base_url: str) -> None:
    results = _search(wide, base_url, "en/", "401")
    texts = [r["text"] for r in results]
    assert len(texts) == len(set(texts)), texts
    assert sum("/tools/" in r["href"] and "#troubleshooting" in r["href"] for r in results) <= 1, results


def test_search_loads_nothing_until_it_is_used(browser: Any, base_url: str) -> None:
    with _page(browser, 1280) as page:
        requests: list[str] = []
        page.on("request", lambda r, seen=requests: seen.append(r.url))
        page.goto(base_url + "en/tools/search_chat/")
        page.wait_for_load_state("networkidle")
        assert not [u for u in requests if "/pagefind/" in u]
        page.keyboard.press("/")
        page.fill("#search-input", "chat")
        page.wait_for_selector("#search-results li", timeout=15000)
        assert [u for u in requests if "/pagefind/" in u]
        assert not [u for u in requests if "pagefind-ui" in u]


@pytest.fixture(scope="module")
def split_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The demo portal with each locale indexed in parts of at most 4 pages, as a large site's is."""
    site = tmp_path_factory.mktemp("split") / "site"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(search_parts, "PART_PAGES", 4)
        files, _ = site_files(load_snapshot(SNAPSHOT), replace(demo_config(), search=True), renderer=TEMPLATES)
    assert len(json.loads(files["pagefind/parts.json"])["en"]["bundles"]) == 3  # 13 pages: 4 runs
    publish(site, files)
    with serving(site) as url:
        yield url


@pytest.mark.parametrize("path,query", [("en/", "archive"), ("en/", "defect"), ("ru/", "handbook"), ("ar/", "chat")])
def test_a_locale_indexed_in_parts_finds_what_one_index_finds(
    browser: Any, base_url: str, split_url: str, path: str, query: str
) -> None:
    with _page(browser, 1280) as page:
        requests: list[str] = []
        page.on("request", lambda r, seen=requests: seen.append(r.url))
        found = _search(page, split_url, path, query)
        assert [u for u in requests if f"/pagefind/parts/{path[:2]}-" in u]  # the parts were merged in
    with _page(browser, 1280) as page:
        whole = _search(page, base_url, path, query)
    # The same results (parts rank by their own statistics, so the order may differ), no stray ones
    # from a part that lacks the word, and none from the vocabulary pages (their fragments are gone,
    # so showing one would fail the search).
    assert sorted(r["href"] for r in found) == sorted(r["href"] for r in whole)


# -- dark mode and accessibility with the search open --------------------------------------------


def _axe(page: Any, rules: list[str] | None = None) -> list[dict[str, Any]]:
    page.add_script_tag(path=str(AXE))
    options: dict[str, Any] = {"resultTypes": ["violations"]}
    if rules:
        options["runOnly"] = {"type": "rule", "values": rules}
    found: list[dict[str, Any]] = page.evaluate(
        "async (o) => (await axe.run(document, o)).violations.filter(v => ['serious', 'critical'].includes(v.impact))"
        ".map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).slice(0, 4).join(', '))",
        options,
    )
    return found


@pytest.fixture(scope="module")
def axe_tab(browser: Any) -> Iterator[Any]:
    """The page the axe checks share (:func:`_set`): a new page would start a renderer process (about a
    quarter of a second of a core). bypass_csp: axe is injected as an inline script; the pages keep their CSP."""
    with _page(browser, 1280, bypass_csp=True) as page:
        yield page


def _set(page: Any, width: int, scheme: str) -> Any:
    """*page*, blank, at *width* in *scheme* (nothing the axe checks do is stored)."""
    page.goto("about:blank")
    page.set_viewport_size({"width": width, "height": 844})
    page.emulate_media(media="no-override", color_scheme=scheme)
    return page


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path", ["en/tools/search_chat/", "ru/connecting/", "ar/"])
def test_open_search_has_no_contrast_or_label_violation(axe_tab: Any, base_url: str, scheme: str, path: str) -> None:
    page = _set(axe_tab, 1280, scheme)
    page.goto(base_url + path)
    assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
    page.keyboard.press("Control+k")
    page.fill("#search-input", "chat")
    page.wait_for_selector("#search-results li mark", timeout=15000)
    found = _axe(page)
    assert not found, f"/{path} ({scheme}), search open: {found}"
    box = page.evaluate(
        "(() => { const s = getComputedStyle(document.getElementById('search-input'));"
        " return [s.color, s.backgroundColor]; })()"
    )
    assert box[0] != box[1]
    if scheme == "dark":
        assert box[1] != "rgb(255, 255, 255)", "the search box stays white in dark mode"


@pytest.mark.parametrize("path", PAGES)
def test_every_page_kind_passes_axe_in_dark_mode_at_phone_width(axe_tab: Any, base_url: str, path: str) -> None:
    page = _set(axe_tab, 390, "dark")
    page.goto(base_url + path)
    assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
    found = _axe(page)
    assert not found, f"/{path} (dark, 390 px): {found}"


# -- right to left and languages -----------------------------------------------------------------


def test_arabic_footer_links_are_isolated(wide: Any, base_url: str) -> None:
    wide.goto(base_url + "ar/")
    isolated = wide.eval_on_selector_all(
        "footer.bottom a", "els => els.map(e => e.firstElementChild && e.firstElementChild.tagName)"
    )
    assert isolated and all(tag == "BDI" for tag in isolated)


def test_verbatim_server_text_is_marked_as_english(wide: Any, base_url: str) -> None:
    wide.goto(base_url + "ru/tools/search_chat/")
    assert wide.locator(".verbatim").first.get_attribute("lang") == "en"
    langs = wide.eval_on_selector_all("table.fields td[data-label] span[dir=auto]", "els => els.map(e => e.lang)")
    assert langs and set(langs) == {"en"}
    assert wide.locator("html").get_attribute("lang") == "ru"


def test_connecting_tabs_work_without_javascript(browser: Any, base_url: str) -> None:
    with _page(browser, 1280, java_script_enabled=False) as page:
        page.goto(base_url + "en/connecting/")
        tabs = page.locator(".tabs").first
        panels = tabs.locator(".panel")
        assert panels.count() >= 3
        assert [panels.nth(i).is_visible() for i in range(panels.count())].count(True) == 1
        tabs.locator("label.tab").nth(1).click()
        assert panels.nth(1).is_visible() and not panels.nth(0).is_visible()
        # It was 5,700 px of stacked blocks; one panel per endpoint now (the raw calls are a tab too).
        height = page.evaluate("document.documentElement.scrollHeight")
        assert height < 5000, f"the Connecting page is {height} px tall"
        raw = tabs.locator("label.tab").last
        assert raw.inner_text() == "JSON-RPC lines"
        raw.click()
        assert "tools/call" in panels.last.inner_text()


def test_the_page_menu_hands_the_twin_to_an_assistant(wide: Any, base_url: str) -> None:
    wide.goto(base_url + "en/tools/file_defect/")
    wide.click(".page-actions summary")
    twin = base_url + "en/tools/file_defect.md"
    assert wide.eval_on_selector(".page-actions a", "e => e.href") == twin
    asks = wide.eval_on_selector_all(".page-actions button.ask", "els => els.map(e => e.dataset.href)")
    assert {link.split("?")[0] for link in asks} == {"https://claude.ai/new", "https://chatgpt.com/"}
    assert all(quote(twin, safe="") in link for link in asks), asks
    assert wide.locator(".page-actions button.ask").first.is_visible()
    assert wide.locator(".page-actions .copy-page").is_visible()
