"""Sentences with markup in them: translated strings that hold links or code, and constraints in words.

Templates call these by name (``t_html``, ``tn_html``, ``t_code``, ``constraints``, ``bdi``) tens of
thousands of times in a large build, so they are Python rather than Jinja macros; what they write is
what the macros wrote. Each escapes for its output, and hidden characters become visible markers when
the expression is finalized.
"""

from __future__ import annotations

from typing import Any

from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup, escape

from generator.render.filters import Md, md_cell_code, md_code
from generator.render.i18n import CODE_MARK
from generator.text import visible

_MARK, _END = "\x1e", "\x1f"
"""Placeholders stand in for t_html's arguments while the catalog fills its sentence: control
characters no catalog string holds (they would show as [U+001E] markers on a page)."""
_VALUE = f"{_MARK}value{_END}"


def ltr_code(value: Any) -> Markup:
    """*value* as code: an element of its own, left to right, so right-to-left text cannot reorder it."""
    return Markup(f'<code dir="ltr">{escape(value)}</code>')


def bdi(value: Any) -> Markup:
    """*value*, whose direction is unknown (a name, a title, a version the server or the author gave),
    isolated in a ``<bdi>``: it keeps its own direction and leaves the sentence around it in order."""
    return Markup(f"<bdi>{escape(value)}</bdi>")


def _sentence(text: str, args: dict[str, Any]) -> str:
    """A catalog string filled by :func:`t_html`: its words escaped, each argument put in where its
    marker stands (escaped unless Markup), each code-marked span made a code element."""
    if CODE_MARK in text:
        spans = text.split(CODE_MARK)
        return "".join(
            f'<code dir="ltr">{_sentence(span, args)}</code>' if i % 2 else _sentence(span, args)
            for i, span in enumerate(spans)
        )
    pieces = text.split(_MARK)
    out = [str(escape(pieces[0]))]
    for piece in pieces[1:]:
        name, rest = piece.split(_END, 1)
        out.append(str(escape(args[name])))
        out.append(str(escape(rest)))
    return "".join(out)


@pass_context
def t_html(context: Context, key: str, **args: Any) -> Markup:
    """The catalog string *key* with each argument put in as HTML: a Markup argument (a link, a code
    span, a :func:`bdi`) as it is, anything else escaped, and the sentence's own words escaped around
    them; the code the catalog marks (`` `tools/list` ``) becomes ``<code dir="ltr">``.

    The one way a translated sentence holds markup; HTML templates only (``t_code`` wraps each
    argument in ``<code>`` first).
    """
    catalog = context.resolve("L")
    text: str = catalog.marked(key, **{name: f"{_MARK}{name}{_END}" for name in args})
    return Markup(_sentence(text, args))


@pass_context
def tn_html(context: Context, key: str, n: int, **args: Any) -> Markup:
    """The plural form of *key* for *n* (``{n}`` the number in the locale's digits), with its other
    arguments put in as :func:`t_html` puts them."""
    catalog = context.resolve("L")
    text: str = catalog.plural(key, n, **{name: f"{_MARK}{name}{_END}" for name in args})
    return Markup(_sentence(text, args))


@pass_context
def t_code(context: Context, key: str, **args: Any) -> Markup:
    """:func:`t_html` with each argument shown as code (``<code dir="ltr">``, escaped)."""
    return t_html(context, key, **{name: ltr_code(value) for name, value in args.items()})


@pass_context
def constraints(context: Context, row: Any) -> Markup:
    """A row's constraints in words (``constraint.<kind>``), for HTML: each value, JSON, a code element
    of its own, so that a pattern or an allowed value reads left to right on a right-to-left page."""
    catalog = context.resolve("L")
    words = (
        _sentence(catalog.marked(f"constraint.{c.kind}", value=_VALUE), {"value": ltr_code(c.inline)})
        for c in row.constraints
    )
    return Markup(" · ".join(f'<span class="c">{w}</span>' for w in words))


@pass_context
def md_constraints(context: Context, row: Any, cell: bool = True) -> Md:
    """A row's constraints in words for Markdown, each value a code span (one fit for a table cell
    when *cell*)."""
    t = context.resolve("t")
    code = md_cell_code if cell else md_code
    return Md(" · ".join(visible(t(f"constraint.{c.kind}", value=code(c.inline))) for c in row.constraints))


HTML_GLOBALS = {
    "t_html": t_html,
    "tn_html": tn_html,
    "t_code": t_code,
    "constraints": constraints,
    "bdi": bdi,
}
"""Functions HTML templates call by name: translated sentences that hold markup, constraints in words."""
MD_GLOBALS = {"constraints": md_constraints}
"""Functions Markdown templates call by name."""
