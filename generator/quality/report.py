"""What the linter found, and the scores: one :class:`Finding` per problem, a score per tool and per server.

A tool's score (0-100) adds up the points of its dimensions (:data:`~generator.quality.rules.WEIGHTS`):
a dimension keeps all its points with no finding, half with a warning, none with an error.

The server's score follows TDQS: the tool quality is ``0.6 × mean + 0.4 × min`` of the tool scores,
so one bad tool pulls the server down; the coherence is 100 less the penalties of the server-level
findings (:data:`PENALTIES`); and the server score is ``0.7 × tool quality + 0.3 × coherence``.
Every score is rounded half up to a whole number once, at the end.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from generator.quality.rules import BY_ID, DIMENSIONS, WEIGHTS

PENALTIES = {
    "server-similar-tools": 15,
    "server-tool-count": 15,
    "server-missing-annotations": 30,
    "server-mixed-naming": 10,
}
"""Points of coherence a server-level finding costs; an error costs twice as much. The similar-tools
penalty counts per pair (at most three pairs), the missing-annotations one is scaled by the share of
tools without annotations."""


@dataclass(frozen=True)
class Finding:
    """One problem. ``text`` is the server's own text that triggered it, already cut short; like ``message``
    (which may name tools and parameters) it is untrusted and escaped by every report for its output."""

    rule: str
    tool: str | None
    """The tool's name; None for a finding about the whole server."""
    field: str
    """Where, as a JSON pointer into the tool definition (``/inputSchema/properties/limit``), or ``/tools``."""
    text: str
    message: str
    severity: str

    @property
    def dimension(self) -> str:
        return BY_ID[self.rule].dimension

    @property
    def fix(self) -> str:
        return BY_ID[self.rule].fix

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "dimension": self.dimension,
            "tool": self.tool,
            "field": self.field,
            "text": self.text,
            "message": self.message,
            "fix": self.fix,
        }


def round_half_up(value: float) -> int:
    """Whole points, rounded half up (not to even), so a score never depends on the float's parity."""
    return math.floor(value + 0.5)


@dataclass(frozen=True)
class ToolReport:
    """One tool's findings and its score."""

    name: str
    findings: tuple[Finding, ...]

    def verdict(self, dimension: str) -> str:
        """``poor`` when a warning or an error falls in *dimension*, else ``good``."""
        return "poor" if any(f.dimension == dimension and f.severity != "note" for f in self.findings) else "good"

    @property
    def points(self) -> float:
        total = 0.0
        for dimension in DIMENSIONS:
            worst = {f.severity for f in self.findings if f.dimension == dimension}
            share = 0.0 if "error" in worst else 0.5 if "warning" in worst else 1.0
            total += WEIGHTS[dimension] * share
        return total

    @property
    def score(self) -> int:
        return round_half_up(self.points)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "score": self.score,
            "dimensions": {d: self.verdict(d) for d in DIMENSIONS},
            "findings": [f.to_dict() for f in self.findings],
        }


@dataclass(frozen=True)
class Report:
    """The linter's verdict on one server."""

    server: str
    tools: tuple[ToolReport, ...]
    server_findings: tuple[Finding, ...]
    rules: tuple[str, ...]
    """The ids of the rules that ran, in table order."""
    annotated_share: float = 1.0
    """The share of tools that declare at least one annotation hint (scales that penalty)."""

    @property
    def findings(self) -> tuple[Finding, ...]:
        """Every finding: the server's first, then each tool's in tool order."""
        return self.server_findings + tuple(f for tool in self.tools for f in tool.findings)

    @property
    def tool_quality(self) -> float:
        if not self.tools:
            return 100.0
        points = [tool.points for tool in self.tools]
        return 0.6 * (sum(points) / len(points)) + 0.4 * min(points)

    @property
    def coherence(self) -> float:
        lost = 0.0
        pairs = 0
        for finding in self.server_findings:
            weight = float(PENALTIES[finding.rule] * (2 if finding.severity == "error" else 1))
            if finding.rule == "server-similar-tools":
                pairs += 1
                if pairs > 3:
                    continue
            if finding.rule == "server-missing-annotations":
                weight *= 1 - self.annotated_share
            lost += weight
        return max(0.0, 100.0 - lost)

    @property
    def score(self) -> int:
        return round_half_up(0.7 * self.tool_quality + 0.3 * self.coherence)

    def counts(self) -> dict[str, int]:
        """Findings per severity."""
        found = self.findings
        return {severity: sum(1 for f in found if f.severity == severity) for severity in ("error", "warning", "note")}

    def to_dict(self) -> dict[str, Any]:
        return {
            "server": self.server,
            "score": self.score,
            "tool_quality": round_half_up(self.tool_quality),
            "coherence": round_half_up(self.coherence),
            "counts": self.counts(),
            "rules": list(self.rules),
            "server_findings": [f.to_dict() for f in self.server_findings],
            "tools": [tool.to_dict() for tool in self.tools],
        }
