"""The ``lint`` command's reports: a terminal table, JSON, and Markdown for a pull-request comment.

:mod:`generator.quality` finds and scores; this module only lays the report out (SARIF is
:mod:`generator.commands.lint_sarif`). Every server value goes through the escaper of its output:
:func:`~generator.text.one_line` in the terminal table (and the command line's ``say`` shows control
characters on top), :func:`~generator.text.json_report` for JSON, and the twins' Markdown escapers,
as ``diff --format markdown`` uses them, for PR comments, where server text can add no link, image
or @mention.
"""

from __future__ import annotations

import io
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from generator.quality.report import Finding, Report
from generator.quality.rules import BY_ID, DIMENSIONS
from generator.quality.words import excerpt
from generator.render.filters import md_cell, md_cell_code, md_text
from generator.text import json_report, one_line

COMMENT_MARKER = "<!-- mcp-portal lint -->"
"""The first line of the Markdown report: how the GitHub Action finds its own earlier comment to update."""
SHORT = {"parameters": "params", "conciseness": "concise", "behaviour": "behav."}
"""Column heads of the terminal table, narrowed so that it fits 100 columns."""
_MARK = {"good": "✓", "poor": "✗"}
_ASCII_MARK = {"good": "+", "poor": "x"}
_ASCII_HEAD = box.Box("    \n    \n -- \n    \n    \n    \n    \n    \n", ascii=True)
"""``box.SIMPLE_HEAD`` (one rule under the head) drawn in ASCII."""
MAX_ROWS = 150
"""Findings a Markdown report lists: a GitHub comment holds at most 65,536 characters."""
QUOTE_MD = 100
"""Characters of the server's text a Markdown finding quotes."""


def render(report: Report, fmt: str, *, width: int = 100, ascii_only: bool = False) -> str:
    """The report as ``text`` (a table *width* columns wide, in ASCII alone with *ascii_only*), ``json`` or
    ``markdown``."""
    if fmt == "json":
        return json_report({"format": "mcp-portal-lint/1", **report.to_dict()})
    if fmt == "markdown":
        return render_markdown(report)
    return render_text(report, width, ascii_only)


def summary(report: Report) -> str:
    """The report in a sentence: the score, its parts and the findings' count."""
    counts = report.counts()
    found = ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items() if n) or "no findings"
    return (
        f"{report.score}/100 (tool quality {round(report.tool_quality)}, coherence {round(report.coherence)}); "
        f"{len(report.tools)} tool{'s' if len(report.tools) != 1 else ''}, {found}"
    )


def _cell(value: Any) -> Text:
    """A server value in a table cell: one visible line, never read as rich markup."""
    return Text(one_line(value))


def render_text(report: Report, width: int = 100, ascii_only: bool = False) -> str:
    """The terminal report: the score line, a table of tools by dimension, the findings, how to fix them. With
    *ascii_only* (a terminal or CI log that is not UTF-8), its rules, marks and quotes are ASCII characters."""
    console = Console(file=io.StringIO(), width=width, color_system=None, markup=False, emoji=False, highlight=False)
    console.print(_cell(f"Agent readiness of {report.server or 'the server'}: {summary(report)}."))
    head, mark = (_ASCII_HEAD, _ASCII_MARK) if ascii_only else (box.SIMPLE_HEAD, _MARK)
    tools = Table(box=head, show_edge=False, pad_edge=False)
    tools.add_column("tool", overflow="fold", ratio=1)
    tools.add_column("score", justify="right", no_wrap=True)
    for dimension in DIMENSIONS:
        tools.add_column(SHORT.get(dimension, dimension), justify="center", no_wrap=True)
    for tool in sorted(report.tools, key=lambda t: (t.score, t.name)):
        tools.add_row(_cell(tool.name), str(tool.score), *(mark[tool.verdict(d)] for d in DIMENSIONS))
    if report.tools:
        console.print(tools)
    if report.findings:
        console.print(_findings_table(report.findings, ascii_only))
        fixes = Table.grid(padding=(0, 2))
        fixes.add_column(no_wrap=True)
        fixes.add_column(ratio=1)
        for rule in _rules_seen(report.findings):
            fixes.add_row(rule, BY_ID[rule].fix)
        console.print("How to fix:")
        console.print(fixes)
    text: str = console.file.getvalue()  # type: ignore[attr-defined]
    return "".join(line.rstrip() + "\n" for line in text.splitlines())  # rich pads every line to the width


QUOTE = 48
"""Characters of the server's text a terminal finding quotes."""


def _findings_table(findings: tuple[Finding, ...], ascii_only: bool) -> Table:
    table = Table(box=_ASCII_HEAD if ascii_only else box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    opening, closing, cut = ('"', '"', "...") if ascii_only else ("“", "”", "…")
    table.add_column("severity", no_wrap=True)
    table.add_column("rule", no_wrap=True)
    table.add_column("tool", overflow="fold", max_width=22)
    table.add_column("field: finding", ratio=1, overflow="fold")
    for finding in findings:
        said = f"{one_line(finding.field)}: {one_line(finding.message)}"
        text = one_line(finding.text)
        if text and text != finding.tool and text not in said:
            said += f": {opening}{text if len(text) <= QUOTE else text[: QUOTE - 1] + cut}{closing}"
        table.add_row(finding.severity, finding.rule, _cell(finding.tool or "(server)"), Text(said))
    return table


def _rules_seen(findings: tuple[Finding, ...]) -> list[str]:
    return sorted({f.rule for f in findings}, key=[r for r in BY_ID].index)


def render_markdown(report: Report) -> str:
    """The report for a pull-request comment: server text can add no markup, link, image or mention."""
    lines = [
        COMMENT_MARKER,
        f"## Agent readiness: {report.score}/100",
        "",
        f"Server {md_text(report.server or 'unnamed', pr=True)}: {md_text(summary(report), pr=True)}.",
        "",
    ]
    if report.tools:
        heads = ["tool", "score", *DIMENSIONS]
        lines += ["| " + " | ".join(heads) + " |", "| --- | ---: |" + " :---: |" * len(DIMENSIONS)]
        for tool in sorted(report.tools, key=lambda t: (t.score, t.name)):
            marks = [_MARK[tool.verdict(d)] for d in DIMENSIONS]
            lines.append("| " + " | ".join([md_cell_code(tool.name), str(tool.score), *marks]) + " |")
        lines.append("")
    if report.findings:
        lines += [f"### Findings ({len(report.findings)})", ""]
        lines += ["| severity | rule | tool | field | finding | text |", "| --- | --- | --- | --- | --- | --- |"]
        for f in report.findings[:MAX_ROWS]:
            text = md_cell_code(excerpt(f.text, QUOTE_MD)) if f.text else ""
            where = md_cell_code(f.tool) if f.tool is not None else "(server)"
            cells = [f.severity, f"`{f.rule}`", where, md_cell_code(f.field), md_cell(f.message, pr=True), text]
            lines.append("| " + " | ".join(cells) + " |")
        if len(report.findings) > MAX_ROWS:
            lines += ["", f"… and {len(report.findings) - MAX_ROWS} more: `mcp-portal lint` lists them all."]
        lines += ["", "### How to fix", ""]
        lines += [f"- `{rule}`: {BY_ID[rule].fix}" for rule in _rules_seen(report.findings)]
    return "\n".join(lines) + "\n"
