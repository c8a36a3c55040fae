"""Translation of an ECMA-262 regular expression into RE2 syntax and into the ``regex`` package's.

:class:`Translator` reads a server's pattern once and writes both forms side by side; the
bounded matcher in :mod:`generator.schema.patterns` compiles them (RE2 when it can, the
backtracking engine with a timeout otherwise).  The character vocabulary it writes with lives
in :mod:`generator.schema.ecma_syntax`.

The dialect (ECMA-262, "u" flag, no other flags), translated deliberately:

* ``\\d \\D \\w \\W \\b \\B`` are ASCII-only, as in ECMA-262: ``\\d`` does not
  match Arabic-Indic digits, ``\\w`` does not match ``é``.
* ``\\s \\S`` are ECMA-262 white space and line terminators (tab, LF, VT, FF,
  CR, space, NBSP, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F,
  U+3000, U+FEFF).
* ``.`` matches any character but LF, CR, U+2028 and U+2029.
* ``$`` matches only at the very end (Python's ``$`` also matches before a
  final newline); ``^`` only at the very start.
* ``\\uXXXX`` (a surrogate pair ``\\uD83D\\uDE00`` is one character),
  ``\\u{X...}``, ``\\xHH``, ``\\cX``, ``\\0``, ``\\t \\n \\v \\f \\r``, and in
  a class ``\\b`` (backspace); ``\\p{...}``/``\\P{...}`` Unicode properties.
* Groups ``(...)``, ``(?:...)``, named ``(?<name>...)``; lookarounds ``(?=``
  ``(?!`` ``(?<=`` ``(?<!``; backreferences ``\\1`` and ``\\k<name>`` (a
  reference to a group that did not take part matches the empty string, as in
  ECMA-262).  ``{`` that does not start a ``{n}``/``{n,}``/``{n,m}``
  quantifier is a literal (``a{,5}`` is five literal characters after ``a``).
* Leniency (ECMA-262's Annex B, and Python-written servers): ``(?P<name>...)``
  and ``(?P=name)``; an escaped punctuation character is that character; a
  lone ``]`` or ``}`` is a literal; ``-`` after a shorthand in a class
  (``[\\d-z]``) is a literal.
* Not supported (the pattern is valid but never decided: no example, a
  warning): inline flags such as ``(?i)``, group names outside
  ``[A-Za-z_][A-Za-z0-9_]*`` or longer than 250 characters, patterns longer
  than :data:`generator.schema.patterns.MAX_PATTERN` characters, nested deeper than
  :data:`MAX_NEST`, or whose repetitions expand past :data:`MAX_WEIGHT` atoms.
  Invalid syntax (an unknown letter escape, an unbalanced parenthesis, a
  quantifier with nothing to repeat, a range out of order) raises
  :class:`~generator.schema.ecma_syntax.PatternError`: the schema that holds it is invalid.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from generator.schema.ecma_syntax import (
    BOUNDARY,
    DIGIT,
    LINE_END,
    NOT_BOUNDARY,
    SIMPLE,
    WINDOW,
    WORD,
    WS,
    CharClass,
    PatternError,
    class_body,
    code_ranges,
    count_groups,
    re2_char,
    rx_char,
)

MAX_WEIGHT = 100_000
"""Atoms a pattern expands to when every bounded repetition is unrolled (``(a{1000}){1000}`` is
a million): compiling such a pattern takes the backtracking engine seconds and much memory."""
MAX_NEST = 200
"""Group nesting we accept."""
_QUANTIFIER = re.compile(r"\{(\d+)(?:(,)(\d*))?\}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass
class _Output:
    """The two translations being written, and whether RE2 can run the result."""

    re2: list[str] = field(default_factory=list)
    rx: list[str] = field(default_factory=list)
    backtrack: bool = False  # lookaround or backreference: RE2 cannot run it

    def both(self, re2_text: str, rx_text: str | None = None) -> None:
        self.re2.append(re2_text)
        self.rx.append(rx_text if rx_text is not None else re2_text)


@dataclass(frozen=True)
class Translation:
    """A pattern in both engines' syntax, or why it can never be decided."""

    re2: str | None  # None: only the backtracking engine can run it
    rx: str
    unsupported: str | None = None  # why it can never be decided


class Translator:
    """One pass over an ECMA-262 pattern, writing the RE2 and the ``regex`` forms side by side."""

    def __init__(self, source: str) -> None:
        self.p = source
        self.i = 0
        self.out = _Output()
        self.groups, self.names = count_groups(source)
        self.weights: list[int] = [0]  # expanded size of each open group's content so far
        self.last = 0  # weight of the last atom (0: nothing to repeat)
        self.unsupported: str | None = None

    def run(self) -> Translation:
        """Read the whole pattern; :class:`PatternError` when it is not valid ECMA-262."""
        while self.i < len(self.p):
            self.step()
        if len(self.weights) != 1:
            raise PatternError("a group is not closed: ')' is missing")
        if self.weights[0] > MAX_WEIGHT:
            self.unsupported = f"its repetitions expand to more than {MAX_WEIGHT} characters"
        out = self.out
        re2_text = "".join(out.re2) if not out.backtrack else None
        return Translation(re2_text, "".join(out.rx), self.unsupported)

    def ahead(self) -> str:
        """The text just after the cursor, as far as any escape or group head can reach."""
        return self.p[self.i : self.i + WINDOW]

    def peek(self, n: int = 1) -> str:
        return self.p[self.i : self.i + n]

    def atom(self, weight: int = 1) -> None:
        self.weights[-1] += weight
        self.last = weight

    def step(self) -> None:
        c = self.p[self.i]
        self.i += 1
        out = self.out
        if c == "\\":
            self.escape()
        elif c == "[":
            self.char_class()
        elif c == "(":
            self.open_group()
        elif c == ")":
            if len(self.weights) == 1:
                raise PatternError("unmatched ')'")
            inner = self.weights.pop()
            out.both(")")
            self.atom(max(inner, 1))
        elif c == "|":
            out.both("|")
            self.last = 0
        elif c in "*+?":
            self.quantify(c, 1)
        elif c == "{" and (m := _QUANTIFIER.match(self.p, self.i - 1)):
            self.i = m.end()
            lo = int(m[1])
            hi = lo if not m[2] else (int(m[3]) if m[3] else None)
            if hi is not None and hi < lo:
                raise PatternError("numbers out of order in a {n,m} quantifier")
            self.quantify(m[0], max(lo, hi or 0, 1))
        elif c == ".":
            body = "".join(re2_char(ord(x)) for x in LINE_END), "".join(rx_char(ord(x)) for x in LINE_END)
            out.both(f"[^{body[0]}]", f"[^{body[1]}]")
            self.atom()
        elif c == "^":
            out.both("^")
            self.last = 0
        elif c == "$":
            out.both("$", r"\Z")  # RE2's $ is already the very end; Python's also matches before a final \n
            self.last = 0
        else:
            self.literal(ord(c))

    def quantify(self, text: str, times: int) -> None:
        if self.last == 0:
            raise PatternError(f"nothing to repeat before {text!r}")
        if self.peek() == "?":  # lazy: the same strings match
            self.i += 1
            text += "?"
        self.out.both(text)
        self.weights[-1] += self.last * (times - 1)
        self.last = 0  # ECMA-262 has no possessive quantifiers: "a*+" is an error
        if self.weights[-1] > MAX_WEIGHT * 10:
            self.weights[-1] = MAX_WEIGHT * 10  # keeps the arithmetic small; already too large

    def literal(self, cp: int) -> None:
        self.out.both(re2_char(cp), rx_char(cp))
        self.atom()

    def open_group(self) -> None:
        out = self.out
        if len(self.weights) > MAX_NEST:
            self.unsupported = f"groups are nested more than {MAX_NEST} deep"
        rest = self.ahead()
        if not rest.startswith("?"):
            out.both("(")
        elif rest.startswith("?:"):
            self.i += 2
            out.both("(?:")
        elif rest.startswith(("?=", "?!", "?<=", "?<!")):
            head = rest[: 3 if rest[1] == "<" else 2]
            self.i += len(head)
            out.backtrack = True
            out.both("(" + head)
        elif m := re.match(r"\?P?<([^>]*)>", rest):  # after the lookbehinds above
            self.i += m.end()
            if not _NAME.fullmatch(m[1]):
                self.unsupported = f"the group name {m[1]!r} is outside [A-Za-z_][A-Za-z0-9_]*"
            out.both(f"(?P<{m[1]}>")
        elif m := re.match(r"\?P=([^)]*)\)", rest):
            self.i += m.end()
            self.backref(m[1])
            return
        else:
            self.unsupported = "it uses a group syntax outside ECMA-262, such as inline flags"
            out.both("(")  # keeps the parentheses balanced while we read on
            self.i += 1
        self.weights.append(0)
        self.last = 0

    def backref(self, name: str) -> None:
        if name not in self.names and not (name.isdigit() and 0 < int(name) <= self.groups):
            raise PatternError(f"a backreference to a group that does not exist: {name!r}")
        self.out.backtrack = True
        # ECMA-262: a group that did not take part matches the empty string (Python fails instead).
        ref = f"(?P={name})" if not name.isdigit() else f"\\{name}"
        self.out.both("", f"(?:(?({name}){ref}|))")
        self.atom()

    def escape(self) -> None:
        if self.i >= len(self.p):
            raise PatternError("the pattern ends with a lone backslash")
        c = self.p[self.i]
        self.i += 1
        out = self.out
        if c in "dDwWsS":
            ranges = code_ranges({"d": DIGIT, "w": WORD, "s": WS}[c.lower()])
            neg = "^" if c.isupper() else ""
            out.both(f"[{neg}{class_body(ranges, re2_char)}]", f"[{neg}{class_body(ranges, rx_char)}]")
            self.atom()
        elif c in "bB":
            out.both("\\" + c, BOUNDARY if c == "b" else NOT_BOUNDARY)  # RE2's \b is ASCII already
            self.last = 0
        elif c in "123456789":
            digits = c
            while self.peek().isdigit():
                digits += self.p[self.i]
                self.i += 1
            self.backref(str(int(digits)))
        elif c == "k":
            m = re.match(r"<([^>]*)>", self.ahead())
            if not m:
                raise PatternError("\\k must be followed by <name>")
            self.i += m.end()
            self.backref(m[1])
        elif c in "pP":
            out.both("\\" + c + self.property_name())
            self.atom()
        else:
            self.literal(self.char_escape(c, in_class=False))

    def property_name(self) -> str:
        m = re.match(r"\{[A-Za-z0-9_=]+\}", self.ahead())
        if not m:
            raise PatternError("\\p and \\P must be followed by {Name}")
        self.i += m.end()
        return m[0]

    def char_escape(self, c: str, *, in_class: bool) -> int:
        """The code point of a character escape whose letter ``c`` was just read."""
        if c in SIMPLE:
            return SIMPLE[c]
        if c == "0" and not self.peek().isdigit():
            return 0
        if c == "b" and in_class:
            return 0x08
        if c == "c" and re.match(r"[A-Za-z]", self.peek()):
            self.i += 1
            return ord(self.p[self.i - 1]) % 32
        if c == "x" and (m := re.match(r"[0-9A-Fa-f]{2}", self.ahead())):
            self.i += 2
            return int(m[0], 16)
        if c == "u":
            if m := re.match(r"\{([0-9A-Fa-f]{1,6})\}", self.ahead()):
                self.i += m.end()
                cp = int(m[1], 16)
                if cp > 0x10FFFF:
                    raise PatternError("\\u{...} is past the last code point")
                return cp
            if m := re.match(r"[0-9A-Fa-f]{4}", self.ahead()):
                self.i += 4
                cp = int(m[0], 16)
                low = re.match(r"\\u(d[c-f][0-9a-f]{2})", self.ahead(), re.IGNORECASE)
                if 0xD800 <= cp <= 0xDBFF and low:  # a surrogate pair is one character
                    self.i += low.end()
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (int(low[1], 16) - 0xDC00)
                return cp
        if c.isascii() and c.isalnum():
            raise PatternError(f"\\{c} is not an escape of ECMA-262")
        return ord(c)  # an escaped punctuation character is itself

    def char_class(self) -> None:
        cls = CharClass(negate=self.peek() == "^")
        if cls.negate:
            self.i += 1
        while True:
            if self.i >= len(self.p):
                raise PatternError("a character class is not closed: ']' is missing")
            c = self.p[self.i]
            self.i += 1
            if c == "]":
                break
            if c == "\\":
                if self.i >= len(self.p):
                    raise PatternError("the pattern ends with a lone backslash")
                e = self.p[self.i]
                self.i += 1
                if e in "dDwWsSpP":
                    self.class_set(cls, e)
                    continue
                cp = self.char_escape(e, in_class=True)
            else:
                cp = ord(c)
            if self.peek() == "-" and self.peek(2) != "-]" and self.i + 1 < len(self.p):
                self.i += 1
                hi = self.class_atom()
                if hi is None:
                    raise PatternError("a class range ends in a shorthand such as \\d")
                if hi < cp:
                    raise PatternError("a class range is out of order")
                cls.ranges.append((cp, hi))
            else:
                cls.ranges.append((cp, cp))
        self.emit_class(cls)

    def class_atom(self) -> int | None:
        """The upper end of a range: a character, or None for a shorthand (an error)."""
        c = self.p[self.i]
        self.i += 1
        if c != "\\":
            return ord(c)
        if self.i >= len(self.p):
            raise PatternError("the pattern ends with a lone backslash")
        e = self.p[self.i]
        self.i += 1
        if e in "dDwWsSpP":
            return None
        return self.char_escape(e, in_class=True)

    def class_set(self, cls: CharClass, e: str) -> None:
        if e in "pP":
            cls.props.append("\\" + e + self.property_name())
        elif e in "dws":
            cls.ranges.extend(code_ranges({"d": DIGIT, "w": WORD, "s": WS}[e]))
        else:
            cls.complements.append(e)

    def emit_class(self, cls: CharClass) -> None:
        re2_form, re2_lookahead = cls.form(re2_char, native="DW")
        rx_form, _ = cls.form(rx_char, native="")
        if re2_lookahead:
            self.out.backtrack = True
        self.out.both(re2_form, rx_form)
        self.atom()
