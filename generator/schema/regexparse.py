"""Parse a regular expression into the small tree :mod:`generator.schema.regexgen` writes strings from.

The subset: literals and escapes, classes (``[a-z0-9_-]``, negated, ``\\d \\w \\s`` and their
negations), ``.``, quantifiers (``? * + {n} {n,} {n,m}``, lazy/possessive suffixes), groups
(capturing, ``(?:``, named), alternation, anchors and ``\\b`` (written as nothing), lookarounds
(parsed, then ignored) and numeric/named backreferences.  Anything else raises
:class:`Unsupported`, and the generator offers no candidate for that pattern.

This parser only shapes candidates; whether a pattern is valid, and whether a string matches
it, is decided by :mod:`generator.schema.patterns` with ECMA-262 meaning.  Bounded for hostile
patterns: the pattern's length, its nesting and the largest repetition count are capped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_MAX_PATTERN = 2000  # characters of pattern we are willing to parse
_MAX_NEST = 40  # group nesting
_MAX_REPEAT = 1000  # largest {n} we expand
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a", "0": "\0"}


class Unsupported(Exception):
    """The pattern uses syntax outside the supported subset."""


@dataclass
class CharSet:
    """The characters of a class (or a shorthand such as ``\\d``); ``chosen`` caches the generator's pick per style."""

    ranges: list[tuple[str, str]] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)  # "d", "w", "s" and upper-case negations
    negate: bool = False
    chosen: dict[int, list[str]] = field(default_factory=dict, compare=False)  # style -> allowed chars

    def allows(self, char: str) -> bool:
        """Is ``char`` in this set?"""
        hit = any(lo <= char <= hi for lo, hi in self.ranges)
        hit = hit or any(_in_category(char, c) for c in self.categories)
        return hit != self.negate


def _in_category(char: str, cat: str) -> bool:
    """Is ``char`` in ``\\d``, ``\\w``, ``\\s`` (lower-case ``cat``) or their negations (upper-case)?"""
    if cat.lower() == "d":
        hit = char.isdigit()
    elif cat.lower() == "w":
        hit = char.isalnum() or char == "_"
    else:
        hit = char.isspace()
    return hit if cat.islower() else not hit


@dataclass
class Lit:
    """Literal text."""

    text: str


@dataclass
class Chars:
    """One character from a class."""

    chars: CharSet | None  # None is "." (anything but a newline)


@dataclass
class Seq:
    """Nodes one after another."""

    items: list[Node]


@dataclass
class Alt:
    """Alternatives (``a|b``)."""

    branches: list[Node]


@dataclass
class Group:
    """A group; ``index`` numbers a capturing group (for backreferences)."""

    inner: Node
    index: int | None


@dataclass
class Rep:
    """A repetition, ``hi`` None for no upper bound."""

    inner: Node
    lo: int
    hi: int | None


@dataclass
class Backref:
    """A backreference to capturing group ``index`` (0 for an unknown name: writes nothing)."""

    index: int


Node = Lit | Chars | Seq | Alt | Group | Rep | Backref


def _empty() -> Node:
    """A node that writes nothing (anchors, boundaries, lookarounds, comments)."""
    return Seq([])


class _Parser:
    """A recursive-descent reader of one pattern; :meth:`parse` returns its tree or raises Unsupported."""

    def __init__(self, pattern: str) -> None:
        if len(pattern) > _MAX_PATTERN:
            raise Unsupported("pattern too long")
        self.p = pattern
        self.i = 0
        self.groups = 0
        self.names: dict[str, int] = {}

    def peek(self) -> str:
        return self.p[self.i] if self.i < len(self.p) else ""

    def take(self) -> str:
        if self.i >= len(self.p):
            raise Unsupported("unexpected end")
        self.i += 1
        return self.p[self.i - 1]

    def parse(self) -> Node:
        node = self.alternation(0)
        if self.i != len(self.p):
            raise Unsupported("unbalanced parenthesis")
        return node

    def alternation(self, nest: int) -> Node:
        if nest > _MAX_NEST:
            raise Unsupported("nested too deeply")
        branches = [self.sequence(nest)]
        while self.peek() == "|":
            self.i += 1
            branches.append(self.sequence(nest))
        return branches[0] if len(branches) == 1 else Alt(branches)

    def sequence(self, nest: int) -> Node:
        items: list[Node] = []
        while self.peek() not in ("", "|", ")"):
            atom = self.atom(nest)
            items.append(self.quantified(atom))
        return Seq(items)

    def quantified(self, atom: Node) -> Node:
        while True:
            c = self.peek()
            if c in ("*", "+", "?"):
                self.i += 1
                lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
            elif c == "{" and (m := re.match(r"\{(\d+)(,?)(\d*)\}", self.p[self.i :])):
                # ECMA-262: "{,5}" is not a quantifier but five literal characters
                self.i += m.end()
                lo = int(m[1])
                hi = lo if not m[2] else (int(m[3]) if m[3] else None)
                if lo > _MAX_REPEAT or (hi is not None and hi < lo):
                    raise Unsupported("repetition too large")
            else:
                return atom
            if self.peek() in ("?", "+"):  # lazy / possessive: same strings
                self.i += 1
            atom = Rep(atom, lo, hi)

    def atom(self, nest: int) -> Node:
        c = self.take()
        if c == "(":
            return self.group(nest)
        if c == "[":
            return Chars(self.char_class())
        if c == ".":
            return Chars(None)
        if c in ("^", "$"):
            return _empty()
        if c == "\\":
            return self.escape(in_class=False)
        if c in ("*", "+", "?"):
            raise Unsupported("nothing to repeat")
        return Lit(c)

    def group(self, nest: int) -> Node:
        index: int | None = None
        if self.p.startswith("?", self.i):
            rest = self.p[self.i :]
            if rest.startswith(("?:", "?>")):
                self.i += 2
            elif rest.startswith(("?=", "?!", "?<=", "?<!")):
                self.i += 3 if rest[1] == "<" else 2
                self.alternation(nest + 1)  # parsed for syntax, ignored for generation
                self.close()
                return _empty()
            elif rest.startswith("?#"):
                end = self.p.find(")", self.i)
                if end < 0:
                    raise Unsupported("unterminated comment")
                self.i = end + 1
                return _empty()
            elif m := re.match(r"\?P?<([A-Za-z_]\w*)>", rest):
                self.i += m.end()
                self.groups += 1
                index = self.groups
                self.names[m[1]] = index
            elif m := re.match(r"\?P=([A-Za-z_]\w*)\)", rest):
                self.i += m.end()
                return Backref(self.names.get(m[1], 0))
            elif m := re.match(r"\?[aiLmsux]*(?:-[imsx]+)?([:)])", rest):
                self.i += m.end()
                if m[1] == ")":
                    return _empty()  # flags only; we generate lower-case-friendly text anyway
            else:
                raise Unsupported("unsupported group")
        else:
            self.groups += 1
            index = self.groups
        inner = self.alternation(nest + 1)
        self.close()
        return Group(inner, index)

    def close(self) -> None:
        if self.take() != ")":
            raise Unsupported("missing )")

    def escape(self, *, in_class: bool) -> Node:
        c = self.take()
        if c in "dwsDWS":
            return Chars(CharSet(categories=[c]))
        if c in _ESCAPES and not (c == "0" and self.peek().isdigit()):
            return Lit(_ESCAPES[c])
        if c == "x" and (m := re.match(r"[0-9a-fA-F]{2}", self.p[self.i :])):
            self.i += 2
            return Lit(chr(int(m[0], 16)))
        if c == "u" and (m := re.match(r"[0-9a-fA-F]{4}", self.p[self.i :])):
            self.i += 4
            return Lit(chr(int(m[0], 16)))
        if not in_class:
            if c in "bBAZz":
                return _empty()
            if c.isdigit():
                digits = c
                while self.peek().isdigit() and len(digits) < 2:
                    digits += self.take()
                return Backref(int(digits))
        if c.isalnum():
            raise Unsupported(f"unsupported escape \\{c}")
        return Lit(c)

    def char_class(self) -> CharSet:
        result = CharSet()
        if self.peek() == "^":
            self.i += 1
            result.negate = True
        first = True
        while True:
            c = self.take()
            if c == "]" and not first:
                return result
            first = False
            if c == "[" and self.peek() == ":":
                raise Unsupported("POSIX classes")
            if c == "\\":
                esc = self.escape(in_class=True)
                if isinstance(esc, Chars) and esc.chars is not None:
                    result.categories += esc.chars.categories
                    continue
                if not isinstance(esc, Lit):
                    raise Unsupported("escape in class")
                c = esc.text
            if self.peek() == "-" and self.p[self.i + 1 : self.i + 2] not in ("]", ""):
                self.i += 1
                hi = self.take()
                if hi == "\\":
                    esc = self.escape(in_class=True)
                    if not isinstance(esc, Lit):
                        raise Unsupported("class range to a category")
                    hi = esc.text
                if hi < c:
                    raise Unsupported("bad range")
                result.ranges.append((c, hi))
            else:
                result.ranges.append((c, c))


def parse(pattern: str) -> Node:
    """The tree of ``pattern``; :class:`Unsupported` when it leaves the subset or the bounds."""
    return _Parser(pattern).parse()
