"""A malformed snapshot never ends in a traceback: mutation fuzzing and the named regressions.

Valid snapshots (the demo's and Everything's golden snapshots, and two real servers' tool lists
from tests/corpus/) are damaged at random: a node replaced by a JSON value of another type, a key
or an item deleted, a value nested deeper than any parser allows, numbers too large to be
numbers, strings with control characters and lone surrogates.  The fingerprint is recomputed
after each damage, so the damage reaches the stages after the loader instead of stopping at the
fingerprint check.  ``build --from`` must then exit 0 (the value was legal and renders) or 1
with one ``mcp-portal: error:`` paragraph; never raise, never reach the internal-error handler.

The explicit cases below pin each damage the loader names: the message gives the snapshot file,
the JSON path of the bad value, and says to run ``mcp-portal introspect`` again.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import json
import re
import sys
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.commands.cli import INTERNAL_ERROR, main
from generator.errors import PortalError
from generator.snapshot.jsonread import MAX_DEPTH, _load_hooked, _load_quick, load_json_plain
from generator.snapshot.quick import nests_too_deeply, shallow_pretty
from generator.snapshot.shape import check_shape, shape_errors
from generator.snapshot.snapshot import fingerprint, frozen, load_snapshot, new_snapshot, parse_snapshot
from tests.conftest import TEMPLATES

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
CORPUS = ROOT / "tests" / "corpus"
DEMO = json.loads((GOLDEN / "demo.snapshot.json").read_text(encoding="utf-8"))
SIZE_1E27 = "1,000,000,000,000,000,000,000,000,000 bytes"


def corpus_snapshot(stem: str) -> dict[str, Any]:
    """A real server's tool list (tests/corpus/) as a snapshot, the way introspection writes one."""
    tools = json.loads((CORPUS / f"{stem}.json").read_text(encoding="utf-8"))["tools"]
    snap = new_snapshot(
        protocol_version="2025-11-25",
        server={"name": stem, "version": "1.0.0", "capabilities": {"tools": {}}},
        tools=tuple(tools),
        capability_version="1.0.0",
        transport="stdio",
        endpoint=f"npx {stem}",
    )
    data: dict[str, Any] = json.loads(snap.to_json())
    return data


BASES: dict[str, dict[str, Any]] = {
    "demo": DEMO,
    "everything": json.loads((GOLDEN / "everything.snapshot.json").read_text(encoding="utf-8")),
    "brave": corpus_snapshot("npm-brave-brave-search-mcp-server"),
    "time": corpus_snapshot("pypi-mcp-server-time"),
}

Path_ = tuple[str | int, ...]


def node_paths(value: Any, at: Path_ = ()) -> list[Path_]:
    """Every node's path, the root first (the bases are shallow, so recursion is fine here)."""
    found = [at]
    if isinstance(value, dict):
        for key, item in value.items():
            found += node_paths(item, (*at, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += node_paths(item, (*at, i))
    return found


PATHS = {name: node_paths(data)[1:] for name, data in BASES.items()}  # not the root: test_diff covers that
# The snapshot's own structure (endpoint records, identity, item fields), so that damage there is not
# drowned out by the many nodes of tool schemas.
SHALLOW = {name: [p for p in paths if len(p) <= (2 if p[0] == "tools" else 3)] for name, paths in PATHS.items()}


def refresh(data: Any) -> None:
    """Recompute the fingerprint when the damage left one computable (else the old one stays)."""
    if isinstance(data, dict):
        # Damaged beyond hashing (not a list, an unserialisable number): the loader must say so itself.
        with contextlib.suppress(Exception):
            data["fingerprint"] = fingerprint(data["tools"], data.get("endpoints"))


def build(text: str | bytes, where: Path, *extra: str) -> tuple[int, str]:
    """``mcp-portal build --from`` on *text*, in-process: (exit code, stderr)."""
    source = where / "snapshot.json"
    if isinstance(text, bytes):
        source.write_bytes(text)
    else:
        source.write_text(text, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    argv = ["build", "--from", str(source), "--out", str(where / "site"), "--no-search", "--locales", "en", *extra]
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv, renderer=TEMPLATES)
    return code, err.getvalue()


def assert_clean(code: int, err: str) -> None:
    """Success, or one paragraph of a user error: never a traceback, never the internal-error path."""
    assert INTERNAL_ERROR not in err, err
    assert "Traceback" not in err, err
    assert code in (0, 1), err
    if code == 1:
        assert err.startswith("mcp-portal: error: ") and err.count("\n") == 1, err


# --- the fuzzer ----------------------------------------------------------------------------

ODD_STRINGS = ["", " ", "a\x00b", "\x1b[31mred", "\u202eevil", "\ud800", "x" * 300, "..", "http://", "-1"]
HUGE_NUMBERS = [10**27, 1e27, -(10**27), 2**63, 10**300, 1e308, 1e-320, -0.0, 10**400, 1e400]  # 1e400 is inf
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(ODD_STRINGS)
    | st.sampled_from(HUGE_NUMBERS)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=10,
)
# Optional fields the spec defines, so damage can add what the bases leave out (a resource's size...).
KNOWN_KEYS = ["size", "title", "description", "icons", "annotations", "_meta", "mimeType", "arguments", "src"]
KNOWN_KEYS += ["outputSchema", "execution", "taskSupport", "priority", "audience", "readOnlyHint", "lastModified"]
KNOWN_KEYS += ["variants", "item_variants", "auth", "env", "supported_versions", "server", "profile", "reason"]
DEPTHS = st.sampled_from([MAX_DEPTH - 12, MAX_DEPTH - 2, MAX_DEPTH + 1, 3 * MAX_DEPTH, 100_000])
DEEP_MARK = "\x00deep\x00"


def nested(levels: int, as_object: bool) -> Any:
    value: Any = {} if as_object else []
    for _ in range(levels):
        value = {"a": value} if as_object else [value]
    return value


def locate(data: Any, at: Path_) -> tuple[Any, str | int] | None:
    """The container holding the node at *at* and its key there; None when the path no longer exists."""
    parent = data
    for key in at[:-1]:
        try:
            parent = parent[key]
        except (KeyError, IndexError, TypeError):
            return None
    if not at or not isinstance(parent, dict | list):
        return None
    if isinstance(parent, dict) and at[-1] not in parent:
        return None
    if isinstance(parent, list) and not (isinstance(at[-1], int) and at[-1] < len(parent)):
        return None
    return parent, at[-1]


def same_type(draw: st.DrawFn, old: Any) -> Any:
    """An odd value of the type *old* has: it passes a type check and reaches the stages after the loader."""
    if isinstance(old, bool):
        return not old
    if isinstance(old, int | float):
        return draw(st.sampled_from(HUGE_NUMBERS) | st.integers() | st.floats(allow_nan=False, allow_infinity=False))
    if isinstance(old, str):
        return draw(st.sampled_from(ODD_STRINGS) | st.text(max_size=12))
    if isinstance(old, list):
        return draw(st.sampled_from([[], old + old[:1], old[::-1]]))
    return {} if isinstance(old, dict) else None


@st.composite
def damaged(draw: st.DrawFn) -> str | bytes:
    """A base snapshot with one to three damages, as the text of a file."""
    name = draw(st.sampled_from(sorted(BASES)))
    data = copy.deepcopy(BASES[name])
    deep_text: str | None = None
    for _ in range(draw(st.integers(1, 3))):
        shallow = st.sampled_from(SHALLOW[name])
        found = locate(data, draw(shallow | shallow | st.sampled_from(PATHS[name])))
        if found is None:  # an earlier damage removed it
            continue
        parent, key = found
        old = parent[key]
        kind = draw(st.sampled_from(["same type", "same type", "other type", "delete", "deep", "add"]))
        if kind == "add" and isinstance(old, dict):
            old[draw(st.sampled_from(KNOWN_KEYS))] = draw(VALUES | st.sampled_from(HUGE_NUMBERS + ODD_STRINGS))
        elif kind == "add" and isinstance(old, list):
            old.append(draw(st.sampled_from(old) if old else VALUES))  # a repeated item, or a new one
        elif kind == "delete":
            del parent[key]
        elif kind == "deep":
            levels, as_object = draw(DEPTHS), draw(st.booleans())
            if levels <= MAX_DEPTH + 1:
                parent[key] = nested(levels, as_object)
            else:  # too deep for json.dumps too: spliced in as text
                parent[key] = DEEP_MARK
                deep_text = ('{"a":' * levels + "{}" + "}" * levels) if as_object else "[" * levels + "]" * levels
        elif kind == "same type":
            parent[key] = same_type(draw, old)
        else:
            parent[key] = draw(VALUES | st.sampled_from(HUGE_NUMBERS + ODD_STRINGS))
    refresh(data)
    text = json.dumps(data, ensure_ascii=draw(st.booleans()))
    if deep_text is not None:
        text = text.replace(json.dumps(DEEP_MARK), deep_text, 1)
    # A lone surrogate written raw is not UTF-8 at all: the file is then rejected as such.
    return text.encode("utf-8", "surrogatepass") if any("\ud800" <= c <= "\udfff" for c in text) else text


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=damaged())
def test_a_damaged_snapshot_builds_or_fails_in_one_paragraph(
    tmp_path_factory: pytest.TempPathFactory, text: Any
) -> None:
    limit = sys.getrecursionlimit()
    code, err = build(text, tmp_path_factory.mktemp("fuzz"))
    assert_clean(code, err)
    assert sys.getrecursionlimit() == limit


# --- each named damage ----------------------------------------------------------------------

Mutation = Callable[[dict[str, Any]], None]


def setter(*at: str | int, value: Any) -> Mutation:
    """Set the value at *at*, creating missing objects on the way."""

    def mutate(data: dict[str, Any]) -> None:
        parent: Any = data
        for key in at[:-1]:
            parent = parent.setdefault(key, {}) if isinstance(parent, dict) else parent[key]
        parent[at[-1]] = value

    return mutate


def deleter(*at: str | int) -> Mutation:
    def mutate(data: dict[str, Any]) -> None:
        parent: Any = data
        for key in at[:-1]:
            parent = parent[key]
        del parent[at[-1]]

    return mutate


def nulls(*at: str | int) -> Mutation:
    def mutate(data: dict[str, Any]) -> None:
        target: Any = data
        for key in at:
            target = target[key]
        for key in target:
            if key not in ("snapshot_version", "fingerprint"):
                target[key] = None

    return mutate


def damage(mutate: Mutation) -> str:
    data = copy.deepcopy(DEMO)
    mutate(data)
    refresh(data)
    return json.dumps(data, ensure_ascii=False)


REJECTED: list[tuple[str, Mutation, str]] = [
    ("unknown transport", setter("transport", value="carrier-pigeon"), '`transport` is "carrier-pigeon", but it'),
    ("unknown endpoint transport", setter("endpoints", 1, "transport", value="sse"), "`endpoints[1].transport`"),
    ("empty address", setter("endpoints", 0, "address", value=""), "`endpoints[0].address` must not be blank"),
    ("empty HTTP address", setter("endpoints", 1, "address", value=" "), "`endpoints[1].address` must not be blank"),
    ("HTTP address no URL", setter("endpoints", 1, "address", value="mcp"), "`endpoints[1].address` must be an http"),
    ("empty primary address", setter("endpoint", value=""), "`endpoint` must not be blank"),
    ("integer server name", setter("server", "name", value=42), "`server.name` must be a string, but it is an integer"),
    ("variants a list", setter("endpoints", 2, "variants", value=[1]), "`endpoints[2].variants` must be an object"),
    (
        "variant schema a string",
        setter("endpoints", 2, "variants", "search_chat", "inputSchema", value="str"),
        "`endpoints[2].variants.search_chat.inputSchema` must be an object or a boolean",
    ),
    (
        "variant of another tool",
        setter("endpoints", 2, "variants", "search_chat", "name", value="file_defect"),
        "`endpoints[2].variants.search_chat` has `variants` that are not tools it offers",
    ),
    ("skipped_tools a string", setter("skipped_tools", value="nope"), "`skipped_tools` must be an array"),
    ("skipped tool no reason", setter("skipped_tools", value=[{"name": 5}]), "`skipped_tools[0]` lacks the required"),
    ("tool a list", setter("tools", 0, value=["search_chat"]), "`tools[0]` must be an object, but it is an array"),
    (
        "tool name a number",
        setter("tools", 0, "name", value=7),
        "`tools[0].name` must be a string, but it is an integer",
    ),
    ("tool without a name", deleter("tools", 0, "name"), "`tools[0]` lacks the required key `name`"),
    ("inputSchema a string", setter("tools", 1, "inputSchema", value="{}"), "`tools[1].inputSchema` must be an object"),
    ("endpoint a list", setter("endpoints", 0, value=["stdio"]), "`endpoints[0]` must be an object"),
    ("endpoint without address", deleter("endpoints", 0, "address"), "`endpoints[0]` lacks the required key `address`"),
    ("endpoint tools numbers", setter("endpoints", 0, "tools", 0, value=1), "`endpoints[0].tools[0]` must be a string"),
    ("auth not pairs", setter("endpoints", 1, "auth", value=[["Authorization"]]), "`endpoints[1].auth[0]` must be a"),
    ("no server", deleter("server"), "the top level lacks the required key `server`"),
    ("null everywhere", nulls(), "`protocol_version` must be a string, but it is null"),
    ("null tool fields", nulls("tools", 0), "`tools[0].title` must be a string, but it is null"),
    ("null resource fields", nulls("resources", 0), "`resources[0].title` must be a string, but it is null"),
    (
        "hint a string",
        setter("tools", 0, "annotations", "readOnlyHint", value="yes"),
        "`tools[0].annotations.readOnlyHint`",
    ),
    ("prompt argument a string", setter("prompts", 0, "arguments", 0, value="x"), "`prompts[0].arguments[0]` must be"),
    ("size a string", setter("resources", 0, "size", value="1 KB"), "`resources[0].size` must be a number"),
    ("repeated tool", setter("tools", 1, "name", value="search_chat"), '`tools[1].name` repeats "search_chat"'),
    ("unknown offered tool", setter("endpoints", 0, "tools", 0, value="nope"), "`endpoints[0].tools` offers tools"),
    ("unknown snapshot key kind", setter("endpoints", 2, "item_variants", value={"tools": {}}), "is not a known key"),
]


@pytest.mark.parametrize(("mutate", "fragment"), [c[1:] for c in REJECTED], ids=[c[0] for c in REJECTED])
def test_a_named_damage_is_one_paragraph_naming_file_path_and_remedy(
    tmp_path: Path, mutate: Mutation, fragment: str
) -> None:
    code, err = build(damage(mutate), tmp_path)
    assert_clean(code, err)
    assert code == 1, err
    assert f"The snapshot {tmp_path / 'snapshot.json'} is not usable: " in err
    assert fragment in err
    assert "`mcp-portal introspect ... -o snapshot.json`" in err
    assert not (tmp_path / "site").exists()


MARK = "\x00mark\x00"


def spliced(at: Path_, raw: str) -> str:
    """The demo snapshot with the JSON text *raw* at *at* (or as a key, when *at* ends in MARK).

    For what json.dumps cannot write: NaN, a 5000-digit integer, nesting past the recursion limit.
    """
    text = damage(setter(*at, value=MARK))
    return text.replace(json.dumps(MARK), raw, 1)


DEEP = 100_000
PRIORITY = ("resources", 0, "annotations", "priority")
RAW_REJECTED = [
    (
        "100k arrays in a schema",
        ("tools", 0, "inputSchema", "properties", "query", "default"),
        "[" * DEEP + "]" * DEEP,
        "`tools[0].inputSchema.properties.query.default…[0][0][0]` (640 levels down) lies deeper than the 640 levels",
    ),
    (
        "100k objects in _meta",
        ("server", "_meta", "x"),
        '{"a":' * DEEP + "{}" + "}" * DEEP,
        "`server._meta.x.a.a.a…a.a.a`",
    ),
    ("NaN", PRIORITY, "NaN", "`resources[0].annotations.priority` is NaN, Infinity or a number beyond the range"),
    ("-Infinity", PRIORITY, "-Infinity", "`resources[0].annotations.priority` is NaN, Infinity"),
    ("1e400", PRIORITY, "1e400", "`resources[0].annotations.priority` is NaN, Infinity"),
    ("5000 digits", PRIORITY, "-" + "9" * 5000, "`resources[0].annotations.priority` is an integer of 5000 digits"),
    ("lone surrogate", ("resources", 0, "title"), '"\\ud800"', "`resources[0].title` holds a lone UTF-16 surrogate"),
    (
        "surrogate key",
        ("resources", 0, "annotations", MARK),
        '"\\udfff"',
        'the key `resources[0].annotations["\\udfff"]`',
    ),
]


@pytest.mark.parametrize(("at", "raw", "fragment"), [c[1:] for c in RAW_REJECTED], ids=[c[0] for c in RAW_REJECTED])
def test_text_only_damage_is_one_paragraph(tmp_path: Path, at: Path_, raw: str, fragment: str) -> None:
    code, err = build(spliced(at, raw), tmp_path)
    assert_clean(code, err)
    assert code == 1, err
    assert fragment in err
    assert "`mcp-portal introspect ... -o snapshot.json`" in err


@pytest.mark.parametrize(
    ("where", "as_object"),
    [
        (("tools", 0, "inputSchema", "properties", "query", "default"), False),
        (("tools", 0, "_meta"), True),
        (("server", "_meta"), True),
        (("resources", 0, "_meta", "x"), False),
        (("endpoints", 2, "variants", "search_chat", "inputSchema", "properties", "query", "examples"), False),
    ],
)
@pytest.mark.parametrize("past", [False, True], ids=["at the bound", "one past"])
def test_nesting_up_to_the_bound_builds_and_one_more_level_is_an_error(
    tmp_path: Path, where: Path_, as_object: bool, past: bool
) -> None:
    levels = MAX_DEPTH - len(where) - (0 if past else 1)  # the root object is level 1
    code, err = build(damage(setter(*where, value=nested(levels, as_object))), tmp_path, "--max-schema-depth", "5000")
    assert_clean(code, err)
    if past:
        assert code == 1 and "lies deeper than" in err and f"`{where[0]}" in err, err
    else:
        assert code == 0, err


def test_schema_nested_to_the_bound_renders_with_no_depth_limit(tmp_path: Path) -> None:
    # The rows, examples, validation and JSON walks all run over it: none may run out of stack.
    schema: dict[str, Any] = {"type": "string"}
    levels = MAX_DEPTH - 8
    for _ in range(levels):
        schema = {"type": "array", "items": schema}
    mutate = setter("tools", 0, "inputSchema", value={"type": "object", "properties": {"deep": schema}})
    code, err = build(damage(mutate), tmp_path, "--max-schema-depth", "100000", "--max-schema-bytes", "100000000")
    assert_clean(code, err)
    assert code == 0, err


@pytest.mark.parametrize("size", ["1e27", "1000000000000000000000000000", "1E+27", "1.0e27"])
def test_a_huge_resource_size_renders(tmp_path: Path, size: str) -> None:
    code, err = build(spliced(("resources", 0, "size"), size), tmp_path)
    assert code == 0, err
    page = (tmp_path / "site" / "en" / "resources" / "handbook" / "index.html").read_text(encoding="utf-8")
    assert f"<td>{SIZE_1E27}</td>" in page
    twin = (tmp_path / "site" / "en" / "resources" / "handbook.md").read_text(encoding="utf-8")
    assert SIZE_1E27 in twin


def test_a_size_beyond_a_double_but_integral_renders_too(tmp_path: Path) -> None:
    # Python keeps such an integer exactly (a float could not): it is legal JSON and the spec's number.
    code, err = build(spliced(("resources", 0, "size"), "1" + "0" * 400), tmp_path)
    assert code == 0, err
    page = (tmp_path / "site" / "en" / "resources" / "handbook" / "index.html").read_text(encoding="utf-8")
    assert f"<td>{10**400:,} bytes</td>" in page


def test_control_characters_render(tmp_path: Path) -> None:
    def mutate(data: dict[str, Any]) -> None:
        data["tools"][0]["description"] = "a\x00b \x1b[31mred\u202e evil"
        data["server"]["title"] = "x\x07y"

    code, err = build(damage(mutate), tmp_path)
    assert code == 0, err


def test_a_valid_snapshot_passes_the_shape_check_unchanged(tmp_path: Path) -> None:
    for name, data in BASES.items():
        source = tmp_path / f"{name}.json"
        source.write_text(json.dumps(data), encoding="utf-8")
        assert load_snapshot(source).to_dict()["tools"] == data["tools"], name


def test_an_unexpected_exception_is_one_paragraph_and_a_traceback_only_with_debug(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import generator.commands.build

    def broken(*_: object, **__: object) -> None:
        raise ZeroDivisionError("secret-looking text that must not be shown")

    monkeypatch.setattr(generator.commands.build, "produce_site", broken)
    text = json.dumps(DEMO)
    code, err = build(text, tmp_path)
    assert code == 1
    assert err.startswith(f"{INTERNAL_ERROR} an unexpected ZeroDivisionError in ") and err.count("\n") == 1
    assert "--debug" in err and "secret-looking" not in err and "Traceback" not in err
    code, err = build(text, tmp_path, "--debug")
    assert code == 1 and "Traceback" in err and INTERNAL_ERROR in err


def test_a_live_listing_the_loader_rejects_blames_the_server_not_a_file() -> None:
    # A live build re-reads its own snapshot (frozen); there is no file to re-create, so the message differs.
    snap = new_snapshot(
        protocol_version="2026-07-28",
        server={"name": "live", "version": "1", "_meta": {"x": float("inf")}},
        tools=({"name": "t", "inputSchema": {"type": "object"}},),
        capability_version="1",
        transport="stdio",
        endpoint="live-server",
    )
    with pytest.raises(PortalError) as caught:
        frozen(snap)
    message = caught.value.message
    assert message.startswith("What the server listed cannot be documented: `server._meta.x` is NaN, Infinity")
    assert "Fix the server's listing" in message and "not usable" not in message


_DEEP = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)


@pytest.mark.parametrize(
    ("raw", "plain"),
    [
        ('{"tools": [{"name": "a", "x": 1.5}]}', True),
        ('{"tools": "\\u00e9 \\\\ud800 is text, not an escape"}', False),  # looks like one: the full scan decides
        ('{"tools": "\\ud800"}', False),
        ('{"tools": "\\uDC00"}', False),
        ('{"\\udbff": 1}', False),
        ('{"tools": [NaN]}', False),
        ('{"tools": [-Infinity]}', False),
        ('{"tools": [1e400]}', False),
        ('{"tools": [' + "9" * 5000 + "]}", False),
        ('{"tools": ' + _DEEP + "}", True),
    ],
)
def test_the_quick_check_of_plain_json_gives_the_full_scans_verdict(raw: str, plain: bool) -> None:
    """Plain JSON skips the value-by-value scan (only its depth is checked): the verdict must not change."""
    data, found = load_json_plain(raw)
    assert found is plain
    assert check_shape(data, plain=found) == check_shape(data)


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner, max_size=2),
    max_leaves=4,
)
_TOOL_KEYS = st.sampled_from(
    ["name", "title", "description", "inputSchema", "outputSchema", "_meta", "annotations", "execution", "icons", "x"]
)
_ANNOTATIONS = st.dictionaries(
    st.sampled_from(["title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "x"]), _JSON_VALUES
)
_TEXT_MOSTLY = st.text(max_size=3) | _JSON_VALUES
_NEAR_VALID = st.fixed_dictionaries(
    {"name": _TEXT_MOSTLY},
    optional={
        "title": _TEXT_MOSTLY,
        "description": _TEXT_MOSTLY,
        "inputSchema": st.dictionaries(st.text(max_size=2), _JSON_VALUES, max_size=2) | st.booleans() | _JSON_VALUES,
        "_meta": st.dictionaries(st.text(max_size=2), _JSON_VALUES, max_size=2) | _JSON_VALUES,
        "annotations": st.dictionaries(
            st.sampled_from(["title", "readOnlyHint", "openWorldHint", "x"]), st.booleans() | _TEXT_MOSTLY
        ),
        "execution": st.fixed_dictionaries({}, optional={"taskSupport": _TEXT_MOSTLY}) | _JSON_VALUES,
        "icons": st.just([{"src": "a"}]) | _JSON_VALUES,
    },
)
"""Tools that are mostly valid, so the quick check is taken often and each of its tests is exercised."""
_TOOL = (
    st.dictionaries(
        _TOOL_KEYS, _JSON_VALUES | _ANNOTATIONS | st.fixed_dictionaries({"taskSupport": _JSON_VALUES}), max_size=6
    )
    | _JSON_VALUES
    | _NEAR_VALID
)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(_NEAR_VALID, max_size=4) | st.lists(_TOOL, max_size=4), st.booleans())
def test_the_quick_tool_check_gives_jsonschemas_errors(tools: list[Any], named: bool) -> None:
    """Tools that plainly conform are left out of jsonschema's walk: the errors must be the same ones."""
    if named:
        tools = [{**t, "name": "n"} if isinstance(t, dict) else t for t in tools]
    data = {**copy.deepcopy(DEMO), "tools": tools}
    quick = [(list(e.absolute_path), e.message) for e in shape_errors(data)]
    full = [(list(e.absolute_path), e.message) for e in shape_errors(data, quick=False)]
    assert quick == full


_NESTED: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.integers() | st.text(max_size=3) | st.just({}) | st.just([]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(_NESTED, st.integers(min_value=1, max_value=6))
def test_depth_read_from_indentation_never_passes_what_the_walk_fails(value: Any, limit: int) -> None:
    """frozen() reads its own text's depth from the indentation: that must never miss a container too deep."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    if shallow_pretty(text, limit):
        assert not nests_too_deeply(value, limit)


def test_a_live_listing_too_deep_is_still_refused() -> None:
    """The indentation shortcut still lets the walk find a listing nested past the bound."""
    deep: Any = {}
    for _ in range(MAX_DEPTH):
        deep = {"x": deep}
    snap = new_snapshot(
        protocol_version="2026-07-28",
        server={"name": "live", "version": "1"},
        tools=({"name": "t", "inputSchema": {"type": "object"}, "_meta": deep},),
        capability_version="1",
        transport="stdio",
        endpoint="live-server",
    )
    with pytest.raises(PortalError) as caught:
        frozen(snap)
    assert f"deeper than the {MAX_DEPTH} levels" in caught.value.message


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(st.dictionaries(st.text(max_size=3), _JSON_VALUES, max_size=3), max_size=3))
def test_frozen_keeps_a_fingerprint_that_its_text_recomputes(metas: list[dict[str, Any]]) -> None:
    """frozen() keeps the fingerprint computed from the live tools; reading its text back computes the same."""
    tools = tuple({"name": f"t{i}", "inputSchema": {"type": "object"}, "_meta": m} for i, m in enumerate(metas))
    snap = new_snapshot(
        protocol_version="2026-07-28",
        server={"name": "live", "version": "1"},
        tools=tools,
        capability_version="1",
        transport="stdio",
        endpoint="live-server",
    )
    kept = frozen(snap)
    assert kept.fingerprint == snap.fingerprint
    again = parse_snapshot(kept.to_json(), Path("snapshot.json"))  # recomputes, and checks the text's copy
    assert again.fingerprint == kept.fingerprint


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    st.lists(st.dictionaries(st.text(max_size=3), _JSON_VALUES, max_size=3), max_size=4),
    st.lists(st.dictionaries(st.text(max_size=3), _JSON_VALUES, max_size=2), max_size=3),
)
def test_the_fingerprint_is_the_hash_of_the_canonical_payload(tools: list[dict[str, Any]], ends: list[Any]) -> None:
    """Joined from each tool's canonical JSON, the hashed text is the canonical JSON of the whole payload."""
    payload: Any = tools if len(ends) < 2 else {"tools": tools, "endpoints": ends}
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    expected = "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert fingerprint(tools, ends) == expected


def test_frozen_recomputes_a_fingerprint_it_was_handed() -> None:
    """A fingerprint passed in is checked against the tools."""
    snap = new_snapshot(
        protocol_version="2026-07-28",
        server={"name": "live", "version": "1"},
        tools=({"name": "t", "inputSchema": {"type": "object"}},),
        capability_version="1",
        transport="stdio",
        endpoint="live-server",
    )
    snap = replace(snap, fingerprint="sha256:" + "0" * 64)
    with pytest.raises(PortalError) as caught:
        frozen(snap)
    assert "does not match its tools" in caught.value.message


_NUMBERS_AND_TEXT = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(alphabet=st.characters(codec=None), max_size=4)
    | st.sampled_from(["\ud800", "\\ud83d", "é", "\U0001f600"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=400, deadline=None)
@given(_NUMBERS_AND_TEXT, st.sampled_from(["", "1" * 4301, "-" + "2" * 5000, "1e400", "-1e999", "NaN"]))
def test_the_quick_json_load_agrees_with_the_hooked_one(value: Any, literal: str) -> None:
    """Integers parsed by the C scanner: the same value and the same verdict on plainness as hooks on every number."""
    raw = json.dumps(value, ensure_ascii=False)
    if literal:
        raw = "[" + raw + ", " + literal + "]"
    quick = _load_quick(raw)
    hooked = _load_hooked(raw)
    if quick is None:  # only an integer too long for the C scanner sends it to the hooked path
        assert any(len(d) > 4300 for d in re.findall(r"[0-9]+", raw))
        return
    assert quick[1] == hooked[1]
    assert json.dumps(quick[0], sort_keys=True) == json.dumps(hooked[0], sort_keys=True)


def test_a_transport_whose_every_endpoint_lists_a_variant_builds(tmp_path: Path) -> None:
    """Found by the fuzzer: when every HTTP endpoint lists its own variant of a tool, the twin has no HTTP
    endpoint to show calls for, and must say so instead of failing on an empty selection."""
    data = copy.deepcopy(DEMO)
    tool = data["tools"][0]
    http = [e for e in data["endpoints"] if e["transport"] == "streamable-http" and tool["name"] in e["tools"]]
    assert http, "the demo has an HTTP endpoint offering its first tool"
    for endpoint in http:
        variant = copy.deepcopy(tool)
        variant["description"] = str(variant.get("description", "")) + " (this endpoint's own wording)"
        endpoint["variants"] = {tool["name"]: variant}
    refresh(data)
    code, err = build(json.dumps(data), tmp_path)
    assert code == 0, err
    twin = (tmp_path / "site" / "en" / "tools" / f"{tool['name']}.md").read_text(encoding="utf-8")
    assert "curl" not in twin  # no HTTP endpoint lists the tool as documented, so no HTTP call is shown
