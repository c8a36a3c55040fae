"""The parameter rules: every parameter described, with its unit, format and allowed values.

They read the rows :func:`generator.schema.flatten.flatten` makes of the input schema (``$ref``,
``allOf`` and nullable unions already resolved, recursion and size bounded), one group of rows per
parameter path.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from generator.quality import cues
from generator.quality.report import Finding
from generator.quality.tool_checks import ToolText
from generator.quality.words import Words, excerpt, name_words
from generator.schema.flatten import flatten
from generator.schema.rows import Row
from generator.text import code_span

MAX_ROWS = 400
"""Rows of one input schema the rules read; a larger schema is read up to there."""
MAX_FINDINGS = 25
"""Findings of one parameter rule in one tool; past that the tool's parameters need a pass as a whole."""


@dataclass(frozen=True)
class Param:
    """One parameter path and the rows it has (a union has one row per alternative)."""

    path: str
    segments: tuple[tuple[str, str], ...]
    rows: tuple[Row, ...]

    @property
    def name(self) -> str:
        return self.segments[-1][1]

    @property
    def description(self) -> str:
        return next((r.description for r in self.rows if r.description), "")[:4000]

    @property
    def types(self) -> set[str]:
        return {t for r in self.rows for t in r.types}

    def has(self, *kinds: str) -> bool:
        return any(c.kind in kinds for r in self.rows for c in r.constraints)

    @property
    def pointer(self) -> str:
        steps = {"prop": "/properties/", "items": "/items", "index": "/prefixItems/", "map": "/additionalProperties"}
        out = "/inputSchema"
        for kind, value in self.segments:
            out += steps[kind] + (value.replace("~", "~0").replace("/", "~1") if kind in ("prop", "index") else "")
        return out


def segments(path: str) -> tuple[tuple[str, str], ...]:
    """A row path (``a.b``, ``a[]``, ``a[0]``, ``a.{key}``, ``a["x.y"]``) as (kind, value) steps."""
    found: list[tuple[str, str]] = []
    i, size = 0, len(path)
    while i < size:
        if path[i] == ".":
            i += 1
        if path.startswith("[]", i):
            found.append(("items", ""))
            i += 2
        elif path.startswith('["', i):
            name, end = json.JSONDecoder().raw_decode(path, i + 1)
            found.append(("prop", str(name)))
            i = end + 1
        elif path.startswith("[", i):
            end = path.index("]", i)
            found.append(("index", path[i + 1 : end]))
            i = end + 1
        elif path.startswith("{key}", i):
            found.append(("map", ""))
            i += 5
        else:
            end = min((j for j in (path.find(".", i), path.find("[", i)) if j >= 0), default=size)
            found.append(("prop", path[i:end]))
            i = end
    return tuple(found)


def params_of(schema: object) -> list[Param]:
    """The named parameters of an input schema (not array items or map values), in schema order."""
    grouped: dict[str, list[Row]] = {}
    for row in flatten(schema, max_depth=8, max_rows=MAX_ROWS).rows:
        grouped.setdefault(row.path, []).append(row)
    found = []
    for path, rows in grouped.items():
        try:
            steps = segments(path)
        except ValueError:  # not a path flatten writes: nothing to say about it
            continue
        if steps and steps[-1][0] == "prop":
            found.append(Param(path, steps, tuple(rows)))
    return found


def _parent(param: Param, by_steps: dict[tuple[tuple[str, str], ...], Param]) -> Param | None:
    """The parameter that holds *param* (``data`` for ``data[].time``), if any."""
    steps = list(param.segments[:-1])
    while steps and steps[-1][0] != "prop":
        steps.pop()
    return by_steps.get(tuple(steps)) if steps else None


def _undescribed(tool: ToolText, params: list[Param]) -> tuple[list[Finding], set[tuple[tuple[str, str], ...]]]:
    """The findings, and every parameter left undescribed (reported, or held by one that is)."""
    by_steps = {p.segments: p for p in params}
    silent: set[tuple[tuple[str, str], ...]] = set()
    found = []
    for param in params:
        if param.description or param.has("const"):
            continue
        parent = _parent(param, by_steps)
        if parent is not None and parent.segments in silent:
            silent.add(param.segments)  # the parameter that holds it is reported already
            continue
        if (parent is not None and param.name in Words(parent.description).identifiers) or param.name in tool.mentions:
            continue
        silent.add(param.segments)
        found.append(
            tool.finding(
                "params-undescribed", param.pointer, "", f"parameter {code_span(param.path)} has no description"
            )
        )
    return found, silent


def _quantity(tool: ToolText, param: Param) -> Finding | None:
    if not param.types & {"integer", "number"}:
        return None
    words = set(name_words(param.name))
    if not words & cues.UNIT_WORDS or ("size" in words and words & cues.COUNT_WORDS) or words & cues.UNITS:
        return None
    if set(Words(param.description).words) & cues.UNITS:
        return None
    return tool.finding(
        "params-no-unit",
        param.pointer,
        excerpt(param.description),
        f"{code_span(param.path)} is a quantity with no unit",
    )


def _date(tool: ToolText, param: Param) -> Finding | None:
    words = name_words(param.name)
    dated = (words and words[-1] in cues.DATE_WORDS) or (param.name.endswith(("_at", "At")) and len(param.name) > 3)
    if "string" not in param.types or not dated:
        return None
    if param.has("format", "pattern", "enum", "const", "examples"):
        return None
    said = Words(param.description)
    if set(said.words) & cues.FORMAT_HINTS or any(ch.isdigit() for ch in said.text):
        return None
    return tool.finding(
        "params-no-format",
        param.pointer,
        excerpt(param.description),
        f"{code_span(param.path)} holds a date or time in no stated format",
    )


def _choice(tool: ToolText, param: Param) -> Finding | None:
    words = name_words(param.name)
    if "string" not in param.types or not words or not (words[-1] in cues.CHOICE_WORDS or words[0] == "sort"):
        return None
    if param.has("enum", "const", "oneOf", "anyOf", "pattern", "examples"):
        return None
    text = param.description
    if any(mark in text for mark in ("'", '"', "`", "|", ",", " or ", "one of", "e.g")):
        return None
    return tool.finding(
        "params-no-values", param.pointer, excerpt(text), f"{code_span(param.path)} picks among values it does not list"
    )


def parameters(tool: ToolText) -> tuple[list[Finding], tuple[tuple[str, str], ...]]:
    """The parameter findings, and each parameter description (for the conciseness rules to scan)."""
    params = params_of(tool.tool.get("inputSchema"))
    found, silent = _undescribed(tool, params)
    found = found[:MAX_FINDINGS]
    described = [p for p in params if p.segments not in silent]  # the others are reported as undescribed
    for check in (_quantity, _date, _choice):
        found += [f for f in (check(tool, p) for p in described) if f is not None][:MAX_FINDINGS]
    texts = tuple((p.pointer + "/description", p.description) for p in params if p.description)
    return found, texts
