"""The ECMA-262 regular expression vocabulary, spelled out for the two engines we run.

ECMA-262 gives ``\\d \\w \\s``, ``.`` and ``\\b`` meanings that differ from RE2's and from the
``regex`` package's (ASCII-only digits and word characters, its own white space, four line
terminators).  This module writes those meanings out as explicit code point ranges, writes one
character in each engine's syntax, and builds a character class (including the complemented
shorthands ``\\D \\W \\S`` inside it) for either engine.  :mod:`generator.schema.ecma_translate`
uses these pieces while it reads a pattern; :class:`PatternError` is the verdict for invalid syntax.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

WINDOW = 256  # characters read ahead for a group head or an escape (a longer group name is unsupported)

WS = "\t\n\x0b\f\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
LINE_END = "\n\r\u2028\u2029"
WORD = "0-9A-Za-z_"
DIGIT = "0-9"
SIMPLE = {"t": 0x09, "n": 0x0A, "v": 0x0B, "f": 0x0C, "r": 0x0D}
BOUNDARY = r"(?:(?<=[0-9A-Za-z_])(?![0-9A-Za-z_])|(?<![0-9A-Za-z_])(?=[0-9A-Za-z_]))"
NOT_BOUNDARY = r"(?:(?<=[0-9A-Za-z_])(?=[0-9A-Za-z_])|(?<![0-9A-Za-z_])(?![0-9A-Za-z_]))"


class PatternError(ValueError):
    """The text is not a valid ECMA-262 regular expression."""


def re2_char(cp: int) -> str:
    """One code point in RE2's syntax (``\\x{...}`` unless a plain ASCII letter or digit)."""
    return chr(cp) if chr(cp).isascii() and chr(cp).isalnum() else f"\\x{{{cp:X}}}"


def rx_char(cp: int) -> str:
    """One code point in the ``regex`` package's syntax (``\\U........`` unless a plain ASCII letter or digit)."""
    return chr(cp) if chr(cp).isascii() and chr(cp).isalnum() else f"\\U{cp:08X}"


def code_ranges(chars: str) -> list[tuple[int, int]]:
    """``"a-z_"`` as code point ranges (the class bodies above are written that way)."""
    out, i = [], 0
    while i < len(chars):
        if i + 2 < len(chars) and chars[i + 1] == "-":
            out.append((ord(chars[i]), ord(chars[i + 2])))
            i += 3
        else:
            out.append((ord(chars[i]), ord(chars[i])))
            i += 1
    return out


def class_body(spans: list[tuple[int, int]], char: Callable[[int], str]) -> str:
    """Code point ranges as the inside of a class, each character written by ``char``."""
    return "".join(f"{char(a)}-{char(b)}" if a != b else char(a) for a, b in spans)


_COMPLEMENTS = {"D": code_ranges(DIGIT), "W": code_ranges(WORD), "S": code_ranges(WS)}


@dataclass
class CharClass:
    """A character class being read: literal ranges, properties, and complemented shorthands."""

    negate: bool = False
    ranges: list[tuple[int, int]] = field(default_factory=list)  # \d \w \s are added as ranges
    props: list[str] = field(default_factory=list)  # \p{..} \P{..}: the same in both engines
    complements: list[str] = field(default_factory=list)  # "D", "W", "S" found inside

    def form(self, char: Callable[[int], str], native: str) -> tuple[str, bool]:
        """This class in one engine's syntax, and whether it needs a lookahead.

        ``native`` lists the complemented shorthands the engine already means as ECMA-262 does
        inside a class (RE2's ``\\D`` and ``\\W`` are ASCII); the others become alternatives.
        """
        items = class_body(self.ranges, char) + "".join(self.props)
        items += "".join("\\" + c for c in self.complements if c in native)
        others = [class_body(_COMPLEMENTS[c], char) for c in self.complements if c not in native]
        neg = "^" if self.negate else ""
        if not others:
            if items:
                return f"[{neg}{items}]", False
            # [] matches nothing and [^] anything
            return (f"[{char(0)}-{char(0x10FFFF)}]" if self.negate else f"[^{char(0)}-{char(0x10FFFF)}]"), False
        if not self.negate:  # [x\S] is [x] or a non-space
            return "(?:" + "|".join(([f"[{items}]"] if items else []) + [f"[^{o}]" for o in others]) + ")", False
        # [^x\S] is a space that is not x: lookaheads
        guard = f"(?![{items}])" if items else ""
        return "(?:" + guard + "".join(f"(?=[{o}])" for o in others) + "[\\s\\S])", True


def count_groups(source: str) -> tuple[int, set[str]]:
    """Capturing groups and group names, for telling a backreference from an error."""
    count, names, i, in_class = 0, set(), 0, False
    while i < len(source):
        c = source[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            rest = source[i + 1 : i + 1 + WINDOW]  # a window: no quadratic copying
            m = re.match(r"\?P?<([^>=!][^>]*)>", rest)
            if m:
                names.add(m[1])
            if not rest.startswith("?") or m:
                count += 1
        i += 1
    return count, names
