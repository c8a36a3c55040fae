"""Unit tests of the small pure pieces: slugs, filters, text safety, config validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.config.portal import load_config
from generator.errors import ConfigError
from generator.model.pages import relative
from generator.render.filters import markdown, md_cell, md_code, md_text, safe_link, yaml_str
from generator.slugs import assign_slugs
from generator.text import json_block, visible


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["search_chat", "a.b-c"], ["search_chat", "a.b-c"]),
        (["Tool", "tool"], ["Tool", None]),  # case-insensitive clash: the second is hashed
    ],
)
def test_plain_names_are_their_own_slugs(names: list[str], expected: list[str | None]) -> None:
    slugs = assign_slugs(names)
    assert len(slugs) == len(names)
    for name, want in zip(names, expected, strict=True):
        if want is None:
            assert slugs[name] != name and slugs[name].startswith(name.lower()[:3])
        else:
            assert slugs[name] == want


@pytest.mark.parametrize(
    "name",
    [
        "../../etc/passwd",
        "/abs/path",
        "..",
        ".",
        "a\x00b",
        "CON",
        "nul.txt",
        "x" * 300,
        "tool.",
        "-rf",
        "имя инструмента",
        "a/b",
        "a\\b",
        "llms.txt\n",
    ],
)
def test_unsafe_names_get_safe_unique_slugs(name: str) -> None:
    slug = assign_slugs([name])[name]
    assert slug != name
    assert all(c.isascii() and (c.isalnum() or c in "_-.") for c in slug)
    assert len(slug) <= 60
    assert slug not in (".", "..")
    assert assign_slugs([name]) == {name: slug}  # deterministic


def test_slugs_are_unique_across_normalization() -> None:
    names = ["café", "cafe\u0301", "Tool", "tool", "TOOL"]
    slugs = assign_slugs(names)
    folded = {s.casefold() for s in slugs.values()}
    assert len(folded) == len(names)


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://x.y", True),
        ("http://x", True),
        ("mailto:a@b", True),
        ("../rel", True),
        ("#frag", True),
        ("javascript:alert(1)", False),
        ("JaVaScRiPt:alert(1)", False),
        ("java\tscript:alert(1)", False),
        ("data:text/html,x", False),
        ("vbscript:x", False),
        ("file:///etc/passwd", False),
    ],
)
def test_safe_link(url: str, ok: bool) -> None:
    assert safe_link(url) is ok


def test_markdown_shows_raw_html_as_text_and_drops_unsafe_links() -> None:
    html = markdown(
        "<script>alert(1)</script> [x](javascript:alert(1)) [y](https://ok.example) ![i](https://t.example/p.png)"
    )
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'href="javascript' not in html
    assert 'href="https://ok.example"' in html
    assert "<img" not in html


def test_markdown_demotes_headings() -> None:
    assert "<h1>" not in markdown("# Big\ntext")


@pytest.mark.parametrize(
    ("value", "expected"),
    # Text an escape would change is a code span: the server's bytes, but the pipe GFM needs escaped.
    [("a|b", "a\\|b"), ("line1\nline2", "line1 line2"), ("<b>", "`<b>`"), ("x\u202ey", "`x[U+202E]y`")],
)
def test_md_cell(value: str, expected: str) -> None:
    assert md_cell(value) == expected


@pytest.mark.parametrize(("value", "expected"), [("a", "`a`"), ("a`b", "``a`b``"), ("`x", "`` `x ``")])
def test_md_code(value: str, expected: str) -> None:
    assert md_code(value) == expected


def test_md_text_escapes_markup_but_keeps_snake_case() -> None:
    assert md_text("search_chat") == "search_chat"
    assert md_text("*bold* [link](x) _em_") == "\\*bold\\* \\[link\\](x) \\_em\\_"


def test_yaml_str_round_trips() -> None:
    import yaml

    for value in ['a "quoted": value', "multi\nline", "back\\slash", "# not a comment"]:
        assert yaml.safe_load(f"k: {yaml_str(value)}")["k"] == value


def test_hidden_characters_become_visible() -> None:
    assert visible("abc\u202edef\u2066") == "abc[U+202E]def[U+2066]"
    assert "\u202e" not in json_block({"k": "a\u202eb"}) and "\\u202e" in json_block({"k": "a\u202eb"})


@pytest.mark.parametrize(
    ("src", "dst", "expected"),
    [
        ("en/tools/x/index.html", "en/index.html", "../../index.html"),
        ("en/index.html", "ru/index.html", "../ru/index.html"),
        ("index.html", "en/index.html", "en/index.html"),
    ],
)
def test_relative_links(src: str, dst: str, expected: str) -> None:
    assert relative(src, dst) == expected


def test_config_collects_every_problem(tmp_path: Path) -> None:
    path = tmp_path / "portal.yaml"
    path.write_text("title: 5\ncolour: red\nserver: {stdio: x, url: http://y}\nlimits: {max_pages: -1}\n", "utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = info.value.message
    for key in ("`title`", "`colour`", "`server`", "`limits.max_pages`"):
        assert key in message


def test_config_reads_a_full_file(tmp_path: Path) -> None:
    path = tmp_path / "portal.yaml"
    path.write_text(
        "title: Acme\nbase_url: https://docs.acme.dev/mcp\nlocales: [en, ar]\n"
        "endpoints:\n"
        "  - {name: full, url: 'http://127.0.0.1:1/mcp/', headers: {Authorization: 'Bearer ${TOKEN}'}}\n"
        "  - {name: readonly, url: 'http://127.0.0.1:1/mcp/ro/', public: 'https://api.acme.dev/mcp/ro/'}\n"
        "capability_version: 'meta:com.acme/v'\nlimits: {request_timeout: 5, max_tools: 10}\n",
        "utf-8",
    )
    config = load_config(path)
    assert config.base_url == "https://docs.acme.dev/mcp/"
    assert config.locales == ("en", "ar")
    full, readonly = config.connections
    assert full.headers == (("Authorization", "Bearer ${TOKEN}"),) and full.profile == "full"
    assert readonly.public_endpoint() == "https://api.acme.dev/mcp/ro/" and readonly.name == "readonly"
    assert config.limits.request_timeout == 5 and config.limits.max_tools == 10


@pytest.mark.parametrize(
    ("src", "shown"),
    [
        ("data:image/png;base64,iVBORw0KGgo=", True),
        ("data:image/webp;base64,UklGRg==", True),
        ("data:image/svg+xml;base64,PHN2Zz4=", False),
        ("data:image/png,<script>", False),
        ("https://example.com/icon.png", False),
        ("javascript:alert(1)", False),
        ("data:image/png;base64," + "A" * 70000, False),
    ],
)
def test_only_small_embedded_raster_icons_are_shown(src: str, shown: bool) -> None:
    from generator.model.tool import ToolDoc

    tool = ToolDoc(name="t", slug="t", raw={"name": "t", "icons": [{"src": src}]}, endpoints=())
    assert (tool.icon == src) is shown
