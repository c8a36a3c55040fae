"""axe-core in headless Debian chromium: no serious or critical violations on the demo portal.

Pages are served by ``generator.commands.serve`` on 127.0.0.1 and checked in en, ru and ar (rtl),
in the light and the dark colour scheme (contrast is checked against each palette).
One browser and one server serve the whole module.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest

from generator.commands.build import site_files
from generator.publish.write import publish
from generator.snapshot.snapshot import load_snapshot
from tests.conftest import TEMPLATES, TESTS, serving
from tests.golden_tool import SKIP, SNAPSHOT, demo_config

pytestmark = pytest.mark.browser

AXE = TESTS / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")
PAGES = [
    "",  # the root language chooser
    *(
        f"{locale}/{page}"
        for locale in ("en", "ru", "ar")
        for page in (
            "",
            "connecting/",
            "tools/search_chat/",
            "tools/query_research_conversations/",
            "prompts/triage_defect/",
            "resource-templates/document/",
            "api/",
            "readiness/",
        )
    ),
]


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The demo portal (built offline from the golden snapshot, with its Agent readiness page) served on a
    free port of 127.0.0.1."""
    site = tmp_path_factory.mktemp("axe") / "site"
    files, _ = site_files(
        load_snapshot(SNAPSHOT), dataclasses.replace(demo_config(), lint_page=True), renderer=TEMPLATES
    )
    publish(site, {path: data for path, data in files.items() if path not in SKIP})
    with serving(site) as url:
        yield url


@pytest.fixture(scope="module")
def light(browser: Any) -> Iterator[Any]:
    # bypass_csp: the pages forbid inline script, and axe is injected as one (the pages themselves keep the CSP).
    context = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme="light", bypass_csp=True)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture(scope="module")
def dark(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme="dark", bypass_csp=True)
    try:
        yield context.new_page()
    finally:
        context.close()


def _describe(violations: list[dict[str, Any]]) -> str:
    lines = []
    for v in violations:
        lines.append(f"[{v['impact']}] {v['id']}: {v['help']} ({v['helpUrl']})")
        for node in v["nodes"][:5]:
            lines.append(f"    {' '.join(map(str, node['target']))}: {node['failureSummary'].splitlines()[-1].strip()}")
    return "\n".join(lines)


def _violations(page: Any, url: str, rules: list[str] | None = None) -> list[dict[str, Any]]:
    response = page.goto(url)
    assert response is not None and response.status == 200, url
    return _violations_here(page, rules)


def _violations_here(page: Any, rules: list[str] | None = None) -> list[dict[str, Any]]:
    """axe on the page as it is now (a drawer or dialog open, a theme chosen)."""
    page.add_script_tag(path=str(AXE))
    options: dict[str, Any] = {"resultTypes": ["violations"]}
    if rules:
        options["runOnly"] = {"type": "rule", "values": rules}
    violations: list[dict[str, Any]] = page.evaluate(
        "async (options) => (await axe.run(document, options)).violations"
        ".map(v => ({id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,"
        " nodes: v.nodes.map(n => ({target: n.target, failureSummary: n.failureSummary || ''}))}))",
        options,
    )
    return [v for v in violations if v["impact"] in BLOCKING]


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p or "root")
def test_no_serious_or_critical_axe_violations(light: Any, base_url: str, path: str) -> None:
    blocking = _violations(light, base_url + path)
    assert not blocking, f"axe-core on /{path} (light scheme):\n" + _describe(blocking)


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p or "root")
def test_dark_scheme_has_enough_contrast(dark: Any, base_url: str, path: str) -> None:
    # The stylesheet has a second palette for prefers-color-scheme: dark; only contrast depends on it.
    blocking = _violations(dark, base_url + path, rules=["color-contrast"])
    assert not blocking, f"axe-core on /{path} (dark scheme):\n" + _describe(blocking)


@pytest.mark.parametrize("scheme", ("light", "dark"))
@pytest.mark.parametrize("locale", ("en", "ar"))
def test_the_open_phone_drawer_has_no_violations(browser: Any, base_url: str, locale: str, scheme: str) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme, bypass_csp=True)
    try:
        page = context.new_page()
        page.goto(f"{base_url}{locale}/tools/search_chat/")
        page.locator("header.top .menu-open").click()
        assert page.locator("#sidebar").get_attribute("aria-modal") == "true"
        blocking = _violations_here(page)
        assert not blocking, f"axe-core with the {locale} drawer open ({scheme}):\n" + _describe(blocking)
    finally:
        context.close()


@pytest.mark.parametrize("path", ["en/tools/search_chat/", "ar/connecting/"])
def test_the_dark_theme_chosen_on_a_light_system_has_enough_contrast(browser: Any, base_url: str, path: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme="light", bypass_csp=True)
    try:
        page = context.new_page()
        page.goto(base_url + path)
        toggle = page.locator("header.top .theme-toggle")
        toggle.click()
        toggle.click()
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        blocking = _violations_here(page, rules=["color-contrast"])
        assert not blocking, f"axe-core on /{path} (dark theme chosen):\n" + _describe(blocking)
    finally:
        context.close()
