"""Text already made visible is printed without a second scan, and nothing else is.

``generator.render.shown`` lets ``finalize`` pass a macro's, a block's or a row writer's output as
it is. These tests hold it to two promises: the site is byte for byte what scanning every value at
every level gives (hostile and random server text included), and a value made from a recorded one
(concatenated with server text, say) is scanned like any other.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from jinja2 import DictLoader
from markupsafe import Markup

import generator.render.shown as shown
from generator.commands.build import site_files
from generator.config.portal import PortalConfig
from generator.render.renderer import _environment
from tests.conftest import TEMPLATES
from tests.test_build_properties import CONFIG, HOSTILE_NAMES, TOOLS, snapshot_of

EVIL = "a\u202eb\u200bc\x1b[31m"
SHOWN_EVIL = "a[U+202E]b[U+200B]c[U+001B][31m"


def _scanning_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    """The renderer as it was: every Markup value scanned again wherever it is printed."""
    monkeypatch.setattr(shown, "is_recorded", lambda value: False)
    import generator.render.filters as filters

    monkeypatch.setattr(filters, "is_recorded", lambda value: False)


def _both(
    tools: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch, config: PortalConfig = CONFIG
) -> tuple[dict[str, bytes], dict[str, bytes]]:
    snap = snapshot_of(tools)
    fast, _ = site_files(snap, config, renderer=TEMPLATES)
    with monkeypatch.context() as patch:
        _scanning_everything(patch)
        full, _ = site_files(snap, config, renderer=TEMPLATES)
    return fast, full


def test_a_recorded_value_is_passed_and_anything_made_from_it_is_scanned() -> None:
    shown.forget()
    body = shown.record(Markup("<p>safe</p>"))
    assert shown.finalize_html(body) is body
    equal = Markup("<p>safe</p>")
    assert not shown.is_recorded(equal)  # by identity: an equal string is not vouched for
    assert shown.finalize_html(body + EVIL) == Markup("<p>safe</p>" + SHOWN_EVIL)
    assert shown.finalize_html(Markup(EVIL)) == SHOWN_EVIL
    assert shown.finalize_html(EVIL) == SHOWN_EVIL
    shown.forget()
    assert not shown.is_recorded(body)


def test_macro_and_block_output_is_recorded_and_still_shows_server_text() -> None:
    env = _environment(None, autoescape=True)
    env.loader = DictLoader(
        {
            "base": "{% block main %}{% endblock %}|{{ self.main() }}|{{ self.main() ~ evil }}",
            "page": "{% extends 'base' %}{% macro m(x) %}<b>{{ x }}</b>{% endmacro %}"
            "{% block main %}{{ m(evil) }}{{ m(evil) + evil }}{% endblock %}",
        }
    )
    out = env.get_template("page").render(evil=EVIL)
    one = f"<b>{SHOWN_EVIL}</b><b>{SHOWN_EVIL}</b>{SHOWN_EVIL}"
    assert out == f"{one}|{one}|{one}{SHOWN_EVIL}"
    assert "\u202e" not in out and "\x1b" not in out


def test_the_hostile_names_give_the_same_bytes_as_scanning_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string", "description": EVIL}}, "required": ["q"]}
    tools = [{"name": n, "title": n, "inputSchema": schema, "description": f"{n} {EVIL}"} for n in HOSTILE_NAMES]
    fast, full = _both(tools, monkeypatch, dataclasses.replace(CONFIG, locales=("en", "ru", "ar")))
    assert fast == full
    page = fast["en/tools/" + next(p.split("/")[2] for p in fast if p.startswith("en/tools/")) + "/index.html"]
    assert b"\xe2\x80\xae" not in page  # no raw U+202E on a page


@settings(
    max_examples=6,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@given(tools=TOOLS)
def test_any_tool_list_gives_the_same_bytes_as_scanning_everything(
    tools: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    try:
        fast, full = _both(tools, monkeypatch)
    except Exception as error:  # a list the build rejects is rejected either way
        assert type(error).__name__ == "PortalError"
        return
    assert fast == full


def test_the_record_is_emptied_before_each_page(tmp_path: Path) -> None:
    site_files(snapshot_of([{"name": "t", "inputSchema": {"type": "object"}}]), CONFIG, renderer=TEMPLATES)
    assert len(shown._RECORD) < 200  # one page's values, not the site's
