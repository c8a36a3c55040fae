"""Start-up cost and format verdicts: commands import only what they use, no grammar engine is ever
loaded (the IRI formats are decided by ``generator.schema.iri``), and the format checkers decide values
as the RFCs and a plain jsonschema do.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.snapshot.jsontext import compact, pretty

ROOT = Path(__file__).resolve().parent.parent
DEMO_SNAPSHOT = ROOT / "tests" / "golden" / "demo.snapshot.json"


def _python(code: str, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *flags, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


def _imported(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running *code*."""
    done = _python(textwrap.dedent(code) + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))")
    return set(json.loads(done.stdout.splitlines()[-1]))


HEAVY_FOR_HELP = {"jsonschema", "mcp", "pydantic", "jinja2", "babel", "markdown_it", "starlette", "uvicorn", "lark"}


def test_help_imports_no_stage_library() -> None:
    """``mcp-portal --help`` prints from the argument parser alone: no SDK, no schema or template engine."""
    loaded = _imported(
        """
        import contextlib, io, sys
        from generator.commands.cli import run  # the console script's entry point
        sys.argv = ["mcp-portal", "--help"]
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            run()
        assert "usage: mcp-portal" in out.getvalue()
        """
    )
    assert not HEAVY_FOR_HELP & loaded


def test_build_from_a_file_loads_no_grammar_engine_and_no_sdk() -> None:
    """A build from a snapshot file loads, checks and renders without the MCP SDK and without a grammar engine,
    even when it checks an IRI."""
    loaded = _imported(
        f"""
        from pathlib import Path
        import generator.commands.build, generator.commands.check
        from generator.snapshot.snapshot import load_snapshot
        from generator.schema.validation import validate
        load_snapshot(Path({str(DEMO_SNAPSHOT)!r}))
        assert validate("2026-09-03", {{"type": "string", "format": "date"}}) == []
        assert validate("https://例え.jp/", {{"type": "string", "format": "iri"}}) == []
        """
    )
    assert not {"rfc3987_syntax", "lark"} & loaded
    assert not {"mcp", "pydantic", "starlette", "uvicorn"} & loaded


def test_build_from_end_to_end_never_imports_a_grammar(tmp_path: Path) -> None:
    """``python -X importtime -m generator build --from``: the report has no line for a grammar engine."""
    build = ["build", "--from", str(DEMO_SNAPSHOT), "--out", str(tmp_path / "site"), "--no-search", "--quiet"]
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "generator", *build],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time")}
    assert "generator.snapshot.shape" in imported  # the report is there: the check below means something
    # (jsonschema tries to import rfc3987_syntax, which is not installed: that attempt has a line too)
    assert not {"rfc3987_syntax.syntax_helpers", "lark", "lark.lark"} & imported
    # Nor the web client stack that xml.sax.saxutils pulls in: only a sitemap (with a base URL) needs it.
    assert not {"ssl", "urllib.request", "http.client"} & imported


IRIS = [  # (value, is an IRI, is an IRI reference), as RFC 3987 decides them
    ("https://例え.jp/パス?q=値#frag", True, True),
    ("http://example.com/a b", False, False),
    ("urn:isbn:0451450523", True, True),
    ("/docs/quarterly-report", False, True),
    ("//host/path", False, True),
    ("not an iri", False, False),
    ("http://[::1]:80/", True, True),
    ("http://[::1/", False, False),
    ("", False, True),
    ("mailto:José@example.com", True, True),
    ("http://a/%zz", False, False),
    ("http://a/\ue000", False, False),  # a private-use character outside the query
    ("http://a/?\ue000", True, True),  # ... is allowed in the query
    ("http://a/\ufffe", False, False),  # not a ucschar
    ("http://a/\x01", False, False),
    ("#frag", False, True),
]


@pytest.mark.parametrize(("value", "absolute", "reference"), IRIS)
def test_iri_verdicts(value: str, absolute: bool, reference: bool) -> None:
    """validate() decides ``iri`` and ``iri-reference`` as RFC 3987 does, in every draft that has them."""
    from generator.schema.validation import validate

    for dialect in ("https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#"):
        assert (validate(value, {"$schema": dialect, "format": "iri"}) == []) is absolute
        assert (validate(value, {"$schema": dialect, "format": "iri-reference"}) == []) is reference
    # draft-06 has no IRI formats: anything passes, as with a plain jsonschema
    assert validate("not an iri", {"$schema": "http://json-schema.org/draft-06/schema#", "format": "iri"}) == []


URIS = [
    "https://example.com/a?b=c#d",
    "http://example.com/a b",
    "urn:isbn:0451450523",
    "/docs/quarterly-report",
    "//host/path",
    "not a uri",
    "http://[::1]:80/",
    "http://[::1/",
    "",
    "https://例え.jp/",
]


@pytest.mark.parametrize("value", URIS)
def test_uri_verdicts_are_the_validators(value: str) -> None:
    """validate() decides ``uri`` and ``uri-reference`` as rfc3986_validator does, in the drafts that have them."""
    from rfc3986_validator import validate_rfc3986  # type: ignore[import-untyped]

    from generator.schema.validation import validate

    for dialect in ("https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-04/schema#"):
        assert (validate(value, {"$schema": dialect, "format": "uri"}) == []) == bool(validate_rfc3986(value, "URI"))
    reference = bool(validate_rfc3986(value, "URI_reference"))
    assert (validate(value, {"format": "uri-reference"}) == []) == reference
    # draft-04 has no uri-reference: anything passes, as with a plain jsonschema
    assert validate("a b", {"$schema": "http://json-schema.org/draft-04/schema#", "format": "uri-reference"}) == []


DURATIONS = ["P1D", "PT1H30M", "P1Y2M3DT4H5M6S", "P1W", "P1X", "P", "PT", "1D", "P1.5D", "P1DT", "", "P-1D"]


def test_duration_verdicts_are_those_of_a_plain_jsonschema() -> None:
    """validate() decides ``duration`` as a plain jsonschema (with isoduration imported as it does) decides it."""
    from generator.schema.validation import validate

    plain = _python(
        f"""
        import json
        from jsonschema import Draft202012Validator, FormatChecker
        check = Draft202012Validator({{"format": "duration"}}, format_checker=FormatChecker())
        print(json.dumps([check.is_valid(value) for value in {DURATIONS!r}]))
        """
    )
    expected = json.loads(plain.stdout)
    assert True in expected and False in expected
    assert [validate(value, {"format": "duration"}) == [] for value in DURATIONS] == expected


_SCALAR_VALUES = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
_JSON_VALUES = st.recursive(
    _SCALAR_VALUES,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=40,
)


@settings(max_examples=400, deadline=None)
@given(_JSON_VALUES)
def test_pretty_is_the_stdlib_indenting_encoder(value: object) -> None:
    """The snapshot's fast writer gives json.dumps(indent=2, ensure_ascii=False)'s text, byte for byte."""
    assert pretty(value) == json.dumps(value, indent=2, ensure_ascii=False)


@settings(max_examples=400, deadline=None)
@given(_JSON_VALUES)
def test_compact_is_the_stdlib_compact_encoder(value: object) -> None:
    """The tools' digests hash json.dumps(separators=(",", ":"), ensure_ascii=False)'s text, byte for byte."""
    assert compact(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize(
    "value",
    [
        {"a": (1, [2, {"b": ()}])},  # tuples are arrays to the stdlib
        {1: "x", "y": {2.5: None, True: [1]}},  # keys the stdlib converts
        [{"n": float("nan"), "i": float("-inf")}, "\u2028\ud800 \x00"],
        {"deep": [[[[{"k": []}]]]], "e": {}},
    ],
)
def test_pretty_matches_on_odd_values(value: object) -> None:
    assert pretty(value) == json.dumps(value, indent=2, ensure_ascii=False)
    assert compact(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def test_snapshot_text_round_trips_byte_for_byte() -> None:
    """A golden snapshot is written back as it was read, and a frozen snapshot returns the text it parsed."""
    from generator.snapshot.snapshot import frozen, load_snapshot

    paths = sorted((ROOT / "tests" / "golden").glob("*.snapshot.json"))
    assert len(paths) >= 2
    for path in paths:
        snapshot = load_snapshot(path)
        raw = path.read_text(encoding="utf-8")
        assert snapshot.to_json() == raw
        again = frozen(snapshot)
        assert again == snapshot and again.to_json() == raw


_TOOL_LISTS = st.lists(_JSON_VALUES | st.dictionaries(st.text(max_size=4), _JSON_VALUES, max_size=4), max_size=9)


@settings(max_examples=150, deadline=None)
@given(_TOOL_LISTS, st.dictionaries(st.text(max_size=6), _JSON_VALUES, max_size=4))
def test_the_piecewise_writer_is_the_stdlib_indenting_encoder(tools: list[object], rest: dict[str, object]) -> None:
    """snapshot.json is written a tool at a time: the pieces must join to the same text."""
    from generator.snapshot import jsontext

    value = {**rest, "tools": tools}
    assert "".join(jsontext.pretty_pieces(value, "tools")) == json.dumps(value, indent=2, ensure_ascii=False)


@pytest.mark.parametrize(
    "value",
    [
        {"tools": [{"a": (1, 2)}, "x\u2028", {"tools": []}], "a": {"tools": []}},  # odd values, the key again
        {"tools": [], "z": 1},
        {"z": 1},
        {"tools": "not a list"},
    ],
)
def test_the_piecewise_writer_on_odd_values(value: dict[str, object]) -> None:
    from generator.snapshot import jsontext

    assert "".join(jsontext.pretty_pieces(value, "tools")) == json.dumps(value, indent=2, ensure_ascii=False)


def test_a_snapshot_is_written_in_pieces_as_it_is_written_whole() -> None:
    from generator.snapshot.snapshot import load_snapshot

    paths = sorted((ROOT / "tests" / "golden").glob("*.snapshot.json"))
    assert len(paths) >= 2
    for path in paths:
        snapshot = load_snapshot(path)
        assert b"".join(snapshot.json_pieces()) == path.read_bytes()
