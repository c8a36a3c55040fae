"""Regular expressions from servers, matched in bounded time with ECMA-262 meaning.

JSON Schema says a ``pattern`` (and a ``patternProperties`` key, and a ``format:
regex`` value) is an ECMA-262 regular expression, matched anywhere in the string
(not anchored).  Every such regex in this project goes through
:func:`compile_pattern` / :func:`search` here, never through :mod:`re`.

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
  than :data:`MAX_PATTERN` characters, nested deeper than :data:`MAX_NEST`, or
  whose repetitions expand past :data:`MAX_WEIGHT` atoms.
  Invalid syntax (an unknown letter escape, an unbalanced parenthesis, a
  quantifier with nothing to repeat, a range out of order) raises
  :class:`PatternError`: the schema that holds it is invalid.

Bounds: a pattern without lookarounds or backreferences runs on RE2 (the
``google-re2`` package), whose time is linear in the text.  The others run on
the ``regex`` package with a :data:`SEARCH_TIMEOUT` per call; a pattern that
times out once is *undecided* from then on, for every text, so a hostile
pattern costs one timeout per build, not one per candidate.  A search on an
undecided pattern raises :class:`PatternUndecided`; callers treat that as
"cannot show an example", never as a match or a non-match, and :func:`watch`
collects which patterns were undecided so the build can warn about them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import re2  # type: ignore[import-untyped]
import regex  # type: ignore[import-untyped]

from generator.text import visible

SEARCH_TIMEOUT = 0.1
"""Seconds one backtracking search may take.  Real patterns take microseconds on real values,
so only a pathological pattern reaches it; it is large so that a loaded machine does not turn
an honest pattern into an undecided one (the result would differ from build to build)."""
MAX_PATTERN = 10_000
"""Characters of a pattern we are willing to compile."""
MAX_WEIGHT = 100_000
"""Atoms a pattern expands to when every bounded repetition is unrolled (``(a{1000}){1000}`` is
a million): compiling such a pattern takes the backtracking engine seconds and much memory."""
MAX_NEST = 200
"""Group nesting we accept."""
_WINDOW = 256  # characters read ahead for a group head or an escape (a longer group name is unsupported)

_WS = "\t\n\x0b\f\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_LINE_END = "\n\r\u2028\u2029"
_WORD = "0-9A-Za-z_"
_DIGIT = "0-9"
_SIMPLE = {"t": 0x09, "n": 0x0A, "v": 0x0B, "f": 0x0C, "r": 0x0D}
_BOUNDARY = r"(?:(?<=[0-9A-Za-z_])(?![0-9A-Za-z_])|(?<![0-9A-Za-z_])(?=[0-9A-Za-z_]))"
_NOT_BOUNDARY = r"(?:(?<=[0-9A-Za-z_])(?=[0-9A-Za-z_])|(?<![0-9A-Za-z_])(?![0-9A-Za-z_]))"
_QUANTIFIER = re.compile(r"\{(\d+)(?:(,)(\d*))?\}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # RE2 would print every rejected pattern on stderr


class PatternError(ValueError):
    """The text is not a valid ECMA-262 regular expression."""


class PatternUndecided(Exception):
    """The pattern cannot be matched within the bounds; nothing can be said about the text."""

    def __init__(self, source: str, why: str) -> None:
        super().__init__(f"pattern {describe(source)} could not be decided: {why}")
        self.source = source
        self.why = why


def describe(source: str, limit: int = 60) -> str:
    """A pattern quoted for a message: cut to ``limit`` characters, hidden characters made visible."""
    cut = source if len(source) <= limit else source[: limit - 1] + "…"
    return "`" + visible(cut).replace("`", "'") + "`"


# ---------------------------------------------------------------------------- translation


def _re2_char(cp: int) -> str:
    return chr(cp) if chr(cp).isascii() and chr(cp).isalnum() else f"\\x{{{cp:X}}}"


def _rx_char(cp: int) -> str:
    return chr(cp) if chr(cp).isascii() and chr(cp).isalnum() else f"\\U{cp:08X}"


def _ranges(chars: str) -> list[tuple[int, int]]:
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


def _body(ranges: list[tuple[int, int]], char: Callable[[int], str]) -> str:
    return "".join(f"{char(a)}-{char(b)}" if a != b else char(a) for a, b in ranges)


_COMPLEMENTS = {"D": _ranges(_DIGIT), "W": _ranges(_WORD), "S": _ranges(_WS)}


@dataclass
class _Class:
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
        items = _body(self.ranges, char) + "".join(self.props)
        items += "".join("\\" + c for c in self.complements if c in native)
        others = [_body(_COMPLEMENTS[c], char) for c in self.complements if c not in native]
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


@dataclass
class _Out:
    re2: list[str] = field(default_factory=list)
    rx: list[str] = field(default_factory=list)
    backtrack: bool = False  # lookaround or backreference: RE2 cannot run it

    def both(self, re2_text: str, rx_text: str | None = None) -> None:
        self.re2.append(re2_text)
        self.rx.append(rx_text if rx_text is not None else re2_text)


@dataclass(frozen=True)
class _Translation:
    re2: str | None  # None: only the backtracking engine can run it
    rx: str
    unsupported: str | None = None  # why it can never be decided


class _Translator:
    """One pass over an ECMA-262 pattern, writing the RE2 and the ``regex`` forms side by side."""

    def __init__(self, source: str) -> None:
        self.p = source
        self.i = 0
        self.out = _Out()
        self.groups, self.names = _count_groups(source)
        self.weights: list[int] = [0]  # expanded size of each open group's content so far
        self.last = 0  # weight of the last atom (0: nothing to repeat)
        self.unsupported: str | None = None

    def run(self) -> _Translation:
        while self.i < len(self.p):
            self.step()
        if len(self.weights) != 1:
            raise PatternError("a group is not closed: ')' is missing")
        if self.weights[0] > MAX_WEIGHT:
            self.unsupported = f"its repetitions expand to more than {MAX_WEIGHT} characters"
        out = self.out
        re2_text = "".join(out.re2) if not out.backtrack else None
        return _Translation(re2_text, "".join(out.rx), self.unsupported)

    def ahead(self) -> str:
        """The text just after the cursor, as far as any escape or group head can reach."""
        return self.p[self.i : self.i + _WINDOW]

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
            body = "".join(_re2_char(ord(x)) for x in _LINE_END), "".join(_rx_char(ord(x)) for x in _LINE_END)
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
        self.out.both(_re2_char(cp), _rx_char(cp))
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
        elif (m := re.match(r"\?P?<([^>]*)>", rest)) and not rest.startswith(("?<=", "?<!")):
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
            ranges = _ranges({"d": _DIGIT, "w": _WORD, "s": _WS}[c.lower()])
            neg = "^" if c.isupper() else ""
            out.both(f"[{neg}{_body(ranges, _re2_char)}]", f"[{neg}{_body(ranges, _rx_char)}]")
            self.atom()
        elif c in "bB":
            out.both("\\" + c, _BOUNDARY if c == "b" else _NOT_BOUNDARY)  # RE2's \b is ASCII already
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
        if c in _SIMPLE:
            return _SIMPLE[c]
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
        cls = _Class(negate=self.peek() == "^")
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

    def class_set(self, cls: _Class, e: str) -> None:
        if e in "pP":
            cls.props.append("\\" + e + self.property_name())
        elif e in "dws":
            cls.ranges.extend(_ranges({"d": _DIGIT, "w": _WORD, "s": _WS}[e]))
        else:
            cls.complements.append(e)

    def emit_class(self, cls: _Class) -> None:
        re2_form, re2_lookahead = cls.form(_re2_char, native="DW")
        rx_form, _ = cls.form(_rx_char, native="")
        if re2_lookahead:
            self.out.backtrack = True
        self.out.both(re2_form, rx_form)
        self.atom()


def _count_groups(source: str) -> tuple[int, set[str]]:
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
            rest = source[i + 1 : i + 1 + _WINDOW]  # a window: no quadratic copying
            m = re.match(r"\?P?<([^>=!][^>]*)>", rest)
            if m:
                names.add(m[1])
            if not rest.startswith("?") or m:
                count += 1
        i += 1
    return count, names


# ---------------------------------------------------------------------------- compiled patterns


_WATCHERS: list[list[str]] = []


@contextmanager
def watch() -> Iterator[list[str]]:
    """Collect (once each, in order) the sources of the patterns found undecided inside the block."""
    seen: list[str] = []
    _WATCHERS.append(seen)
    try:
        yield seen
    finally:
        _WATCHERS.remove(seen)


def _undecided(source: str, why: str) -> PatternUndecided:
    for seen in _WATCHERS:
        if source not in seen:
            seen.append(source)
    return PatternUndecided(source, why)


class Pattern:
    """A compiled server pattern; :meth:`search` answers in bounded time or raises PatternUndecided."""

    def __init__(self, source: str, linear: object | None, backtracking: object | None, why: str | None) -> None:
        self.source = source
        self.engine = "re2" if linear is not None else "regex" if backtracking is not None else "none"
        self._linear = linear
        self._backtracking = backtracking
        self._why = why  # set: undecided, for every text

    def search(self, text: str) -> bool:
        """Does the pattern match somewhere in ``text`` (ECMA-262 ``RegExp.prototype.test``)?"""
        if self._why is not None:
            raise _undecided(self.source, self._why)
        if self._linear is not None:
            try:
                return self._linear.search(text) is not None  # type: ignore[attr-defined, no-any-return]
            except UnicodeEncodeError:
                pass  # a lone surrogate in the text: RE2 reads UTF-8; the other engine can
        if self._backtracking is None:
            self._backtracking = _compile_backtracking(self.source)
            if self._backtracking is None:
                raise _undecided(self.source, "the text holds a lone surrogate the pattern engine cannot read")
        try:
            found = self._backtracking.search(text, timeout=SEARCH_TIMEOUT)  # type: ignore[attr-defined]
        except TimeoutError:
            self._why = f"matching took longer than {SEARCH_TIMEOUT:g} s (catastrophic backtracking)"
            raise _undecided(self.source, self._why) from None
        return found is not None


def _compile_backtracking(source: str) -> object | None:
    try:
        translation = _Translator(source).run()
        if translation.unsupported is not None:
            return None
        compiled: object = regex.compile(translation.rx, flags=regex.V0)
        return compiled
    except (PatternError, regex.error, RecursionError, OverflowError, ValueError):
        return None


@functools.lru_cache(maxsize=2048)  # schemas repeat patterns across properties, tools and candidates
def _compile(source: str) -> Pattern | PatternError:
    if len(source) > MAX_PATTERN:
        return Pattern(source, None, None, f"it is longer than {MAX_PATTERN} characters")
    try:
        translation = _Translator(source).run()
    except PatternError as exc:
        return exc
    if translation.unsupported is not None:
        return Pattern(source, None, None, translation.unsupported)
    if translation.re2 is not None:
        try:
            return Pattern(source, re2.compile(translation.re2, _RE2_OPTIONS), None, None)
        except re2.error:
            pass  # too large for RE2 (it caps repetitions at 1000 and its memory): the other engine
    try:
        return Pattern(source, None, regex.compile(translation.rx, flags=regex.V0), None)
    except (regex.error, OverflowError, ValueError) as exc:
        return PatternError(f"not a valid regular expression ({exc})")
    except RecursionError:
        return Pattern(source, None, None, "it is nested too deeply")


def compile_pattern(source: str) -> Pattern:
    """The compiled pattern; :class:`PatternError` when ``source`` is not valid ECMA-262 syntax."""
    result = _compile(source)
    if isinstance(result, PatternError):
        raise result
    return result


def is_valid(source: str) -> bool:
    """Is this valid ECMA-262 syntax (what ``format: regex`` asks)?  Undecided patterns are valid."""
    return not isinstance(_compile(source), PatternError)


def search(source: str, text: str) -> bool:
    """ECMA-262 ``new RegExp(source, "u").test(text)`` in bounded time.

    Raises :class:`PatternError` for invalid syntax and :class:`PatternUndecided` when it
    cannot be answered within the bounds.
    """
    return compile_pattern(source).search(text)
