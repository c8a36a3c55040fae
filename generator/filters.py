"""Jinja filters: each a plain function, tested on its own.

Server text reaches templates only through these and through autoescape, so
this module and ``text.py`` are where untrusted strings are made safe.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from markdown_it import MarkdownIt
from markupsafe import Markup, escape

from generator.text import json_inline, visible

SAFE_SCHEMES = ("http", "https", "mailto")


def safe_link(url: str) -> bool:
    """Links from server text may be http(s), mailto or relative; nothing else (no javascript:, data:)."""
    cleaned = re.sub(r"[\x00-\x20\x7f]", "", url)
    scheme = urlsplit(cleaned).scheme.lower()
    return scheme == "" or scheme in SAFE_SCHEMES


def _markdown_renderer() -> MarkdownIt:
    # CommonMark with raw HTML off: tags in a description are shown as text.
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.validateLink = safe_link  # type: ignore[method-assign]
    # A server's image would be a request to another host; show it as a link instead.
    md.disable("image")
    md.add_render_rule("link_open", _link_open)
    return md


def _link_open(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    tokens[idx].attrSet("rel", "nofollow noopener noreferrer")
    return str(self.renderToken(tokens, idx, options, env))


_MD = _markdown_renderer()


def markdown(text: str | None) -> Markup:
    """Render untrusted CommonMark to HTML with raw HTML, images and unsafe links disabled."""
    if not text:
        return Markup("")
    # Headings inside a description would break the page outline; demote them to paragraphs.
    tokens = _MD.parse(visible(text))
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = "p"
            token.markup = ""
    return Markup(_MD.renderer.render(tokens, _MD.options, {}))


def md_cell(value: Any) -> str:
    """Text safe inside a Markdown table cell: one line, pipes and HTML escaped."""
    text = visible(str(value))
    text = text.replace("\\", "\\\\").replace("|", "\\|")
    # Only "<" can open raw HTML; escaping more would put entities in front of LLM readers.
    text = text.replace("<", "&lt;")
    return re.sub(r"\s*\n\s*", " ", text).strip()


def md_code(value: Any) -> str:
    """Inline code span that survives any backticks inside the value."""
    text = re.sub(r"\s*\n\s*", " ", visible(str(value)))
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_cell_code(value: Any) -> str:
    """An inline code span inside a table cell: GFM needs its pipes escaped even there."""
    return md_code(value).replace("|", "\\|")


def md_fence(text: str, info: str = "") -> str:
    """A fenced code block longer than any backtick run inside *text*."""
    longest = max((len(m) for m in re.findall(r"`{3,}", text)), default=2)
    fence = "`" * (longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def md_text(value: Any) -> str:
    """One line of untrusted text for running Markdown prose: no HTML, no structure."""
    text = md_cell(value)
    # Characters that would start emphasis, links or headings are escaped, so the text stays text.
    # Intraword underscores (snake_case names) cannot start emphasis, so they stay readable.
    text = re.sub(r"([*\[\]`])", r"\\\1", text)
    text = re.sub(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])", r"\\_", text)
    return re.sub(r"^([#+-])", r"\\\1", text)


def yaml_str(value: Any) -> str:
    """A double-quoted YAML scalar (front matter), safe for any input."""
    text = visible(str(value)).replace("\\", "\\\\").replace('"', '\\"')
    text = re.sub(r"\s*\n\s*", " ", text)
    return f'"{text}"'


def inline_json(value: Any) -> str:
    return json_inline(value)


def html_json(value: Any) -> Markup:
    """JSON for HTML, escaped (autoescape does not apply to Markup we build)."""
    return Markup(escape(json_inline(value)))


FILTERS = {
    "markdown": markdown,
    "md_cell": md_cell,
    "md_code": md_code,
    "md_cell_code": md_cell_code,
    "md_fence": md_fence,
    "md_text": md_text,
    "yaml_str": yaml_str,
    "json": inline_json,
    "visible": visible,
}
