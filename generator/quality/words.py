"""Server text read as words, in bounded time: the one place the linter looks inside prose.

Every string is cut to a fixed length before it is read, and every function here makes one pass
over what is left (a character class matched left to right, dictionary look-ups), so a hostile
description costs at most a few milliseconds whatever it holds. Phrases are matched as word
sequences, looked for only where their first word occurs, never as a regular expression built
from server text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

MAX_TEXT = 20_000
"""Characters of one description that are read; the rest is ignored (its length still counts)."""

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
"""A word: letters and digits of any script, with one inner apostrophe (``don't``)."""
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""An identifier as a description names a parameter or a tool (``page_id``, ``sortBy``)."""
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_SENTENCE_END = ".!?\n。！？"

STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "this",
        "that",
        "these",
        "those",
        "to",
        "for",
        "of",
        "in",
        "on",
        "at",
        "by",
        "with",
        "from",
        "and",
        "or",
        "not",
        "is",
        "are",
        "be",
        "it",
        "its",
        "as",
        "into",
        "via",
        "using",
        "use",
        "any",
        "all",
        "some",
        "one",
        "each",
        "per",
        "your",
        "you",
        "tool",
        "tools",
        "api",
        "mcp",
        "server",
        "function",
    ]
)
"""Words that carry no purpose of their own, left out when a description is compared with a name."""


def cut(text: object, limit: int = MAX_TEXT) -> str:
    """*text* as a string of at most *limit* characters (anything else is the empty string)."""
    return text[:limit] if isinstance(text, str) else ""


def _wide(char: str) -> bool:
    """A character of a script written without spaces between words (CJK, kana, Thai)."""
    code = ord(char)
    return 0x2E80 <= code <= 0x9FFF or 0xAC00 <= code <= 0xD7AF or 0x0E00 <= code <= 0x0E7F or code >= 0x20000


@dataclass(frozen=True)
class Words:
    """The words of one text, lowercased, and where each occurs (phrases are looked up from there)."""

    text: str
    """The text as read (already cut)."""

    @cached_property
    def words(self) -> tuple[str, ...]:
        return tuple(w.lower() for w in _WORD.findall(self.text))

    @cached_property
    def count(self) -> int:
        """How many words the text holds; a run of CJK characters counts one word per two characters."""
        if self.text.isascii():
            return len(self.words)
        wide = sum(1 for c in self.text if _wide(c))
        return len([w for w in self.words if not _wide(w[0])]) + (wide + 1) // 2

    @cached_property
    def _starts(self) -> dict[str, list[int]]:
        """Where each word occurs: a phrase is looked for only where its first word is."""
        found: dict[str, list[int]] = {}
        for i, word in enumerate(self.words):
            found.setdefault(word, []).append(i)
        return found

    @cached_property
    def identifiers(self) -> frozenset[str]:
        """Every identifier-like token as written (case kept): how a description names a parameter."""
        return frozenset(_IDENT.findall(self.text))

    def has(self, phrases: Phrases) -> tuple[str, ...] | None:
        """The first of *phrases* (in their list's order) the text contains, or None."""
        words, starts = self.words, self._starts
        found = [
            (phrases.order[phrase], phrase)
            for first in phrases.by_first.keys() & starts.keys()
            for phrase in phrases.by_first[first]
            if any(words[i : i + len(phrase)] == phrase for i in starts[first])
        ]
        return min(found)[1] if found else None

    def sentence(self, phrase: tuple[str, ...], width: int = 160) -> str:
        """Where *phrase* occurs: the stretch of text around its first word, for a finding to quote."""
        lowered = self.text.lower()
        at = lowered.find(phrase[0]) if phrase else -1
        if at < 0:
            return first_sentence(self.text, width)
        start = max(lowered.rfind(c, 0, at) for c in _SENTENCE_END) + 1
        return excerpt(self.text[start:].lstrip(), width)


@dataclass(frozen=True)
class Phrases:
    """Cue phrases (lowercase word tuples), indexed by their first word."""

    items: tuple[tuple[str, ...], ...]

    @cached_property
    def by_first(self) -> dict[str, list[tuple[str, ...]]]:
        index: dict[str, list[tuple[str, ...]]] = {}
        for phrase in self.items:
            index.setdefault(phrase[0], []).append(phrase)
        return index

    @cached_property
    def order(self) -> dict[tuple[str, ...], int]:
        return {phrase: i for i, phrase in enumerate(self.items)}


def phrases(text: str) -> Phrases:
    """Cue phrases written one per line (``use this when``)."""
    return Phrases(tuple(tuple(line.split()) for line in text.strip().splitlines() if line.strip()))


def first_sentence(text: str, width: int = 160) -> str:
    """The text up to its first sentence end (a stop followed by a space, or a line break), cut to *width*.

    A dot inside a word (``.docx``, ``v1.2``, ``e.g``) ends no sentence.
    """
    text = text.lstrip()
    end = len(text)
    for i, char in enumerate(text[: width * 4]):
        if char in "\n。！？" or (char in ".!?" and (i + 1 == len(text) or text[i + 1].isspace())):
            end = i + 1
            break
    return excerpt(text[:end], width)


def excerpt(text: str, width: int = 160) -> str:
    """*text* on one line, cut to *width* characters with an ellipsis: what a finding quotes."""
    flat = " ".join(text[: width * 4].split())
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"


def name_words(name: str) -> tuple[str, ...]:
    """The words of a tool or parameter name: ``get_userById`` and ``get-user.by-id`` give get, user, by, id."""
    found: list[str] = []
    for part in re.split(r"[^A-Za-z0-9]+", name[:256]):
        found += (w.lower() for w in _CAMEL.findall(part))
    return tuple(found)


def stem(word: str) -> str:
    """A word without a plural ending, so that ``files`` and ``file`` compare equal."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("es") and word[-3] in "sxz":
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word
