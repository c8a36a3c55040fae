"""Sentences with markup in them: translated strings that hold links or code, and constraints in words.

Templates call these by name (``t_html``, ``t_code``, ``constraints``) tens of thousands of times
in a large build, so they are Python rather than Jinja macros; what they write is what the
macros wrote. Each escapes for its output, and hidden characters become visible markers when
the expression is finalized.
"""

from __future__ import annotations

from typing import Any

from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup, escape

from generator.render.filters import Md, md_cell_code, md_code
from generator.text import visible

_MARK, _END = "\x1e", "\x1f"
"""Placeholders stand in for t_html's arguments while the catalog fills its sentence: control
characters no catalog string holds (they would show as [U+001E] markers on a page)."""


@pass_context
def t_html(context: Context, key: str, **args: Any) -> Markup:
    """The catalog string *key* with each argument put in as HTML: a Markup argument (a link, a code
    span) as it is, anything else escaped, and the sentence's own words escaped around them.

    The one way a translated sentence holds markup; HTML templates only (``t_code`` wraps each
    argument in ``<code>`` first).
    """
    names = list(args)
    text: str = context.resolve("t")(key, **{name: f"{_MARK}{i}{_END}" for i, name in enumerate(names)})
    pieces = text.split(_MARK)
    out = [str(escape(pieces[0]))]
    for piece in pieces[1:]:
        index, rest = piece.split(_END, 1)
        out.append(str(escape(args[names[int(index)]])))
        out.append(str(escape(rest)))
    return Markup("".join(out))


@pass_context
def t_code(context: Context, key: str, **args: Any) -> Markup:
    """:func:`t_html` with each argument shown as code (``<code dir="ltr">``, escaped)."""
    coded = {name: Markup('<code dir="ltr">') + escape(value) + Markup("</code>") for name, value in args.items()}
    return t_html(context, key, **coded)


@pass_context
def constraints(context: Context, row: Any) -> Markup:
    """A row's constraints in words (``constraint.<kind>`` with the value as JSON), for HTML."""
    t = context.resolve("t")
    words = (escape(t(f"constraint.{c.kind}", value=c.inline)) for c in row.constraints)
    return Markup(" · ".join(f'<span class="c">{w}</span>' for w in words))


@pass_context
def md_constraints(context: Context, row: Any, cell: bool = True) -> Md:
    """A row's constraints in words for Markdown, each value a code span (one fit for a table cell
    when *cell*)."""
    t = context.resolve("t")
    code = md_cell_code if cell else md_code
    return Md(" · ".join(visible(t(f"constraint.{c.kind}", value=code(c.inline))) for c in row.constraints))


HTML_GLOBALS = {"t_html": t_html, "t_code": t_code, "constraints": constraints}
"""Functions HTML templates call by name: translated sentences that hold markup, constraints in words."""
MD_GLOBALS = {"constraints": md_constraints}
"""Functions Markdown templates call by name."""
