"""The ``diff`` command's reports: plain text, JSON, and Markdown for a pull-request comment.

:mod:`generator.compare.diff` classifies; this module only lays the result out.  Every
server value goes through the escaper of its output: :func:`~generator.text.one_line`
for terminals and CI logs, :func:`~generator.text.json_report` for JSON, and the twins'
Markdown escapers for PR comments, where a server string must not add a link, an image
or an @mention.
"""

from __future__ import annotations

from typing import Any

from generator.compare.changes import CLASSES
from generator.compare.diff import DiffResult
from generator.compare.schemas import show_value
from generator.render.filters import md_cell, md_cell_code, md_text
from generator.text import json_report, one_line

_CELL = 80


def render(result: DiffResult, fmt: str) -> str:
    """The report in ``text``, ``json`` or ``markdown``."""
    if fmt == "json":
        return render_json(result)
    if fmt == "markdown":
        return render_markdown(result)
    return render_text(result)


def _summary(result: DiffResult) -> str:
    counts = result.counts()
    return ", ".join(f"{counts[cls]} {cls}" for cls in CLASSES)


def render_text(result: DiffResult) -> str:
    """The plain-text report; every server value stays on its own line (:func:`one_line`)."""
    lines = [f"old: {one_line(result.old_label)}", f"new: {one_line(result.new_label)}"]
    if not result.changes:
        return "\n".join([*lines, "No changes: both sides describe the same tools, prompts and resources."]) + "\n"
    lines.append(f"Changes: {_summary(result)}.")
    for cls in CLASSES:
        group = [c for c in result.changes if c.cls == cls]
        if not group:
            continue
        lines += ["", f"{cls.capitalize()} ({len(group)})"]
        heading = None
        for change in group:
            if change.label != heading:
                heading = change.label
                lines.append(f"  {one_line(heading)}")
            lines.append(f"    - [{change.kind}] {one_line(change.message)}")
    return "\n".join(lines) + "\n"


def render_json(result: DiffResult) -> str:
    body = {
        "old": result.old_label,
        "new": result.new_label,
        "counts": result.counts(),
        "changes": [c.to_dict() for c in result.changes],
    }
    return json_report(body)


def _code(value: Any) -> str:
    """A value in a table cell, as a code span sized to its backticks (long values cut)."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else show_value(value)
    return md_cell_code(text if len(text) <= _CELL else text[: _CELL - 1] + "…")


def render_markdown(result: DiffResult) -> str:
    """The report for a pull-request comment: server text can add no markup, link, image or mention.

    Names, paths and values are code spans; labels and messages are escaped text in which
    @mentions and #references become code spans, so GitHub notifies no one (filters.md_text).
    """
    lines = [
        "# Tool changes",
        "",
        f"- old: {md_text(result.old_label, pr=True)}",
        f"- new: {md_text(result.new_label, pr=True)}",
        "",
    ]
    if not result.changes:
        return "\n".join([*lines, "No changes."]) + "\n"
    lines += [f"**{_summary(result)}**", ""]
    for cls in CLASSES:
        group = [c for c in result.changes if c.cls == cls]
        if not group:
            continue
        lines += [f"## {cls.capitalize()} ({len(group)})", ""]
        lines += ["| tool | change | where | old | new | details |", "| --- | --- | --- | --- | --- | --- |"]
        for c in group:
            what = _code(c.name) if c.subject == "tool" else f"{c.subject} {_code(c.name)}"
            cells = [what, c.kind, _code(c.path or None), _code(c.old), _code(c.new), md_cell(c.message, pr=True)]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)
