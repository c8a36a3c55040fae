"""Server text shown inline (summaries, table cells, subtitles, meta descriptions), identifiers
that break only between words, localized type words, and build-time syntax highlighting.

Unit tests of :mod:`generator.render.prose` and :mod:`generator.render.highlight`, then the
same promises checked on the demo portal built from the golden snapshot.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.render.highlight import _CLASSES, MAX_HIGHLIGHTED, highlight, highlight_html
from generator.render.prose import markdown_inline, plain_text, wbr
from generator.snapshot.snapshot import load_snapshot
from generator.text import visible
from tests.conftest import ROOT, TEMPLATES
from tests.golden_tool import SNAPSHOT, golden_files

BLOCK_TAGS = re.compile(r"<(p|h[1-6]|ul|ol|li|blockquote|pre|hr|table|div|img)\b", re.I)
TAG = re.compile(r"<[^>]*>")


def text_of(markup: str) -> str:
    """What a reader sees of an HTML fragment (tags dropped, entities resolved)."""
    return html.unescape(TAG.sub("", markup))


# --------------------------------------------------------------------------- inline CommonMark


def test_code_spans_emphasis_and_links_render_inline() -> None:
    out = markdown_inline("Use `workspace_status` to *check* [the docs](https://example.invalid/a_b).")
    assert out == (
        'Use <code dir="ltr">workspace_status</code> to <em>check</em> '
        '<a href="https://example.invalid/a_b" rel="nofollow noopener noreferrer">the docs</a>.'
    )


@pytest.mark.parametrize(
    "source",
    [
        "# A heading\n\n- a list\n- of items\n\n> a quote\n\n1. one\n\n```\nfenced\n```\n\n    indented\n\n---",
        "para one\n\npara two",
        "<p>raw</p><h1>raw</h1><ul><li>raw</li></ul>",
        "![an image](https://example.invalid/x.png)",
        "Setext\n======",
    ],
)
def test_inline_render_never_makes_a_block_element(source: str) -> None:
    out = markdown_inline(source)
    assert not BLOCK_TAGS.search(out), out
    assert "<img" not in out


@pytest.mark.parametrize(
    "source",
    [
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x](data:text/html;base64,PHNjcmlwdD4=)",
        "[x](vbscript:msgbox(1))",
        "<javascript:alert(1)>",
        "*[x](javascript:alert(1))*",
        "[`x`](javascript:alert(1))",
    ],
)
def test_unsafe_link_targets_stay_text(source: str) -> None:
    out = markdown_inline(source)
    assert "<a" not in out
    assert "href" not in out


@pytest.mark.parametrize(
    "source", ["[x](java&#x09;script:alert(1))", "[x]( java\tscript:alert(1))", "[x](&#106;avascript:1)"]
)
def test_no_link_has_a_script_scheme(source: str) -> None:
    """A tab or an entity inside the scheme leaves either no link or a relative one a browser cannot run."""
    hrefs = re.findall(r'href="([^"]*)"', markdown_inline(source))
    assert [h for h in hrefs if re.match(r"\s*(javascript|vbscript|data):", html.unescape(h), re.I)] == []


def test_raw_html_is_shown_as_text() -> None:
    out = markdown_inline('<script>alert(1)</script> <b onclick="x()">bold</b> <!-- c -->')
    assert "<script" not in out and "<b" not in out and "<!--" not in out
    assert text_of(out) == '<script>alert(1)</script> <b onclick="x()">bold</b> <!-- c -->'


@pytest.mark.parametrize(
    ("source", "code"),
    [
        ("``a `b` c``", "a `b` c"),
        ("``` `` ```", "``"),
        ("`</code><script>alert(1)</script>`", "</code><script>alert(1)</script>"),
        ("`<img src=x onerror=alert(1)>`", "<img src=x onerror=alert(1)>"),
    ],
)
def test_nested_backticks_and_markup_inside_code_spans(source: str, code: str) -> None:
    out = markdown_inline(source)
    assert out.startswith('<code dir="ltr">') and out.endswith("</code>")
    assert out.count("<code") == 1 and "<script" not in out and "<img" not in out
    assert text_of(out) == code


def test_an_unclosed_backtick_stays_a_backtick() -> None:
    assert markdown_inline("a `b c") == "a `b c"


def test_hidden_characters_become_markers_even_from_entities() -> None:
    out = markdown_inline("a \u202e b &#x202e; c `\u200b`")
    assert "\u202e" not in out and "\u200b" not in out
    assert out.count("[U+202E]") == 2 and "[U+200B]" in out


@given(st.text(alphabet="ab _*`[]()<>&\\!\n\"'#-:/.", max_size=40))
def test_the_fast_path_writes_what_markdown_it_writes(source: str) -> None:
    """Text without inline syntax skips the parser; the result must be the parser's, byte for byte."""
    from generator.render.prose import _MD

    expected = visible(_MD.renderInline(visible(source))) if source else ""
    assert markdown_inline(source) == expected


@pytest.mark.parametrize(
    ("source", "plain"),
    [
        ("Search `query` in *every* [chat](https://example.invalid).", "Search query in every chat."),
        ("a\nb\n\nc", "a b c"),
        ("[x](javascript:alert(1))", "[x](javascript:alert(1))"),
        ("&lt;b&gt; \\*not emphasis\\*", "<b> *not emphasis*"),
        ("", ""),
    ],
)
def test_plain_text_strips_markup(source: str, plain: str) -> None:
    assert plain_text(source) == plain


# --------------------------------------------------------------------------- identifiers


@pytest.mark.parametrize(
    ("name", "out"),
    [
        ("workspace_status", "workspace_<wbr>status"),
        ("filters.tags[].name", "filters.<wbr>tags[].<wbr>name"),
        ("get-all__items", '<span class="nw">get-all__</span><wbr>items'),
        ("a/b_c", '<span class="nw">a/b_</span><wbr>c'),
        ("plain", "plain"),
        ("_private", "_<wbr>private"),
        ("trailing_", "trailing_"),
        ("a_<b>&c", "a_<wbr>&lt;b&gt;&amp;c"),
        ("x\u202e_y", "x[U+202E]_<wbr>y"),
    ],
)
def test_wbr_only_after_separators(name: str, out: str) -> None:
    assert wbr(name) == out


# --------------------------------------------------------------------------- highlighting

CSS = (ROOT / "templates" / "static" / "highlight.css").read_text(encoding="utf-8")


@given(st.text(max_size=200), st.sampled_from(["json", "shell", "yaml", "http", "nope"]))
def test_highlighting_keeps_the_text_exactly(text: str, label: str) -> None:
    """What a reader sees (and the copy button copies) is the code, whatever the lexer made of it."""
    highlight_html.cache_clear()
    out = highlight_html(text, label)
    assert text_of(out) == visible(text)
    assert "style=" not in out
    assert set(re.findall(r'class="([^"]*)"', out)) <= set(_CLASSES.values())
    assert re.fullmatch(r"(?:[^<]|<span class=\"[a-z]+\">|</span>)*", out), out


def test_json_block_is_coloured_by_class() -> None:
    out = highlight('{\n  "name": "x</code><script>",\n  "n": -1.5e3,\n  "ok": true,\n  "none": null\n}', "json")
    assert '<span class="nt">"name"</span>' in out
    assert '<span class="s">"x&lt;/code&gt;&lt;script&gt;"</span>' in out
    assert '<span class="m">-1.5e3</span>' in out
    assert '<span class="k">true</span>' in out and '<span class="k">null</span>' in out


def test_shell_and_yaml_blocks() -> None:
    shell = highlight('# add it\nclaude mcp add --header "Authorization: Bearer ${TOKEN}"', "shell")
    assert '<span class="nv">${TOKEN}</span>' in shell and '<span class="c"># add it\n</span>' in shell
    yaml = highlight("openapi: 3.1.0\ninfo:\n  title: 'x' # c\n", "yaml")
    assert '<span class="nt">openapi</span>' in yaml and '<span class="s">&#39;x&#39;</span>' not in yaml


def test_unknown_language_and_huge_blocks_are_plain() -> None:
    assert highlight("<b>", "http") == "&lt;b&gt;"
    big = '{"a": 1}' + " " * MAX_HIGHLIGHTED
    assert "<span" not in highlight(big, "json")


def _luminance(colour: str) -> float:
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_every_colour_meets_wcag_aa_on_the_code_background() -> None:
    pairs = re.findall(r"(--hl-[a-z]+):\s*light-dark\((#[0-9a-f]{6}),\s*(#[0-9a-f]{6})\)", CSS)
    assert len(pairs) >= 7
    for name, light, dark in pairs:
        assert _contrast(light, "#f6f8fa") >= 4.5, f"{name} {light} on #f6f8fa"
        assert _contrast(dark, "#161b22") >= 4.5, f"{name} {dark} on #161b22"


def test_every_emitted_class_has_a_colour() -> None:
    emitted = set(_CLASSES.values())
    assert len(emitted) >= 5
    for css in emitted:
        assert re.search(rf"code\.hl \.{css}\b[^{{]*\{{\s*color: var\(--hl-", CSS) or re.search(
            rf"code\.hl \.{css}\b[^{{]*,[^{{]*\{{\s*color: var\(--hl-", CSS
        ), css


# --------------------------------------------------------------------------- the built demo


@pytest.fixture(scope="module")
def demo() -> dict[str, str]:
    files = golden_files(load_snapshot(SNAPSHOT), TEMPLATES)
    return {path: data.decode("utf-8") for path, data in files.items() if path.endswith(".html")}


def test_no_backticks_leak_into_summaries_or_meta_descriptions(demo: dict[str, str]) -> None:
    index = demo["en/index.html"]
    summaries = re.findall(r'<td dir="auto"[^>]*>(.*?)</td>', index)
    assert summaries and any('<code dir="ltr">' in s for s in summaries)
    assert not any("`" in text_of(s) for s in summaries)
    for path, page in demo.items():
        for content in re.findall(r'<meta name="description" content="([^"]*)"', page):
            assert "`" not in content and "<" not in content, path


def test_field_descriptions_render_code_spans_without_blocks(demo: dict[str, str]) -> None:
    cells = [
        cell
        for path, page in demo.items()
        if "/tools/" in path
        for cell in re.findall(r'<td[^>]*><span dir="auto"[^>]*>(.*?)</span>', page)
    ]
    assert cells
    assert not any(BLOCK_TAGS.search(cell) for cell in cells)


def test_identifiers_carry_break_opportunities(demo: dict[str, str]) -> None:
    assert '<code dir="ltr" class="ident">search_<wbr>chat</code>' in demo["en/index.html"]
    assert '<code dir="ltr" class="ident">since_<wbr>days</code>' in demo["en/tools/search_chat/index.html"]


def test_type_words_are_localized_keywords_are_not(demo: dict[str, str]) -> None:
    rows = {code: demo[f"{code}/tools/workspace_status/index.html"] for code in ("en", "ru", "ar")}
    assert 'array of <code dir="ltr">object</code>' in rows["en"]
    assert 'массив из <code dir="ltr">object</code>' in rows["ru"]
    assert 'مصفوفة من <code dir="ltr">object</code>' in rows["ar"]
    for page in rows.values():
        assert '<code dir="ltr">string</code>' in page
        assert "array of object" not in page


def test_code_blocks_are_highlighted_and_no_page_has_a_style_attribute(demo: dict[str, str]) -> None:
    page = demo["en/tools/search_chat/index.html"]
    assert '<code class="language-json hl">' in page and '<span class="nt">"jsonrpc"</span>' in page
    for path, text in demo.items():
        assert not re.search(r"<[^>]+\sstyle=", text), path


def test_highlight_css_is_a_shipped_asset() -> None:
    assert Path(ROOT / "templates" / "static" / "highlight.css").is_file()
