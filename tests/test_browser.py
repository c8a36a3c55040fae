"""The demo portal in headless Debian chromium, served by ``generator.commands.serve`` on 127.0.0.1.

Language switching keeps the reader on the same page; no page logs a console error,
fails a request or reaches any other host; at 390 px nothing scrolls sideways; and
screenshots of en and ar tool pages at 1280 and 390 px land in tests/artifacts/ for review.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

import pytest

from generator.commands.build import site_files
from generator.publish.write import publish
from generator.render.i18n import load_catalog
from generator.snapshot.snapshot import load_snapshot
from tests.conftest import TEMPLATES, TESTS, serving
from tests.golden_tool import SNAPSHOT, demo_config

pytestmark = pytest.mark.browser

ARTIFACTS = TESTS / "artifacts"
LOCALES = ("en", "ru", "ar")
TOOLS = [t["name"] for t in load_snapshot(SNAPSHOT).tools]
# One of each kind per locale, plus the root language chooser.
KINDS = ["", *(f"{loc}/{page}" for loc in LOCALES for page in ("", "connecting/", "tools/search_chat/"))]
# Every page of the site.
EVERY_PAGE = [
    "",
    *(f"{loc}/{page}" for loc in LOCALES for page in ("", "connecting/", *(f"tools/{t}/" for t in TOOLS))),
]


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The demo portal, with its search index, built offline from the golden snapshot and served on 127.0.0.1."""
    site = tmp_path_factory.mktemp("browser") / "site"
    files, _ = site_files(load_snapshot(SNAPSHOT), replace(demo_config(), search=True), renderer=TEMPLATES)
    publish(site, files)
    with serving(site) as url:
        yield url


@pytest.fixture
def desktop(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture(scope="module")
def phone(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1)
    try:
        yield context.new_page()
    finally:
        context.close()


def _same_page(base_url: str, directory: str) -> Any:
    """A URL predicate: the page *directory*, with or without the explicit ``index.html`` the links name."""
    return lambda url: url in (base_url + directory, base_url + directory + "index.html")


def _html_attr(page: Any, name: str) -> str | None:
    value: str | None = page.locator("html").get_attribute(name)
    return value


def test_switching_language_keeps_the_page(desktop: Any, base_url: str) -> None:
    page = desktop
    page.goto(base_url + "en/tools/search_chat/")
    assert _html_attr(page, "lang") == "en"
    langs = page.locator("header nav.langs")

    langs.get_by_role("link", name="Русский", exact=True).click()
    page.wait_for_url(_same_page(base_url, "ru/tools/search_chat/"), timeout=5000)
    assert _html_attr(page, "lang") == "ru"
    assert _html_attr(page, "dir") == "ltr"
    assert langs.locator("a[aria-current=page]").inner_text() == "Русский"

    langs.get_by_role("link", name="العربية", exact=True).click()
    page.wait_for_url(_same_page(base_url, "ar/tools/search_chat/"), timeout=5000)
    assert _html_attr(page, "lang") == "ar"
    assert _html_attr(page, "dir") == "rtl"
    assert page.evaluate("getComputedStyle(document.body).direction") == "rtl"

    langs.get_by_role("link", name="English", exact=True).click()
    page.wait_for_url(_same_page(base_url, "en/tools/search_chat/"), timeout=5000)
    assert (_html_attr(page, "lang"), _html_attr(page, "dir")) == ("en", "ltr")


def test_root_chooser_leads_to_each_locale(desktop: Any, base_url: str) -> None:
    page = desktop
    page.goto(base_url)
    page.get_by_role("link", name="العربية", exact=True).click()
    page.wait_for_url(_same_page(base_url, "ar/"), timeout=5000)
    assert _html_attr(page, "dir") == "rtl"


@pytest.mark.parametrize("path", KINDS, ids=lambda p: p or "root")
def test_no_console_errors_failed_or_foreign_requests(browser: Any, base_url: str, path: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    problems: list[str] = []
    hosts: set[str] = set()
    try:
        page = context.new_page()

        def on_console(message: Any) -> None:
            if message.type == "error":
                problems.append(f"console error: {message.text}")

        def on_response(response: Any) -> None:
            if response.status >= 400:
                problems.append(f"HTTP {response.status}: {response.url}")

        page.on("console", on_console)
        page.on("response", on_response)
        page.on("pageerror", lambda e: problems.append(f"uncaught exception: {e}"))
        page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url} ({r.failure})"))
        page.on("request", lambda r: hosts.add(urlsplit(r.url).hostname or r.url))
        response = page.goto(base_url + path, wait_until="load")
        assert response is not None and response.status == 200
        # The stylesheet applied: a failed or mistyped CSS load would leave the default margin.
        assert page.evaluate("getComputedStyle(document.body).marginTop") == "0px"
    finally:
        context.close()
    assert not problems, "\n".join(problems)
    assert hosts == {"127.0.0.1"}, f"requests left 127.0.0.1: {sorted(hosts)}"


@pytest.mark.parametrize("path", EVERY_PAGE, ids=lambda p: p or "root")
def test_no_horizontal_page_overflow_at_390px(phone: Any, base_url: str, path: str) -> None:
    phone.goto(base_url + path)
    # On failure, name the elements that stick out (content inside scroll boxes may, by design).
    widths = phone.evaluate(
        "({scroll: document.documentElement.scrollWidth, inner: innerWidth,"
        " wide: [...document.querySelectorAll('body *')]"
        ".filter(e => { const r = e.getBoundingClientRect();"
        " return r.width && (r.left < -1 || r.right > innerWidth + 1); })"
        ".filter(e => !e.closest('.scroll, pre, .sr-only, .skip'))"
        ".slice(0, 5).map(e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : ''))})"
    )
    assert widths["scroll"] <= widths["inner"] + 1, f"/{path} scrolls sideways at 390 px: {widths}"


@pytest.mark.parametrize("locale", ["en", "ar"])
@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("tool", ["search_chat", "query_research_conversations"])
def test_screenshots_of_tool_pages(browser: Any, base_url: str, locale: str, width: int, tool: str) -> None:
    """Full-page screenshots for a human to look at (tests/artifacts/ is git-ignored)."""
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": width, "height": 900}, device_scale_factor=1)
    try:
        page = context.new_page()
        page.goto(base_url + f"{locale}/tools/{tool}/")
        # Open the schema disclosures so the screenshot shows the long JSON blocks too.
        page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
        target = ARTIFACTS / f"{tool}-{locale}-{width}.png"
        page.screenshot(path=str(target), full_page=True)
    finally:
        context.close()
    assert target.stat().st_size > 10_000


@pytest.mark.parametrize(
    ("locale", "word", "expected"), [("en", "tracker", "file_defect"), ("ru", "archive", "search_chat")]
)
def test_search_finds_a_tool_by_a_word_from_its_description(
    desktop: Any, base_url: str, locale: str, word: str, expected: str
) -> None:
    page = desktop
    page.goto(f"{base_url}{locale}/connecting/")
    page.click(".search-open")
    page.fill("#search-input", word)
    # Results arrive once the index fragments load: wait for the one expected, not the first.
    page.wait_for_selector(f"#search-results a[href*='/{locale}/tools/{expected}/']", timeout=15000)
    links = page.eval_on_selector_all("#search-results a", "els => els.map(e => e.getAttribute('href'))")
    # Each locale searches only its own pages, and a result leads to the section that matched.
    assert all(f"/{locale}/" in link for link in links), links
    assert all("index.html" not in link for link in links), links
    assert "#" in next(link for link in links if f"/tools/{expected}/" in link)
    page.click(f"#search-results a[href*='/{locale}/tools/{expected}/']")
    page.wait_for_url(lambda url: f"/{locale}/tools/{expected}/?highlight=" in url and "#" in url, timeout=5000)
    assert page.locator("h1 code").inner_text() == expected


def test_copy_button_puts_the_code_on_the_clipboard(browser: Any, base_url: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url.rstrip("/"))
    try:
        page = context.new_page()
        page.goto(f"{base_url}en/tools/search_chat/")
        first = page.locator("main .code").first
        first.locator("button.copy").click()
        page.wait_for_function("() => document.querySelector('main .code button.copy').dataset.state === 'copied'")
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied.strip() == first.locator("pre").inner_text().strip()
        # The first code is the call's JSON tab (issue 52): the example's arguments, ready to paste.
        assert "query" in json.loads(copied)
    finally:
        context.close()


def test_sidebar_lists_every_tool_and_filters(desktop: Any, base_url: str) -> None:
    from playwright.sync_api import expect

    page = desktop
    page.goto(f"{base_url}ar/tools/file_defect/")
    names = page.eval_on_selector_all("#tool-nav a", "els => els.map(e => e.textContent)")
    assert names == TOOLS
    assert page.locator("#tool-nav a[aria-current=page]").inner_text() == "file_defect"
    # Each tool's access badge, in the locale's words (nav.js states them once per level).
    badges = page.eval_on_selector_all("#tool-nav .badge", "els => els.map(e => [e.className, e.textContent])")
    arabic = load_catalog("ar")
    levels = [cls.removeprefix("badge badge-") for cls, _ in badges]
    assert len(badges) == len(TOOLS) and {"read-only", "writes", "destructive"} <= set(levels)
    assert badges == [[f"badge badge-{level}", arabic.t(f"access.{level}")] for level in levels]
    page.fill("#tool-filter", "chat")
    # Names and summaries both match (issue 52): workspace_status's summary names the chat component.
    expect(page.locator("#tool-nav li:not([hidden])")).to_have_count(2)  # the summaries load on first use
    visible = page.eval_on_selector_all("#tool-nav li:not([hidden]) a", "els => els.map(e => e.textContent)")
    assert visible == ["search_chat", "workspace_status"]


def test_sidebar_lists_prompts_and_resources_after_the_tools(desktop: Any, base_url: str) -> None:
    from playwright.sync_api import expect

    page = desktop
    page.goto(f"{base_url}ru/resources/handbook/")
    groups = page.eval_on_selector_all(
        "#more-nav .nav-group",
        "els => els.map(e => [e.textContent, [...document.querySelectorAll("
        "'ul[aria-labelledby=\"' + e.id + '\"] a')].map(a => a.textContent)])",
    )
    assert groups == [["Промпты", ["triage_defect"]], ["Ресурсы", ["handbook"]], ["Шаблоны ресурсов", ["document"]]]
    assert page.locator(".sidebar a[aria-current=page]").inner_text() == "handbook"
    page.locator("#more-nav a", has_text="triage_defect").click()
    page.wait_for_url(_same_page(base_url, "ru/prompts/triage_defect/"), timeout=5000)
    # The filter narrows every list; a group left empty hides its label. Summaries match too (issue 52):
    # the handbook's says it covers defects.
    page.fill("#tool-filter", "defect")
    expect(page.locator("#more-nav li:not([hidden])")).to_have_count(2)
    shown = page.eval_on_selector_all(
        "#tool-nav li:not([hidden]) a, #more-nav li:not([hidden]) a", "els => els.map(e => e.textContent)"
    )
    assert shown == ["file_defect", "triage_defect", "handbook"]
    labels = page.eval_on_selector_all("#more-nav .nav-group:not([hidden])", "els => els.map(e => e.textContent)")
    assert labels == ["Промпты", "Ресурсы"]
    page.fill("#tool-filter", "")
    assert len(page.eval_on_selector_all("#more-nav .nav-group:not([hidden])", "els => els")) == 3
