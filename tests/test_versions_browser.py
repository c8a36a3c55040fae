"""A versioned site in Debian's chromium: the version switcher, the "not the newest" banner, and axe.

The four versions of tests/history_fixture.py are published into one site, served on 127.0.0.1.
Each case runs in en, ru and ar (right to left), in the light and the dark colour scheme, at 1280 and
390 px, and takes a screenshot of the banner and the open switcher (into the directory named by
``MCP_PORTAL_SCREENSHOTS`` when it is set, to look at them; else the test's temporary directory).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import serving
from tests.history_fixture import ADDED, publish_all
from tests.test_accessibility import BLOCKING, _describe, _violations_here

pytestmark = pytest.mark.browser

LOCALES = ("en", "ru", "ar")
VIEWS = [(scheme, width) for scheme in ("light", "dark") for width in (1280, 390)]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The versioned demo, published before the browser starts (the builds run in this thread)."""
    tmp = tmp_path_factory.mktemp("versions-browser")
    publish_all(tmp / "site", tmp / "snapshots")
    with serving(tmp / "site") as url:
        yield url


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = os.environ.get("MCP_PORTAL_SCREENSHOTS")
    directory = Path(where) if where else tmp_path_factory.mktemp("screenshots")
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def _viewport(width: int) -> dict[str, int]:
    return {"width": width, "height": 844 if width < 600 else 900}


@pytest.fixture(scope="module")
def tab(browser: Any) -> Iterator[Any]:
    """The one page the module's tests with JavaScript share: a new page would start a renderer process
    (about a quarter of a second of a core). The switcher stores nothing, so a test needs only its
    viewport and colour scheme set (:func:`_page`)."""
    context = browser.new_context(bypass_csp=True)  # axe is injected as an inline script
    try:
        yield context.new_page()
    finally:
        context.close()


def _page(tab: Any, scheme: str, width: int) -> Any:
    """*tab*, blank, at *width* in *scheme*."""
    tab.goto("about:blank")
    tab.set_viewport_size(_viewport(width))
    tab.emulate_media(media="no-override", color_scheme=scheme)
    return tab


def _rules(scheme: str) -> list[str] | None:
    """The axe rules to run: all of them in the light scheme; in the dark one only contrast, the one thing
    its palette changes (no box moves: tests/test_first_screen.py)."""
    return ["color-contrast"] if scheme == "dark" else None


def _shoot(page: Any, shots: Path, name: str) -> None:
    path = shots / f"{name}.png"
    page.screenshot(path=str(path))
    assert path.stat().st_size > 10_000


@pytest.mark.parametrize(("scheme", "width"), VIEWS)
@pytest.mark.parametrize("locale", LOCALES)
def test_an_older_version_says_so_and_the_switcher_goes_to_the_same_page(
    served: str, tab: Any, shots: Path, locale: str, scheme: str, width: int
) -> None:
    page = _page(tab, scheme, width)
    page.goto(f"{served}1.2.0/{locale}/tools/search_chat/")
    banner = page.locator(".version-banner")
    banner.wait_for(state="visible", timeout=10_000)
    versions = banner.locator("bdi[dir=ltr]").all_inner_texts()
    assert versions[:2] == ["1.2.0", "2.0.0"] and "2.0.0" in versions[2]  # the sentence, then its link
    assert page.evaluate("document.documentElement.dir") == ("rtl" if locale == "ar" else "ltr")
    _shoot(page, shots, f"banner-{locale}-{scheme}-{width}")
    page.locator("details.versions-menu summary").click()
    items = page.locator(".versions-pop li a")
    assert items.count() == 5  # four versions and "all versions"
    assert page.locator('.versions-pop a[aria-current="page"]').inner_text() == "1.2.0"
    blocking = [v for v in _violations_here(page, _rules(scheme)) if v["impact"] in BLOCKING]
    assert not blocking, f"axe-core, {locale} {scheme} {width}px, banner and switcher open:\n" + _describe(blocking)
    _shoot(page, shots, f"switcher-{locale}-{scheme}-{width}")
    page.locator(".versions-pop a", has_text="1.1.0").click()
    page.wait_for_url(f"**/1.1.0/{locale}/tools/search_chat/**")
    assert page.locator("h1 code").first.inner_text() == "search_chat"


@pytest.mark.parametrize(("scheme", "width"), VIEWS)
@pytest.mark.parametrize("locale", LOCALES)
def test_a_page_missing_in_the_chosen_version_says_so_and_offers_the_nearest(
    served: str, tab: Any, shots: Path, locale: str, scheme: str, width: int
) -> None:
    page = _page(tab, scheme, width)
    page.goto(f"{served}2.0.0/{locale}/tools/{ADDED}/")
    page.locator("details.versions-menu summary").click()
    assert not page.locator(".version-banner").is_visible()  # the newest version has no banner
    page.locator(".versions-pop a", has_text="1.0.0").click()
    note = page.locator(".versions-note")
    note.wait_for(state="visible", timeout=10_000)
    assert "1.0.0" in note.inner_text() and page.url.endswith(f"/2.0.0/{locale}/tools/{ADDED}/")
    blocking = [v for v in _violations_here(page, _rules(scheme)) if v["impact"] in BLOCKING]
    assert not blocking, f"axe-core, {locale} {scheme} {width}px, the missing-page note:\n" + _describe(blocking)
    _shoot(page, shots, f"missing-{locale}-{scheme}-{width}")
    note.locator("a").click()
    page.wait_for_url(f"**/1.0.0/{locale}/")


def test_latest_leads_to_the_newest_version(served: str, tab: Any) -> None:
    page = _page(tab, "light", 1280)
    page.goto(f"{served}latest/ar/tools/search_chat/")
    page.wait_for_url("**/2.0.0/ar/tools/search_chat/index.html")
    page.locator("details.versions-menu").wait_for()


@pytest.mark.parametrize("locale", LOCALES)
def test_without_javascript_the_switcher_is_a_link_to_every_version(served: str, browser: Any, locale: str) -> None:
    page = browser.new_context(viewport=_viewport(390), java_script_enabled=False).new_page()
    try:
        page.goto(f"{served}1.1.0/{locale}/tools/search_chat/")
        link = page.locator("nav.versions a.versions-link")
        assert link.is_visible() and "1.1.0" in link.inner_text()
        assert not page.locator(".version-banner").is_visible()
        link.click()
        page.wait_for_url(f"{served}index.html")
        assert page.locator("table.versions-table tbody tr").count() == 4
    finally:
        page.context.close()


@pytest.mark.parametrize("scheme", ("light", "dark"))
@pytest.mark.parametrize("path", ["", "2.0.0/ar/history/", "2.0.0/en/tools/delete_document/", "latest/en/index.html"])
def test_the_new_pages_have_no_serious_axe_violations(served: str, tab: Any, path: str, scheme: str) -> None:
    page = _page(tab, scheme, 1280)
    page.goto(served + path)
    page.wait_for_load_state("networkidle")
    blocking = [v for v in _violations_here(page, _rules(scheme)) if v["impact"] in BLOCKING]
    assert not blocking, f"axe-core on /{path} ({scheme}):\n" + _describe(blocking)
