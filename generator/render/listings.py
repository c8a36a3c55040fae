"""The site-wide lists of tools: the tool list of each index page and its twin, and the tool lines of every llms.txt.

These lists hold one row per tool, and every build writes them again, rebuilds included: at 1,000
tools they are 15,000 rows (the HTML list, the twin's and the llms-full copy's in three locales,
and 6,000 llms.txt lines), about a fifth of a rebuild after one tool changed. A :class:`RowMemo`
(the render cache's, :mod:`generator.cache.reuse`) hands back the rows a previous build wrote, so
a rebuild writes only the changed tool's rows.

A row is remembered under two names, and reused only when both match:

- the key of its tool's pages (:func:`generator.cache.keys.page_key`): the tool's own JSON, and
  everything site-wide its pages are made from (templates, catalogs, configuration, the installed
  generator code, server and endpoints); everything a row shows of its tool is made from these;
- where it is written: the list, its locale, the page it is on and whether links are marked
  (:func:`generator.render.renderer.render_page`), and the site-wide facts that add a column
  (any tool with a scope, several profiles), which one tool's change can flip for every row.

Without a memo (``--no-cache``), or for a tool without a key, the row is simply written. The rows
are joined and shown (hidden characters as markers) in the same way either way, so a remembered row gives
the same bytes as a written one.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup, escape

from generator.render.filters import Md, commas, md_cell, md_cell_code, md_label, md_text, md_url
from generator.render.prose import markdown_inline, wbr
from generator.render.shown import record
from generator.text import visible

Rows = dict[str, dict[str, tuple[int, str]]]
"""Where -> tool page key -> (links the row counted, the row)."""


class RowMemo(Protocol):
    """Rows of the site-wide lists kept by where they are written and their tool's page key (see the module
    docstring); the render cache's :class:`generator.cache.reuse.RowMemo` is one."""

    known: Mapping[str, Mapping[str, tuple[int, str]]]
    """The rows a previous build wrote, by list."""

    def row(
        self,
        where: str,
        kept: Mapping[str, tuple[int, str]],
        name: str,
        make: Callable[[], str],
        marks: list[int] | None,
    ) -> str:
        """*name*'s row in the list *where* (whose kept rows are *kept*): kept, else made by *make*. *marks* is
        the page's count of marked links: a kept row adds the links it counted when it was made."""
        ...


def _rows(
    context: Context, list_name: str, items: Iterable[Any], name: Callable[[Any], str], make: Callable[[Any], str]
) -> str:
    """Every item's row of *list_name*, made visible (:func:`~generator.text.visible`: a row is kept so,
    and joining visible rows gives what making the joined text visible gives, without scanning the
    whole list again), through the memo when there is one."""
    memo: RowMemo | None = context.resolve("row_memo")
    if memo is None:
        return "".join(visible(make(item)) for item in items)
    ctx, site = context.resolve("ctx"), context.resolve("site")
    where = "\0".join(
        [
            list_name,
            ctx.page.locale,
            ctx.here(),
            str(ctx.marks is not None),
            str(site.scoped),
            str(site.several_profiles),
        ]
    )
    kept = memo.known.get(where, {})  # a list is parsed once, for the one page that shows it
    return "".join(
        memo.row(where, kept, name(item), functools.partial(_visible_row, make, item), ctx.marks) for item in items
    )


def _visible_row(make: Callable[[Any], str], item: Any) -> str:
    """*item*'s row as *make* makes it, made visible (what the memo keeps)."""
    return visible(make(item))


@pass_context
def index_rows(context: Context, tools: Any) -> Markup:
    """The ``<tr>`` rows of the tool list on a locale's index page, one per tool."""
    t, ctx, site = context.resolve("t"), context.resolve("ctx"), context.resolve("site")
    lang = escape(site.server_language)
    access, scope, profiles = escape(t("index.col_access")), escape(t("index.col_scope")), escape(t("tool.profiles"))
    badges: dict[tuple[str, bool], str] = {}

    def row(tool: Any) -> str:
        level = tool.access.level
        badge = badges.get((level, tool.access.assumed))
        if badge is None:
            words = t("access.assumed", level=t(f"access.{level}")) if tool.access.assumed else t(f"access.{level}")
            badge = badges[level, tool.access.assumed] = (
                f'<span class="badge badge-{escape(level)}">{escape(words)}</span>'
            )
        title = f'<br><span dir="auto" class="subtitle">{markdown_inline(tool.title)}</span>' if tool.title else ""
        out = [
            f'<tr>\n  <td><a href="{escape(ctx.url(ctx.tool_page(tool)))}"><code dir="ltr" class="ident">'
            f"{wbr(tool.name)}</code></a>{title}</td>\n"
            f'  <td dir="auto" lang="{lang}">{markdown_inline(tool.summary)}</td>\n'
            f'  <td data-label="{access}">{badge}</td>\n'
        ]
        if site.scoped:
            codes = [Markup('<code dir="ltr" class="ident">') + wbr(s) + Markup("</code>") for s in tool.scopes]
            out.append(f'  <td data-label="{scope}">{commas(context, codes)}</td>\n')
        if site.several_profiles:
            codes = [Markup('<code dir="ltr">') + escape(p) + Markup("</code>") for p in tool.profiles]
            out.append(f'  <td data-label="{profiles}">{commas(context, codes)}</td>\n')
        out.append("</tr>\n")
        return "".join(out)

    return record(Markup(_rows(context, "index.html", tools, _tool_name, row)))


@pass_context
def md_index_rows(context: Context, tools: Any) -> Md:
    """:func:`index_rows` as Markdown table lines."""
    t, ctx, site = context.resolve("t"), context.resolve("ctx"), context.resolve("site")

    def row(tool: Any) -> str:
        level = tool.access.level
        words = t("access.assumed", level=t(f"access.{level}")) if tool.access.assumed else t(f"access.{level}")
        line = (
            f"| [{md_cell_code(tool.name)}]({md_url(ctx.url(ctx.tool_page(tool), twin=True))}) | "
            f"{md_cell(tool.summary)} | {words if isinstance(words, Md) else md_text(words)} |"
        )
        if site.scoped:
            line += f" {commas(context, [md_cell_code(s) for s in tool.scopes])} |"
        if site.several_profiles:
            line += f" {commas(context, [md_cell_code(p) for p in tool.profiles])} |"
        return line + "\n"

    return record(Md(_rows(context, "index.md", tools, _tool_name, row)))


@pass_context
def llms_tool_lines(context: Context, pages: Any, code: str, root: bool) -> Md:
    """The tool lines of one locale's section of an ``llms.txt`` (the root one lists every locale's).

    The root ``llms.txt`` holds each locale's: 6,000 lines at 1,000 tools, each a label, a link and
    a summary escaped for Markdown.
    """
    ctx = context.resolve("ctx")

    def line(page: Any) -> str:
        return (
            f"- [{_label(page.tool.name)}]({_url(ctx.llms_link(page.md_path, root=root))}): "
            f"{_text(page.tool.summary or page.tool.name)}\n"
        )

    tools = [p for p in pages if p.locale == code and p.kind == "tool"]
    listed = _rows(context, f"llms\0{code}\0{root}", tools, _page_tool_name, line)
    return record(Md(listed))


def _tool_name(tool: Any) -> str:
    return str(tool.name)


def _page_tool_name(page: Any) -> str:
    return str(page.tool.name)


# The same names, summaries and links come back in every llms.txt a build writes (eight sections
# at three locales); each escape depends on its text alone (and its type: Md passes unescaped).
_label = functools.lru_cache(maxsize=1 << 15, typed=True)(md_label)
_text = functools.lru_cache(maxsize=1 << 15, typed=True)(md_text)
_url = functools.lru_cache(maxsize=1 << 15, typed=True)(md_url)
