"""The rules about one tool's name, description and annotations (its parameters: :mod:`.params`).

Each check reads a :class:`ToolText` and returns findings; none looks at more than the capped text
(:mod:`generator.quality.words`), so a check costs time linear in what it reads.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from generator.quality import cues
from generator.quality.report import Finding
from generator.quality.rules import BY_ID
from generator.quality.words import STOP, Words, excerpt, first_sentence, name_words, stem
from generator.text import code_span, visible

WALL = 2000
"""Characters past which a description is a wall of text. TDQS asks that every sentence earn its place;
the corpus's well-written descriptions stay under about 1,500 characters (docs/lint.md)."""
NAME_MAX = 128
"""The longest tool name the MCP specification (2025-11-25, Tool Names) allows."""
_NAME_OK = re.compile(r"[A-Za-z0-9_.\-]*")
_CAPS = re.compile(r"\b[A-Z]{4,}\b")
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


@dataclass(frozen=True)
class ToolText:
    """One tool as the rules read it."""

    tool: dict[str, Any]
    siblings: frozenset[str]
    """The names of the server's other tools."""
    server: tuple[str, ...] = ()
    """The words of the server's name (a description that opens with it restates no more than the name)."""
    texts: tuple[tuple[str, str], ...] = ()
    """Further text of the tool to scan for shouting and injections: (field, text) pairs (parameter
    descriptions, filled in by :mod:`.params`)."""

    @property
    def name(self) -> str:
        name = self.tool.get("name")
        return name if isinstance(name, str) else ""

    @cached_property
    def raw_description(self) -> str:
        value = self.tool.get("description")
        return value if isinstance(value, str) else ""

    @cached_property
    def description(self) -> Words:
        return Words(self.raw_description[:20_000].replace("\r", ""))

    @cached_property
    def annotations(self) -> dict[str, Any]:
        value = self.tool.get("annotations")
        return value if isinstance(value, dict) else {}

    @cached_property
    def title(self) -> str:
        for value in (self.tool.get("title"), self.annotations.get("title")):
            if isinstance(value, str):
                return value[:256]
        return ""

    @cached_property
    def mentions(self) -> frozenset[str]:
        """Names the description mentions: identifiers, dashed or dotted ones too (``list-files``)."""
        found = re.findall(r"[A-Za-z_][A-Za-z0-9_.\-]*", self.description.text)
        return frozenset(token.rstrip(".-") for token in found)

    def finding(self, rule: str, field: str, text: str, message: str, severity: str | None = None) -> Finding:
        return Finding(rule, self.name, field, text, message, severity or BY_ID[rule].severity)


def purpose(tool: ToolText) -> list[Finding]:
    text = tool.description
    if not text.text.strip():
        return [tool.finding("purpose-missing", "/description", "", "the tool has no description")]
    if _same(text.text, tool.name) or (tool.title and _same(text.text, tool.title)):
        return [
            tool.finding(
                "purpose-tautology",
                "/description",
                excerpt(text.text),
                f"the description is the name {code_span(tool.name)} again",
            )
        ]
    if _restates(tool):
        return [
            tool.finding(
                "purpose-restates-name",
                "/description",
                excerpt(text.text),
                f"the description adds nothing to the name {code_span(tool.name)}",
            )
        ]
    if text.count < 3:
        return [
            tool.finding(
                "purpose-too-short", "/description", excerpt(text.text), "a description of fewer than three words"
            )
        ]
    return []


def _same(text: str, name: str) -> bool:
    """Whether *text* is *name* written out: the same words, whatever the case and separators."""
    return Words(text).words == tuple(w for w in name_words(name) if w) if name_words(name) else False


RESTATED_REST = 6
"""Content words the rest of a description must add when its opening sentence only restates the name."""


def _restates(tool: ToolText) -> bool:
    """Whether the opening sentence's words are all the name's (or title's, or server's) and the rest adds
    fewer than :data:`RESTATED_REST` words: TDQS's tautology gate, read word by word."""
    opening = first_sentence(tool.description.text, 400)
    known = {stem(w) for w in (*name_words(tool.name), *name_words(tool.title), *tool.server)}
    said = {stem(w) for w in Words(opening).words if w not in STOP}
    if not said or said - known:
        return False
    rest = {stem(w) for w in Words(tool.description.text[len(opening) :]).words if w not in STOP}
    return len(rest - known - said) < RESTATED_REST


def usage(tool: ToolText) -> list[Finding]:
    text = tool.description
    if not text.text.strip() or text.has(cues.USAGE) or tool.mentions & tool.siblings:
        return []
    return [
        tool.finding(
            "usage-missing",
            "/description",
            excerpt(text.text),
            "no word on when to use it, or on what to use instead",
        )
    ]


def _verb(words: tuple[str, ...], *, leading: bool) -> str:
    """The verb *words* open with (``creates`` read as create; one adverb such as "permanently" skipped),
    or, when not *leading* (a name's words), the first known verb among them; ``""`` when there is none."""
    if leading:
        words = words[1:2] if words and words[0].endswith("ly") else words[:1]
    for word in words[:8]:
        for form in (word, word[:-1] if word.endswith("s") else "", word[:-2] if word.endswith("es") else ""):
            if form in cues.WRITE_VERBS or form in cues.READ_VERBS:
                return form
    return ""


def _opening_words(text: str) -> tuple[str, ...]:
    """The words of an opening sentence past a "This tool" or "Tool to" preamble."""
    words = Words(text).words
    skip = 0
    while skip < len(words) and words[skip] in {"this", "tool", "to", "will", "the", "it", "function", "mcp", "api"}:
        skip += 1
    return words[skip:]


def behaviour(tool: ToolText) -> list[Finding]:
    hints = {k: tool.annotations.get(k) for k in HINTS if isinstance(tool.annotations.get(k), bool)}
    opening = first_sentence(tool.description.text, 300)
    verbs = [(v, "/description", opening) for v in (_verb(_opening_words(opening), leading=True),) if v]
    verbs += [(v, "/name", tool.name) for v in (_verb(name_words(tool.name), leading=False),) if v]
    for verb, field, text in verbs:
        if hints.get("readOnlyHint") is True and verb in cues.WRITE_VERBS:
            return [
                tool.finding(
                    "behaviour-contradicts-annotations",
                    field,
                    excerpt(text),
                    f"readOnlyHint is true, but the tool says it will {verb}",
                )
            ]
        if (
            hints.get("destructiveHint") is False
            and hints.get("readOnlyHint") is not True
            and verb in cues.DESTRUCTIVE_VERBS
        ):
            return [
                tool.finding(
                    "behaviour-contradicts-annotations",
                    field,
                    excerpt(text),
                    f"destructiveHint is false, but the tool says it will {verb}",
                )
            ]
    if hints or tool.description.has(cues.DISCLOSURE):
        return []
    shown = "only a title" if tool.annotations else "none"
    return [
        tool.finding(
            "behaviour-undeclared",
            "/annotations",
            excerpt(opening),
            f"annotations: {shown}; no word on what it changes",
        )
    ]


def returns(tool: ToolText) -> list[Finding]:
    schema = tool.tool.get("outputSchema")
    if (isinstance(schema, dict) and schema) or tool.description.has(cues.RETURNS):
        return []
    return [
        tool.finding(
            "returns-undescribed",
            "/outputSchema",
            excerpt(tool.description.text),
            "no outputSchema, no word on what comes back",
        )
    ]


def errors(tool: ToolText) -> list[Finding]:
    if tool.description.has(cues.ERRORS):
        return []
    return [
        tool.finding(
            "errors-unstated",
            "/description",
            excerpt(tool.description.text),
            "no failure, limit or precondition named",
        )
    ]


def conciseness(tool: ToolText) -> list[Finding]:
    found: list[Finding] = []
    size = len(tool.raw_description)
    if size > WALL:
        found.append(
            tool.finding(
                "concise-wall-of-text",
                "/description",
                excerpt(tool.description.text),
                f"{size:,} characters (more than {WALL:,})",
            )
        )
    fields = (
        ("/description", tool.description),
        ("/title", Words(tool.title)),
        *((f, Words(t)) for f, t in tool.texts),
    )
    for rule, check in (
        ("concise-hidden-text", _hidden),
        ("concise-injection", _injection),
        ("concise-shouting", _shouting),
    ):
        for field, words in fields:
            quoted = check(words)
            if quoted is not None:
                found.append(tool.finding(rule, field, quoted, BY_ID[rule].title))
                break
    return found


def _hidden(words: Words) -> str | None:
    """The text around its first invisible or control character, that character shown as ``[U+XXXX]``."""
    flat = words.text.replace("\r", "")
    if visible(flat) == flat:
        return None
    at = next(i for i, char in enumerate(flat) if visible(char) != char)
    return excerpt(visible(flat[max(0, at - 16) :]), 80)


def _injection(words: Words) -> str | None:
    text = words.text
    phrase = words.has(cues.INJECTION)
    if phrase is not None:
        return words.sentence(phrase)
    lowered = text.lower()
    tag = next((t for t in cues.INJECTION_TAGS if t in lowered), None)
    return excerpt(text[lowered.find(tag) :]) if tag else None


def _shouting(words: Words) -> str | None:
    text = words.text
    match = next((m for m in _CAPS.finditer(text) if m.group() in cues.SHOUTED), None)
    if match is not None:
        start = max(text.rfind(c, 0, match.start()) for c in ".!?\n") + 1
        return excerpt(text[start:].lstrip())
    phrase = words.has(cues.PUSHY)
    return words.sentence(phrase) if phrase is not None else None


def naming(tool: ToolText) -> list[Finding]:
    name = tool.tool.get("name")
    name = name if isinstance(name, str) else ""
    shown = excerpt(name, 200)
    if not name or len(name) > NAME_MAX:
        return [tool.finding("name-length", "/name", shown, f"{len(name)} characters (1 to {NAME_MAX} allowed)")]
    found = []
    if not _NAME_OK.fullmatch(name):
        bad = sorted({c for c in name if not (c.isascii() and (c.isalnum() or c in "_.-"))})
        found.append(
            tool.finding(
                "name-invalid-characters", "/name", shown, "not allowed: " + " ".join(code_span(c) for c in bad[:10])
            )
        )
    if name[0] in ".-" or name[-1] in ".-":
        found.append(tool.finding("name-edge-character", "/name", shown, "a dot or a hyphen at the start or the end"))
    if name.lower() in cues.GENERIC_NAMES:
        found.append(tool.finding("name-generic", "/name", shown, f"{code_span(name)} names no object"))
    return found


CHECKS: tuple[Callable[[ToolText], list[Finding]], ...] = (
    purpose, usage, behaviour, returns, errors, conciseness, naming,
)  # fmt: skip
"""The per-tool checks, in dimension order (parameters are :func:`generator.quality.params.parameters`)."""
