"""Page furniture made from a page's own rendered body: the "On this page" table of contents.

The contents are read back from the headings :func:`heading` macro wrote (``<h2 id="…">text</h2>``),
so a page's sections are declared once, by the headings themselves, and the contents can never
list a section the page does not have.  The text is already escaped HTML from our own templates;
it is reused as is.  Pages with fewer than :data:`MIN_SECTIONS` sections get no contents.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

from generator.render.shown import is_recorded, record
from generator.text import visible

MIN_SECTIONS = 3
"""A contents list for one or two sections is noise."""

# Our own macro's output, one heading per line: text, and the elements that isolate a name in it
# (``<bdi>``, ``<code dir="ltr">``); each alternative starts with its own character, so the match is linear.
_H2 = re.compile(r'<h2 id="([^"<>]+)">((?:[^<]+|<bdi>[^<]*</bdi>|<code dir="ltr">[^<]*</code>)*)</h2>')


def sections(body: str) -> list[tuple[str, str]]:
    """``(id, text)`` of every second-level heading in *body*, in order."""
    return [(m.group(1), m.group(2)) for m in _H2.finditer(body)]


def with_toc(body: str, label: str) -> Markup:
    """*body* with an "On this page" navigation inserted before its first section.

    The page is split in two: what comes before the first ``<h2>`` (breadcrumbs, title, summary)
    stays on top, and the rest is wrapped beside the contents so a wide screen can keep them in
    view.  The contents are a ``<details>`` element: open on wide screens (CSS), one line on phones.
    """
    found = sections(body)
    if len(found) < MIN_SECTIONS:
        return body if isinstance(body, Markup) else Markup(body)
    cut = body.find('<div class="hd"><h2 id="')
    if cut == -1:
        cut = body.index('<h2 id="')
    items = "".join(f'<li><a href="#{ident}">{text}</a></li>' for ident, text in found)
    toc = (
        f'<nav class="toc" aria-labelledby="toc-label" data-pagefind-ignore="all">'
        f'<details><summary id="toc-label">{escape(visible(label))}</summary><ol>{items}</ol></details></nav>'
    )
    page = Markup(f'{body[:cut]}<div class="sections">{toc}<div class="content">\n{body[cut:]}</div></div>')
    # Made of the body and of its own headings: as visible as the body is.
    return record(page) if is_recorded(body) else page


LAYOUT_FILTERS = {"with_toc": with_toc}
"""Filters of the HTML environment that lay out a whole page body."""
