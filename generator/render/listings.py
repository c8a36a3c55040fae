"""The site-wide lists of tools: the tool list of each index page and its twin, and the tool lines of every llms.txt.

These lists hold one row per tool: at 1,000 tools they are 15,000 rows (the HTML list, the twin's and
the llms-full copy's in three locales, and 6,000 llms.txt lines), so each row is made in Python rather
than by a template loop, and each row is made visible (hidden characters as markers) on its own:
joining visible rows gives what making the joined text visible gives, without scanning the whole list
again.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup, escape

from generator.render.filters import Md, commas, md_cell, md_cell_code, md_label, md_text, md_url
from generator.render.prose import markdown_inline, wbr
from generator.render.shown import record
from generator.text import visible


def _rows(items: Iterable[Any], make: Callable[[Any], str]) -> str:
    """Every item's row as *make* makes it, made visible (:func:`~generator.text.visible`)."""
    return "".join(visible(make(item)) for item in items)


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

    return record(Markup(_rows(tools, row)))


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

    return record(Md(_rows(tools, row)))


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
    return record(Md(_rows(tools, line)))


# The same names, summaries and links come back in every llms.txt a build writes (eight sections
# at three locales); each escape depends on its text alone (and its type: Md passes unescaped).
_label = functools.lru_cache(maxsize=1 << 15, typed=True)(md_label)
_text = functools.lru_cache(maxsize=1 << 15, typed=True)(md_text)
_url = functools.lru_cache(maxsize=1 << 15, typed=True)(md_url)
