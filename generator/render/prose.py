"""A server's CommonMark in HTML: as blocks, inline, or as plain text; and breakable identifiers.

One sanitizer for all three: markdown-it in CommonMark mode with raw HTML off (tags are shown
as text), images off (a server's image would be a request to another host) and links limited
to http, https, mailto and relative targets (:func:`safe_link`), each with
``rel="nofollow noopener noreferrer"``.

- :func:`markdown`: a description as blocks (paragraphs, lists, code blocks), headings demoted.
- :func:`markdown_inline`: one string in a table cell, a summary or a subtitle: code spans,
  emphasis and links only.  Block syntax is not parsed at all (``# x`` stays ``# x``), so a
  cell never holds a ``<p>``, a heading or a list.
- :func:`plain_text`: the same string for a ``<meta name="description">`` or a title: the text
  a reader sees, with the markup taken away, not rendered.

Code spans are ``<code dir="ltr">`` (code blocks are ``<pre>``, left to right by the stylesheet),
so a server's pattern or command keeps its order in right-to-left text.

:func:`wbr` marks where an identifier may break (after ``_``, ``.``, ``-``), so a narrow table
column wraps ``workspace_status`` at the underscore and never inside a word.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markupsafe import Markup, escape

from generator.render.shown import record
from generator.text import visible

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
    md.add_render_rule("code_inline", _code_inline)
    return md


def _link_open(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    tokens[idx].attrSet("rel", "nofollow noopener noreferrer")
    return str(self.renderToken(tokens, idx, options, env))


def _code_inline(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    # Left to right and isolated, as every code run on the pages: inside a right-to-left description
    # (or an Arabic page) the bidi algorithm would otherwise reorder a pattern or a command.
    return f'<code dir="ltr">{escapeHtml(tokens[idx].content)}</code>'


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


# Text without these characters has no inline markup: no code span, emphasis, link, autolink,
# entity, escape or hard break.  Most summaries and descriptions are like that.
_INLINE_SYNTAX = re.compile(r"[`*_\[\]<>&\\!\n]")


def markdown_inline(text: str | None) -> Markup:
    """Untrusted CommonMark as inline HTML (code spans, emphasis, links), through the same sanitizer.

    Only inline rules run, so the result never holds a block element: a line break in the
    source stays a line break in the HTML source (shown as a space), and ``# title``, ``- item``
    or ``> quote`` are shown as written.
    """
    if not text:
        return Markup("")
    return record(_inline(text))  # every character of it is visible: printing it needs no second scan


@lru_cache(maxsize=2048)
def _inline(text: str) -> Markup:
    # Cached: a tool's rows and summary are shown on its pages in every locale.
    shown = visible(text)
    if _INLINE_SYNTAX.search(shown) is None:
        return Markup(escapeHtml(shown))  # what markdown-it would write, without parsing
    # An entity (``&#x202e;``) can spell a hidden character: the output gets markers too.
    return Markup(visible(_MD.renderInline(shown)))


_SPACES = re.compile(r"\s+")
_PLAIN_TOKENS = frozenset({"text", "text_special", "code_inline"})


def plain_text(text: str | None) -> str:
    """What a reader sees of untrusted inline CommonMark, as one line of plain text (meta descriptions).

    Code spans lose their backticks, emphasis its asterisks, links keep their label and lose
    their target; backslash escapes and entities are resolved.  The result is a plain string,
    so the template escapes it like any other.
    """
    if not text:
        return ""
    pieces: list[str] = []
    for block in _MD.parseInline(visible(text)):
        for token in block.children or ():
            if token.type in _PLAIN_TOKENS:
                pieces.append(token.content)
            elif token.type in ("softbreak", "hardbreak"):
                pieces.append(" ")
    return visible(_SPACES.sub(" ", "".join(pieces)).strip())


_BREAK_AFTER = re.compile(r"(?<=[_.\-])(?=[^_.\-])")


def wbr(name: Any) -> Markup:
    """*name* escaped, with ``<wbr>`` after each ``_``, ``.`` or ``-`` that a word follows.

    With CSS ``overflow-wrap: normal`` on the element, the browser breaks an identifier only
    there: ``workspace_<wbr>status``, never ``workspace_statu|s``.  A run (``__``, ``..``) gets
    one opportunity, after its last character; copying the text copies no ``<wbr>``.
    """
    text = str(escape(visible(str(name))))
    # The escaped text holds no "<", ">" or quote; "&...;" entities contain none of "_.-".
    return Markup(_BREAK_AFTER.sub("<wbr>", text))
