"""The rules about the tool set as a whole: tools an agent cannot tell apart, their number, missing
annotations and mixed naming (TDQS's server "coherence").

Comparing descriptions pairwise would cost the square of the tool count; :func:`similar_tools` instead
finds candidate pairs through the rarer words they share (an inverted index) and stops after a fixed
number of steps, so a server of thousands of tools is compared in bounded time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from generator.quality.report import Finding
from generator.quality.rules import BY_ID
from generator.quality.tool_checks import HINTS
from generator.quality.words import STOP, Words, excerpt, name_words, stem
from generator.text import code_span, counted

SIMILAR = 0.8
"""Word overlap (Jaccard, over the content words of two descriptions) from which two tools look alike."""
MIN_WORDS = 6
"""Content words a description needs before it is compared: short ones overlap by chance."""
STEPS = 2_000_000
"""Pair counts the comparison may make before it stops (a few seconds at most)."""
HEAVY, EXTREME = 25, 50
"""Tool counts past which TDQS's "Tool Count Appropriateness" calls a server heavy and extreme."""


def _finding(rule: str, text: str, message: str, severity: str | None = None) -> Finding:
    return Finding(rule, None, "/tools", text, message, severity or BY_ID[rule].severity)


def _name(tool: dict[str, Any]) -> str:
    name = tool.get("name")
    return name if isinstance(name, str) else ""


def _content(tool: dict[str, Any]) -> frozenset[str]:
    description = tool.get("description")
    words = Words(description[:4000]) if isinstance(description, str) else Words("")
    return frozenset(stem(w) for w in words.words if w not in STOP)


def similar_tools(tools: Sequence[dict[str, Any]]) -> list[Finding]:
    """Pairs whose names differ only in case and separators, or whose descriptions share most words."""
    found: list[Finding] = []
    seen: dict[str, str] = {}
    for tool in tools:
        name = _name(tool)
        key = re.sub(r"[\W_]+", "", name.lower())
        if key and key in seen:
            found.append(
                _finding(
                    "server-similar-tools",
                    f"{seen[key]} / {name}",
                    f"{code_span(seen[key])} and {code_span(name)} differ only in case or separators",
                )
            )
        seen.setdefault(key, name)
    return found + _alike(tools)


def _alike(tools: Sequence[dict[str, Any]]) -> list[Finding]:
    sets = [_content(t) for t in tools]
    index: dict[str, list[int]] = {}
    for i, words in enumerate(sets):
        if len(words) >= MIN_WORDS:
            for word in words:
                index.setdefault(word, []).append(i)
    common = max(20, len(tools) // 4)
    shared: dict[tuple[int, int], int] = {}
    steps = 0
    for word in sorted(index):
        holders = index[word]
        if len(holders) > common:
            continue
        for a in range(len(holders)):
            for b in range(a + 1, len(holders)):
                shared[(holders[a], holders[b])] = shared.get((holders[a], holders[b]), 0) + 1
            steps += len(holders) - a
        if steps > STEPS:
            break
    found = []
    for (i, j), count in sorted(shared.items()):
        if count < SIMILAR * min(len(sets[i]), len(sets[j])):
            continue
        overlap = len(sets[i] & sets[j]) / len(sets[i] | sets[j])
        if overlap >= SIMILAR and not _told_apart(tools[i], tools[j], sets[i] ^ sets[j]):
            one, other = _name(tools[i]), _name(tools[j])
            found.append(
                _finding(
                    "server-similar-tools",
                    f"{one} / {other}",
                    f"{code_span(one)} and {code_span(other)} share {overlap:.0%} of their description's words",
                )
            )
    return found


def _told_apart(one: dict[str, Any], other: dict[str, Any], differing: frozenset[str]) -> bool:
    """Whether the descriptions differ in a word that sets the two names apart (find_teams and
    find_projects, each description naming its object): then an agent can tell the tools apart."""
    apart = {stem(w) for w in name_words(_name(one))} ^ {stem(w) for w in name_words(_name(other))}
    return bool(apart & differing)


def tool_count(tools: Sequence[dict[str, Any]]) -> list[Finding]:
    count = len(tools)
    if count <= HEAVY:
        return []
    severity = "error" if count > EXTREME else "warning"
    limit = EXTREME if count > EXTREME else HEAVY
    return [_finding("server-tool-count", str(count), f"{count} tools (more than {limit})", severity)]


def annotated(tool: dict[str, Any]) -> bool:
    """Whether *tool* declares at least one of the four annotation hints."""
    annotations = tool.get("annotations")
    return isinstance(annotations, dict) and any(isinstance(annotations.get(k), bool) for k in HINTS)


def missing_annotations(tools: Sequence[dict[str, Any]]) -> list[Finding]:
    bare = [_name(t) for t in tools if not annotated(t)]
    if not bare:
        return []
    shown = ", ".join(code_span(n) for n in bare[:5]) + (f" and {len(bare) - 5} more" if len(bare) > 5 else "")
    return [
        _finding(
            "server-missing-annotations",
            excerpt(", ".join(bare), 200),
            f"{len(bare)} of {counted(len(tools), 'tool')} {'declares' if len(bare) == 1 else 'declare'} no "
            f"annotation hint: {shown}",
        )
    ]


def _convention(name: str) -> str:
    if "_" in name:
        return "snake_case"
    if "-" in name:
        return "kebab-case"
    if "." in name:
        return "dotted"
    if any(c.isupper() for c in name[1:]):
        return "camelCase"
    return ""


def mixed_naming(tools: Sequence[dict[str, Any]]) -> list[Finding]:
    groups: dict[str, list[str]] = {}
    for tool in tools:
        name = _name(tool)
        convention = _convention(name)
        if convention:
            groups.setdefault(convention, []).append(name)
    if len(groups) < 2:
        return []
    ranked = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    shown = "; ".join(f"{k}: {len(v)} ({code_span(v[0])})" for k, v in ranked)
    return [_finding("server-mixed-naming", excerpt(", ".join(v[0] for _, v in ranked), 200), shown)]


CHECKS = (similar_tools, tool_count, missing_annotations, mixed_naming)
"""The server-level checks, in report order."""
