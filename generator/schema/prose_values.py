"""Values a description names in prose: examples it gives, allowed values it lists, values it rejects.

Descriptions say what a schema does not: "Example: nodes-base.httpRequest", "(e.g. 'PROJ-1,PROJ-2')",
"Rollout action (status, history, restart, undo, pause, resume)", "Database type: 'mysql',
'postgresql', or 'oracle'", and also what must never be sent: 'System paths (e.g. "/etc",
"~/.ssh") are rejected'. :func:`given_values` and :func:`listed_values` read the first two, in the
order the description gives them, without the values :func:`rejected_values` finds; the example
solver tries them first and validates each against the schema, as every candidate.

The text is the server's: each description is cut to :data:`MAX_TEXT` characters, split into
sentences without backtracking, and every pattern is a bounded alternation with no nested
repetition, so the cost is linear in that bound.
"""

from __future__ import annotations

import re

MAX_TEXT = 2_000
"""The characters of one description read: values are given near the start, and it bounds the cost."""
_WINDOW = 200
"""How far after "e.g." or "Options:" values are looked for."""

_SENTENCE_END = re.compile(
    r"(?<=[.;!?])(?<!e\.g\.)(?<!i\.e\.)(?<!etc\.)(?<!vs\.)\s+(?=[A-Z(\"'`*-])|\n\s*\n|\n(?=\s*[A-Z*])"
)
_QUOTED = re.compile(
    r"\"([^\"\n]{1,160}(?:\n[^\"\n]{1,80})?)\"|'([^'\n]{1,160}(?:\n[^'\n]{1,80})?)'|`([^`\n]{1,160}(?:\n[^`\n]{1,80})?)`"
)
"""A quoted value, which may go on over one line break (descriptions wrapped in the server's source)."""
_REJECTING = re.compile(
    r"\b(?:rejected|forbidden|not allowed|disallowed|not permitted|refused|must not be|may not be|never use|blocked|"
    r"do not (?:include|use|pass|send)|don't (?:include|use|pass|send))\b",
    re.I,
)
_GIVEN = re.compile(
    r"\b(?:examples?(?: [\w ]{1,30})?\s*:|an example \w+(?: \w+)? is\b|e\.g\.|i\.e\.|for example\b|for instance\b|"
    r"such as\b|accepts\b)\s*,?",
    re.I,
)
_BARE = re.compile(r"\s*[:,]?\s*(?:[-*]\s+)?([A-Za-z0-9_./@~#+$][^\s,;()\[\]{}]{0,79})")
_TOKEN = re.compile(r"[A-Za-z0-9_.:/+@#-]{1,60}")
_ALONE = re.compile(r"\s*(?:$|[,;)\]]|\.(?:\s|$))")
_CODE_LIKE = re.compile(r"[0-9._/@#:$~+-]|[a-z][A-Z]")
"""A bare word given as an example is taken when it reads as a value (``2401.12345``, ``#release``,
``nodes-base.slack``, ``camelCase``), not as an English word ("such as JSON files")."""
_CHOICES = re.compile(
    r"\b(?:options?|one of|must be(?: one of)?|(?:valid|allowed|possible|accepted|supported|common) values?(?: are)?|"
    r"values?(?: are)?|either|(?:types?|kind)(?: of \w+)?(?: to \w+)?|operation to perform|action)\s*:\s*",
    re.I,
)
_ITEM = re.compile(r"\s*(?:or\s+|and\s+)?(?:[`'\"]([A-Za-z0-9_./:+-]{1,60})[`'\"]|([A-Za-z0-9][A-Za-z0-9_.-]{0,59}))")
_SEPARATOR = re.compile(r"\s*(?:,|\||/|\bor\b)\s*")
_DASH_ITEM = re.compile(r"^\s*[-*]\s+[`'\"]?([A-Za-z0-9][A-Za-z0-9_.-]{0,59})[`'\"]?\s*:", re.M)
_PAREN_LIST = re.compile(
    r"\(([A-Za-z0-9_.-]{1,40}(?:\s*,\s*(?:or\s+|and\s+)?[A-Za-z0-9_.-]{1,40}){1,15})\s*(?:,\s*(?:…|\.\.\.))?\)"
)
_LEADING_LIST = re.compile(r"^\s*([a-z0-9][a-z0-9_.-]{0,39})\s*,\s*[a-z0-9][a-z0-9_.-]{0,39}\s*,")
_PAREN_QUOTED = re.compile(r"\(\s*[`'\"]([A-Za-z0-9_.-]{1,40})[`'\"]\s*\)")
_NOT_VALUES = frozenset(
    ["a", "an", "the", "this", "that", "one", "any", "some", "when", "if", "to", "of", "in", "for", "is", "be",
     "you", "your", "it", "its", "with", "and", "or", "not", "no", "as", "by", "on", "at", "e", "g", "i", "etc",
     "optional", "required", "default", "string", "number", "integer", "boolean", "true", "false", "null", "e.g.",
     "i.e.", "etc.", "etc"]
)  # fmt: skip


def _text(description: object) -> str:
    return description[:MAX_TEXT] if isinstance(description, str) else ""


def sentences(description: object) -> list[str]:
    """The description cut into sentences (at ". X", blank lines and new lines that start one), bounded."""
    return [s for s in _SENTENCE_END.split(_text(description)) if s.strip()]


def _quoted(text: str) -> list[str]:
    """The quoted values of *text*, their runs of white space made one space."""
    values = (" ".join(next(g for g in m.groups() if g is not None).split()) for m in _QUOTED.finditer(text))
    return [v for v in values if any(c.isalnum() for c in v)]


def rejected_values(description: object) -> frozenset[str]:
    """The quoted values of the sentences that say something is rejected, forbidden or not allowed."""
    return frozenset(q for s in sentences(description) if _REJECTING.search(s) for q in _quoted(s))


def _worth(value: str) -> bool:
    return (len(value) > 1 or value.isdigit()) and value.lower() not in _NOT_VALUES


def given_values(description: object) -> list[str]:
    """The values a description gives as examples, in order: after "Example:", "Examples:", "e.g.",
    "for example", "such as", "accepts", the quoted ones up to the end of that sentence (a list on the
    next lines included), else the word that follows; never one from a sentence that rejects it."""
    found: list[str] = []
    for sentence in sentences(description):
        if _REJECTING.search(sentence):
            continue
        for mark in _GIVEN.finditer(sentence):
            tail = sentence[mark.end() : mark.end() + _WINDOW]
            quoted = _quoted(tail)
            if (braced := _braced(tail)) is not None:
                found.append(braced)
            elif quoted:
                found += [q for q in quoted if _worth(q) or len(q) == 1]
            elif listed := _given_list(tail):
                found += [v for v in listed if _worth(v)]
            elif (bare := _BARE.match(tail)) is not None:
                value = bare.group(1).rstrip(".:")
                alone = _ALONE.match(tail, bare.end()) is not None  # "for example prometheus", not "such as API keys"
                found += [value] if _worth(value) and (alone or _CODE_LIKE.search(value)) else []
    return list(dict.fromkeys(found))


def _braced(tail: str) -> str | None:
    """A JSON-like value the example starts with (``{job="foo", namespace="bar"}``), braces balanced, bounded."""
    text = tail.lstrip(" ,:")
    if not text.startswith("{"):
        return None
    depth = 0
    for i, ch in enumerate(text[:_WINDOW]):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth == 0:
            return text[: i + 1]
    return None


def _given_list(tail: str) -> list[str]:
    """A list of single words given as examples ("e.g., pods, deployments, services, etc."): two or more,
    each one token, up to the end of the parenthesis or sentence; else none."""
    head = re.split(r"\)|\.(?:\s|$)|;|\n", tail, maxsplit=1)[0]  # a sentence's period is not the last word's
    parts = [p.strip() for p in re.split(r",|\bor\b|\band\b", head)]
    parts = [p for p in parts if p and p.lower() not in ("etc", "etc.")]
    return parts if len(parts) >= 2 and all(_TOKEN.fullmatch(p) for p in parts) else []


def listed_values(description: object) -> list[str]:
    """The allowed values a description lists in prose, in order: after "Options:", "one of", "valid
    values", "Type:" and the like (quoted or bare, separated by commas, "or" or "|"), as a dashed list
    ("- create: ..."), in parentheses ("(status, history, restart)", "('local')"), or as the list the
    description starts with ("deployment, statefulset, or another kind")."""
    text = _text(description)
    rejected = rejected_values(text)
    found: list[str] = []
    for mark in _CHOICES.finditer(text):
        found += _items(text[mark.end() : mark.end() + _WINDOW])
    found += _DASH_ITEM.findall(text)
    for group in _PAREN_LIST.finditer(text):
        found += [w for w in re.split(r"\s*,\s*(?:or\s+|and\s+)?", group.group(1)) if w]
    found += _PAREN_QUOTED.findall(text)
    if lead := _LEADING_LIST.match(text):
        found.append(lead.group(1))
    return [v for v in dict.fromkeys(found) if _worth(v) and v not in rejected]


def _items(tail: str) -> list[str]:
    """The items of a list at the start of *tail* ("'a', 'b', or 'c'", "a | b"): at least two, or none."""
    items: list[str] = []
    pos = 0
    for _ in range(16):
        item = _ITEM.match(tail, pos)
        if item is None:
            break
        items.append(item.group(1) or item.group(2).rstrip("."))  # "or stop." ends a sentence, not the value
        separator = _SEPARATOR.match(tail, item.end())
        if separator is None or separator.end() == item.end():
            break
        pos = separator.end()
    quoted_one = len(items) == 1 and tail.lstrip()[:1] in "`'\""
    return items if len(items) >= 2 or quoted_one else []
