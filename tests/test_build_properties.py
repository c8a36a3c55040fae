"""Property tests of the whole offline build over random, hostile tool lists.

Random names (unicode, ``..``, ``/``, NUL, very long, case-colliding), random descriptions
(Markdown, HTML, bidi controls) and random schemas from a small strategy are written as
snapshots and built.  For every one: the build succeeds (each is a valid tool list); every HTML
page parses; every example request shown (the last ``tools/call`` JSON block of each Markdown
twin) validates against the tool's input schema, formats included; and every file written
resolves inside the output directory.
"""

from __future__ import annotations

import json
import re
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from generator.commands.build import site_files
from generator.config.portal import PortalConfig
from generator.publish.write import publish
from generator.snapshot.snapshot import Snapshot, new_snapshot, revised
from tests.conftest import TEMPLATES

CONFIG = PortalConfig(locales=("en",), search=False)
SERVER = {"name": "prop-server", "version": "1.0", "description": "d", "instructions": "i", "capabilities": {}}

HOSTILE_NAMES = [
    ".",
    "..",
    "/",
    "a/b",
    "../../etc/passwd",
    "..\\..\\x",
    "\x00",
    "a\x00b",
    "CON",
    "nul.txt",
    "aux.",
    "-rf",
    "Tool",
    "tool",
    "TOOL",
    "straße",
    "STRASSE",
    "ﬁle",
    "file",
    "\u00c5",
    "A\u030a",
    "\u202eevil\u202c",
    "x" * 300,
    "index",
    "tools",
    "index.html",
    "connecting",
    "%2e%2e",
    "~",
    " ",
    "名前",
    "اسم",
    "<b>",
    "a b",
    "*?",
]
# Every character but lone surrogates (which JSON text cannot carry), controls included.
TEXT = st.characters(exclude_categories=["Cs"])
NAMES = st.one_of(st.sampled_from(HOSTILE_NAMES), st.text(TEXT, min_size=1, max_size=40))
DESCRIPTIONS = st.one_of(
    st.none(),
    st.text(TEXT, max_size=120),
    st.sampled_from(
        [
            "# Heading\n\n* list\n\n```py\ncode\n```",
            "<script>alert(1)</script><img src=x onerror=alert(1)>",
            "[x](javascript:alert(1)) <https://example.com> ![i](https://example.com/i.png)",
            "\u202eRight-to-left override\u2066isolate\u200b zero width",
            "| a | b |\n|---|---|\n| 1 | 2 |",
            "{{ 7*7 }} {% raw %} ``` ```` --- \n---\n",
        ]
    ),
)
PROP_NAMES = st.one_of(
    st.sampled_from(["a", "A", "__proto__", "constructor", "$ref", "x y", "ü", ""]), st.text(TEXT, max_size=12)
)


def _string() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.just({"type": "string"}),
        st.builds(
            lambda lo, extra: {"type": "string", "minLength": lo, "maxLength": lo + extra},
            st.integers(0, 5),
            st.integers(0, 10),
        ),
        st.sampled_from(["email", "date-time", "date", "uri", "uuid", "ipv4", "time"]).map(
            lambda f: {"type": "string", "format": f}
        ),
        st.sampled_from([r"^[a-z]+$", r"^\d{3}-\d{4}$", r"^[A-Z]{2}[0-9]{2}$"]).map(
            lambda p: {"type": "string", "pattern": p}
        ),
        st.lists(st.text(TEXT, max_size=8), min_size=1, max_size=4, unique=True).map(
            lambda e: {"type": "string", "enum": e}
        ),
    )


def _number() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.just({"type": "integer"}),
        st.builds(
            lambda lo, extra: {"type": "integer", "minimum": lo, "maximum": lo + extra},
            st.integers(-50, 50),
            st.integers(0, 20),
        ),
        st.builds(lambda lo: {"type": "number", "exclusiveMinimum": lo}, st.integers(-5, 5)),
        st.just({"type": "boolean"}),
        st.just({"type": "null"}),
    )


LEAF = st.one_of(_string(), _number())


def _containers(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    def obj(props: dict[str, Any], required: list[bool]) -> dict[str, Any]:
        keys = list(props)
        return {
            "type": "object",
            "properties": props,
            "required": [k for k, r in zip(keys, required, strict=False) if r],
        }

    return st.one_of(
        st.builds(lambda items, lo: {"type": "array", "items": items, "minItems": lo}, children, st.integers(0, 2)),
        st.builds(obj, st.dictionaries(PROP_NAMES, children, max_size=4), st.lists(st.booleans(), max_size=4)),
        st.builds(lambda a, b: {"anyOf": [a, b]}, children, children),
    )


SCHEMAS = st.recursive(LEAF, _containers, max_leaves=6)
ROOTS = st.builds(
    lambda props, required, describe: {
        "type": "object",
        "properties": props,
        "required": [k for k, r in zip(list(props), required, strict=False) if r],
        **({"description": describe} if describe else {}),
    },
    st.dictionaries(PROP_NAMES, SCHEMAS, max_size=4),
    st.lists(st.booleans(), max_size=4),
    st.one_of(st.none(), st.text(TEXT, max_size=20)),
)
TOOLS = st.lists(
    st.fixed_dictionaries(
        {"name": NAMES, "inputSchema": ROOTS}, optional={"description": DESCRIPTIONS, "title": DESCRIPTIONS}
    ),
    max_size=5,
    unique_by=lambda t: str(t["name"]),
).map(lambda tools: [{k: v for k, v in t.items() if v is not None} for t in tools])


def snapshot_of(tools: list[dict[str, Any]], server: dict[str, Any] | None = None) -> Snapshot:
    return new_snapshot(
        protocol_version="2026-07-28",
        server=server or SERVER,
        tools=tuple(tools),
        capability_version="1.0",
        transport="stdio",
        endpoint="prop-server",
    )


class _Strict(HTMLParser):
    def error(self, message: str) -> None:  # pragma: no cover - only older Pythons call it
        raise AssertionError(message)


_FENCE = re.compile(r"^(`{3,})json\n(.*?)\n\1$", re.MULTILINE | re.DOTALL)


def last_call(twin: str) -> dict[str, Any] | None:
    calls = []
    for _, body in _FENCE.findall(twin):
        try:
            value = json.loads(body)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and value.get("method") == "tools/call":
            calls.append(value)
    return calls[-1] if calls else None


def check_site(tools: list[dict[str, Any]], files: dict[str, bytes], out: Path) -> None:
    root = out.resolve()
    for path in files:
        assert (root / path).resolve().is_relative_to(root), path
        assert "\x00" not in path and not path.startswith("/")
    publish(out, files)
    for written in out.rglob("*"):
        assert written.resolve().is_relative_to(root), written
        assert not written.is_symlink()
    for path, data in files.items():
        if path.endswith(".html"):
            parser = _Strict(convert_charrefs=True)
            parser.feed(data.decode("utf-8"))
            parser.close()
    by_name = {t["name"]: t for t in tools}
    shown = 0
    for path, data in files.items():
        if not (path.startswith("en/tools/") and path.endswith(".md")):
            continue
        call = last_call(data.decode("utf-8"))
        if call is None:
            continue
        name = call["params"]["name"]
        assert name in by_name, f"{path}: example calls {name!r}, which is not a tool"
        errors = sorted(
            Draft202012Validator(
                by_name[name]["inputSchema"], format_checker=Draft202012Validator.FORMAT_CHECKER
            ).iter_errors(call["params"].get("arguments", {})),
            key=str,
        )
        assert not errors, f"{path}: the example does not validate: {errors[0].message}"
        shown += 1
    assert shown == len(tools), f"{shown} of {len(tools)} tool twins end with an example call"


@settings(
    max_examples=15,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # no shrinking: a failure must not cost minutes
)
@given(TOOLS)
def test_any_tool_list_builds_a_safe_site(tools: list[dict[str, Any]]) -> None:
    files, _ = site_files(snapshot_of(tools), CONFIG, renderer=TEMPLATES)  # a valid tool list is never refused
    with tempfile.TemporaryDirectory() as tmp:
        check_site(tools, files, Path(tmp) / "site")


def test_a_hand_picked_hostile_list_builds(tmp_path: Path) -> None:
    """The nastiest names at once (the random runs rarely draw all of them together)."""
    schema = {"type": "object", "properties": {"q": {"type": "string", "format": "email"}}, "required": ["q"]}
    tools = [{"name": n, "inputSchema": schema, "description": n} for n in HOSTILE_NAMES]
    files, _ = site_files(snapshot_of(tools), CONFIG, renderer=TEMPLATES)
    check_site(tools, files, tmp_path / "site")
    slugs = {p.split("/")[2] for p in files if p.startswith("en/tools/") and p.endswith("/index.html")}
    assert len(slugs) == len(HOSTILE_NAMES)  # one page each, none clashing on a case-folding disk
    assert len({s.casefold() for s in slugs}) == len(slugs)


def test_control_characters_survive_in_examples(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"k\x85": {"type": "string", "enum": ["v\x7f"]}}, "required": ["k\x85"]}
    tools = [{"name": "\x7f", "inputSchema": schema}]
    files, _ = site_files(snapshot_of(tools), CONFIG, renderer=TEMPLATES)
    check_site(tools, files, tmp_path / "site")


# --- regressions: the shipped templates once crashed on these (StrictUndefined) ---------------


def test_server_without_description_or_instructions_builds() -> None:
    site_files(snapshot_of([], {"name": "bare", "version": "1", "capabilities": {}}), CONFIG, renderer=TEMPLATES)


def test_resource_template_without_uri_builds() -> None:
    snap = snapshot_of([])
    snap = revised(snap, resource_templates=({"uriTemplate": "x://{id}", "name": "t"},))
    site_files(snap, CONFIG, renderer=TEMPLATES)
