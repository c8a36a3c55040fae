"""The markup that keeps left-to-right runs in order on right-to-left pages (issue 47), in HTML only.

Each run is an element of its own: a constraint's value and the code a catalog string marks become
``<code dir="ltr">``, a name or version of unknown direction a ``<bdi>``. The Markdown twins keep the
server's bytes and the catalog's words. What a reader sees in a browser is checked by
tests/test_rtl_runs.py; these are the functions that write the markup.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from jinja2 import Environment
from markupsafe import Markup

from generator.render.filters import MarkdownCatalog
from generator.render.i18n import load_catalog
from generator.render.layout import sections, with_toc
from generator.render.renderer import Renderer
from generator.schema.constraints import Constraint


@dataclass
class Row:
    constraints: list[Constraint] = field(default_factory=list)


@pytest.fixture(scope="module")
def envs() -> tuple[Environment, Environment]:
    renderer = Renderer()
    return renderer.html, renderer.text


def _html(env: Environment, source: str, locale: str = "ar", **values: object) -> str:
    catalog = load_catalog(locale)
    return env.from_string(source).render(L=catalog, t=catalog.t, **values)


def _md(env: Environment, source: str, locale: str = "ar", **values: object) -> str:
    catalog = MarkdownCatalog(load_catalog(locale))
    return env.from_string(source).render(L=load_catalog(locale), t=catalog.t, **values)


@pytest.mark.parametrize("locale", ["en", "ru", "ar"])
def test_each_constraint_value_is_a_code_element(envs: tuple[Environment, Environment], locale: str) -> None:
    html, _ = envs
    kinds = [("pattern", "^prj-[0-9]+$"), ("enum", ["minimal", "standard"]), ("minimum", -5), ("deprecated", True)]
    row = Row([Constraint(kind, value) for kind, value in kinds])
    out = _html(html, "{{ constraints(row) }}", locale, row=row)
    assert out.count('<code dir="ltr">') == 3
    assert '<code dir="ltr">&#34;^prj-[0-9]+$&#34;</code>' in out
    assert '<code dir="ltr">[&#34;minimal&#34;, &#34;standard&#34;]</code>' in out
    assert '<code dir="ltr">-5</code>' in out
    assert 'dir="auto"' not in out


def test_a_constraint_value_is_escaped_inside_its_element(envs: tuple[Environment, Environment]) -> None:
    html, _ = envs
    out = _html(html, "{{ constraints(row) }}", row=Row([Constraint("default", "</code><script>x</script>`y`")]))
    assert "<script" not in out and out.count("<code") == 1
    assert "&lt;/code&gt;&lt;script&gt;x&lt;/script&gt;`y`" in out  # a server's backticks are text, not code


def test_the_markdown_twin_keeps_its_code_spans_and_words(envs: tuple[Environment, Environment]) -> None:
    _, text = envs
    row = Row([Constraint("pattern", "^a$"), Constraint("nullable", True)])
    assert _md(text, "{{ constraints(row) }}", "en", row=row) == 'matches `"^a$"` · may be null'


def test_catalog_code_becomes_an_element_in_html_only(envs: tuple[Environment, Environment]) -> None:
    html, text = envs
    out = _html(html, "{{ t_html('trouble.invalid.symptom') }}")
    assert '<code dir="ltr">isError: true</code>' in out and '<code dir="ltr">-32602</code>' in out
    assert "`" not in out
    assert _html(html, "{{ t('trouble.invalid.symptom') }}").count("`") == 0  # attributes, plain text
    twin = _md(text, "{{ t('trouble.invalid.symptom') }}", "en")
    assert twin == (
        "The arguments are refused: a result with isError: true, or a JSON-RPC error such as -32602 or -32603 "
        "(servers differ)"
    )


def test_arguments_are_escaped_unless_markup_and_names_are_isolated(envs: tuple[Environment, Environment]) -> None:
    html, _ = envs
    out = _html(html, "{{ t_html('connecting.endpoint_heading', name=bdi(name)) }}", name="<b>x</b>")
    assert out.endswith("<bdi>&lt;b&gt;x&lt;/b&gt;</bdi>")
    out = _html(html, "{{ t_html('tool.schema_cut', limit='<1>') }}", "en")
    assert "&lt;1&gt;" in out and '<code dir="ltr">--max-schema-bytes</code>' in out
    out = _html(html, "{{ t_code('call.sample', tool=name) }}", name="a`b`")
    assert '<code dir="ltr">a`b`</code>' in out


def test_plural_sentences_isolate_their_arguments(envs: tuple[Environment, Environment]) -> None:
    html, _ = envs
    out = _html(html, "{{ tn_html('changes.tool_notice', 2, version=bdi(v)) }}", "en", v="v1.2-β")
    assert out == "This tool changed since <bdi>v1.2-β</bdi>: 2 changes."


def test_contents_list_headings_that_isolate_a_name() -> None:
    heading = '<div class="hd"><h2 id="e1">Endpoint <bdi>stdio</bdi> on <code dir="ltr">/mcp/</code></h2></div>'
    body = Markup(heading + '<h2 id="a">A</h2><h2 id="b">B</h2>')
    assert sections(body)[0] == ("e1", 'Endpoint <bdi>stdio</bdi> on <code dir="ltr">/mcp/</code>')
    assert '<a href="#e1">Endpoint <bdi>stdio</bdi>' in with_toc(body, "On this page")
    assert sections('<h2 id="x">a <script>b</script></h2>') == []  # only our own isolating elements
