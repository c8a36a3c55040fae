"""The Try it form in Debian's chromium: a field for every kind of schema, folds, the JSON toggle, the
check's messages under their fields in the page's language, the keyboard path, the phone, light and dark.

One site is built from a snapshot whose tool takes every kind of argument the form shows (an enum, a
boolean, bounded numbers, a string, an array, a nested object, a required field). Nothing here is sent:
the calls themselves are tests/test_try_it_browser.py's, against the real demo.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from generator.commands.build import site_files
from generator.config.portal import PortalConfig
from generator.publish.write import publish
from generator.snapshot.snapshot import new_snapshot
from tests.conftest import TEMPLATES, serving
from tests.test_accessibility import _describe, _violations_here

pytestmark = pytest.mark.browser

SCHEMA = {
    "type": "object",
    "properties": {
        "mode": {"type": "string", "enum": ["fast", "thorough"], "description": "How hard to look."},
        "archived": {"type": "boolean", "description": "Also look in archived rooms."},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50, "description": "Results per page."},
        "query": {"type": "string", "minLength": 2, "description": "Words to look for."},
        "rooms": {"type": "array", "items": {"type": "string"}, "description": "Rooms to search."},
        "window": {
            "type": "object",
            "description": "When the messages were posted.",
            "properties": {
                "days": {"type": "integer", "minimum": 1, "description": "The last N days."},
                "until": {"type": "string", "description": "The last day."},
            },
        },
    },
    "required": ["query", "mode"],
}
TOOL = {
    "name": "find_messages",
    "description": "Finds messages in the rooms you can read.",
    "annotations": {"readOnlyHint": True},
    "inputSchema": SCHEMA,
}
MESSAGES = {
    "en": "arguments.limit: must be at most 50",
    "ru": "arguments.limit: не больше 50",
    "ar": "يجب ألا تزيد على 50",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    snapshot = new_snapshot(
        protocol_version="2026-07-28",
        server={"name": "rooms", "version": "1.0.0"},
        tools=(TOOL,),
        capability_version="1.0.0",
        transport="streamable-http",
        endpoint="http://127.0.0.1:9/mcp",
    )
    files, _ = site_files(snapshot, PortalConfig(search=False, try_it=True), renderer=TEMPLATES)
    root = tmp_path_factory.mktemp("try-form") / "site"
    publish(root, files)
    with serving(root) as url:
        yield url


def _open(browser: Any, url: str, *, width: int = 1280, height: int = 800, scheme: str = "light") -> Any:
    page = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme).new_page()
    page.goto(url)
    page.click("label[for=call-try]")
    return page


def test_every_kind_of_argument_has_its_field(browser: Any, site: str) -> None:
    page = _open(browser, site + "en/tools/find_messages/")
    try:
        form = page.locator(".try-fields")
        assert form.locator("select#" + page.get_attribute("label:has(code:text-is('mode'))", "for")).count() == 1
        options = page.eval_on_selector_all(".try-enum select option", "os => os.map(o => o.textContent)")
        assert [o for o in options if o in ("fast", "thorough")] == ["fast", "thorough"], options
        assert form.locator("input[role=switch]").count() == 1
        limit = page.get_by_label("limit")
        assert (limit.get_attribute("type"), limit.get_attribute("min"), limit.get_attribute("max")) == (
            "number",
            "1",
            "50",
        )
        assert page.get_by_label("query").get_attribute("aria-required") == "true"
        assert form.locator(".req").count() == 2  # query and mode are marked required
        folds = form.locator("details.try-group")
        assert folds.count() == 2  # rooms (an array) and window (a nested object)
        # The array's fold opens, takes an item, and the JSON toggle shows what the fields say.
        rooms = folds.filter(has=page.locator("summary code", has_text="rooms"))
        rooms.locator("summary").click()
        rooms.locator(".try-add").click()
        page.keyboard.type("#release")
        window = folds.filter(has=page.locator("summary code", has_text="window"))
        window.locator("summary").click()
        window.get_by_label("days").fill("7")
        page.get_by_label("query").fill("timeout")
        page.select_option(".try-enum select", "thorough")
        page.locator("input[role=switch]").check()
        page.click(".try-mode")
        arguments = page.evaluate("JSON.parse(document.getElementById('try-args').value)")
        assert arguments["rooms"] == ["#release"] and arguments["window"] == {"days": 7}
        assert arguments["query"] == "timeout" and arguments["mode"] == "thorough" and arguments["archived"] is True
        # And back: the fields are made again from the JSON, as edited.
        page.fill("#try-args", '{"query": "x", "mode": "fast", "limit": 3}')
        page.click(".try-mode")
        assert page.get_by_label("limit").input_value() == "3"
        assert page.locator("input[role=switch]").is_checked() is False
    finally:
        page.context.close()


@pytest.mark.parametrize("locale", ["en", "ru", "ar"])
def test_a_problem_is_shown_under_its_field_in_the_page_s_language(browser: Any, site: str, locale: str) -> None:
    from playwright.sync_api import expect

    page = _open(browser, f"{site}{locale}/tools/find_messages/")
    try:
        page.get_by_label("limit").fill("500")
        field = page.locator(".try-field", has=page.get_by_label("limit"))
        expect(field.locator(".try-msg")).to_contain_text(MESSAGES[locale])
        assert page.get_by_label("limit").get_attribute("aria-invalid") == "true"
        assert page.locator(".try-msg:not(:empty)").count() == 1  # under that field only
        page.get_by_label("limit").fill("5")
        expect(field.locator(".try-msg")).to_be_empty()
    finally:
        page.context.close()


def test_the_first_field_is_one_tab_and_enter_away(browser: Any, site: str) -> None:
    """From the top of the page: Tab reaches "Skip to Try it" (after the skip to the content), Enter puts
    the cursor in the form's first field; at most 10 presses in all."""
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    try:
        page.goto(site + "en/tools/find_messages/")
        presses = 0
        while presses < 10 and "skip-try" not in (page.evaluate("document.activeElement.className") or ""):
            page.keyboard.press("Tab")
            presses += 1
        assert "skip-try" in page.evaluate("document.activeElement.className"), presses
        page.keyboard.press("Enter")
        presses += 1
        assert presses <= 10
        assert page.evaluate("document.activeElement.closest('.try-fields') !== null")
    finally:
        page.context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("locale", ["en", "ru", "ar"])
def test_the_form_fits_a_phone_and_axe_finds_nothing_serious(browser: Any, site: str, locale: str, scheme: str) -> None:
    page = _open(browser, f"{site}{locale}/tools/find_messages/", width=390, height=844, scheme=scheme)
    try:
        page.locator("details.try-group summary").first.click()
        page.get_by_label("limit").fill("500")  # a message under a field, too
        page.wait_for_selector(".try-msg:not(:empty)")
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"the page scrolls sideways by {overflow} px"
        form = page.locator(".try-form").bounding_box()
        assert form is not None and form["x"] >= 0 and form["x"] + form["width"] <= 390
        page.context.close()
        context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme, bypass_csp=True)
        page = context.new_page()
        page.goto(f"{site}{locale}/tools/find_messages/")
        page.click("label[for=call-try]")
        page.get_by_label("limit").fill("500")
        page.wait_for_selector(".try-msg:not(:empty)")
        blocking = _violations_here(page)
        assert not blocking, f"axe-core on the form ({locale}, {scheme}):\n" + _describe(blocking)
    finally:
        page.context.close()
