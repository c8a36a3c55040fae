"""The ``lint`` report as SARIF 2.1.0, the format GitHub code scanning reads.

One run; the driver lists every rule that ran (id, description, fix, default level); each finding is a
result with its rule, level, message, a logical location (the tool and the field, as a JSON pointer)
and, when the snapshot came from a file, a physical location: that file, at the line where the tool's
definition starts, so a pull request that changes a committed snapshot shows the findings on it. The
text is JSON, escaped by :func:`generator.text.json_report` like every JSON report.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from generator import __version__
from generator.quality.report import Finding, Report
from generator.quality.rules import BY_ID, RULES
from generator.text import json_report

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "note": "note"}


def render_sarif(report: Report, source: Path | None = None) -> str:
    """The SARIF log of *report*; *source* is the snapshot file it was linted from, if any."""
    lines = tool_lines(source) if source is not None else {}
    ran = [rule for rule in RULES if rule.id in report.rules]
    index = {rule.id: i for i, rule in enumerate(ran)}
    results = [_result(f, index, source, lines) for f in report.findings]
    run = {
        "tool": {
            "driver": {
                "name": "mcp-portal",
                "semanticVersion": __version__,
                "rules": [_rule(rule.id) for rule in ran],
            }
        },
        "results": results,
        "properties": {
            "server": report.server,
            "score": report.score,
            "toolQuality": round(report.tool_quality),
            "coherence": round(report.coherence),
        },
    }
    return json_report({"$schema": SCHEMA, "version": "2.1.0", "runs": [run]})


def _rule(rule_id: str) -> dict[str, Any]:
    rule = BY_ID[rule_id]
    return {
        "id": rule.id,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": f"{rule.title} ({rule.dimension})."},
        "help": {"text": rule.fix},
        "defaultConfiguration": {"level": LEVELS[rule.severity], "enabled": rule.default},
        "properties": {"tags": ["agent-readiness", rule.dimension], "source": rule.source},
    }


def _result(finding: Finding, index: dict[str, int], source: Path | None, lines: dict[str, int]) -> dict[str, Any]:
    name = finding.tool
    logical = (
        {"name": name, "fullyQualifiedName": f"tools/{name}{finding.field}", "kind": "function"}
        if name is not None
        else {"name": "tools", "fullyQualifiedName": "tools", "kind": "module"}
    )
    location: dict[str, Any] = {"logicalLocations": [logical]}
    if source is not None:
        line = lines.get(name, 1) if name is not None else lines.get("", 1)
        location["physicalLocation"] = {
            "artifactLocation": {"uri": _uri(source)},
            "region": {"startLine": line},
        }
    key = json.dumps([finding.rule, name, finding.field], ensure_ascii=False)
    return {
        "ruleId": finding.rule,
        "ruleIndex": index[finding.rule],
        "level": LEVELS[finding.severity],
        "message": {"text": f"{finding.message}. {BY_ID[finding.rule].fix}"},
        "locations": [location],
        "partialFingerprints": {"mcpPortalFinding/v1": hashlib.sha256(key.encode()).hexdigest()},
        "properties": {"tool": name, "field": finding.field, "text": finding.text, "dimension": finding.dimension},
    }


def _uri(path: Path) -> str:
    """The snapshot's location as a URI reference: relative paths stay relative (code scanning wants
    them relative to the repository), absolute ones become ``file://`` URIs. A URI names the path's bytes,
    as ``as_uri`` does: a name that is not UTF-8 is percent-encoded byte for byte."""
    return path.resolve().as_uri() if path.is_absolute() else quote(os.fsencode(path.as_posix()))


def tool_lines(path: Path) -> dict[str, int]:
    """The line where each tool's definition starts in a snapshot file (key ``""``: the tools list).

    The file is walked with the JSON decoder, element by element, so the lines are exact whatever the
    file's layout; a file that cannot be read this way gives no lines (every result then points at
    line 1).
    """
    try:
        text = path.read_text(encoding="utf-8")
        return _lines(text)
    except (OSError, UnicodeDecodeError, ValueError):
        return {}


def _lines(text: str) -> dict[str, int]:
    decoder = json.JSONDecoder()
    at = _skip(text, 0)
    if text[at : at + 1] != "{":
        return {}
    at = _skip(text, at + 1)
    while at < len(text) and text[at] == '"':
        key, at = decoder.raw_decode(text, at)
        at = _skip(text, _skip(text, at) + 1)  # past the colon
        if key == "tools" and text[at : at + 1] == "[":
            return _elements(text, at, decoder)
        _, at = decoder.raw_decode(text, at)
        at = _skip(text, at)
        at = _skip(text, at + 1) if text[at : at + 1] == "," else at
    return {}


def _elements(text: str, at: int, decoder: json.JSONDecoder) -> dict[str, int]:
    found = {"": text.count("\n", 0, at) + 1}
    line, counted = found[""], at
    at = _skip(text, at + 1)
    while at < len(text) and text[at] != "]":
        line += text.count("\n", counted, at)
        counted = at
        tool, at = decoder.raw_decode(text, at)
        name = tool.get("name") if isinstance(tool, dict) else None
        if isinstance(name, str):
            found.setdefault(name, line)
        at = _skip(text, at)
        at = _skip(text, at + 1) if text[at : at + 1] == "," else at
    return found


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at
