"""Parse RFC 6570 URI templates (level 4) to list their variables.

MCP resource templates carry a URI template such as ``file:///{path}`` or
``teamspace://docs/{id}{?rev,lang}``; the portal shows each template's variables.
The template comes from a server, so it is untrusted: :func:`parse` never raises,
runs in linear time (a small hand parser, no regular expressions) and refuses
templates over ``max_length`` before looking at them.  An invalid template yields
a short English reason with the character offset, plus the variables read before
the problem, so a page can still show something useful.

The grammar is RFC 6570 section 2, followed exactly: ALPHA and DIGIT are ASCII
only, literals may hold ``ucschar``/``iprivate`` code points but no controls,
spaces, lone surrogates or ``"'<>\\^`{|}``, and ``%`` must start a triplet.

Why not the ``uri-template`` package (installed by ``jsonschema[format-nongpl]``):
checked against this module's tests (uri-template 1.3.0), it is no RFC 6570 parser
to show users.  It rejects valid templates (``{%41b}``, ``{var:9999}``), accepts
invalid ones (spaces, quotes and control characters in literals, ``{a,}``, ``{a:012}``,
``%zz``) and its own extensions (``{,x}``, ``{a=1}``, ``{a[]}``), crashes on ``{+}``
(IndexError), and its messages (``Bad expansion: {..}``) echo the untrusted text with
no offset and keep none of the variables read before the problem.  The portal never
expands templates, so there is nothing else it would do for us.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from typing import NoReturn
from urllib.parse import quote

from generator.schema.thing_values import singular

_EXPANSIONS = {
    "": "simple",
    "+": "reserved",
    "#": "fragment",
    ".": "label",
    "/": "path",
    ";": "path-parameter",
    "?": "query",
    "&": "query-continuation",
}
_RESERVED_OPERATORS = frozenset("=,!@|")  # kept by RFC 6570 for future extensions
_VARCHAR = frozenset(string.ascii_letters + string.digits + "_")  # plus pct-encoded
_DIGITS = frozenset(string.digits)
_HEX = frozenset(string.hexdigits)  # ABNF strings are case-insensitive: %2f is as good as %2F
_LITERAL_ASCII = frozenset(
    chr(c)
    for c in (
        0x21,
        0x23,
        0x24,
        0x26,
        *range(0x28, 0x3C),
        0x3D,
        *range(0x3F, 0x5C),
        0x5D,
        0x5F,
        *range(0x61, 0x7B),
        0x7E,
    )
)


@dataclass(frozen=True)
class Variable:
    """One varspec of an expression: its name as written and how it expands."""

    name: str
    operator: str
    explode: bool
    prefix: int | None

    @property
    def expansion(self) -> str:
        """A short stable id of the expansion kind, e.g. ``"query"`` for ``{?q}``."""
        return _EXPANSIONS[self.operator]


@dataclass(frozen=True)
class ParsedTemplate:
    """A template with its distinct variables in order of first appearance."""

    template: str
    variables: tuple[Variable, ...]
    error: str | None


class _TemplateError(Exception):
    pass


def _is_literal(ch: str) -> bool:
    c = ord(ch)
    if c < 0x80:
        return ch in _LITERAL_ASCII
    # ucschar and iprivate; E000-F8FF (iprivate) and F900-FDCF (ucschar) are contiguous.
    if 0xA0 <= c <= 0xD7FF or 0xE000 <= c <= 0xFDCF or 0xFDF0 <= c <= 0xFFEF:
        return True
    # Astral planes minus each plane's last two code points, and minus E0000-E0FFF (tags and the like).
    return c >= 0x10000 and (c & 0xFFFF) <= 0xFFFD and not 0xE0000 <= c < 0xE1000


def _codepoint(ch: str) -> str:
    # Never echo untrusted characters into the message: it may end up in HTML, logs or a terminal.
    return f"U+{ord(ch):04X}"


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.found: dict[str, Variable] = {}

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def fail(self, reason: str, at: int | None = None) -> NoReturn:
        raise _TemplateError(f"{reason} at offset {self.pos if at is None else at}")

    def run(self) -> None:
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if ch == "{":
                self.expression()
            elif ch == "%":
                self.pct_encoded()
            elif ch == "}":
                self.fail("unmatched '}'")
            elif _is_literal(ch):
                self.pos += 1
            else:
                self.fail(f"invalid literal character {_codepoint(ch)}")

    def pct_encoded(self) -> None:
        triplet = self.text[self.pos : self.pos + 3]
        if len(triplet) < 3 or triplet[1] not in _HEX or triplet[2] not in _HEX:
            self.fail("invalid percent-encoding")
        self.pos += 3

    def expression(self) -> None:
        start = self.pos
        self.pos += 1
        operator = self.peek()
        if operator in _RESERVED_OPERATORS:
            self.fail(f"reserved operator '{operator}'")
        if operator and operator in _EXPANSIONS:
            self.pos += 1
        else:
            operator = ""
        if self.peek() == "}" and not operator:
            self.fail("empty expression", at=start)
        while True:
            self.varspec(operator, start)
            ch = self.peek()
            if ch == "}":
                self.pos += 1
                return
            if ch != ",":
                self.unexpected(start, "in expression")
            self.pos += 1

    def unexpected(self, start: int, where: str) -> NoReturn:
        ch = self.peek()
        if not ch:
            self.fail("unclosed expression", at=start)
        if ch == "{":
            self.fail("nested '{'")
        self.fail(f"invalid character {_codepoint(ch)} {where}")

    def varchar(self, start: int, after_dot: bool) -> None:
        ch = self.peek()
        if ch == "%":
            self.pct_encoded()
        elif ch in _VARCHAR:
            self.pos += 1
        elif ch in ("}", ","):
            if after_dot:
                self.fail("variable name ends with '.'", at=self.pos - 1)
            self.fail("missing variable name")
        else:
            self.unexpected(start, "in variable name")

    def varspec(self, operator: str, start: int) -> None:
        name_start = self.pos
        self.varchar(start, after_dot=False)
        while (ch := self.peek()) and (ch in _VARCHAR or ch in ".%"):
            if ch == ".":
                self.pos += 1
            self.varchar(start, after_dot=ch == ".")
        name = self.text[name_start : self.pos]
        explode, prefix = False, None
        if self.peek() == "*":
            explode = True
            self.pos += 1
        elif self.peek() == ":":
            self.pos += 1
            digits_start = self.pos
            while self.peek() in _DIGITS:
                self.pos += 1
            digits = self.text[digits_start : self.pos]
            # max-length = %x31-39 0*3DIGIT: one to four digits, no leading zero.
            if not digits or digits[0] == "0" or len(digits) > 4:
                self.fail("invalid prefix length", at=digits_start)
            prefix = int(digits)
        self.found.setdefault(name, Variable(name, operator, explode, prefix))


def parse(template: str, *, max_length: int = 8192) -> ParsedTemplate:
    """Parse ``template``; never raises. ``error`` is None when it is valid RFC 6570."""
    if len(template) > max_length:
        return ParsedTemplate(template, (), f"template too long: {len(template)} characters (limit {max_length})")
    parser = _Parser(template)
    error: str | None = None
    try:
        parser.run()
    except _TemplateError as exc:
        error = str(exc)
    return ParsedTemplate(template, tuple(parser.found.values()), error)


_EXPRESSION = re.compile(r"\{([+#./;?&]?)([^{}]*)\}")
_UNRESERVED = "-._~"
_RESERVED = ":/?#[]@!$&'()*+,;="


def expand(template: ParsedTemplate, values: dict[str, str]) -> str | None:
    """*template* with each variable replaced by its string in *values* (RFC 6570, every operator, one
    string per variable; a prefix ``{x:3}`` cuts it); None when the template did not parse or a value
    is missing. Values are percent-encoded as the operator requires."""
    if template.error is not None:
        return None

    def encode(value: str, reserved: bool) -> str:
        return quote(value, safe=_UNRESERVED + (_RESERVED if reserved else ""))

    def expression(match: re.Match[str]) -> str:
        operator, varlist = match.group(1), match.group(2)
        first, joiner = _OPERATORS.get(operator, ("", ","))
        named, reserved = operator in (";", "?", "&"), operator in ("+", "#")
        parts = []
        for spec in varlist.split(","):
            name, _, prefix = spec.rstrip("*").partition(":")
            if name not in values:
                raise KeyError(name)
            value = values[name][: int(prefix)] if prefix.isdigit() else values[name]
            text = encode(value, reserved)
            parts.append(f"{name}={text}" if named and (text or operator != ";") else (name if named else text))
        return first + joiner.join(parts)

    try:
        return _EXPRESSION.sub(expression, template.template)
    except KeyError:
        return None


_OPERATORS = {"": ("", ","), "+": ("", ","), "#": ("#", ","), ".": (".", "."), "/": ("/", "/"),
              ";": (";", ";"), "?": ("?", "&"), "&": ("&", "&")}  # fmt: skip
"""Each operator's first character and separator (RFC 6570, section 3.2.1)."""


def segment_words(template: ParsedTemplate) -> dict[str, str]:
    """For each variable, the last word of the literal text before its expression, singular
    (``manifest://deployments/{namespace}/{name}``: ``namespace`` and ``name`` both follow ``deployments``,
    so both are a ``deployment``'s); a variable with no word before it is left out. One linear pass."""
    found: dict[str, str] = {}
    word, building, inside = "", False, False
    current: list[str] = []
    for ch in template.template[:8192]:
        if inside:
            if ch == "}":
                inside = False
                for spec in "".join(current).lstrip("+#./;?&").split(","):
                    name = spec.rstrip("*").partition(":")[0]
                    if word and name not in found:
                        found[name] = singular(word)
            else:
                current.append(ch)
        elif ch == "{":
            inside, building, current = True, False, []
        elif ch.isascii() and ch.isalpha():
            word = word + ch.lower() if building else ch.lower()
            building = True
        else:
            building = False
    return found
