"""Linting a server: every tool through every rule that is on, then the tool set as a whole.

:func:`lint` takes a snapshot; :func:`lint_tools` takes the tool definitions themselves (the
calibration over ``tests/corpus/`` uses it). Which rules run is a :func:`select`-ion from
:data:`~generator.quality.rules.RULES`. Nothing here reads a file, the clock or the network: the same
tools give the same report.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from generator.errors import UsageError
from generator.quality import server_checks
from generator.quality.params import parameters
from generator.quality.report import Finding, Report, ToolReport
from generator.quality.rules import BY_ID, RULES, default_rules
from generator.quality.tool_checks import CHECKS, ToolText
from generator.quality.words import name_words
from generator.snapshot.snapshot import Snapshot


def rule_ids(value: str | None, option: str) -> frozenset[str]:
    """The rule ids of a comma-separated option value; an unknown id is a usage error naming the option."""
    ids = frozenset(part.strip() for part in (value or "").split(",") if part.strip())
    unknown = sorted(ids - set(BY_ID))
    if unknown:
        raise UsageError(
            f"{option} names unknown rules: {', '.join(unknown)}. The rules are listed in docs/lint.md, "
            f"e.g. {option} usage-missing,params-undescribed."
        )
    return ids


def select(enable: Iterable[str] = (), disable: Iterable[str] = ()) -> tuple[str, ...]:
    """The rules to run: those on by default, plus *enable*, less *disable*, in table order."""
    chosen = (default_rules() | set(enable)) - set(disable)
    return tuple(rule.id for rule in RULES if rule.id in chosen)


def lint(snapshot: Snapshot, rules: Sequence[str] | None = None) -> Report:
    """The report on *snapshot*'s tools (the default rules when *rules* is None)."""
    name = snapshot.server.get("name")
    return lint_tools(snapshot.tools, server=name if isinstance(name, str) else "", rules=rules)


def lint_tools(tools: Sequence[dict[str, Any]], *, server: str = "", rules: Sequence[str] | None = None) -> Report:
    """The report on *tools* (tool definitions as ``tools/list`` gives them)."""
    chosen = tuple(rules) if rules is not None else select()
    on = set(chosen)
    names = [t.get("name") for t in tools]
    every = frozenset(n for n in names if isinstance(n, str))
    server_words = name_words(server)
    reports = []
    for tool, name in zip(tools, names, strict=True):
        text = ToolText(tool, every - {name}, server_words)
        found, texts = parameters(text)
        text = ToolText(tool, text.siblings, server_words, texts)
        for check in CHECKS:
            found += check(text)
        reports.append(ToolReport(text.name, _kept(found, on)))
    server_found = [f for check in server_checks.CHECKS for f in check(tools)]
    share = sum(1 for t in tools if server_checks.annotated(t)) / len(tools) if tools else 1.0
    return Report(server, tuple(reports), _kept(server_found, on), chosen, share)


def _kept(found: Iterable[Finding], on: set[str]) -> tuple[Finding, ...]:
    """The findings of the rules that are on, in rule-table order, then field order (stable)."""
    order = {rule.id: i for i, rule in enumerate(RULES)}
    return tuple(sorted((f for f in found if f.rule in on), key=lambda f: order[f.rule]))
