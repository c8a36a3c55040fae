"""Server regexes run in bounded time, with ECMA-262 meaning, and no schema can hang a build.

Covers generator.schema.patterns (the dialect and its bounds), its use by validation, examples and
regexgen, the build's warning for an undecided pattern, and the --max-render-seconds budget.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import re2  # type: ignore[import-untyped]
import regex  # type: ignore[import-untyped]

from generator.commands.cli import main
from generator.config.portal import load_config
from generator.render.renderer import Deadline
from generator.schema import patterns
from generator.schema.ecma_syntax import PatternError
from generator.schema.ecma_translate import Translator
from generator.schema.examples import example_for
from generator.schema.patterns import PatternUndecided, compile_pattern, search, watch
from generator.schema.regexgen import generate
from generator.schema.validation import validate
from generator.snapshot.snapshot import new_snapshot
from tests.conftest import TEMPLATES

TESTS = Path(__file__).resolve().parent
EVERYTHING = TESTS / "golden" / "everything.snapshot.json"
BOUND = 5.0  # seconds for one hostile schema: generous, the real cost is a few tenths
BUILD_BOUND = 60.0

# Patterns that the backtracking engine cannot decide in time on some text the generator tries.
UNDECIDABLE = [
    ("(?!a{40})(a|a){40}$", None),
    ("^(?=.)(a|aa)+$", "a" * 60 + "!"),
    ("^(?:(a)|\\1)*(a|a)*$", "a" * 40 + "!"),
]
# Patterns that blow up other engines but are decided at once (RE2 is linear), or are refused
# before anything runs (too large, too deep).
DECIDED_FAST = [
    ("^(a+)+$", "a" * 40 + "!"),
    ("^(\\w+\\s?)+$", "a" * 50 + "!"),
    (
        "^([a-zA-Z0-9])(([\\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$",
        None,
    ),
]
TOO_LARGE = ["(a{1000}){1000}", "((a{100}){100}){100}", "(" * 300 + "a" + ")" * 300]


def timed(func: Any) -> tuple[Any, float]:
    started = time.monotonic()
    result = func()
    return result, time.monotonic() - started


# --------------------------------------------------------------------------- the dialect

ECMA_CASES = [
    # pattern, text, ECMA-262 answer (where Python's re often answers otherwise)
    (r"^\d+$", "123", True),
    (r"^\d+$", "\u0663\u0664", False),  # Arabic-Indic digits: \d is ASCII in ECMA-262
    (r"^\w+$", "café", False),
    (r"\bfoo\b", "éfoo", True),  # é is no word character, so there is a boundary
    (r"^\s$", "\u3000", True),
    (r"^\s$", "\ufeff", True),
    (r"^\S$", "\u00a0", False),
    (r"^a$", "a\n", False),  # $ is the very end, not "before a final newline"
    (r"^.$", "\r", False),
    (r"^.$", "\u2028", False),
    (r"^[^]$", "\n", True),
    (r"[]", "anything", False),
    (r"[]", "\x00", False),
    (r"^[^]$", "\x00", True),
    (r"^[^]$", "\U0010ffff", True),
    (r"^\u0041\u{1F600}$", "A😀", True),
    (r"^\uD83D\uDE00$", "😀", True),  # a surrogate pair is one character
    (r"^\x41\cJ$", "A\n", True),
    (r"^[\b]$", "\b", True),
    (r"a{,5}", "a{,5}", True),  # not a quantifier in ECMA-262
    (r"a{,5}", "aaa", False),
    (r"^(?<y>\d{4})-\k<y>$", "2024-2024", True),
    (r"^(?<y>\d{4})-\k<y>$", "2024-2025", False),
    (r"^(?:(a)|b)\1c$", "bc", True),  # a group that did not take part matches the empty string
    (r"^(?P<x>a)(?P=x)$", "aa", True),  # Python's spelling, accepted
    (r"^[\D]$", "\u0663", True),
    (r"^[^\D]$", "\u0663", False),
    (r"^[a\S]$", " ", False),
    (r"^[^a\S]$", " ", True),
    (r"^[^a\S]$", "a", False),
    (r"^\p{L}+$", "αβ", True),
    (r"^\p{Script=Greek}+$", "αβ", True),
    (r"(?=.*[A-Z])(?=.*\d)", "aB3", True),
    (r"(?<=\$)\d+", "$42", True),
    (r"^\/api\/v1$", "/api/v1", True),
    # Complemented shorthands inside a class, whose ranges are written out for the engine that lacks them
    (r"^[^\W]$", "A", True),
    (r"^[^\W]$", "é", False),
    (r"^[x\W]$", "_", False),
    (r"^[x\W]$", "x", True),
    (r"^[x\W]$", "é", True),
    (r"^[^\S]$", "\u2028", True),  # after the \u2000-\u200a range in ECMA-262's white space
    (r"^[^\S]$", "\ufeff", True),
    (r"^[^\S]$", "\u200b", False),
    (r"^[x\S]$", "\u2029", False),
    (r"^[^\D]$", "7", True),
    (r"^[\p{Ll}\p{N}]$", "X", False),
    (r"^[ac-e]$", "X", False),
    # Class members that are syntax in a class, written escaped
    (r"^[\]]$", "]", True),
    (r"^[\\]$", "\\", True),
    (r"^[\^]$", "^", True),
    (r"^[^\^]$", "^", False),
    (r"^[a\-z]$", "-", True),
    (r"^[a\-z]$", "b", False),
    # Negated classes with complemented shorthands: lookaheads in the backtracking engine
    (r"^[^ \S]$", " ", False),
    (r"^[^ \S]$", "\t", True),
    (r"^[^\D\W]$", "7", True),
    (r"^[^\D\W]$", "a", False),
    (r"^[ac-e]$", "d", True),
    (r"^[\p{Ll}\p{N}]$", "5", True),
    (r"^[^\p{Ll}\p{N}]$", "X", True),
]


@pytest.mark.parametrize(("pattern", "text", "expected"), ECMA_CASES)
def test_ecma_dialect(pattern: str, text: str, expected: bool) -> None:
    assert search(pattern, text) is expected


@pytest.mark.parametrize(("pattern", "text", "expected"), ECMA_CASES)
def test_both_engines_agree(pattern: str, text: str, expected: bool) -> None:
    # The backtracking form is the fallback for every pattern RE2 cannot take: it must mean the same, and so
    # must the RE2 form wherever there is one (a wrong one that RE2 refuses would hide behind the fallback).
    translated = Translator(pattern).run()
    assert (regex.compile(translated.rx, flags=regex.V0).search(text) is not None) is expected
    if translated.re2 is not None and pattern not in RE2_REFUSES:
        assert (re2.compile(translated.re2, patterns._RE2_OPTIONS).search(text) is not None) is expected


RE2_REFUSES = {r"^\p{Script=Greek}+$"}
"""Patterns given an RE2 form that RE2 refuses to compile (its property syntax has no ``Script=``): they run
in the backtracking engine, as :func:`generator.schema.patterns.compile_pattern` falls back to it."""


def test_linear_engine_for_plain_patterns() -> None:
    assert compile_pattern(r"^[a-z0-9-]+$").engine == "re2"
    assert compile_pattern(r"^(a+)+$").engine == "re2"
    assert compile_pattern(r"^[^][]$").engine == "re2"  # the classes that match anything and nothing
    assert compile_pattern(r"^[\D]$").engine == "re2"  # RE2's own \D and \W are ECMA-262's
    assert compile_pattern(r"^[x\S]$").engine == "re2"  # a complemented \s as an alternative, no lookahead
    assert compile_pattern(r"^(?=.*\d)").engine == "regex"
    assert compile_pattern(r"(a)\1").engine == "regex"


@pytest.mark.parametrize(
    "pattern", ["(", ")", "*a", "a**", r"\e", "[z-a]", "a{3,1}", r"\1", r"(a)\2", r"\(a\)\1", r"\k<n>", "\\", "[a"]
)
def test_invalid_syntax(pattern: str) -> None:
    with pytest.raises(PatternError):
        compile_pattern(pattern)
    with pytest.raises(PatternError):  # by the translator's own reading, not only by an engine refusing its output
        Translator(pattern).run()
    assert not patterns.is_valid(pattern)
    # format: regex uses the same verdict, and a schema holding it is invalid
    assert validate(pattern, {"type": "string", "format": "regex"})
    assert validate("x", {"type": "string", "pattern": pattern})[0].startswith("schema:")


def test_unsupported_syntax_is_undecided_not_invalid() -> None:
    assert patterns.is_valid("(?i)abc")
    assert compile_pattern("(?i)abc").engine == "none"
    with pytest.raises(PatternUndecided) as caught:
        search("(?i)abc", "ABC")
    assert str(caught.value) == (
        "pattern `(?i)abc` could not be decided: it uses a group syntax outside ECMA-262, such as inline flags"
    )


def test_lone_surrogate_text() -> None:
    # RE2 reads UTF-8, where a lone surrogate cannot exist: the other engine answers.
    assert search(r"^[\u0000-\uFFFF]$", "\ud800")
    assert not search(r"^\d$", "\ud800")


# --------------------------------------------------------------------------- bounds


@pytest.mark.parametrize(("pattern", "default"), UNDECIDABLE)
def test_undecidable_pattern_gives_no_example_in_time(pattern: str, default: str | None) -> None:
    schema: dict[str, Any] = {"type": "string", "pattern": pattern}
    if default is not None:
        schema["default"] = default
    with watch() as undecided:
        result, seconds = timed(lambda: example_for(schema))
    assert seconds < BOUND
    assert not result.ok
    too_slow = f"matching took longer than {patterns.SEARCH_TIMEOUT:g} s (catastrophic backtracking)"
    assert (result.reason or "").endswith("could not be decided: " + too_slow)
    assert undecided == [pattern]
    # validate() never hangs either, and never says "valid" on a guess. The verdict on one text is not kept
    # for the pattern: a text it decides in time is decided (no later call is told "undecided" for it).
    errors, seconds = timed(lambda: validate("a" * 40 + "!", schema))
    assert seconds < BOUND
    assert errors and ("could not be decided" in errors[0] or "does not match" in errors[0])


@pytest.mark.parametrize(("pattern", "default"), DECIDED_FAST)
def test_catastrophic_for_backtracking_is_linear_here(pattern: str, default: str | None) -> None:
    schema: dict[str, Any] = {"type": "string", "pattern": pattern}
    if default is not None:
        schema["default"] = default
    result, seconds = timed(lambda: example_for(schema))
    assert seconds < BOUND
    if result.ok:
        assert validate(result.value, schema) == []
    assert not search(pattern, "a" * 5000 + "!")


@pytest.mark.parametrize("pattern", TOO_LARGE)
def test_too_large_patterns_are_refused_before_running(pattern: str) -> None:
    result, seconds = timed(lambda: example_for({"type": "string", "pattern": pattern}))
    assert seconds < BOUND
    assert not result.ok
    assert "could not be decided" in (result.reason or "")


@pytest.mark.parametrize(
    "pattern",
    [
        "(a{1000}){1000}",
        "((){1000}){1000}",
        "((a|b|c|d){1000}){1000}",
        "(" * 40 + "a" + ")" * 40,
        "((((x*)*)*)*)*" * 50,
    ],
)
def test_regex_generator_is_bounded(pattern: str) -> None:
    found, seconds = timed(lambda: generate(pattern, min_len=40))
    assert seconds < BOUND
    assert all(search(pattern, s) for s in found)


@pytest.mark.parametrize(
    "schema",
    [
        # patternProperties keys, propertyNames, additionalProperties and unevaluatedProperties all
        # consult the key patterns: each path is bounded.
        {"type": "object", "patternProperties": {"(?!a{40})(a|a){40}$": {"type": "integer"}}, "default": {"a" * 40: 1}},
        {"type": "object", "propertyNames": {"pattern": "(?!a{40})(a|a){40}$"}, "minProperties": 1},
        {
            "type": "object",
            "patternProperties": {"(?!a{40})(a|a){40}$": {"type": "integer"}},
            "additionalProperties": False,
            "default": {"a" * 39 + "b": 1},  # a key the pattern takes too long over (on its own, in any order)
        },
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "patternProperties": {"(?!a{40})(a|a){40}$": {"type": "integer"}},
            "unevaluatedProperties": False,
            "default": {"a" * 39 + "b": 1},  # a key the pattern takes too long over (on its own, in any order)
        },
    ],
    ids=["patternProperties", "propertyNames", "additionalProperties", "unevaluatedProperties"],
)
def test_key_patterns_are_bounded(schema: dict[str, Any]) -> None:
    with watch() as undecided:
        result, seconds = timed(lambda: example_for(schema))
    assert seconds < BOUND
    assert not result.ok
    assert undecided == ["(?!a{40})(a|a){40}$"]


# --------------------------------------------------------------------------- whole builds


def snapshot_with(tools: list[dict[str, Any]], path: Path) -> Path:
    snap = new_snapshot(
        protocol_version="2026-07-28",
        server={"name": "regex-server", "version": "1", "description": "d", "instructions": "i", "capabilities": {}},
        tools=tuple(tools),
        capability_version="1",
        transport="stdio",
        endpoint="regex-server",
    )
    path.write_text(snap.to_json(), encoding="utf-8")
    return path


def hostile_tools() -> list[dict[str, Any]]:
    tools = []
    for i, (pattern, default) in enumerate([*UNDECIDABLE, *DECIDED_FAST]):
        prop: dict[str, Any] = {"type": "string", "pattern": pattern}
        if default is not None:
            prop["default"] = default
        tools.append(
            {
                "name": f"hostile_{i}",
                "description": "A tool whose argument pattern backtracks.",
                "inputSchema": {"type": "object", "properties": {"value": prop}, "required": ["value"]},
            }
        )
    tools.append(
        {
            "name": "hostile_keys",
            "description": "Keys with a hostile pattern.",
            "inputSchema": {
                "type": "object",
                "patternProperties": {"(?!a{40})(a|a){40}$": {"type": "string"}},
                "additionalProperties": False,
                "minProperties": 1,
            },
        }
    )
    tools.append(
        {
            "name": "plain",
            "description": "A normal tool.",
            "inputSchema": {"type": "object", "properties": {"id": {"type": "string", "pattern": "^[A-Z]{3}-\\d{4}$"}}},
        }
    )
    return tools


def test_build_with_hostile_patterns_finishes_and_warns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    snap = snapshot_with(hostile_tools(), tmp_path / "snap.json")
    out = tmp_path / "site"
    code, seconds = timed(
        lambda: main(["build", "--from", str(snap), "--out", str(out), "--no-search"], renderer=TEMPLATES)
    )
    err = capsys.readouterr().err
    assert code == 0, err
    assert seconds < BUILD_BOUND
    undecided = [f"hostile_{i}" for i in range(len(UNDECIDABLE))] + ["hostile_keys"]
    for name in undecided:
        assert f"warning: tool {name}: pattern `" in err
        page = (out / "en" / "tools" / f"{name}.md").read_text(encoding="utf-8")
        assert "No example could be generated" in page
        assert "A complete call whose arguments validate" not in page
    for i in range(len(UNDECIDABLE)):
        assert f"warning: tool hostile_{i}: pattern `{UNDECIDABLE[i][0]}` could not be decided" in err
    assert "tool plain:" not in err
    plain = (out / "en" / "tools" / "plain.md").read_text(encoding="utf-8")
    assert "A complete call whose arguments validate" in plain


def test_undecided_warning_is_made_safe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pattern = "(?!a{40})(a|a){40}(?:\u202e" + "|x" * 100 + ")?$"
    tool = {
        "name": "sneaky",
        "description": "d",
        "inputSchema": {
            "type": "object",
            "properties": {"v": {"type": "string", "pattern": pattern}},
            "required": ["v"],
        },
    }
    snap = snapshot_with([tool], tmp_path / "snap.json")
    assert main(["build", "--from", str(snap), "--out", str(tmp_path / "site"), "--no-search"], renderer=TEMPLATES) == 0
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if "tool sneaky" in x)
    assert "\u202e" not in line
    assert "[U+202E]" in line
    assert "|x" * 40 not in line  # cut


def test_strict_build_fails_on_an_undecided_pattern(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    snap = snapshot_with(hostile_tools()[:1], tmp_path / "snap.json")
    code = main(
        ["build", "--from", str(snap), "--out", str(tmp_path / "site"), "--no-search", "--strict"], renderer=TEMPLATES
    )
    assert code == 1
    assert "could not be decided" in capsys.readouterr().err
    assert not (tmp_path / "site").exists()


# --------------------------------------------------------------------------- the budget


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("command", ["build", "check"])
def test_budget_runs_out_with_one_paragraph(command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "site"
    assert main(["build", "--from", str(EVERYTHING), "--out", str(out), "--no-search"], renderer=TEMPLATES) == 0
    before = tree(out)
    capsys.readouterr()
    argv = [command, "--from", str(EVERYTHING), "--out", str(out), "--no-search", "--max-render-seconds", "0.001"]
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 1, err
    assert err.startswith("mcp-portal: error: The build ran out of its time budget of 0.001 seconds while ")
    assert err.count("\n") == 1, "one paragraph"
    assert "--max-render-seconds" in err and "--max-tools" in err
    assert "Traceback" not in err
    assert tree(out) == before


def test_budget_is_a_usage_error_when_not_positive(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["build", "--from", str(EVERYTHING), "--max-render-seconds", "0"], renderer=TEMPLATES) == 2
    assert "--max-render-seconds" in capsys.readouterr().err


def test_budget_in_portal_yaml(tmp_path: Path) -> None:
    config = tmp_path / "portal.yaml"
    config.write_text("limits:\n  max_render_seconds: 2.5\n", encoding="utf-8")
    assert load_config(config).limits.max_render_seconds == 2.5


def test_deadline_only_decides_failure() -> None:
    now = [0.0]
    deadline = Deadline(10, clock=lambda: now[0])
    deadline.check("rendering a page")
    now[0] = 10.5
    with pytest.raises(Exception, match="while rendering a page"):
        deadline.check("rendering a page")


def test_generous_budget_changes_nothing(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["build", "--from", str(EVERYTHING), "--out", str(a), "--no-search"], renderer=TEMPLATES) == 0
    assert (
        main(
            ["build", "--from", str(EVERYTHING), "--out", str(b), "--no-search", "--max-render-seconds", "5000"],
            renderer=TEMPLATES,
        )
        == 0
    )
    assert tree(a) == tree(b)


def test_examples_in_corpus_shape_stay_valid() -> None:
    # The golden real-server snapshot: every example it gets still validates under the new dialect.
    data = json.loads(EVERYTHING.read_text(encoding="utf-8"))
    checked = 0
    for tool in data["tools"]:
        result = example_for(tool.get("inputSchema", {}))
        if result.ok:
            assert validate(result.value, tool["inputSchema"]) == []
            checked += 1
    assert checked >= len(data["tools"]) // 2 > 0


def test_a_pattern_in_a_message_is_quoted_cut_and_made_harmless() -> None:
    # Up to 60 characters a pattern is shown whole; a longer one keeps 59 and an ellipsis. A backtick
    # inside would end the code span the message puts the pattern in, so it becomes a quote.
    assert patterns.describe("a" * 60) == "`" + "a" * 60 + "`"
    assert patterns.describe("a" * 61) == "`" + "a" * 59 + "…`"
    assert patterns.describe("b" * 30, limit=20) == "`" + "b" * 19 + "…`"
    assert patterns.describe("x`y") == "`x'y`"
    assert patterns.describe("\u202ea") == "`[U+202E]a`"


def test_inside_a_watch_block_a_decidable_pattern_is_decided() -> None:
    with watch() as undecided:
        assert search("^a+$", "aaa") and not search("^a+$", "aab")
        assert search(r"(a)\1", "xaa")  # the backtracking engine, bounded by the timeout
        with pytest.raises(PatternUndecided):
            search("(?i)abc", "ABC")
        assert search("^b", "bc")
    assert undecided == ["(?i)abc"]


def test_an_undecided_pattern_says_why() -> None:
    # The reason reaches the reader: the build's warning and validate()'s message both carry it.
    too_long = "a" * (patterns.MAX_PATTERN + 1)
    assert compile_pattern(too_long).engine == "none"
    with pytest.raises(PatternUndecided) as caught:
        search(too_long, "a")
    assert str(caught.value).endswith(f"could not be decided: it is longer than {patterns.MAX_PATTERN} characters")
    assert validate("a", {"type": "string", "pattern": too_long}) == [
        f"schema: pattern `{'a' * 59}…` could not be decided: it is longer than {patterns.MAX_PATTERN} characters"
    ]
