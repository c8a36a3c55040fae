"""Templates only lay out: the model decides what a page shows, and one function joins every list.

The HTML pages and their Markdown twins used to compute the same things each (which endpoints
lack a tool, which changes fall in which class, which title to show, how to join a list); those
now live on the model, tested here once, and the shipped templates are checked to join no list
by hand.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path

import pytest
from jinja2 import Environment
from markupsafe import Markup

from generator.config.portal import PortalConfig
from generator.model.access import HINTS, Access, Hint
from generator.model.gather import gather
from generator.model.kinds import PageKind
from generator.model.pages import Page
from generator.model.site import SiteModel
from generator.render.filters import Md
from generator.render.i18n import load_catalog
from generator.render.renderer import Renderer
from generator.resources import data_dir
from generator.snapshot.snapshot import fingerprint, load_snapshot
from tests.golden_tool import SNAPSHOT, demo_config

# ------------------------------------------------------------------------------------ commas


def _render(env: Environment, source: str, locale: str = "en", **values: object) -> str:
    return env.from_string(source).render(L=load_catalog(locale), **values)


@pytest.fixture(scope="module")
def envs() -> tuple[Environment, Environment]:
    renderer = Renderer()
    return renderer.html, renderer.text


def test_commas_joins_with_the_catalog_separator_in_every_locale(envs: tuple[Environment, Environment]) -> None:
    html, text = envs
    # Three items: where Babel's format_list failed (ru, standard-narrow) or added "و" (ar).
    items = ["a", "b", "c"]
    assert _render(html, "{{ xs|commas }}", "en", xs=items) == "a, b, c"
    assert _render(html, "{{ xs|commas }}", "ru", xs=items) == "a, b, c"
    assert _render(html, "{{ xs|commas }}", "ar", xs=items) == "a، b، c"
    assert _render(text, "{{ xs|commas }}", "ar", xs=items) == "a، b، c"
    assert _render(html, "{{ xs|commas }}", "en", xs=["only"]) == "only"


def test_commas_escapes_items_for_html_and_keeps_markup(envs: tuple[Environment, Environment]) -> None:
    html, _ = envs
    out = _render(html, "{{ xs|commas }}", xs=["<b>", Markup("<i>x</i>")])
    assert out == "&lt;b&gt;, <i>x</i>"
    block = '{% call(p) commas(xs) %}<code dir="ltr">{{ p }}</code>{% endcall %}'
    assert _render(html, block, xs=["<s>", "b\u202e"]) == (
        '<code dir="ltr">&lt;s&gt;</code>, <code dir="ltr">b[U+202E]</code>'
    )


def test_commas_escapes_items_as_markdown_text_and_keeps_escaped_ones(envs: tuple[Environment, Environment]) -> None:
    _, text = envs
    assert _render(text, "{{ xs|commas }}", xs=["*x*", "[y](z)"]) == "\\*x\\*, \\[y\\](z)"
    assert _render(text, "{{ xs|map('md_code')|commas }}", xs=["a|b", "c"]) == "`a|b`, `c`"
    assert _render(text, "{{ xs|map('md_cell_code')|commas }}", xs=["a|b"]) == "`a\\|b`"
    block = "{% call(p) commas(xs) %}[{{ p }}](x.md){% endcall %}"
    assert _render(text, block, xs=["*a*", "b"]) == "[\\*a\\*](x.md), [b](x.md)"


def test_commas_shows_the_empty_text_escaped(envs: tuple[Environment, Environment]) -> None:
    html, text = envs
    assert _render(html, "{{ xs|commas('none <yet>') }}", xs=[]) == "none &lt;yet&gt;"
    assert _render(html, "{% call(p) commas(xs, 'a<b') %}<i>{{ p }}</i>{% endcall %}", xs=()) == "a&lt;b"
    assert _render(text, "{{ xs|commas('*none*') }}", xs=[]) == "\\*none\\*"
    assert _render(text, "{{ xs|commas(e) }}", xs=[], e=Md("_kept_")) == "_kept_"
    assert _render(html, "{{ xs|commas }}", xs=[]) == ""


def test_no_shipped_template_joins_a_list_by_hand() -> None:
    # The separator is spelled once, in generator.render.filters.commas; a loop that writes it
    # again would bring back the per-template joining this replaced.
    templates = data_dir("templates")
    offenders = [
        str(path.relative_to(templates))
        for path in sorted(templates.rglob("*.j2"))
        if "meta.comma" in path.read_text(encoding="utf-8")
    ]
    assert offenders == []


# ------------------------------------------------------------------------------------ model


@pytest.fixture(scope="module")
def demo() -> SiteModel:
    return gather(load_snapshot(SNAPSHOT), demo_config()).model


def test_access_caveat_names_what_rests_on_spec_defaults() -> None:
    assert Access.from_annotations({}).caveat == "undeclared"
    assert Access.from_annotations({"readOnlyHint": True}).caveat == "partly"
    every = {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
    assert Access.from_annotations(every).caveat is None


@pytest.mark.parametrize("annotations", [None, {}, {"readOnlyHint": 1}, {"title": "T", "destructiveHint": False}])
def test_access_is_shared_by_hints_declared_alike_and_equals_a_fresh_one(annotations: object) -> None:
    """One Access per way of declaring the four hints: what a tool gets is what its hints say, word for word."""
    shared = Access.from_annotations(annotations)
    raw = annotations if isinstance(annotations, dict) else {}
    fresh = Access(
        tuple(
            Hint(name, raw[name] if isinstance(raw.get(name), bool) else default, isinstance(raw.get(name), bool))
            for name, default in HINTS
        )
    )
    assert shared == fresh and shared.level == fresh.level
    assert Access.from_annotations({**raw, "other": [1]}) is shared  # other annotations do not matter
    assert Access.from_annotations({**raw, "readOnlyHint": True}).level == "read-only"


def test_annotation_rows_are_the_four_hints_then_the_others_by_name(demo: SiteModel) -> None:
    tool = replace(
        demo.tools[0], raw={**demo.tools[0].raw, "annotations": {"zeta": 1, "title": "T", "readOnlyHint": False}}
    )
    rows = [(a.name, a.value, a.declared) for a in tool.annotation_rows]
    assert rows == [
        ("readOnlyHint", False, True),
        ("destructiveHint", True, False),
        ("idempotentHint", False, False),
        ("openWorldHint", True, False),
        ("title", "T", True),
        ("zeta", 1, True),
    ]


def test_a_read_only_tool_lists_no_default_that_only_writing_tools_have(demo: SiteModel) -> None:
    """destructiveHint and idempotentHint mean nothing when readOnlyHint is true: their defaults are left out."""
    tool = replace(demo.tools[0], raw={**demo.tools[0].raw, "annotations": {"title": "T", "readOnlyHint": True}})
    rows = [(a.name, a.value, a.declared) for a in tool.annotation_rows]
    assert rows == [("readOnlyHint", True, True), ("openWorldHint", True, False), ("title", "T", True)]


def test_endpoints_listings_and_what_lacks_a_tool(demo: SiteModel) -> None:
    delete = demo.tool_named("delete_document")
    search = demo.tool_named("search_chat")
    assert delete is not None and search is not None
    assert [e.name for e in demo.endpoints_without(delete)] == ["readonly"]
    assert demo.endpoints_without(search) == ()
    # The readonly profile lists search_chat differently (the demo caps `limit` lower there).
    assert [(e.name, differs) for e, differs in search.listings] == [
        ("stdio", False),
        ("http", False),
        ("readonly", True),
    ]
    assert demo.offers_every_tool(demo.endpoints[0]) and not demo.offers_every_tool(demo.endpoints[2])
    assert demo.several_profiles


def test_site_facts_the_twins_share(demo: SiteModel) -> None:
    assert [key for key, _ in demo.item_sections] == ["prompts", "resources", "resource_templates"]
    assert demo.api is not None and demo.api_label == f"{demo.api.title} {demo.api.version}"
    assert [key for key, _ in demo.server_facts] == [
        k for k in ("name", "title", "version", "description", "websiteUrl") if demo.server_text(k)
    ]
    assert all(text for _, text in demo.server_facts)
    snippets = demo.snippets(demo.endpoints[0])
    assert snippets and snippets == demo.endpoints[0].snippets(demo.server["name"], True)
    search = demo.tool_named("search_chat")
    assert search is not None
    assert demo.shown_title(search, "en") == search.title
    assert demo.related_to(replace(search, overlay=None)) == ()


def test_page_summary_is_what_the_page_documents_in_a_line(demo: SiteModel) -> None:
    tool, prompt, resource = demo.tools[0], demo.prompts[0], demo.resource_templates[0]
    assert Page.of(tool, "en").summary == tool.summary
    assert Page.of(prompt, "en").summary == (prompt.description or prompt.title or prompt.name)
    bare = replace(resource, raw={"uriTemplate": resource.uri, "name": "n"})
    assert Page.of(bare, "en").summary == resource.uri  # a resource falls back to its URI, not its name
    assert Page(PageKind.INDEX, "en").summary == ""


def test_changes_are_grouped_by_class_and_linked(demo: SiteModel, tmp_path: Path) -> None:
    data = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    old = copy.deepcopy(data)
    old["capability_version"] = "2.3.0"
    old["tools"].append({"name": "legacy_export", "description": "Gone.", "inputSchema": {"type": "object"}})
    for record in old["endpoints"]:
        record["tools"] = [*record["tools"], "legacy_export"]
    old["endpoints"][2].pop("variants", None)  # readonly's search_chat now differs: a change on that endpoint
    old["prompts"][0]["description"] = "older words"
    old["fingerprint"] = fingerprint(old["tools"], old["endpoints"])
    previous = tmp_path / "old.json"
    previous.write_text(json.dumps(old), encoding="utf-8")
    config: PortalConfig = replace(demo_config(), previous=str(previous))
    site = gather(load_snapshot(SNAPSHOT), config).model
    groups = site.change_groups
    assert [cls for cls, _ in groups] == ["breaking", "cosmetic"]
    assert sum(len(rows) for _, rows in groups) == len(site.changes)
    removed = next(c for c in site.changes if c.name == "legacy_export")
    assert site.changed_doc(removed) is None
    prompt = next(c for c in site.changes if c.subject == "prompt")
    assert site.changed_doc(prompt) is site.prompts[0]
    confined = [c for c in site.changes if c.endpoint == "readonly"]
    assert confined and {site.change_endpoint(c) for c in confined} == {"/mcp/readonly/"}
    assert site.change_endpoint(removed) is None
