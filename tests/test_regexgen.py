"""The strings written for a ``pattern`` (``generator.schema.regexgen``), decided case by case.

The example tests check that a generated string matches its pattern, and any matching string passes:
which characters a class gives in turn, how many alternatives are tried, how far a repetition is
stretched to reach ``minLength`` and how many strings are returned were free. Mutation testing
(scripts/mutants) showed those rules unpinned. The generator is deterministic: each case is a pattern,
the lengths asked for and exactly the strings written, in order.
"""

from __future__ import annotations

from typing import Any

import pytest

from generator.schema.regexgen import generate


@pytest.mark.parametrize(
    ("pattern", "options", "strings"),
    [
        # A class gives its characters in turn, each style from its own preferred characters; while fewer
        # strings than asked are found, the first style again, each class starting one character further on.
        ("^[a-c]{3}$", {}, ["abc", "aca", "bca", "cab"]),
        ("^[^a-y]{2}$", {}, ["z0", "B3", "01", "AB", "12", "23"]),
        ("^[a-z]$", {"limit": 3}, ["a", "b", "c"]),
        # "." is any character but a line break; [\s\S] is any, letters and digits first.
        ("^.{2}$", {}, ["ab", "aB", "01", "AB", "bc", "cd"]),
        ("^[\\s\\S]$", {"limit": 4}, ["a", "0", "A", "b"]),
        # Unbounded repetitions: none, one and two more than the least, in each style.
        ("^[a-z]+$", {"limit": 10}, ["a", "ab", "abc", "ac", "ace", "b", "bc", "bcd", "c", "cd"]),
        ("^a{2,}b?$", {"limit": 8}, ["aa", "aaab", "aaaab"]),
        ("^(a|b)c{1,3}$", {"limit": 10}, ["ac", "acc", "accc", "bc", "bcc", "bccc"]),
        # The first three alternatives in each style; a later one in a shifted pass (the shift picks the branch).
        ("^(foo|bar|baz|qux)$", {"limit": 6}, ["foo", "bar", "baz", "qux"]),
        ("^(foo|bar|baz|qux)$", {"limit": 3}, ["foo", "bar", "baz"]),
        ("^(aaaa|bbbb|cccc|dd)$", {"max_len": 2}, ["dd"]),
        # minLength: the smallest stretch of the repetitions that reaches it, found by doubling and halving.
        (
            "^[a-z]+$",
            {"min_len": 37},
            [
                "abcdefghijklmnopqrstuvwxyzabcdefghijk",
                "acegabcdefghijklmnopqrstuvwxyzacegabc",
                "bcdefghijklmnopqrstuvwxyzabcdefghijkl",
                "cdefghijklmnopqrstuvwxyzabcdefghijklm",
                "defghijklmnopqrstuvwxyzabcdefghijklmn",
                "efghijklmnopqrstuvwxyzabcdefghijklmno",
            ],
        ),
        ("^(ab)+$", {"min_len": 11}, ["abababababab"]),
        ("^(ab)+$", {"min_len": 10}, ["ababababab"]),
        ("^(ab|cd)+$", {"min_len": 11}, ["abababababab", "cdcdcdcdcdcd"]),
        ("^[a-z]*$", {"min_len": 5, "limit": 3}, ["abcde", "acega", "bcdef"]),
        ("^x[0-9]*$", {"min_len": 3, "max_len": 3}, ["x01", "x35", "x12", "x23", "x34", "x45"]),
        # A back reference repeats what its own group wrote, not what came before the group.
        ("^x(ab)\\1$", {}, ["xabab"]),
        # A negated class that leaves out every preferred character: the one just past an excluded range,
        # and never a code point past the last one (U+10FFFF ends the range here).
        ("^[^\\x00\\x02-\U0010ffff]$", {}, ["\x01"]),
        # No more strings than asked for.
        ("^[a-z]{3,5}$", {"limit": 1}, ["abc"]),
    ],
)
def test_generate(pattern: str, options: dict[str, Any], strings: list[str]) -> None:
    assert generate(pattern, **options) == strings
