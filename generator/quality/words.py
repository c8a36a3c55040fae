"""Server text read as words, in bounded time: the one place the linter looks inside prose.

Every string is cut to a fixed length before it is read, and every function here makes one pass
over what is left (a character class matched left to right, set look-ups), so a hostile
description costs at most a few milliseconds whatever it holds. Phrases are matched as word
sequences against a set of n-grams, never as a regular expression built from server text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

MAX_TEXT = 20_000
"""Characters of one description that are read; the rest is ignored (its length still counts)."""
MAX_PHRASE = 4
"""The longest cue phrase, in words: the n-grams of a text go up to this length."""

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
    """The words of one text, lowercased, with the n-grams phrases are looked up in."""

    text: str
    """The text as read (already cut)."""

    @cached_property
    def words(self) -> tuple[str, ...]:
        return tuple(w.lower() for w in _WORD.findall(self.text))

    @cached_property
    def count(self) -> int:
        """How many words the text holds; a run of CJK characters counts one word per two characters."""
        wide = sum(1 for c in self.text if _wide(c))
        return len([w for w in self.words if not _wide(w[0])]) + (wide + 1) // 2

    @cached_property
    def grams(self) -> frozenset[tuple[str, ...]]:
        words = self.words
        return frozenset(tuple(words[i : i + n]) for n in range(1, MAX_PHRASE + 1) for i in range(len(words) - n + 1))

    @cached_property
    def identifiers(self) -> frozenset[str]:
        """Every identifier-like token as written (case kept): how a description names a parameter."""
        return frozenset(_IDENT.findall(self.text))

    def has(self, phrases: Iterable[tuple[str, ...]]) -> tuple[str, ...] | None:
        """The first of *phrases* (word tuples, lowercase) the text contains, or None."""
        grams = self.grams
        return next((p for p in phrases if p in grams), None)

    def sentence(self, phrase: tuple[str, ...], width: int = 160) -> str:
        """Where *phrase* occurs: the stretch of text around its first word, for a finding to quote."""
        lowered = self.text.lower()
        at = lowered.find(phrase[0]) if phrase else -1
        if at < 0:
            return first_sentence(self.text, width)
        start = max(lowered.rfind(c, 0, at) for c in _SENTENCE_END) + 1
        return excerpt(self.text[start:].lstrip(), width)


def phrases(text: str) -> tuple[tuple[str, ...], ...]:
    """Cue phrases written one per line (``use this when``) as word tuples."""
    return tuple(tuple(line.split()) for line in text.strip().splitlines() if line.strip())


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
