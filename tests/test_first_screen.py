"""The reader's first screen and the portal at 150 tools, in headless Debian chromium.

A tool page leads with its parameters and its call; on a phone the header and "On this page" stay
in view and the menu is a real modal; the theme can be chosen and is remembered; tables fit; the
sidebar of a 150-tool portal is grouped, opens the current group and shows the current link; and
the page head carries a favicon and link-preview tags. Each check runs where it can fail: at
1280×800 and 390×844, in en, ru and ar; the dark scheme is checked to move no box, so where things
are is checked in the light one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from generator.commands.build import site_files
from generator.config.portal import PortalConfig
from generator.publish.write import publish
from generator.snapshot.snapshot import Snapshot, load_snapshot, new_snapshot
from tests.conftest import TEMPLATES, serving
from tests.golden_tool import SNAPSHOT, demo_config

pytestmark = pytest.mark.browser

LOCALES = ("en", "ru", "ar")
DESKTOP, PHONE = {"width": 1280, "height": 800}, {"width": 390, "height": 844}
SCHEMES = ("light", "dark")
DEMO_TOOLS = [t["name"] for t in load_snapshot(SNAPSHOT).tools]
GROUPS = ("compute", "storage", "network", "keyvault", "monitor", "sql", "cosmos", "search", "aks", "webapp")
VERBS = ("get", "list", "create", "delete", "update")


def _big_snapshot(count: int = 160) -> Snapshot:
    """A server of *count* tools named as large servers name them: a service prefix, then a verb."""
    tools = []
    for i in range(count):
        group, verb = GROUPS[i % len(GROUPS)], VERBS[(i // len(GROUPS)) % len(VERBS)]
        tools.append(
            {
                "name": f"{group}_{verb}_{i:03d}",
                "description": f"{verb.title()} a {group} resource (number {i}) in the subscription.",
                "annotations": {"readOnlyHint": verb in ("get", "list")},
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "subscription": {"type": "string", "description": "The subscription id."},
                        "resource-name": {"type": "string", "description": "The resource's name."},
                    },
                    "required": ["subscription"],
                },
            }
        )
    return new_snapshot(
        protocol_version="2025-11-25",
        server={"name": "big-server", "version": "1.0.0"},
        tools=tuple(tools),
        capability_version="1.0.0",
        transport="streamable-http",
        endpoint="https://mcp.example/mcp",
    )


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    site = tmp_path_factory.mktemp("first-screen") / "site"
    files, _ = site_files(load_snapshot(SNAPSHOT), replace(demo_config(), search=True), renderer=TEMPLATES)
    publish(site, files)
    with serving(site) as url:
        yield url


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    site = tmp_path_factory.mktemp("big") / "site"
    files, warnings = site_files(_big_snapshot(), PortalConfig(search=False), renderer=TEMPLATES)
    assert not warnings
    publish(site, files)
    with serving(site) as url:
        yield url


@pytest.fixture(scope="module")
def tab(browser: Any) -> Iterator[Any]:
    """The one page this module's tests share (:func:`_page`)."""
    context = browser.new_context()
    try:
        yield context.new_page()
    finally:
        context.close()


def _page(tab: Any, viewport: dict[str, int], scheme: str = "light") -> Any:
    """*tab* made ready for one test: blank, at *viewport*, in *scheme*, no media emulated. A new page would start a
    renderer process (about a quarter of a second of a core), so the tests share one; :func:`_done` forgets
    what each stored."""
    tab.goto("about:blank")
    tab.set_viewport_size(viewport)
    tab.emulate_media(media="no-override", color_scheme=scheme)
    return tab


def _done(page: Any) -> None:
    """Forget what the test stored (a chosen tab or theme) on the origin it ended on: the next test starts
    as a first visit, as in a new browser context."""
    page.evaluate("() => { try { localStorage.clear(); sessionStorage.clear(); } catch (e) { /* about:blank */ } }")


def _top(page: Any, selector: str) -> float:
    value: float = page.evaluate(
        "s => document.querySelector(s).getBoundingClientRect().top + window.scrollY", selector
    )
    return value


# --------------------------------------------------------------------------- the first screen


def _bottom(page: Any, selector: str) -> float:
    value: float = page.evaluate(
        "s => document.querySelector(s).getBoundingClientRect().bottom + window.scrollY", selector
    )
    return value


# The call's argument line: the first line of its first code block (the JSON tab, or the typed shape of the call).
ARGUMENT_LINE = ".call-col pre"
BIG_TOOLS = ("compute_get_000", "sql_create_125", "webapp_update_149", "keyvault_get_153")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
def test_the_dark_scheme_moves_no_box(tab: Any, demo: str, viewport: dict[str, int]) -> None:
    """Every element of a tool page and the home page has the same box in the dark scheme as in the light."""
    boxes = "() => [...document.querySelectorAll('body *')].map(e => JSON.stringify(e.getBoundingClientRect()))"
    seen: dict[str, list[list[str]]] = {}
    for scheme in SCHEMES:
        page = _page(tab, viewport, scheme)
        try:
            for path in ("ar/tools/search_chat/", "ru/tools/search_chat/", "en/"):
                page.goto(demo + path)
                assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
                seen.setdefault(scheme, []).append(page.evaluate(boxes))
        finally:
            _done(page)
    assert all(len(found) > 100 for found in seen["light"]), [len(found) for found in seen["light"]]
    for n, (dark, light) in enumerate(zip(seen["dark"], seen["light"], strict=True)):
        moved = [i for i, boxes in enumerate(zip(dark, light, strict=True)) if boxes[0] != boxes[1]]
        assert not moved, f"page {n}: {len(moved)} boxes differ in the dark scheme, elements {moved[:5]} first"


@pytest.mark.parametrize("locale", LOCALES)
def test_the_call_s_arguments_and_returns_are_in_the_first_desktop_screen(
    tab: Any, demo: str, big: str, locale: str
) -> None:
    page = _page(tab, DESKTOP)
    pages = [f"{demo}{locale}/tools/{tool}/" for tool in DEMO_TOOLS] + [f"{big}{locale}/tools/{t}/" for t in BIG_TOOLS]
    assert DEMO_TOOLS and BIG_TOOLS
    try:
        for url in pages:
            page.goto(url)
            # The call is a column beside the parameters (or the lead, for a tool that takes none).
            reference = "#parameters" if page.locator("#parameters").count() else "main h1"
            assert _top(page, reference) < 400, url
            call, params = page.locator("#call").bounding_box(), page.locator(reference).bounding_box()
            assert call is not None and params is not None and call["y"] < DESKTOP["height"], url
            if reference == "#parameters":
                left, right = params["x"], params["x"] + params["width"]
                beside = call["x"] > right if locale != "ar" else call["x"] + call["width"] < left
                assert beside, (url, call, params)
            line = _top(page, ARGUMENT_LINE) + 40  # the pre's padding and its first line ("{", then the first argument)
            assert line < DESKTOP["height"], f"{url}: the argument line ends at {line}"
            if page.locator("#returns").count():
                returns = _bottom(page, "#returns")
                assert returns <= DESKTOP["height"], f"{url}: the Returns heading ends at {returns}"
            # What matters less follows, once each.
            order = page.evaluate(
                "['parameters','returns','description','annotations','available','schemas']"
                ".map(id => document.getElementById(id)).filter(Boolean)"
                ".map(e => e.getBoundingClientRect().top)"
            )
            assert order == sorted(order), url
    finally:
        _done(page)


@pytest.mark.parametrize("locale", LOCALES)
def test_the_call_starts_within_two_phone_screens(tab: Any, demo: str, big: str, locale: str) -> None:
    page = _page(tab, PHONE)
    try:
        for url in [f"{demo}{locale}/tools/{tool}/" for tool in DEMO_TOOLS] + [f"{big}{locale}/tools/{BIG_TOOLS[0]}/"]:
            page.goto(url)
            assert _top(page, "#call") < 2 * PHONE["height"], url
            if page.locator("#parameters").count() and page.locator("#returns").count():
                assert _top(page, "#parameters") < _top(page, "#call") < _top(page, "#returns"), url  # one column
    finally:
        _done(page)


def test_maintainer_notes_are_in_the_footer_not_under_the_title(tab: Any, demo: str) -> None:
    page = _page(tab, DESKTOP)
    try:
        page.goto(demo + "en/tools/search_chat/")
        main = page.locator("main").inner_text()
        footer = page.locator("footer.bottom").inner_text()
        assert "Do not edit by hand" not in main and "Do not edit by hand" in footer
        assert "verbatim" not in main.split("Parameters")[0]
    finally:
        _done(page)


@pytest.mark.parametrize("locale", LOCALES)
def test_the_access_level_is_stated_once_in_the_lead(tab: Any, demo: str, locale: str) -> None:
    page = _page(tab, DESKTOP)
    try:
        page.goto(f"{demo}{locale}/tools/delete_document/")
        before = page.evaluate(
            "(() => { const p = document.getElementById('parameters');"
            " const ahead = e => e.compareDocumentPosition(p) & Node.DOCUMENT_POSITION_FOLLOWING;"
            " return [Array.from(document.querySelectorAll('main .badge')).filter(ahead).length,"
            " Array.from(document.querySelectorAll('main .access, main table.hints')).filter(ahead).length] })()"
        )
        assert before == [1, 0]
    finally:
        _done(page)


# --------------------------------------------------------------------------- navigation on a phone


@pytest.mark.parametrize("locale", LOCALES)
def test_header_and_contents_stay_in_view_on_a_phone(tab: Any, demo: str, locale: str) -> None:
    page = _page(tab, PHONE)
    try:
        page.goto(f"{demo}{locale}/tools/search_chat/")
        page.mouse.wheel(0, 4000)
        page.wait_for_function("() => window.scrollY > 3000")
        header = page.locator("header.top").bounding_box()
        assert header is not None and abs(header["y"]) < 1
        assert page.locator("header.top .menu-open").is_visible()
        assert page.locator("header.top .search-open").is_visible()
        toc = page.locator(".toc").bounding_box()
        assert toc is not None and 0 <= toc["y"] <= header["height"] + 1
        # Choosing a section from the sticky control closes it again.
        page.locator(".toc summary").click()
        page.locator(".toc a").nth(1).click()
        assert not page.evaluate("document.querySelector('.toc details').open")
    finally:
        _done(page)


@pytest.mark.parametrize("locale", LOCALES)
def test_the_phone_drawer_is_a_modal_with_the_languages(tab: Any, demo: str, locale: str) -> None:
    page = _page(tab, PHONE)
    try:
        page.goto(f"{demo}{locale}/tools/search_chat/")
        page.locator("header.top .menu-open").click()
        drawer = page.locator("#sidebar")
        assert drawer.get_attribute("role") == "dialog" and drawer.get_attribute("aria-modal") == "true"
        assert page.evaluate("document.querySelector('main').inert")
        assert page.evaluate("getComputedStyle(document.documentElement).overflow") == "hidden"
        assert drawer.locator(".langs a").count() == 3
        assert drawer.locator(".search-open").is_visible()
        # Tab never leaves the drawer.
        for _ in range(40):
            page.keyboard.press("Tab")
            assert page.evaluate("document.getElementById('sidebar').contains(document.activeElement)")
        page.keyboard.press("Escape")
        assert drawer.get_attribute("role") is None
        assert not page.evaluate("document.querySelector('main').inert")
        assert page.evaluate("document.activeElement.classList.contains('menu-open')")
    finally:
        _done(page)


# --------------------------------------------------------------------------- theme, menu, tab stops


def test_the_theme_choice_is_applied_and_remembered(browser: Any, demo: str) -> None:
    context = browser.new_context(viewport=DESKTOP, color_scheme="light")
    try:
        page = context.new_page()
        page.goto(demo + "ar/tools/search_chat/")
        background = "getComputedStyle(document.body).backgroundColor"
        light = page.evaluate(background)
        button = page.locator("header.top .theme-toggle")
        assert button.get_attribute("aria-label").endswith("تلقائي")
        button.click()  # Auto → Light
        button.click()  # Light → Dark
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        dark = page.evaluate(background)
        assert dark != light
        page.goto(demo + "en/connecting/")  # another page: the inline script applies the stored choice
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        assert page.evaluate(background) == dark
        page.locator("header.top .theme-toggle").click()  # Dark → Auto: the system's light again
        assert page.evaluate("localStorage.getItem('mcp-portal-theme')") is None
        assert page.evaluate(background) == light
    finally:
        context.close()


def test_the_page_menu_closes_on_escape_and_outside_click(tab: Any, demo: str) -> None:
    page = _page(tab, DESKTOP)
    try:
        page.goto(demo + "en/tools/search_chat/")
        menu = page.locator(".page-actions")
        menu.locator("summary").click()
        assert menu.evaluate("d => d.open")
        page.keyboard.press("Escape")
        assert not menu.evaluate("d => d.open")
        menu.locator("summary").click()
        page.locator("main h1").click()
        assert not menu.evaluate("d => d.open")
        assert "Markdown" in menu.locator("summary").inner_text() and menu.locator("summary").inner_text() != "Markdown"
    finally:
        _done(page)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
def test_only_boxes_that_scroll_are_tab_stops(tab: Any, demo: str, viewport: dict[str, int]) -> None:
    page = _page(tab, viewport)
    try:
        page.goto(demo + "en/tools/search_chat/")
        boxes = page.evaluate(
            "Array.from(document.querySelectorAll('main .scroll, main pre')).filter(b => b.clientWidth)"
            ".map(b => [b.getAttribute('tabindex'), b.scrollWidth > b.clientWidth + 1])"
        )
        assert boxes
        assert all((stop == "0") == scrolls for stop, scrolls in boxes), boxes
    finally:
        _done(page)


def test_copy_buttons_never_cover_code(tab: Any, demo: str) -> None:
    page = _page(tab, PHONE)
    try:
        page.goto(demo + "en/tools/search_chat/")
        covered = page.evaluate(
            "Array.from(document.querySelectorAll('.code')).filter(w => {"
            " const b = w.querySelector('.copy').getBoundingClientRect();"
            " const r = document.createRange(); r.selectNodeContents(w.querySelector('pre code'));"
            " const first = r.getClientRects()[0];"
            " return first && first.top < b.bottom && first.bottom > b.top; }).length"
        )
        assert covered == 0
    finally:
        _done(page)


def test_client_tabs_are_synced_and_remembered(tab: Any, demo: str) -> None:
    page = _page(tab, DESKTOP)
    try:
        page.goto(demo + "en/connecting/")
        clients = page.eval_on_selector_all("input.tab-input[data-client]", "els => els.map(e => e.dataset.client)")
        groups = page.evaluate(
            "new Set(Array.from(document.querySelectorAll('input.tab-input')).map(e => e.name)).size"
        )
        assert groups >= 2
        second = next(c for c in clients if c != clients[0])
        page.locator(f"input.tab-input[data-client='{second}']").first.evaluate("e => e.nextElementSibling.click()")
        checked = page.eval_on_selector_all("input.tab-input:checked", "els => els.map(e => e.dataset.client)")
        assert len(checked) == groups and set(checked) <= {second}
        page.goto(demo + "ru/connecting/")
        checked = page.eval_on_selector_all("input.tab-input:checked", "els => els.map(e => e.dataset.client)")
        assert set(checked) == {second}
    finally:
        _done(page)


def test_the_last_section_becomes_current_at_the_end_of_the_page(tab: Any, demo: str) -> None:
    page = _page(tab, {"width": 1280, "height": 1400})
    try:
        page.goto(demo + "en/tools/my_capabilities/")
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        page.wait_for_function(
            "() => { const a = document.querySelectorAll('.toc a');"
            " return a[a.length - 1].getAttribute('aria-current') === 'true' }"
        )
    finally:
        _done(page)


def test_a_tool_page_prints_compactly(tab: Any, demo: str) -> None:
    page = _page(tab, DESKTOP)
    try:
        page.goto(demo + "en/tools/search_chat/")
        page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
        pdf = page.pdf(format="A4")
        pages = pdf.count(b"/Type /Page") - pdf.count(b"/Type /Pages")
        assert pages <= 5, f"{pages} A4 pages for a 5-parameter tool"
        page.evaluate("window.dispatchEvent(new Event('afterprint'))")
        assert page.evaluate("Array.from(document.querySelectorAll('main .content details')).every(d => !d.open)")
    finally:
        _done(page)


# --------------------------------------------------------------------------- tables and Arabic


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
@pytest.mark.parametrize("locale", ("en", "ar"))
def test_no_table_is_wider_than_its_column(tab: Any, demo: str, locale: str, viewport: dict[str, int]) -> None:
    page = _page(tab, viewport)
    try:
        pages = [
            "",
            "connecting/",
            "api/",
            "prompts/triage_defect/",
            "resources/handbook/",
            "resource-templates/document/",
            *(f"tools/{t}/" for t in DEMO_TOOLS),
        ]
        for path in pages:
            page.goto(f"{demo}{locale}/{path}")
            wide = page.evaluate(
                "Array.from(document.querySelectorAll('main table')).filter(t => t.offsetParent &&"
                " t.getBoundingClientRect().width > t.closest('.scroll, .content, main').clientWidth + 1)"
                ".map(t => t.className || t.querySelector('th').textContent)"
            )
            assert not wide, f"{locale}/{path}: {wide}"
    finally:
        _done(page)


def test_arabic_breadcrumb_separator_is_drawn_and_points_to_the_end(tab: Any, demo: str) -> None:
    page = _page(tab, DESKTOP)
    try:
        for locale, angle in (("en", 45), ("ar", -45)):
            page.goto(f"{demo}{locale}/tools/search_chat/")
            style = page.evaluate(
                "(() => { const s = getComputedStyle(document.querySelector('.crumbs li + li'), '::before');"
                " return [s.content, s.transform] })()"
            )
            assert style[0] in ('""', "none", "normal") or style[0] == '""', style
            a, b = (float(x) for x in style[1].removeprefix("matrix(").split(",")[:2])
            assert round(__import__("math").degrees(__import__("math").atan2(b, a))) == angle
    finally:
        _done(page)


def test_arabic_error_codes_keep_their_sign(tab: Any, tmp_path: Path) -> None:
    # The rows that name every form the protocol allows: a site whose snapshot holds no --prove probe.
    site = tmp_path / "site"
    unproven = replace(load_snapshot(SNAPSHOT), proofs=None)
    files, _ = site_files(unproven, replace(demo_config(), search=False, locales=("ar",)), renderer=TEMPLATES)
    publish(site, files)
    page = _page(tab, DESKTOP)
    with serving(site) as url:
        _minus_before_the_digits(page, url)


def _minus_before_the_digits(page: Any, url: str) -> None:
    try:
        page.goto(url + "ar/tools/search_chat/")
        code = page.locator("td code[dir=ltr]", has_text="-32602").first
        assert code.text_content() == "-32602"  # an element of its own, left to right
        box = code.evaluate(
            "code => { const r = document.createRange(); const node = code.firstChild;"
            " r.setStart(node, 0); r.setEnd(node, 1); const minus = r.getBoundingClientRect();"
            " r.setStart(node, 1); r.setEnd(node, 2); const three = r.getBoundingClientRect();"
            " return [minus.left, three.left] }"
        )
        assert box[0] < box[1], "the minus sign is drawn after the number"
    finally:
        _done(page)


# --------------------------------------------------------------------------- search


def _search(page: Any, demo: str, locale: str, query: str, expect: str) -> list[str]:
    page.goto(f"{demo}{locale}/connecting/")
    page.locator("header.top .search-open").click()
    page.fill("#search-input", query)
    page.wait_for_selector(f"#search-results a[href*='{expect}']", timeout=15000)
    links: list[str] = page.eval_on_selector_all("#search-results > li > a", "els => els.map(e => e.href)")
    return links


def test_a_search_for_a_tool_name_opens_its_page_first_and_marks_the_words(tab: Any, demo: str) -> None:
    page = _page(tab, DESKTOP)
    try:
        links = _search(page, demo, "en", "delete_document", "/tools/delete_document/")
        # The tool's own page first (aggregate pages, which list every tool, come after), at its top.
        assert links[0].split("?")[0].endswith("/en/tools/delete_document/")
        assert "highlight=delete_document" in links[0]
        assert "#" not in links[0]
        items = [i for i, link in enumerate(links) if "/tools/" in link]
        others = [i for i, link in enumerate(links) if "/tools/" not in link]
        assert not others or max(items) < min(others)
        # The status counts every page that matched.
        assert page.locator("#search-status").inner_text().startswith(str(len(links)))
        # Arrow keys move from the box through the results; Enter follows the link.
        page.locator("#search-input").press("ArrowDown")
        assert page.evaluate("document.activeElement.href") == links[0]
        page.keyboard.press("Enter")
        page.wait_for_url(lambda url: "/tools/delete_document/" in url, timeout=5000)
        assert page.locator("main mark.found").count() >= 1
    finally:
        _done(page)


def test_a_result_lists_the_page_sections_that_matched(tab: Any, demo: str) -> None:
    page = _page(tab, DESKTOP)
    try:
        _search(page, demo, "en", "severity", "/tools/file_defect/")
        item = page.locator("#search-results > li", has=page.locator("a[href*='/tools/file_defect/']")).first
        sections = item.locator(".sections-hit a").all_inner_texts()
        main = item.locator("> a").get_attribute("href") or ""
        assert "Parameters" in sections or main.endswith("#parameters"), (main, sections)
    finally:
        _done(page)


@pytest.mark.parametrize(("locale", "word"), [("ru", "удалить"), ("ar", "حذف")])
def test_a_word_of_the_readers_language_finds_the_tool(tab: Any, demo: str, locale: str, word: str) -> None:
    page = _page(tab, DESKTOP)
    try:
        links = _search(page, demo, locale, word, "/tools/delete_document/")
        assert any(f"/{locale}/tools/delete_document/" in link for link in links)
    finally:
        _done(page)


def test_more_results_come_on_request(tab: Any, demo: str) -> None:
    page = _page(tab, DESKTOP)
    try:
        page.goto(f"{demo}en/connecting/")
        page.locator("header.top .search-open").click()
        page.fill("#search-input", "the")
        page.wait_for_selector("#search-results > li", timeout=15000)
        page.wait_for_function("() => /^[0-9]+ /.test(document.querySelector('#search-status').textContent)")
        total = int(page.locator("#search-status").inner_text().split()[0])
        shown = page.locator("#search-results > li").count()
        assert total > 10 and shown == 10
        page.locator(".search-more").click()
        page.wait_for_function(f"() => document.querySelectorAll('#search-results > li').length > {shown}")
        assert page.locator(".search-more").is_hidden() == (page.locator("#search-results > li").count() == total)
    finally:
        _done(page)


# --------------------------------------------------------------------------- 150 tools


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
def test_a_150_tool_sidebar_is_grouped_with_the_current_link_in_view(
    tab: Any, big: str, viewport: dict[str, int]
) -> None:
    page = _page(tab, viewport)
    try:
        page.goto(big + "en/tools/webapp_update_149/")
        groups = page.locator("#tool-nav > li.tool-group")
        assert groups.count() == len(GROUPS)
        open_groups = page.evaluate(
            "Array.from(document.querySelectorAll('#tool-nav > li.tool-group > details[open] summary bdi'))"
            ".map(s => s.textContent)"
        )
        assert open_groups == ["webapp"]
        if viewport is PHONE:
            page.locator("header.top .menu-open").click()
        side = page.locator("#sidebar").bounding_box()
        link = page.locator("#tool-nav a[aria-current=page]").bounding_box()
        assert side is not None and link is not None
        assert side["y"] <= link["y"] and link["y"] + link["height"] <= side["y"] + side["height"]
        # The whole list is far shorter than 150 links, and so is the home page.
        assert page.evaluate("document.getElementById('tool-nav').scrollHeight") < 1200
        page.goto(big + "en/")
        assert page.evaluate("document.documentElement.scrollHeight") < 2 * viewport["height"]
        assert page.locator("main details.tool-group").count() == len(GROUPS)
    finally:
        _done(page)


@pytest.mark.parametrize("locale", ("en", "ar"))
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
def test_the_last_link_of_the_last_group_is_wholly_in_view(
    tab: Any, big: str, viewport: dict[str, int], locale: str
) -> None:
    """The list's very last link, at the bottom of the sidebar's scroll, is not cut by its edge."""
    page = _page(tab, viewport)
    try:
        page.goto(f"{big}{locale}/")
        last = page.evaluate("Array.from(document.querySelectorAll('#tool-nav a')).pop().href")
        assert last.endswith("/tools/webapp_update_149/") or "/tools/webapp_" in last
        page.goto(last)
        if viewport is PHONE:
            page.locator("header.top .menu-open").click()
        side = page.locator("#sidebar").bounding_box()
        link = page.locator("#tool-nav a[aria-current=page]").bounding_box()
        assert side is not None and link is not None
        assert page.evaluate("document.querySelector('#tool-nav a[aria-current=page]').href") == last
        assert side["y"] <= link["y"] and link["y"] + link["height"] <= side["y"] + side["height"], (side, link)
    finally:
        _done(page)


def test_without_javascript_there_is_no_filter_box_and_the_sidebar_leads_to_every_tool(browser: Any, demo: str) -> None:
    page = browser.new_context(viewport=DESKTOP, java_script_enabled=False).new_page()
    try:
        page.goto(demo + "en/tools/search_chat/")
        assert page.locator("#tool-filter").is_hidden()
        assert page.locator(".filter-none").is_hidden()
        everything = page.locator("#sidebar .site-nav a").first
        assert everything.is_visible()
        everything.click()
        linked = page.evaluate(
            "Array.from(document.querySelectorAll('main a')).map(a => a.pathname.split('/').slice(-2)[0])"
        )
        assert set(DEMO_TOOLS) <= set(linked)
    finally:
        page.context.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
@pytest.mark.parametrize("path", ["ar/tools/search_chat/", "ar/", "en/", "ru/connecting/"])
def test_a_page_does_not_shift_as_it_loads(browser: Any, demo: str, path: str, viewport: dict[str, int]) -> None:
    """No layout shift as scripts run: the header's buttons, the drawer's languages and the stacked
    tables are in the markup from the first paint (the Arabic phone home page shifted by 0.05, the
    Russian Connecting page by 0.38). One shift is by design: on a wide tool page call.js folds a
    long parameter table to the screen's height, which moves the Returns heading up; that stays
    well under 0.1, the bound of a "good" page in Chromium's Web Vitals."""
    page = browser.new_context(viewport=viewport).new_page()  # its own: the init script stays with a page
    try:
        page.add_init_script(
            "window.__shifts = [];"
            "new PerformanceObserver(l => l.getEntries().forEach(e => { if (!e.hadRecentInput) {"
            " window.__shifts.push({value: e.value, nodes: e.sources.map(s => s.node ? s.node.nodeName"
            " + '.' + (s.node.className || '') : '?')}); } })).observe({type: 'layout-shift', buffered: true});"
        )
        page.goto(demo + path, wait_until="load")
        page.evaluate("document.fonts.ready")
        # Two frames after load, every shift the load caused has been reported.
        page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        shifts = page.evaluate("window.__shifts")
        assert page.evaluate("PerformanceObserver.supportedEntryTypes.includes('layout-shift')")
        bound = 0.05 if "/tools/" in path and viewport is DESKTOP else 0.001
        assert sum(s["value"] for s in shifts) < bound, shifts
    finally:
        page.context.close()


def test_the_filter_opens_matching_groups_and_says_when_nothing_matches(tab: Any, big: str) -> None:
    page = _page(tab, DESKTOP)
    try:
        page.goto(big + "en/")
        box = page.locator("#tool-filter")
        box.fill("sql_delete")
        shown = page.evaluate(
            "Array.from(document.querySelectorAll('#tool-nav li[data-filter]')).filter(l => l.offsetParent)"
            ".map(l => l.textContent.trim().split(' ')[0])"
        )
        assert shown and all(name.startswith("sql_delete") for name in shown)
        assert page.locator(".filter-none").is_hidden()
        box.fill("no such tool at all")
        assert page.locator(".filter-none").is_visible()
        box.fill("")
        assert page.locator(".filter-none").is_hidden()
    finally:
        _done(page)


# --------------------------------------------------------------------------- the page head


class _Head(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.meta: dict[str, str] = {}
        self.icon = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "meta" and ("property" in a or "name" in a):
            self.meta[a.get("property") or a["name"]] = a.get("content", "")
        if tag == "link" and a.get("rel") == "icon":
            self.icon = a.get("href", "")


def test_every_page_has_a_favicon_and_link_preview_tags(tmp_path: Path) -> None:
    files, _ = site_files(load_snapshot(SNAPSHOT), demo_config(), renderer=TEMPLATES)
    pages = [path for path in files if path.endswith(".html") and not path.endswith("404.html") and "/" in path]
    assert len(pages) > 20
    for path in pages:
        data = files[path]
        head = _Head()
        head.feed(data.decode("utf-8"))
        assert head.icon.startswith("data:image/svg+xml,"), path
        for key in ("og:title", "og:description", "og:type", "og:site_name", "og:url", "twitter:card"):
            assert head.meta.get(key), f"{path}: {key}"
        assert head.meta["og:url"].startswith("https://teamspace.example/developers/"), path
