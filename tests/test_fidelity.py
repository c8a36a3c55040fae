"""Exactly what the server said, on real servers over real transports (issue 15, items 1-6).

``tests/servers/vendor_server.py`` (the SDK's low-level ``Server`` over stdio) sends fields the
SDK does not model; ``chrome-devtools-mcp`` and ``mcp-server-kubernetes`` (npm, pinned in
``tests/package.json``) send them in the wild.  The snapshot must keep them byte for byte, in
the server's order, and the pages must show them.  The schema items (subschemas shown as
schemas, rules of some ``anyOf`` branches, call shapes, example values) are checked on the
vendor server's pages and on the functions behind them.
"""

from __future__ import annotations

import contextlib
import json
import re
import shlex
from pathlib import Path
from typing import Any

import mcp_types
import pytest

from generator.commands.cli import main
from generator.config.portal import Limits, ServerSpec
from generator.connect.introspect import introspect
from generator.connect.raw import faithful
from generator.errors import PortalError
from generator.schema.examples import example_for
from generator.schema.flatten import flatten
from generator.schema.placeholders import placeholder_for
from generator.schema.validation import validate
from tests.conftest import PYTHON, ROOT, node_bin
from tests.servers import vendor_server
from tests.servers.vendor_server import PROMPTS, RESOURCES, TEMPLATES, TOOLS

FAST = Limits(request_timeout=20, total_timeout=60)
QUICK = ("--request-timeout", "20", "--total-timeout", "60")
VENDOR = (PYTHON, "-m", "tests.servers.vendor_server")


def vendor_spec() -> ServerSpec:
    return ServerSpec(command=VENDOR, cwd=str(ROOT), fixed_env=(("PYTHONPATH", str(ROOT)),))


def as_sent(item: dict[str, Any]) -> dict[str, Any]:
    """What the snapshot keeps of an item: everything as sent, but a known field sent as null is absent."""
    return {k: v for k, v in item.items() if not (v is None and k in ("title", "description"))}


def text(value: object) -> str:
    """Order-sensitive JSON text: two values with the same keys in another order differ."""
    return json.dumps(value, ensure_ascii=False)


@pytest.fixture(scope="module")
def vendor_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``introspect`` then ``build --from`` for the vendor server, as a user would run them."""
    root = tmp_path_factory.mktemp("vendor")
    with contextlib.chdir(ROOT):  # `python -m tests.servers...` runs from the repository
        code = main(["introspect", "--stdio", shlex.join(VENDOR), "-o", str(root / "snapshot.json"), *QUICK])
        assert code == 0
        code = main(["build", "--from", str(root / "snapshot.json"), "--out", str(root / "site"), "--no-search"])
        assert code == 0
    return root


def page(root: Path, locale: str, tool: str, twin: bool = False) -> str:
    """A tool page of the site built in *root* (its HTML, or its Markdown twin)."""
    path = root / "site" / locale / "tools" / (f"{tool}.md" if twin else f"{tool}/index.html")
    return path.read_text(encoding="utf-8")


# --- 1. the snapshot is what the server sent --------------------------------------------------


def test_snapshot_keeps_every_field_in_wire_order(vendor_site: Path) -> None:
    raw = (vendor_site / "snapshot.json").read_text(encoding="utf-8")
    snapshot = json.loads(raw)
    assert [text(t) for t in snapshot["tools"]] == [text(as_sent(t)) for t in TOOLS]
    assert [text(p) for p in snapshot["prompts"]] == [text(p) for p in PROMPTS]
    assert [text(r) for r in snapshot["resources"]] == [text(r) for r in RESOURCES]
    assert [text(t) for t in snapshot["resource_templates"]] == [text(t) for t in TEMPLATES]
    # The pieces the SDK's models drop, named so a failure says which one went missing.
    click, evaluate = snapshot["tools"][0], snapshot["tools"][1]
    assert list(click) == ["name", "description", "inputSchema", "annotations", "x-vendor"]
    assert click["annotations"] == {"category": "input", "readOnlyHint": False}
    assert evaluate["annotations"]["conditions"] == ["javascriptEvaluation"]
    assert snapshot["prompts"][0]["arguments"][1]["default"] == "all"
    assert '"x-vendor": null' in raw  # an unknown key keeps even a null; a known null field is absent
    assert "title" not in snapshot["tools"][4]


def test_paging_and_limits_still_apply() -> None:
    snapshot = introspect(vendor_spec(), FAST)
    assert [t["name"] for t in snapshot.tools] == [t["name"] for t in TOOLS]  # both pages, in order
    assert len(TOOLS) > vendor_server.PAGE_SIZE
    with pytest.raises(PortalError) as info:
        introspect(vendor_spec(), Limits(request_timeout=20, total_timeout=60, max_tools=3))
    assert "more than 3 entries in tools/list" in info.value.message
    with pytest.raises(PortalError) as info:
        introspect(vendor_spec(), Limits(request_timeout=20, total_timeout=60, max_pages=1))
    assert "after 1 pages" in info.value.message


def test_pages_show_unknown_hints_as_declared(vendor_site: Path) -> None:
    twin = page(vendor_site, "en", "click", twin=True)
    assert '| `category` | `"input"` | declared |' in twin
    twin = page(vendor_site, "en", "evaluate_script", twin=True)
    assert '| `conditions` | `["javascriptEvaluation"]` | declared |' in twin
    html = page(vendor_site, "en", "evaluate_script")
    row = re.search(r"<tr><td><code dir=\"ltr\">conditions</code></td>.*?</tr>", html)
    assert row and "javascriptEvaluation" in row.group(0) and "Declared" in row.group(0).title()


# --- 2. a subschema is shown as a schema -------------------------------------------------------


def test_subschemas_are_shown_once_as_json(vendor_site: Path) -> None:
    twin = page(vendor_site, "en", "scrape", twin=True)
    assert 'each field name must be valid against the schema `{"type": "string", "maxLength": 20}`' in twin
    assert 'must contain an item valid against the schema `{"const": "main"}`' in twin
    assert 'must not be valid against the schema `{"const": "legacy"}`' in twin
    for locale in ("en", "ru", "ar"):
        for body in (page(vendor_site, locale, "scrape"), page(vendor_site, locale, "scrape", twin=True)):
            assert '\\"' not in body and "\\&#34;" not in body and "\\&quot;" not in body, locale


# --- 3. a tool with only a title declares no hints ---------------------------------------------


def test_title_only_annotations_say_no_hints(vendor_site: Path) -> None:
    expected = {
        "en": "declares none of the four behaviour hints",
        "ru": "не объявляет ни одной из четырёх подсказок",
        "ar": "لا يصرّح الخادم بأيٍّ من تلميحات السلوك الأربعة",
    }
    for locale, words in expected.items():
        for body in (page(vendor_site, locale, "scrape"), page(vendor_site, locale, "scrape", twin=True)):
            assert words in body, locale
    assert "declares no annotations" not in page(vendor_site, "en", "scrape", twin=True)


# --- 4. a rule of some branches only -----------------------------------------------------------


def test_rule_of_some_variants_is_marked(vendor_site: Path) -> None:
    row = next(
        line for line in page(vendor_site, "en", "list_events", twin=True).splitlines() if "`start_time`" in line
    )
    assert 'only in some variants: `{"format": "date-time"}`' in row
    assert "format `" not in row  # not stated as binding
    rows = {r.path: r for r in flatten(TOOLS[3]["inputSchema"]).rows}
    assert rows["start_time"].types == ("string", "null")
    assert [c.kind for c in rows["start_time"].constraints] == ["default", "someVariants"]


def test_rules_of_other_types_still_bind() -> None:
    schema = {"properties": {"n": {"anyOf": [{"type": "string", "maxLength": 5}, {"type": "integer", "minimum": 0}]}}}
    row = flatten(schema).rows[0]
    assert {c.kind: c.value for c in row.constraints} == {"minimum": 0, "maxLength": 5}


# --- 5. the shape of the call never contradicts the schema -------------------------------------


def test_shape_merges_all_of_and_respects_enums_and_counts(vendor_site: Path) -> None:
    schema = TOOLS[4]["inputSchema"]
    shape = placeholder_for(schema)
    assert shape == {
        "name": "<name>",
        "level": "low",
        "tags": ["<tags>", "<tags>"],
        "owner_email": "<owner_email>",
        "retries": 5,
    }
    # Every concrete value in the shape is one the schema accepts.
    assert validate(schema, {**shape, "name": "x", "tags": ["a", "b"], "owner_email": "x"}) == []
    assert '"level": "low"' in page(vendor_site, "en", "create_record", twin=True)


def test_shape_numbers_sit_inside_bounds() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "integer", "minimum": 5},
            "b": {"type": "number", "exclusiveMaximum": 0},
            "c": {"type": "integer", "multipleOf": 4},
            "d": {"type": "array", "maxItems": 0},
            "e": {"const": "fixed"},
        },
    }
    shape = placeholder_for(schema)
    assert shape == {"a": 5, "b": -0.5, "c": 4, "d": [], "e": "fixed"}
    assert validate(schema, shape) == []


# --- 6. example values a reader believes ------------------------------------------------------


def test_examples_follow_names_and_descriptions(vendor_site: Path) -> None:
    example = example_for(TOOLS[0]["inputSchema"])
    assert example.ok
    assert example.value["pageId"] == 42 and isinstance(example.value["pageId"], int)
    assert example.value["uid"] == "abc123"
    evaluate = example_for(TOOLS[1]["inputSchema"])
    assert evaluate.ok and evaluate.value["function"] == "document.title"
    record = example_for(TOOLS[4]["inputSchema"], prefer_optional=True)
    assert record.ok and record.value["owner_email"] == "alex@example.com"
    assert "1.5" not in page(vendor_site, "en", "click", twin=True)


@pytest.mark.parametrize(
    ("name", "schema", "description", "expected"),
    [
        ("pageId", {"type": "number"}, None, 42),
        ("max_results", {"type": "number", "maximum": 5}, None, 5),
        ("timeoutMs", {"type": "integer"}, None, 1000),
        ("target", {"type": "string"}, "The URL to open", "https://example.com"),
        ("since", {"type": "string"}, None, "2026-09-03"),
        ("created_at", {"type": "string"}, None, "2026-09-03T10:15:00Z"),
        ("directory", {"type": "string"}, None, "./project"),  # a directory, not a file path
        ("lang", {"type": "string", "enum": ["de", "fr"]}, None, "de"),
        ("valid", {"type": "string"}, None, "example"),
    ],
)
def test_example_hints_stay_valid(name: str, schema: dict[str, Any], description: str | None, expected: Any) -> None:
    prop = {**schema, **({"description": description} if description else {})}
    root = {"type": "object", "properties": {name: prop}, "required": [name]}
    example = example_for(root)
    assert example.ok and validate(root, example.value) == []
    assert example.value[name] == expected
    assert type(example.value[name]) is type(expected)


# --- real servers from npm ----------------------------------------------------------------------


@pytest.mark.npm
def test_chrome_devtools_annotations_survive(tmp_path: Path) -> None:
    """chrome-devtools-mcp (pinned) lists its 32 tools offline; each declares a ``category``."""
    command = (node_bin("chrome-devtools-mcp"), "--no-usage-statistics", "--no-performance-crux")
    snapshot = introspect(ServerSpec(command=command, fixed_env=(("HOME", str(tmp_path)),)), FAST)
    assert len(snapshot.tools) >= 30
    assert all(isinstance((t.get("annotations") or {}).get("category"), str) for t in snapshot.tools)
    evaluate = next(t for t in snapshot.tools if t["name"] == "evaluate_script")
    assert evaluate["annotations"]["conditions"] == ["javascriptEvaluation"]
    click = next(t for t in snapshot.tools if t["name"] == "click")
    assert list(click["annotations"]) == ["category", "readOnlyHint"]  # wire order
    example = example_for(click["inputSchema"])
    assert example.ok and example.value.get("pageId", 42) == 42


@pytest.mark.npm
def test_kubernetes_prompt_argument_default_survives(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "config"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: offline\n"
        "clusters: [{name: offline, cluster: {server: 'https://127.0.0.1:9'}}]\n"
        "contexts: [{name: offline, context: {cluster: offline, user: nobody}}]\n"
        "users: [{name: nobody, user: {token: not-a-real-token}}]\n",
        encoding="utf-8",
    )
    spec = ServerSpec(command=(node_bin("mcp-server-kubernetes"),), fixed_env=(("KUBECONFIG", str(kubeconfig)),))
    snapshot = introspect(spec, FAST, lenient=True)
    diagnose = next(p for p in snapshot.prompts if p["name"] == "k8s-diagnose")
    namespace = next(a for a in diagnose["arguments"] if a["name"] == "namespace")
    assert namespace == {
        "name": "namespace",
        "description": "Optional: Specify a namespace to narrow down the search.",
        "required": False,
        "default": "all",
    }


@pytest.mark.npm
def test_firecrawl_record_fields_show_a_schema(tmp_path: Path) -> None:
    """firecrawl-mcp (pinned; keyless, nothing fetched at listing time): ``z.record`` gives ``propertyNames``."""
    out = tmp_path / "site"
    argv = ["build", "--stdio", node_bin("firecrawl-mcp"), "--out", str(out), "--locales", "en", "--no-search"]
    assert main([*argv, *QUICK]) == 0
    snapshot = json.loads((out / "snapshot.json").read_text(encoding="utf-8"))
    carrying = [t["name"] for t in snapshot["tools"] if '"propertyNames"' in json.dumps(t["inputSchema"])]
    assert "firecrawl_scrape" in carrying
    for name in carrying:
        twin = (out / "en" / "tools" / f"{name}.md").read_text(encoding="utf-8")
        rows = [line for line in twin.splitlines() if line.startswith("|") and "field name" in line]
        assert rows and all("valid against the schema `{" in row for row in rows), name
        assert not any('\\"' in row for row in rows), name  # the schema is not a JSON string in JSON


def test_faithful_keeps_the_wire_and_takes_only_the_sdks_coercions() -> None:
    """What the SDK's models read is the check; what the server sent is the data (see ``faithful``)."""
    sent = {
        "name": "t",
        "title": None,
        "inputSchema": {"type": "object", "properties": {"x": {"default": None}}},
        "annotations": {"category": "input", "readOnlyHint": "yes", "title": None},
        "x-vendor": None,
    }
    read = mcp_types.Tool.model_validate(sent, by_name=False)  # the 2025-11-25 check is lax: "yes" is True
    kept = faithful(sent, read)
    assert text(kept) == text(
        {
            "name": "t",
            "inputSchema": {"type": "object", "properties": {"x": {"default": None}}},  # a schema's null stays
            "annotations": {"category": "input", "readOnlyHint": True},
            "x-vendor": None,
        }
    )
    resource = {"uri": "a://b", "name": "b", "annotations": {"priority": 1}}
    assert faithful(resource, mcp_types.Resource.model_validate(resource, by_name=False)) == resource
    assert type(faithful(resource, mcp_types.Resource.model_validate(resource))["annotations"]["priority"]) is int


def test_prompt_pages_show_an_argument_default(vendor_site: Path) -> None:
    name = PROMPTS[0]["name"]
    html = (vendor_site / "site" / "ru" / "prompts" / name / "index.html").read_text(encoding="utf-8")
    twin = (vendor_site / "site" / "ru" / "prompts" / f"{name}.md").read_text(encoding="utf-8")
    assert '<code dir="ltr">default</code>: <code dir="ltr">&#34;all&#34;</code>' in html
    assert '`default`: `"all"`' in twin
