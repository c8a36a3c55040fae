"""Generate strings that match a regular expression (a small, bounded subset).

Used to build example values for ``pattern`` keywords.  The pattern is first parsed into a
small tree by :mod:`generator.schema.regexparse` (which says what subset is supported); this
module writes strings from that tree.

Generation is deterministic.  Several "styles" (which characters a class prefers,
which alternative is taken, how many repetitions) give several candidates; every
candidate is checked with :func:`generator.schema.patterns.search` (ECMA-262 meaning,
bounded time), so a returned string always matches.  Anything outside the
subset raises :class:`~generator.schema.regexparse.Unsupported` internally and yields no
candidates; callers fall back to other strategies.

Bounded for hostile patterns: the pattern's length and nesting, the largest
repetition count, the length of one candidate, the steps one candidate may take
(a repetition of something empty, ``((){1000}){1000}``, grows no output) and the
steps of one whole call are all capped; a pattern whose matching cannot be
decided in time gives no candidates.
"""

from __future__ import annotations

import functools
import string
from dataclasses import dataclass, field

from generator.schema.ecma_syntax import PatternError
from generator.schema.patterns import PatternUndecided, compile_pattern
from generator.schema.regexparse import Alt, Chars, CharSet, Group, Lit, Node, Rep, Seq, Unsupported, parse

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
    shift: int = 0  # how far on each class's choice starts: another letter of [a-z] for another string
    counter: int = 0
    steps: int = 0
    length: int = 0  # characters written so far
    captured: dict[int, str] = field(default_factory=dict)

    def emit(self, out: list[str], text: str) -> None:
        self.length += len(text)
        if self.length > _MAX_OUTPUT:
            raise Unsupported("output too long")
        out.append(text)

    def run(self, node: Node, out: list[str]) -> None:
        self.steps += 1
        self.work.left -= 1
        if self.steps > _MAX_STEPS or self.work.left < 0:
            raise Unsupported("too much work")
        if isinstance(node, Lit):
            self.emit(out, node.text)
        elif isinstance(node, Chars):
            self.emit(out, self.pick(node.chars))
        elif isinstance(node, Seq):
            for child in node.items:
                self.run(child, out)
        elif isinstance(node, Alt):
            self.run(node.branches[self.alt % len(node.branches)], out)
        elif isinstance(node, Group):
            start = len(out)
            self.run(node.inner, out)
            if node.index is not None:
                self.captured[node.index] = "".join(out[start:])
        elif isinstance(node, Rep):
            count = node.lo + self.extra if node.hi is None else min(node.lo + self.extra, node.hi)
            if node.hi is None and node.lo == 0 and self.extra == 0 and self.style == 0:
                count = 1  # one of "x*" reads better than none, and still matches
            for _ in range(count):
                self.run(node.inner, out)
        else:
            self.emit(out, self.captured.get(node.index, ""))

    def pick(self, chars: CharSet | None) -> str:
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
        return allowed[(self.counter - 1 + self.shift) % len(allowed)]


def generate(pattern: str, *, min_len: int = 0, max_len: int | None = None, limit: int = 6) -> list[str]:
    """Up to ``limit`` distinct strings that the pattern (ECMA-262) matches and that fit the lengths; none
    when the pattern cannot be decided in bounded time (a verdict of the moment: never cached)."""
    try:
        return list(_generate(pattern, min_len, max_len, limit))
    except PatternUndecided:
        return []  # nothing about this pattern can be trusted


@functools.lru_cache(maxsize=512)  # schemas repeat patterns (ids, dates) across properties and tools
def _generate(pattern: str, min_len: int, max_len: int | None, limit: int) -> tuple[str, ...]:
    return tuple(_search(pattern, min_len, max_len, limit))


def _search(pattern: str, min_len: int, max_len: int | None, limit: int) -> list[str]:
    try:
        compiled = compile_pattern(pattern)
        tree = parse(pattern)
    except (PatternError, Unsupported, RecursionError, ValueError):
        return []
    found: list[str] = []
    work = _Work()
    # Each style with the first three branches of each alternation; then, while fewer than *limit* are
    # found, the first style shifted on (``b``, ``c``... of ``[a-z]``) with later branches (``(a|b|c|d)``).
    tries = [(style, alt, 0) for style in range(len(_STYLES)) for alt in range(3)]
    tries += [(0, shift, shift) for shift in range(1, limit + 1)]
    for style, alt, shift in tries:
        for extra in _extras(tree, style, alt, min_len, work, shift):
            text = _render(tree, style, alt, extra, work, shift)
            if text is None or text in found:
                continue
            if len(text) < min_len or (max_len is not None and len(text) > max_len):
                continue
            if compiled.search(text):  # PatternUndecided goes up: lru_cache keeps no exception
                found.append(text)
                if len(found) >= limit:
                    return found
    return found


def _render(tree: Node, style: int, alt: int, extra: int, work: _Work, shift: int = 0) -> str | None:
    out: list[str] = []
    try:
        _Gen(style, alt, extra, work, shift=shift).run(tree, out)
    except (Unsupported, RecursionError):
        return None
    return "".join(out)


def _extras(tree: Node, style: int, alt: int, min_len: int, work: _Work, shift: int = 0) -> list[int]:
    """Repetition boosts to try: a few small ones, then the smallest that reaches ``min_len``."""
    extras = [0, 1, 2]
    shortest = _render(tree, style, alt, 0, work, shift)
    if shortest is not None and len(shortest) < min_len:
        lo, hi = 0, 1
        while hi <= _MAX_OUTPUT:  # lengths grow with the boost: double, then bisect
            text = _render(tree, style, alt, hi, work, shift)
            if text is None or len(text) >= min_len:
                break
            lo, hi = hi, hi * 2
        while lo + 1 < hi:
            mid = (lo + hi) // 2
            text = _render(tree, style, alt, mid, work, shift)
            if text is not None and len(text) >= min_len:
                hi = mid
            else:
                lo = mid
        extras.append(hi)
    return extras
