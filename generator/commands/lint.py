"""The ``lint`` command: score how ready a server's tools are for an agent, and gate CI on it.

The snapshot comes from where ``build`` gets it (:func:`~generator.commands.obtain.obtain_snapshot`:
a file, the configured server, or the bundled demo); :func:`generator.quality.lint.lint` scores it;
:mod:`generator.commands.lint_report` and :mod:`generator.commands.lint_sarif` lay the report out.
The gate (``--min-score``, ``--fail-on``) turns the report into exit code :data:`LINT_EXIT`.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.commands.arguments import config_from_args
from generator.commands.lint_report import render
from generator.commands.lint_sarif import render_sarif
from generator.commands.obtain import obtain_snapshot
from generator.errors import UsageError
from generator.quality.lint import lint, rule_ids, select
from generator.quality.report import Report
from generator.quality.rules import SEVERITIES
from generator.snapshot.snapshot import Snapshot
from generator.text import json_report

Say = Callable[..., None]
"""How a command prints: :func:`generator.commands.cli.say` (text, ``err=``, ``end=``)."""

LINT_EXIT = 5
"""Exit code of ``lint`` (and ``check --lint``) when the report does not meet ``--min-score`` or ``--fail-on``."""


@dataclass(frozen=True)
class Gate:
    """The bar a report must meet: a least score, and rules (or severities) that must not be found."""

    min_score: int | None = None
    fail_on: frozenset[str] = frozenset()

    def failures(self, report: Report) -> list[str]:
        """Why *report* misses the bar, one sentence each; empty when it meets it."""
        missed = []
        if self.min_score is not None and report.score < self.min_score:
            missed.append(f"the score {report.score} is below --min-score {self.min_score}")
        bar = min((SEVERITIES.index(s) for s in self.fail_on & set(SEVERITIES)), default=-1)
        blocking = [f for f in report.findings if f.rule in self.fail_on or SEVERITIES.index(f.severity) <= bar]
        if blocking:
            rules = sorted({f.rule for f in blocking})
            missed.append(f"{len(blocking)} finding(s) of --fail-on: {', '.join(rules)}")
        return missed


def gate_from_args(args: argparse.Namespace) -> Gate:
    """The gate of ``--min-score`` and ``--fail-on``: rule ids, or a severity (``error``, ``warning``, ``note``),
    which stands for itself and every worse one (``warning`` fails on errors too)."""
    if args.min_score is not None and not 0 <= args.min_score <= 100:
        raise UsageError(f"--min-score must be between 0 and 100, not {args.min_score}; e.g. --min-score 80.")
    words = frozenset(p.strip() for p in (args.fail_on or "").split(",") if p.strip())
    severities = words & set(SEVERITIES)
    rules = rule_ids(",".join(sorted(words - severities)), "--fail-on")
    return Gate(args.min_score, rules | severities)


def rules_from_args(args: argparse.Namespace, gate: Gate) -> tuple[str, ...]:
    """The rules to run: the defaults with ``--enable`` and ``--disable``, and every rule ``--fail-on`` names."""
    enable = rule_ids(args.enable, "--enable")
    disable = rule_ids(args.disable, "--disable")
    named = gate.fail_on - set(SEVERITIES)
    clash = sorted((enable | named) & disable)
    if clash:
        raise UsageError(
            f"{', '.join(clash)} is both turned off by --disable and asked for by --enable or --fail-on; "
            f"remove it from one of them."
        )
    return select(enable | named, disable)


MIN_WIDTH = 100
"""The narrowest table: below it the tools table has no room for its tool names, which the table library would
drop (a terminal wraps the wider lines instead, and every name is there)."""


def width() -> int:
    """The terminal table's width: the terminal's own, at least :data:`MIN_WIDTH`; 100 in a pipe or a CI log."""
    return max(MIN_WIDTH, shutil.get_terminal_size((100, 24)).columns) if sys.stdout.isatty() else MIN_WIDTH


def ascii_only() -> bool:
    """Whether standard output cannot write the text table's rules and marks (a terminal or CI log that is not
    UTF-8): the table is then drawn in ASCII, not in escapes such as ``\\u2500``."""
    try:
        "─✓✗“”…".encode(getattr(sys.stdout, "encoding", None) or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return True
    return False


def run(args: argparse.Namespace, say: Say) -> int:
    """``mcp-portal lint``: print the report in ``--format``; :data:`LINT_EXIT` when the gate is missed."""
    gate = gate_from_args(args)
    rules = rules_from_args(args, gate)
    from_file = Path(args.from_file) if args.from_file else None
    snapshot, _ = obtain_snapshot(
        config_from_args(args), from_file, lenient=args.lenient, introspect_warnings=args.introspect_warnings
    )
    report = lint(snapshot, rules)
    text = (
        render_sarif(report, from_file)
        if args.format == "sarif"
        else render(report, args.format, width=width(), ascii_only=ascii_only())
    )
    say(text, end="")
    return finish(report, gate, say)


def lint_snapshot(snapshot: Snapshot | None, rules: tuple[str, ...]) -> Report:
    """``check --lint``'s report on the snapshot the check built from."""
    if snapshot is None:
        raise ValueError("check --lint needs the snapshot the check read")
    return lint(snapshot, rules)


def with_drift(drift_text: str, drift: dict[str, Any], report: Report, fmt: str) -> str:
    """``check --lint``'s output: the drift report, then the lint report; in JSON one object, the lint
    report under ``"lint"``."""
    if fmt == "json":
        return json_report({**drift, "lint": report.to_dict()})
    return drift_text + "\n" + render(report, "text", width=width(), ascii_only=ascii_only())


def finish(report: Report, gate: Gate, say: Say) -> int:
    """Say on stderr why the gate is missed, if it is; the exit code."""
    missed = gate.failures(report)
    for reason in missed:
        say(f"mcp-portal: lint gate missed: {reason}.", err=True)
    return LINT_EXIT if missed else 0
