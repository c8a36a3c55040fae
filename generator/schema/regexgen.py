"""Generate strings that match a regular expression (a small, bounded subset).

Used to build example values for ``pattern`` keywords.  Supported: literals and
escapes, classes (``[a-z0-9_-]``, negated, ``\\d \\w \\s`` and their negations),
``.``, quantifiers (``? * + {n} {n,} {n,m}``, lazy/possessive suffixes), groups
(capturing, ``(?:``, named), alternation, anchors and ``\\b`` (ignored),
lookarounds (ignored while generating) and numeric/named backreferences.

Generation is deterministic.  Several "styles" (which characters a class prefers,
which alternative is taken, how many repetitions) give several candidates; every
candidate is checked with :func:`generator.schema.patterns.search` (ECMA-262 meaning,
bounded time), so a returned string always matches.  Anything outside the
subset raises :class:`Unsupported` internally and yields no candidates; callers
fall back to other strategies.

Bounded for hostile patterns: the pattern's length and nesting, the largest
repetition count, the length of one candidate, the steps one candidate may take
(a repetition of something empty, ``((){1000}){1000}``, grows no output) and the
steps of one whole call are all capped; a pattern whose matching cannot be
decided in time gives no candidates.
"""

from __future__ import annotations

import functools
import re
import string
from dataclasses import dataclass, field

from generator.schema.patterns import PatternError, PatternUndecided, compile_pattern

_MAX_PATTERN = 2000  # characters of pattern we are willing to parse
_MAX_NEST = 40  # group nesting
_MAX_REPEAT = 1000  # largest {n} we expand
_MAX_OUTPUT = 4096  # characters of generated text
_MAX_STEPS = 20_000  # nodes visited while writing one candidate
_MAX_WORK = 400_000  # nodes visited by one generate() call, all candidates together

# Which characters a class prefers, per style: realistic first, then mixed case and digits
# (helps patterns with lookaheads such as "at least one upper case letter and a digit").
_STYLES = (
    string.ascii_lowercase + string.digits + string.ascii_uppercase,
    "aB3cD5eF7gH9" + string.ascii_lowercase + string.ascii_uppercase + string.digits,
    string.digits + string.ascii_lowercase + string.ascii_uppercase,
    string.ascii_uppercase + string.digits + string.ascii_lowercase,
)
_TAIL = "-_.:/@ " + string.punctuation + "\t"  # after letters and digits
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a", "0": "\0"}


class Unsupported(Exception):
    """The pattern uses syntax outside the supported subset."""


@dataclass
class _Set:
    ranges: list[tuple[str, str]] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)  # "d", "w", "s" and upper-case negations
    negate: bool = False
    chosen: dict[int, list[str]] = field(default_factory=dict, compare=False)  # style -> allowed chars

    def allows(self, char: str) -> bool:
        hit = any(lo <= char <= hi for lo, hi in self.ranges)
        hit = hit or any(_in_category(char, c) for c in self.categories)
        return hit != self.negate


def _in_category(char: str, cat: str) -> bool:
    if cat.lower() == "d":
        hit = char.isdigit()
    elif cat.lower() == "w":
        hit = char.isalnum() or char == "_"
    else:
        hit = char.isspace()
    return hit if cat.islower() else not hit


@dataclass
class _Lit:
    text: str


@dataclass
class _Class:
    chars: _Set | None  # None is "." (anything but a newline)


@dataclass
class _Seq:
    items: list[_Node]


@dataclass
class _Alt:
    branches: list[_Node]


@dataclass
class _Group:
    inner: _Node
    index: int | None


@dataclass
class _Rep:
    inner: _Node
    lo: int
    hi: int | None


@dataclass
class _Backref:
    index: int


_Node = _Lit | _Class | _Seq | _Alt | _Group | _Rep | _Backref


def _empty() -> _Node:
    return _Seq([])


class _Parser:
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

    def parse(self) -> _Node:
        node = self.alternation(0)
        if self.i != len(self.p):
            raise Unsupported("unbalanced parenthesis")
        return node

    def alternation(self, nest: int) -> _Node:
        if nest > _MAX_NEST:
            raise Unsupported("nested too deeply")
        branches = [self.sequence(nest)]
        while self.peek() == "|":
            self.i += 1
            branches.append(self.sequence(nest))
        return branches[0] if len(branches) == 1 else _Alt(branches)

    def sequence(self, nest: int) -> _Node:
        items: list[_Node] = []
        while self.peek() not in ("", "|", ")"):
            atom = self.atom(nest)
            items.append(self.quantified(atom))
        return _Seq(items)

    def quantified(self, atom: _Node) -> _Node:
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
            atom = _Rep(atom, lo, hi)

    def atom(self, nest: int) -> _Node:
        c = self.take()
        if c == "(":
            return self.group(nest)
        if c == "[":
            return _Class(self.char_class())
        if c == ".":
            return _Class(None)
        if c in ("^", "$"):
            return _empty()
        if c == "\\":
            return self.escape(in_class=False)
        if c in ("*", "+", "?"):
            raise Unsupported("nothing to repeat")
        return _Lit(c)

    def group(self, nest: int) -> _Node:
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
                return _Backref(self.names.get(m[1], 0))
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
        return _Group(inner, index)

    def close(self) -> None:
        if self.take() != ")":
            raise Unsupported("missing )")

    def escape(self, *, in_class: bool) -> _Node:
        c = self.take()
        if c in "dwsDWS":
            return _Class(_Set(categories=[c]))
        if c in _ESCAPES and not (c == "0" and self.peek().isdigit()):
            return _Lit(_ESCAPES[c])
        if c == "x" and (m := re.match(r"[0-9a-fA-F]{2}", self.p[self.i :])):
            self.i += 2
            return _Lit(chr(int(m[0], 16)))
        if c == "u" and (m := re.match(r"[0-9a-fA-F]{4}", self.p[self.i :])):
            self.i += 4
            return _Lit(chr(int(m[0], 16)))
        if not in_class:
            if c in "bBAZz":
                return _empty()
            if c.isdigit():
                digits = c
                while self.peek().isdigit() and len(digits) < 2:
                    digits += self.take()
                return _Backref(int(digits))
        if c.isalnum():
            raise Unsupported(f"unsupported escape \\{c}")
        return _Lit(c)

    def char_class(self) -> _Set:
        result = _Set()
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
                if isinstance(esc, _Class) and esc.chars is not None:
                    result.categories += esc.chars.categories
                    continue
                if not isinstance(esc, _Lit):
                    raise Unsupported("escape in class")
                c = esc.text
            if self.peek() == "-" and self.p[self.i + 1 : self.i + 2] not in ("]", ""):
                self.i += 1
                hi = self.take()
                if hi == "\\":
                    esc = self.escape(in_class=True)
                    if not isinstance(esc, _Lit):
                        raise Unsupported("class range to a category")
                    hi = esc.text
                if hi < c:
                    raise Unsupported("bad range")
                result.ranges.append((c, hi))
            else:
                result.ranges.append((c, c))


@dataclass
class _Work:
    """Steps left for one generate() call, shared by all its candidates."""

    left: int = _MAX_WORK


@dataclass
class _Gen:
    style: int
    alt: int
    extra: int  # repetitions added to every unbounded quantifier
    work: _Work = field(default_factory=_Work)
    counter: int = 0
    steps: int = 0
    length: int = 0  # characters written so far
    captured: dict[int, str] = field(default_factory=dict)

    def emit(self, out: list[str], text: str) -> None:
        self.length += len(text)
        if self.length > _MAX_OUTPUT:
            raise Unsupported("output too long")
        out.append(text)

    def run(self, node: _Node, out: list[str]) -> None:
        self.steps += 1
        self.work.left -= 1
        if self.steps > _MAX_STEPS or self.work.left < 0:
            raise Unsupported("too much work")
        if isinstance(node, _Lit):
            self.emit(out, node.text)
        elif isinstance(node, _Class):
            self.emit(out, self.pick(node.chars))
        elif isinstance(node, _Seq):
            for child in node.items:
                self.run(child, out)
        elif isinstance(node, _Alt):
            self.run(node.branches[self.alt % len(node.branches)], out)
        elif isinstance(node, _Group):
            start = len(out)
            self.run(node.inner, out)
            if node.index is not None:
                self.captured[node.index] = "".join(out[start:])
        elif isinstance(node, _Rep):
            count = node.lo + self.extra if node.hi is None else min(node.lo + self.extra, node.hi)
            if node.hi is None and node.lo == 0 and self.extra == 0 and self.style == 0:
                count = 1  # one of "x*" reads better than none, and still matches
            for _ in range(count):
                self.run(node.inner, out)
        else:
            self.emit(out, self.captured.get(node.index, ""))

    def pick(self, chars: _Set | None) -> str:
        style = self.style % len(_STYLES)
        pool = _STYLES[style] + _TAIL
        if chars is None:
            allowed = [c for c in pool if c != "\n"]
        elif style in chars.chosen:
            allowed = chars.chosen[style]
        else:
            allowed = [c for c in pool if chars.allows(c)]
            if not allowed:
                allowed = [lo for lo, _ in chars.ranges if chars.allows(lo)]
                # a negated class: the character just past each excluded range
                nexts = [chr(ord(hi) + 1) for _, hi in chars.ranges if hi < "\U0010ffff"]
                allowed += [c for c in nexts if chars.allows(c)]
            chars.chosen[style] = allowed
        if not allowed:
            raise Unsupported("empty character class")
        self.counter += 1
        return allowed[(self.counter - 1) % len(allowed)]


def generate(pattern: str, *, min_len: int = 0, max_len: int | None = None, limit: int = 6) -> list[str]:
    """Up to ``limit`` distinct strings that the pattern (ECMA-262) matches and that fit the lengths."""
    return list(_generate(pattern, min_len, max_len, limit))


@functools.lru_cache(maxsize=512)  # schemas repeat patterns (ids, dates) across properties and tools
def _generate(pattern: str, min_len: int, max_len: int | None, limit: int) -> tuple[str, ...]:
    return tuple(_search(pattern, min_len, max_len, limit))


def _search(pattern: str, min_len: int, max_len: int | None, limit: int) -> list[str]:
    try:
        compiled = compile_pattern(pattern)
        tree = _Parser(pattern).parse()
    except (PatternError, Unsupported, RecursionError, ValueError):
        return []
    found: list[str] = []
    work = _Work()
    for style in range(len(_STYLES)):
        for alt in range(3):
            for extra in _extras(tree, style, alt, min_len, work):
                text = _render(tree, style, alt, extra, work)
                if text is None or text in found:
                    continue
                if len(text) < min_len or (max_len is not None and len(text) > max_len):
                    continue
                try:
                    matched = compiled.search(text)
                except PatternUndecided:
                    return []  # nothing about this pattern can be trusted
                if matched:
                    found.append(text)
                    if len(found) >= limit:
                        return found
    return found


def _render(tree: _Node, style: int, alt: int, extra: int, work: _Work) -> str | None:
    out: list[str] = []
    try:
        _Gen(style, alt, extra, work).run(tree, out)
    except (Unsupported, RecursionError):
        return None
    return "".join(out)


def _extras(tree: _Node, style: int, alt: int, min_len: int, work: _Work) -> list[int]:
    """Repetition boosts to try: a few small ones, then the smallest that reaches ``min_len``."""
    extras = [0, 1, 2]
    shortest = _render(tree, style, alt, 0, work)
    if shortest is not None and len(shortest) < min_len:
        lo, hi = 0, 1
        while hi <= _MAX_OUTPUT:  # lengths grow with the boost: double, then bisect
            text = _render(tree, style, alt, hi, work)
            if text is None or len(text) >= min_len:
                break
            lo, hi = hi, hi * 2
        while lo + 1 < hi:
            mid = (lo + hi) // 2
            text = _render(tree, style, alt, mid, work)
            if text is not None and len(text) >= min_len:
                hi = mid
            else:
                lo = mid
        extras.append(hi)
    return extras
