"""The tree a pattern parses to (``generator.schema.regexparse``), decided case by case.

The example tests reach the parser through the strings the generator writes, and a string that still
matches hides a wrong tree; mutation testing (scripts/mutants) showed most of its branches unpinned.
Each case is a pattern as servers write them and the tree it must give, or its refusal.
"""

from __future__ import annotations

import pytest

from generator.schema.regexparse import (
    Alt,
    Backref,
    Chars,
    CharSet,
    Group,
    Lit,
    Node,
    Rep,
    Seq,
    Unsupported,
    parse,
)

NOTHING = Seq([])
"""What an anchor, a boundary, a lookaround, a comment or a flags group writes."""


def chars(*ranges: tuple[str, str], categories: tuple[str, ...] = (), negate: bool = False) -> Chars:
    return Chars(CharSet(list(ranges), list(categories), negate))


@pytest.mark.parametrize(
    ("pattern", "tree"),
    [
        ("", Seq([])),
        ("ab", Seq([Lit("a"), Lit("b")])),
        # Anchors and boundaries write nothing.
        ("^a$", Seq([NOTHING, Lit("a"), NOTHING])),
        (r"\ba\B\A\Z\z", Seq([NOTHING, Lit("a"), NOTHING, NOTHING, NOTHING, NOTHING])),
        # Quantifiers, with their lazy and possessive forms (the same strings).
        ("a*", Seq([Rep(Lit("a"), 0, None)])),
        ("a+", Seq([Rep(Lit("a"), 1, None)])),
        ("a?", Seq([Rep(Lit("a"), 0, 1)])),
        ("a*?b++", Seq([Rep(Lit("a"), 0, None), Rep(Lit("b"), 1, None)])),
        ("a{3}", Seq([Rep(Lit("a"), 3, 3)])),
        ("a{2,}", Seq([Rep(Lit("a"), 2, None)])),
        ("a{2,5}", Seq([Rep(Lit("a"), 2, 5)])),
        ("a{1000}", Seq([Rep(Lit("a"), 1000, 1000)])),
        ("a{2}{3}", Seq([Rep(Rep(Lit("a"), 2, 2), 3, 3)])),
        ("a{,5}", Seq([Lit("a"), Lit("{"), Lit(","), Lit("5"), Lit("}")])),  # ECMA-262: not a quantifier
        # Alternation, at the top and inside a group.
        ("a|bc", Alt([Seq([Lit("a")]), Seq([Lit("b"), Lit("c")])])),
        ("a|", Alt([Seq([Lit("a")]), Seq([])])),
        ("(a|b)", Seq([Group(Alt([Seq([Lit("a")]), Seq([Lit("b")])]), 1)])),
        # Groups: capturing ones are numbered in order; the others are not.
        ("(a)(b)", Seq([Group(Seq([Lit("a")]), 1), Group(Seq([Lit("b")]), 2)])),
        ("(?:a)(b)", Seq([Group(Seq([Lit("a")]), None), Group(Seq([Lit("b")]), 1)])),
        ("(?>a)", Seq([Group(Seq([Lit("a")]), None)])),
        ("(?<year>a)(b)", Seq([Group(Seq([Lit("a")]), 1), Group(Seq([Lit("b")]), 2)])),
        ("(a)(?<y>b)", Seq([Group(Seq([Lit("a")]), 1), Group(Seq([Lit("b")]), 2)])),
        ("(?P<x>a)(?P=x)", Seq([Group(Seq([Lit("a")]), 1), Backref(1)])),
        ("(?P=nobody)", Seq([Backref(0)])),
        ("(?i:a)", Seq([Group(Seq([Lit("a")]), None)])),
        ("(?i)a", Seq([NOTHING, Lit("a")])),
        ("(?im-sx:a)", Seq([Group(Seq([Lit("a")]), None)])),
        # Lookarounds and comments write nothing (a lookaround is parsed all the same).
        ("(?=a)b", Seq([NOTHING, Lit("b")])),
        ("(?!a)b", Seq([NOTHING, Lit("b")])),
        ("(?<=a)b", Seq([NOTHING, Lit("b")])),
        ("(?<!a)b", Seq([NOTHING, Lit("b")])),
        ("(?#a note)b", Seq([NOTHING, Lit("b")])),
        ("(a)(?#x)b", Seq([Group(Seq([Lit("a")]), 1), NOTHING, Lit("b")])),  # the comment's own )
        ("(?#x)(a)", Seq([NOTHING, Group(Seq([Lit("a")]), 1)])),  # its first )
        ("(?<=)b", Seq([NOTHING, Lit("b")])),
        # Backreferences: one or two digits.
        (r"(a)\1", Seq([Group(Seq([Lit("a")]), 1), Backref(1)])),
        (r"\12", Seq([Backref(12)])),
        (r"\123", Seq([Backref(12), Lit("3")])),
        # Escapes.
        (r"\n\t\r\f\v\a\0", Seq([Lit("\n"), Lit("\t"), Lit("\r"), Lit("\f"), Lit("\v"), Lit("\a"), Lit("\0")])),
        (r"\01", Seq([Backref(1)])),  # \0 then a digit is no NUL
        (r"\x41\u00e9", Seq([Lit("A"), Lit("é")])),
        (r"\x4A\u00C9", Seq([Lit("J"), Lit("É")])),
        (r"\xZ", None),  # \x without two hex digits is a letter escape: refused
        (r"\.\*\\", Seq([Lit("."), Lit("*"), Lit("\\")])),
        (r"\d\W", Seq([chars(categories=("d",)), chars(categories=("W",))])),
        (".", Seq([Chars(None)])),
        # Classes.
        ("[a-z0-9_-]", Seq([chars(("a", "z"), ("0", "9"), ("_", "_"), ("-", "-"))])),
        ("[^ab]", Seq([chars(("a", "a"), ("b", "b"), negate=True)])),
        ("[]a]", Seq([chars(("]", "]"), ("a", "a"))])),  # a ] first is a character
        ("[a-]", Seq([chars(("a", "a"), ("-", "-"))])),
        (r"[\d\s.]", Seq([chars((".", "."), categories=("d", "s"))])),
        (r"[\x41-\x43]", Seq([chars(("A", "C"))])),
        (r"[a-\x43]", None),  # "a" > "C": a range backwards
        (r"[!-\.]", Seq([chars(("!", "."))])),
        (r"[\n]", Seq([chars(("\n", "\n"))])),
        ("[a:]", Seq([chars(("a", "a"), (":", ":"))])),  # a colon is POSIX syntax only after [
        ("[a-a]", Seq([chars(("a", "a"))])),
        (r"[\d-z]", Seq([chars(("-", "-"), ("z", "z"), categories=("d",))])),  # Annex B: no range from \d
    ],
)
def test_a_pattern_parses_to_its_tree(pattern: str, tree: Node | None) -> None:
    if tree is None:
        with pytest.raises(Unsupported):
            parse(pattern)
    else:
        assert parse(pattern) == tree


@pytest.mark.parametrize(
    "pattern",
    [
        "a" * 2001,  # longer than the parser reads
        "(" * 41 + ")" * 41,  # nested past 40 groups
        "a{1001}",  # a repetition past 1,000
        "a{5,2}",  # a range backwards
        "*a",
        "+a",
        "(?<=*)b",  # inside a lookbehind, as anywhere
        r"\X",
        "?a",
        "a(",
        "a)",
        "(?<name",
        "(?#unterminated",
        "(?'x'a)",  # a group form outside the subset
        "[[:alpha:]]",
        r"[\b]",  # \b inside a class: refused, not a backspace
        r"[a-\d]",
        r"\p{L}",
        "[ab",
        "\\",
    ],
)
def test_a_pattern_outside_the_subset_or_its_bounds_is_refused(pattern: str) -> None:
    with pytest.raises(Unsupported):
        parse(pattern)


@pytest.mark.parametrize(
    ("pattern", "accepted"),
    [
        ("a" * 2000, True),
        ("(" * 40 + ")" * 40, True),
        ("(" * 41 + ")" * 41, False),
        ("(?=" * 40 + ")" * 40, True),  # lookarounds count as groups
        ("(?=" * 41 + ")" * 41, False),
    ],
)
def test_the_bounds_are_where_they_are_said_to_be(pattern: str, accepted: bool) -> None:
    try:
        parse(pattern)
    except Unsupported:
        assert not accepted
    else:
        assert accepted


@pytest.mark.parametrize(
    ("chars_", "inside", "outside"),
    [
        (CharSet([("a", "c")]), "abc", "dA"),
        (CharSet([("a", "c")], negate=True), "dA", "abc"),
        (CharSet(categories=["d"]), "09", "a_ "),
        (CharSet(categories=["D"]), "a_ ", "09"),
        (CharSet(categories=["w"]), "aZ9_", "- ."),
        (CharSet(categories=["W"]), "- .", "aZ9_"),
        (CharSet(categories=["s"]), " \t\n", "a0"),
        (CharSet(categories=["S"]), "a0", " \t\n"),
        (CharSet([("x", "x")], ["d"]), "x5", "y"),
    ],
)
def test_a_class_allows_exactly_its_characters(chars_: CharSet, inside: str, outside: str) -> None:
    assert all(chars_.allows(c) for c in inside)
    assert not any(chars_.allows(c) for c in outside)
