"""What the ECMA-262 translator says of a pattern (``generator.schema.ecma_translate``), case by case.

tests/test_patterns.py checks what patterns match in both engines; mutation testing (scripts/mutants)
showed what it leaves unpinned: the reason an invalid pattern is refused (which a schema's warning
quotes), the bounds that leave a pattern undecided, surrogate pairs at the edges of their ranges, and
a few class edges.
"""

from __future__ import annotations

import pytest
import regex  # type: ignore[import-untyped]

from generator.schema.ecma_syntax import PatternError
from generator.schema.ecma_translate import MAX_NEST, MAX_WEIGHT, Translator
from generator.schema.patterns import search


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("(", "a group is not closed: ')' is missing"),
        (")", "unmatched ')'"),
        ("a{3,1}", "numbers out of order in a {n,m} quantifier"),
        ("*a", "nothing to repeat before '*'"),
        ("^*", "nothing to repeat before '*'"),  # an anchor, a boundary or an empty branch repeats nothing
        ("$*", "nothing to repeat before '*'"),
        ("a|*", "nothing to repeat before '*'"),
        ("a(*b)", "nothing to repeat before '*'"),  # nor does a group just opened
        (r"\b*", "nothing to repeat before '*'"),
        (r"\B+", "nothing to repeat before '+'"),
        (r"(a)\2", "a backreference to a group that does not exist: '2'"),
        (r"(a)\k<0>", "a backreference to a group that does not exist: '0'"),
        ("\\", "the pattern ends with a lone backslash"),
        ("[\\", "the pattern ends with a lone backslash"),
        ("[a-\\", "the pattern ends with a lone backslash"),
        (r"\k", "\\k must be followed by <name>"),
        (r"\kx", "\\k must be followed by <name>"),
        (r"\p", "\\p and \\P must be followed by {Name}"),
        (r"\pL", "\\p and \\P must be followed by {Name}"),
        (r"\u{110000}", "\\u{...} is past the last code point"),
        (r"\e", "\\e is not an escape of ECMA-262"),
        (r"[\X]", "\\X is not an escape of ECMA-262"),
        (r"\X", "\\X is not an escape of ECMA-262"),
        (r"[a-\X]", "\\X is not an escape of ECMA-262"),
        ("[a", "a character class is not closed: ']' is missing"),
        ("[a-", "a character class is not closed: ']' is missing"),
        (r"[a-\d]", "a class range ends in a shorthand such as \\d"),
        (r"[a-\D]", "a class range ends in a shorthand such as \\d"),
        ("[z-a]", "a class range is out of order"),
    ],
)
def test_an_invalid_pattern_is_refused_with_what_is_wrong(pattern: str, reason: str) -> None:
    with pytest.raises(PatternError) as refused:
        Translator(pattern).run()
    assert str(refused.value) == reason


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        ("a{100000}", None),
        ("a{100001}", f"its repetitions expand to more than {MAX_WEIGHT} characters"),
        ("ba{99999}", None),
        ("bba{99999}", f"its repetitions expand to more than {MAX_WEIGHT} characters"),
        ("(ab){50000}", None),
        ("(ab){50001}", f"its repetitions expand to more than {MAX_WEIGHT} characters"),
        ("(a{1000}){100}", None),
        ("(a{1000}){101}", f"its repetitions expand to more than {MAX_WEIGHT} characters"),
        ("x(?:ab){49999}y", None),
        ("x(?:ab){49999}yz", f"its repetitions expand to more than {MAX_WEIGHT} characters"),
        ("a{100001,}", f"its repetitions expand to more than {MAX_WEIGHT} characters"),  # at least lo
        ("a{1,100001}", f"its repetitions expand to more than {MAX_WEIGHT} characters"),  # at most hi
        ("(){50001}", None),  # an empty group counts as one
        ("a{1}b{99999}", None),  # {1} and {0} count once
        ("a{0}b{100000}", f"its repetitions expand to more than {MAX_WEIGHT} characters"),
        ("(a{50001})*", None),  # *, + and ? count once
        ("(a{1000}){1001}b", f"its repetitions expand to more than {MAX_WEIGHT} characters"),  # past the cap, on
        ("(" * MAX_NEST + ")" * MAX_NEST, None),
        ("(" * (MAX_NEST + 1) + ")" * (MAX_NEST + 1), f"groups are nested more than {MAX_NEST} deep"),
        ("(?<a-b>x)", "the group name 'a-b' is outside [A-Za-z_][A-Za-z0-9_]*"),
        ("(?i)x", "it uses a group syntax outside ECMA-262, such as inline flags"),
        ("(?)", "it uses a group syntax outside ECMA-262, such as inline flags"),
    ],
)
def test_a_pattern_past_the_bounds_is_valid_but_never_decided(pattern: str, why: str | None) -> None:
    """Every character a repetition expands to counts, once per repetition, in every enclosing group."""
    assert Translator(pattern).run().unsupported == why


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        # A high surrogate then a low one is one character, at both ends of both ranges...
        (r"^\uD800\uDC00$", "\U00010000"),
        (r"^\uD800\uDFFF$", "\U000103ff"),
        (r"^\uDBFF\uDC00$", "\U0010fc00"),
        (r"^\uDBFF\uDFFF$", "\U0010ffff"),
        # ...and anything else is two.
        (r"^\uD7FF\uDC00$", "\ud7ff\udc00"),
        (r"^\uDC00\uDC00$", "\udc00\udc00"),
        (r"^\u0041\uDC00$", "A\udc00"),
    ],
)
def test_a_surrogate_pair_is_one_character(pattern: str, text: str) -> None:
    assert regex.compile(Translator(pattern).run().rx, flags=regex.V0).search(text) is not None


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        ("^[^a]$", "^", True),  # the ^ that negates is not a member
        ("^[^a]$", "a", False),
        ("^[a-]$", "-", True),  # a - before ] is a character
        ("^[a-]$", "]", False),
        ("^[a-a]$", "a", True),
        (r"^[\x00-\b]$", "\x08", True),  # \b in a class is a backspace
        (r"^[\P{L}]$", "1", True),
        (r"^[\P{L}]$", "a", False),
    ],
)
def test_class_edges(pattern: str, text: str, matches: bool) -> None:
    assert search(pattern, text) is matches
    rx = Translator(pattern).run().rx  # the backtracking form too, which RE2's hides where both exist
    assert (regex.compile(rx, flags=regex.V0).search(text) is not None) is matches


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        ("^a+?$", "aa", True),  # lazy: the same strings
        ("^a+?b$", "aab", True),
        ("^XX$", "XX", True),
        (r"^\d$", "7", True),
        (r"^\d$", "X", False),
        (r"^\cJ$", "\n", True),
        (r"^\cj$", "\n", True),
        (r"^\0$", "\0", True),
        (r"^\0$", "\x01", False),
        (r"^\x4A$", "J", True),
        (r"^\u004A$", "J", True),
        (r"^\u{4A}$", "J", True),
        (r"^\u004a$", "J", True),
        (r"^\u{4a}$", "J", True),
        (r"^\u{10FFFF}$", "\U0010ffff", True),
        (r"^a\Bb$", "ab", True),
        (r"^a\bb$", "ab", False),
        ("^(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\\10$", "abcdefghijj", True),  # two digits: group 10
        ("^(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\\10k$", "abcdefghijjk", True),
        (r"^\P{L}$", "1", True),
        (r"^\P{L}$", "a", False),
        ("^(?!a)b$", "b", True),
        ("^(?!a).$", "a", False),
        ("^.(?<!a)$", "b", True),
        ("^.(?<!a)$", "a", False),
        ("^.$", "X", True),
    ],
)
def test_escapes_and_groups_mean_what_ecma_262_says(pattern: str, text: str, matches: bool) -> None:
    assert search(pattern, text) is matches
    rx = Translator(pattern).run().rx  # the backtracking form too, which RE2's hides where both exist
    assert (regex.compile(rx, flags=regex.V0).search(text) is not None) is matches


@pytest.mark.parametrize(
    ("pattern", "re2"),
    [
        # RE2's \D and \W are ASCII, as ECMA-262's are, so a class that complements them stays RE2's.
        (r"[^\D]", r"[^\D]"),
        (r"[^\W]", r"[^\W]"),
        (r"[\D]", r"[\D]"),
        # \S is Unicode white space in ECMA-262 and not in RE2: its complement needs a lookahead.
        (r"[^\S]", None),
        (r"(a)\1", None),
        ("(?=a)a", None),
    ],
)
def test_which_patterns_re2_runs(pattern: str, re2: str | None) -> None:
    """RE2 runs in linear time; a pattern it cannot run falls to the backtracking engine and its timeout."""
    assert Translator(pattern).run().re2 == re2
