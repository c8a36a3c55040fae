"""The rows of the parameter, returns and troubleshooting tables, for HTML and for Markdown.

A large build writes tens of thousands of these rows; as a Jinja loop each cost a dozen
attribute lookups, filter calls and ``finalize`` passes, a quarter of the rendering. The tables
around them (caption, header, the whole-object constraints) stay in the templates
(``rows_table`` and the troubleshooting section); these functions write only the ``<tr>`` rows
(HTML) or the ``| ... |`` lines (Markdown), byte for byte what the loops wrote, with the same filters for every
cell: escaped for their context, hidden characters shown as markers (:func:`generator.text.visible`,
applied once to the whole, which is the same since it works character by character).
"""

from __future__ import annotations

from typing import Any

from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup, escape

from generator.render.filters import Md, commas, md_cell, md_cell_code, type_words
from generator.render.listings import index_rows, llms_tool_lines, md_index_rows
from generator.render.prose import markdown_inline, wbr
from generator.render.sentences import constraints, md_constraints, t_html
from generator.render.shown import record
from generator.text import visible


@pass_context
def field_rows(context: Context, flat: Any, show_required: bool = True) -> Markup:
    """The ``<tr>`` rows of an HTML parameter (or returns) table, each ending in a newline."""
    t = context.resolve("t")
    col_type, col_description = escape(t("tool.col_type")), escape(t("tool.col_description"))
    # Required or optional is said beside the type, in one column for both tables: in a parameter table
    # the required ones are marked, in a returns table the optional ones (what may be missing).
    marks = (
        {True: f' <span class="req">{escape(t("tool.required_mark"))}</span>', False: ""}
        if show_required
        else {True: "", False: f' <span class="opt">({escape(t("tool.optional"))})</span>'}
    )
    lang = escape(context.resolve("site").server_language)
    out: list[str] = []
    for row in flat.rows:
        variant = f' <span class="variant">{escape(t("tool.variant", n=row.variant))}</span>' if row.variant else ""
        description = (
            f'<span dir="auto" lang="{lang}">{markdown_inline(row.description)}</span>' if row.description else ""
        )
        rules = f'<div class="constraints">{constraints(context, row)}</div>' if row.constraints else ""
        out.append(
            f'<tr>\n  <td class="depth-{min(row.depth, 6)}"><code dir="ltr" class="ident">{wbr(row.path or "(root)")}'
            f"</code>{variant}</td>\n"
            f'  <td class="type" data-label="{col_type}">{type_words(context, row)}{marks[bool(row.required)]}</td>\n'
            f'  <td data-label="{col_description}">{description}{rules}</td>\n</tr>\n'
        )
    return record(Markup(visible("".join(out))))


@pass_context
def md_field_rows(context: Context, flat: Any, show_required: bool = True) -> Md:
    """The ``| ... |`` lines of a Markdown parameter (or returns) table, each ending in a newline."""
    t = context.resolve("t")  # the Markdown catalog: its strings are Markdown already
    yes, no, optional = t("tool.required_yes"), t("tool.required_no"), t("tool.optional")
    out: list[str] = []
    for row in flat.rows:
        variant = f" ({t('tool.variant', n=row.variant)})" if row.variant else ""
        label = f" ({optional})" if not show_required and not row.required else ""
        required = f" {yes if row.required else no} |" if show_required else ""
        dash = " — " if row.description and row.constraints else ""
        out.append(
            f"| {md_cell_code(row.path or '(root)')}{variant} | {md_cell_code(row.type_label)}{label} |{required} "
            f"{md_cell(row.description or '')}{dash}{md_constraints(context, row)} |\n"
        )
    return record(Md(visible("".join(out))))


@pass_context
def trouble_rows(context: Context, rows: Any) -> Markup:
    """The ``<tr>`` rows a tool's own declarations add to its troubleshooting table (``ToolDoc.trouble_rows``):
    names as code, rules worded as in the parameter tables, the grants tool named for a scope."""
    t = context.resolve("t")
    cause, action = escape(t("tool.col_cause")), escape(t("tool.col_action"))
    grants = context.resolve("site").grants_tool
    out: list[str] = []
    for r in rows:
        names = commas(context, [Markup('<code dir="ltr">') + escape(n) + Markup("</code>") for n in r.names])
        rule = constraints(context, r.row) if r.row else Markup("")
        if r.rows:  # each constrained parameter with its rules: "limit ≥ 1 · ≤ 100; since_days ≥ 1"
            rule = Markup("; ").join(
                Markup('<code dir="ltr">') + escape(row.path) + Markup("</code> ") + constraints(context, row)
                for row in r.rows
            )
        if r.key == "scope" and grants:
            grant = Markup('<code dir="ltr">') + escape(grants) + Markup("</code>")
            fix = t_html(context, "trouble.scope.action_tool", tool=grant, names=names)
        else:
            fix = t_html(context, f"trouble.{r.key}.action", names=names)
        symptom = (
            t_html(context, f"trouble.{r.key}.symptom_seen", names=names, form=refused_as(context, r.seen))
            if r.seen
            else t_html(context, f"trouble.{r.key}.symptom", names=names)
        )
        out.append(
            f'<tr class="derived"><td>{symptom}</td> '
            f'<td data-label="{cause}">{t_html(context, f"trouble.{r.key}.cause", names=names, rule=rule)}</td> '
            f'<td data-label="{action}">{fix}</td></tr>\n'
        )
    return record(Markup(visible("".join(out))))


@pass_context
def md_trouble_rows(context: Context, rows: Any) -> Md:
    """:func:`trouble_rows` as Markdown table lines."""
    t = context.resolve("t")  # the Markdown catalog: it escapes what it fills in
    grants = context.resolve("site").grants_tool
    out: list[str] = []
    for r in rows:
        names = commas(context, [md_cell_code(n) for n in r.names])
        rule = md_constraints(context, r.row) if r.row else ""
        if r.rows:
            rule = "; ".join(f"{md_cell_code(row.path)} {md_constraints(context, row)}" for row in r.rows)
        if r.key == "scope" and grants:
            fix = t("trouble.scope.action_tool", tool=md_cell_code(grants), names=names)
        else:
            fix = t(f"trouble.{r.key}.action", names=names)
        symptom = (
            t(f"trouble.{r.key}.symptom_seen", names=names, form=md_refused_as(context, r.seen))
            if r.seen
            else t(f"trouble.{r.key}.symptom", names=names)
        )
        why = t(f"trouble.{r.key}.cause", names=names, rule=rule)
        out.append(f"| {md_cell(symptom)} | {md_cell(why)} | {md_cell(fix)} |\n")
    return record(Md(visible("".join(out))))


@pass_context
def refused_as(context: Context, seen: str) -> Markup:
    """How this server refuses a bad argument, as ``--prove``'s probe saw it (``isError`` or a JSON-RPC
    code), in words for HTML: what a troubleshooting row's ``symptom_seen`` says in ``{form}``."""
    if seen == "isError":
        return t_html(context, "trouble.seen.isError")
    return t_html(context, "trouble.seen.code", code=Markup('<code dir="ltr">') + escape(seen) + Markup("</code>"))


@pass_context
def md_refused_as(context: Context, seen: str) -> Md:
    """:func:`refused_as` for Markdown."""
    t = context.resolve("t")
    return Md(t("trouble.seen.isError") if seen == "isError" else t("trouble.seen.code", code=md_cell_code(seen)))


def row_globals(autoescape: bool) -> dict[str, Any]:
    """The row writers a Jinja environment gets as globals: the HTML ones, or the Markdown ones
    (which the ``llms.txt`` templates share)."""
    if autoescape:
        return {
            "field_rows": field_rows,
            "trouble_rows": trouble_rows,
            "index_rows": index_rows,
            "refused_as": refused_as,
        }
    return {
        "field_rows": md_field_rows,
        "trouble_rows": md_trouble_rows,
        "refused_as": md_refused_as,
        "index_rows": md_index_rows,
        "llms_tool_lines": llms_tool_lines,
    }
