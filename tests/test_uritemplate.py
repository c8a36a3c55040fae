"""Tests of the RFC 6570 URI template parser: the RFC's own examples, every error, hostile input."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.schema.uritemplate import ParsedTemplate, Variable, parse


def _brief(parsed: ParsedTemplate) -> list[str]:
    """Variables as the template spells them, e.g. ``+path:6`` or ``?list*``."""
    out = []
    for v in parsed.variables:
        modifier = "*" if v.explode else f":{v.prefix}" if v.prefix is not None else ""
        out.append(f"{v.operator}{v.name}{modifier}")
    return out


# RFC 6570 sections 1.1, 1.2 (levels 1-4), 2.3, 2.4 and 3.2, plus MCP-style templates.
VALID = [
    ("http://example.com/~{username}/", ["username"]),
    ("http://example.com/dictionary/{term:1}/{term}", ["term:1"]),
    ("http://example.com/search{?q,lang}", ["?q", "?lang"]),
    ("http://www.example.com/foo{?query,number}", ["?query", "?number"]),
    ("{var}", ["var"]),
    ("{hello}", ["hello"]),
    ("{+path}/here", ["+path"]),
    ("here?ref={+path}", ["+path"]),
    ("X{#var}", ["#var"]),
    ("map?{x,y}", ["x", "y"]),
    ("{x,hello,y}", ["x", "hello", "y"]),
    ("{+x,hello,y}", ["+x", "+hello", "+y"]),
    ("{#path,x}/here", ["#path", "#x"]),
    ("X{.x,y}", [".x", ".y"]),
    ("{/var,x}/here", ["/var", "/x"]),
    ("{;x,y,empty}", [";x", ";y", ";empty"]),
    ("{?x,y,empty}", ["?x", "?y", "?empty"]),
    ("?fixed=yes{&x}", ["&x"]),
    ("{&x,y,empty}", ["&x", "&y", "&empty"]),
    ("{var:30}", ["var:30"]),
    ("{list*}", ["list*"]),
    ("{+path:6}/here", ["+path:6"]),
    ("{#keys*}", ["#keys*"]),
    ("X{.var:3}", [".var:3"]),
    ("{/var:1,var}", ["/var:1"]),  # a repeated name keeps its first occurrence
    ("{/list*,path:4}", ["/list*", "/path:4"]),
    ("{;hello:5}", [";hello:5"]),
    ("{?keys*}", ["?keys*"]),
    ("{&var:3}", ["&var:3"]),
    ("{count}{count*}{/count}{;count*}{?count*}{&count*}", ["count"]),
    ("O{empty}X", ["empty"]),
    ("up{+path}{var}/here", ["+path", "var"]),
    ("{.who,who}", [".who"]),
    ("www{.dom*}", [".dom*"]),
    ("{;v,bar,who}", [";v", ";bar", ";who"]),
    ("/mapper{?address*}", ["?address*"]),
    ("find{?year*}", ["?year*"]),
    ("{foo.bar}{%41b}{a.%2f.c_9}", ["foo.bar", "%41b", "a.%2f.c_9"]),
    ("{var:9999}", ["var:9999"]),
    ("file:///{path}", ["path"]),
    ("teamspace://docs/{id}{?rev,lang}", ["id", "?rev", "?lang"]),
    ("{+base}/x{/segments*}", ["+base", "/segments*"]),
    ("", []),
    ("plain://literal/only%20here!$&()*+,;=[]_~", []),
    ("https://例え.jp/дом/{q}\U000e1000\U0010fffd\ue000", ["q"]),
]


# Each edge of RFC 6570's literal ranges (ucschar and iprivate, RFC 3987), one code point either side.
LITERAL_EDGES = [
    ("\x7f", False), ("\x80", False), ("\x9f", False), ("\xa0", True), ("\ud7ff", True),
    ("\ue000", True), ("\ufdcf", True), ("\ufdd0", False), ("\ufdef", False), ("\ufdf0", True),
    ("\uffef", True), ("\ufff0", False), ("\U00010000", True), ("\U0001fffd", True), ("\U0001fffe", False),
    ("\U000dfffd", True), ("\U000e0000", False), ("\U000e0fff", False), ("\U000e1000", True),
]  # fmt: skip


@pytest.mark.parametrize(("char", "literal"), LITERAL_EDGES, ids=[f"U+{ord(c):04X}" for c, _ in LITERAL_EDGES])
def test_literal_ranges_end_where_rfc_6570_ends_them(char: str, literal: bool) -> None:
    parsed = parse(f"a{char}b{{q}}")
    assert (parsed.error is None) is literal, parsed.error
    if not literal:
        assert parsed.error == f"invalid literal character U+{ord(char):04X} at offset 1"


@pytest.mark.parametrize(("template", "expected"), VALID)
def test_valid_templates(template: str, expected: list[str]) -> None:
    parsed = parse(template)
    assert parsed.error is None
    assert parsed.template == template
    assert _brief(parsed) == expected


def test_variable_fields_and_expansion_ids() -> None:
    parsed = parse("{a}{+b}{#c}{.d}{/e}{;f}{?g*}{&h:12}")
    kinds = [v.expansion for v in parsed.variables]
    assert kinds == ["simple", "reserved", "fragment", "label", "path", "path-parameter", "query", "query-continuation"]
    assert parsed.variables[-2] == Variable("g", "?", True, None)
    assert parsed.variables[-1] == Variable("h", "&", False, 12)


@pytest.mark.parametrize(
    ("template", "error", "expected"),
    [
        ("teamspace://{id", "unclosed expression at offset 12", ["id"]),
        ("{a,b", "unclosed expression at offset 0", ["a", "b"]),
        ("{+", "unclosed expression at offset 0", []),
        ("x}", "unmatched '}' at offset 1", []),
        ("{}", "empty expression at offset 0", []),
        ("{+}", "missing variable name at offset 2", []),
        ("{a,}", "missing variable name at offset 3", ["a"]),
        ("{a.}", "variable name ends with '.' at offset 2", []),
        ("{a..b}", "invalid character U+002E in variable name at offset 3", []),
        ("{=a}", "reserved operator '=' at offset 1", []),
        ("{,a}", "reserved operator ',' at offset 1", []),
        ("{!a}{@b}{|c}", "reserved operator '!' at offset 1", []),
        ("{x}{|c}", "reserved operator '|' at offset 4", ["x"]),
        ("{a:0}", "invalid prefix length at offset 3", []),
        ("{a:012}", "invalid prefix length at offset 3", []),
        ("{a:10000}", "invalid prefix length at offset 3", []),
        ("{a:}", "invalid prefix length at offset 3", []),
        ("{a:3*}", "invalid character U+002A in expression at offset 4", ["a:3"]),
        ("{a b}", "invalid character U+0020 in expression at offset 2", ["a"]),
        ("{-a}", "invalid character U+002D in variable name at offset 1", []),
        ("{é}", "invalid character U+00E9 in variable name at offset 1", []),
        ("{a{b}}", "nested '{' at offset 2", ["a"]),
        ("{{a}}", "nested '{' at offset 1", []),
        ("{x}%2", "invalid percent-encoding at offset 3", ["x"]),
        ("%zz", "invalid percent-encoding at offset 0", []),
        ("{%4g}", "invalid percent-encoding at offset 1", []),
        ("a b", "invalid literal character U+0020 at offset 1", []),
        ('{x}"', "invalid literal character U+0022 at offset 3", ["x"]),
        ("<>", "invalid literal character U+003C at offset 0", []),
        ("a\\b", "invalid literal character U+005C at offset 1", []),
        ("^`|'", "invalid literal character U+005E at offset 0", []),
        ("a\x00b", "invalid literal character U+0000 at offset 1", []),
        ("a\x7f", "invalid literal character U+007F at offset 1", []),
        ("a\x85", "invalid literal character U+0085 at offset 1", []),  # C1 control
        ("\ud800", "invalid literal character U+D800 at offset 0", []),  # lone surrogate
        ("\ufdd0", "invalid literal character U+FDD0 at offset 0", []),  # noncharacter
        ("\U0001fffe", "invalid literal character U+1FFFE at offset 0", []),
        ("\U000e0041", "invalid literal character U+E0041 at offset 0", []),  # tag character
    ],
)
def test_errors_keep_the_variables_read_before(template: str, error: str, expected: list[str]) -> None:
    parsed = parse(template)
    assert parsed.error == error
    assert _brief(parsed) == expected


def test_too_long_is_refused_without_parsing() -> None:
    parsed = parse("{a}" * 10, max_length=29)
    assert parsed.error == "template too long: 30 characters (limit 29)"
    assert parsed.variables == ()
    assert parse("{a}" * 10, max_length=30).error is None


def test_hostile_inputs_stay_linear() -> None:
    many = "{" + ",".join(f"v{i}" for i in range(100_000)) + "}"
    parsed = parse(many, max_length=len(many))
    assert parsed.error is None and len(parsed.variables) == 100_000
    assert parse("{" * 100_000, max_length=10**6).error == "nested '{' at offset 1"
    assert parse("{a" + ".a" * 200_000, max_length=10**6).error == "unclosed expression at offset 0"
    assert parse("%" * 100_000, max_length=10**6).error == "invalid percent-encoding at offset 0"
    assert parse("{a:" + "9" * 100_000 + "}", max_length=10**6).error == "invalid prefix length at offset 3"
    assert parse("x" * 8193).error is not None


# An independent oracle: the RFC 6570 grammar as a regular expression over ASCII + BMP input.
_VARCHAR = r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})"
_VARSPEC = rf"({_VARCHAR}(?:\.?{_VARCHAR})*)(?::[1-9][0-9]{{0,3}}|\*)?"
_EXPRESSION = rf"\{{[+#./;?&]?{_VARSPEC}(?:,{_VARSPEC})*\}}"
_LITERAL = r"(?:[!#$&(-;=?-\[\]_a-z~\xa0-\ud7ff\ue000-\ufdcf\ufdf0-\uffef]|%[0-9A-Fa-f]{2})"
_TEMPLATE = re.compile(rf"(?:{_LITERAL}|{_EXPRESSION})*")
_NAME = re.compile(_VARSPEC)
_PIECES = [
    "{",
    "}",
    ",",
    ".",
    ":",
    "*",
    "+",
    "?",
    "=",
    "%",
    "%2f",
    "a",
    "b.c",
    "_9",
    "x/",
    "é",
    " ",
    "{a}",
    "{?b*,c:12}",
]
_GRAMMARISH = st.one_of(
    st.text(alphabet=st.sampled_from("{}+#./;?&=,!@|:*%019afAFxy_ \"'<>\\^`-\x00é\ufdd0"), max_size=30),
    st.lists(st.sampled_from(_PIECES), max_size=12).map("".join),
)


@settings(max_examples=300)
@given(st.one_of(st.text(alphabet=st.characters(exclude_categories=())), _GRAMMARISH))
def test_never_raises_and_is_deterministic(text: str) -> None:
    parsed = parse(text)
    assert parsed == parse(text)
    assert len({v.name for v in parsed.variables}) == len(parsed.variables)
    if parsed.error is not None:
        offset = re.search(r" at offset (\d+)$", parsed.error)
        assert offset is not None and 0 <= int(offset.group(1)) <= len(text)
    for v in parsed.variables:
        assert _NAME.fullmatch(v.name) and v.expansion
        assert v.prefix is None or 1 <= v.prefix <= 9999


@settings(max_examples=500)
@given(_GRAMMARISH)
def test_agrees_with_the_grammar(text: str) -> None:
    parsed = parse(text)
    assert (parsed.error is None) == bool(_TEMPLATE.fullmatch(text)), parsed.error
    if parsed.error is None:
        names = [
            re.sub(r"(:\d+|\*)$", "", spec)
            for body in re.findall(r"\{[+#./;?&]?([^}]*)\}", text)
            for spec in body.split(",")
        ]
        assert [v.name for v in parsed.variables] == list(dict.fromkeys(names))
