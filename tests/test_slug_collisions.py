"""No two items ever share a page: slugs, repeated names, and the guard behind them.

Every page kind has its own directory (``L/tools/``, ``L/prompts/``, ``L/resources/``,
``L/resource-templates/``), so a slug must be unique within its kind, on a file system that
folds case and Unicode forms, and must never be ``x.md`` where the twin of ``x`` lives.  A
server that lists one prompt name or one resource URI twice is reported as a repeated tool
name is (an error, or with --lenient a warning and the first listing kept), live over stdio
and from a snapshot file.  The sidebar test is in chromium (marker ``browser``).
"""

from __future__ import annotations

import json
import shlex
import tempfile
import unicodedata
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.commands.build import site_files
from generator.config.portal import Limits, PortalConfig, ServerSpec
from generator.connect.introspect import introspect
from generator.errors import PortalError
from generator.model.pages import check_one_page_per_item
from generator.model.site import build_model
from generator.publish.write import publish
from generator.slugs import fold, item_slugs
from generator.snapshot.snapshot import Snapshot, new_snapshot
from tests.conftest import PYTHON, TEMPLATES, serving, tree_bytes

# kind: (snapshot section, page directory, the field that identifies an item)
KINDS = {
    "tool": ("tools", "tools", "name"),
    "prompt": ("prompts", "prompts", "name"),
    "resource": ("resources", "resources", "uri"),
    "resource_template": ("resource_templates", "resource-templates", "uriTemplate"),
}
CONFIG = PortalConfig(search=False, locales=("en",))
SAFE = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


def item(kind: str, name: str, identity: str | None = None) -> dict[str, Any]:
    """One wire item of *kind*; resources and templates are identified by *identity* (their URI).

    The description names the item, so a test can tell which item a page documents.
    """
    if kind in ("tool", "prompt"):
        described = {"name": name, "description": f"The {kind} {name}."}
        return {**described, "inputSchema": {"type": "object"}} if kind == "tool" else described
    uri = identity if identity is not None else f"test://{name}"
    return {"name": name, KINDS[kind][2]: uri, "description": f"The {kind} {name} at {uri}."}


def snapshot_with(**sections: list[dict[str, Any]]) -> Snapshot:
    return new_snapshot(
        protocol_version="2025-11-25",
        server={"name": "slug-server", "version": "1.0.0"},
        tools=tuple(sections.get("tools", [])),
        capability_version="1.0.0",
        transport="stdio",
        endpoint="slug-server",
        prompts=tuple(sections.get("prompts", [])),
        resources=tuple(sections.get("resources", [])),
        resource_templates=tuple(sections.get("resource_templates", [])),
    )


def pages_of(files: dict[str, bytes], directory: str) -> tuple[list[str], list[str]]:
    """The HTML pages and the Markdown twins written under ``en/<directory>/``."""
    prefix = f"en/{directory}/"
    html = sorted(p for p in files if p.startswith(prefix) and p.endswith("/index.html"))
    md = sorted(p for p in files if p.startswith(prefix) and p.endswith(".md") and p.count("/") == 2)
    return html, md


def assert_one_page_each(files: dict[str, bytes], kind: str, items: list[dict[str, Any]]) -> None:
    """Exactly one page and one twin per item, and each item's description on exactly one twin."""
    _, directory, _ = KINDS[kind]
    html, md = pages_of(files, directory)
    assert len(html) == len(md) == len(items), (kind, html)
    twins = [files[p].decode() for p in md]
    for wanted in items:
        line = f'description: "{wanted["description"]}"\n'
        assert sum(line in twin for twin in twins) == 1, (wanted, md)


# --- the `x u1` collision, for every kind -----------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_a_name_with_a_space_never_takes_the_page_of_a_name_and_its_uri(kind: str) -> None:
    """``x u1`` once hashed like the pair (``x``, ``u1``): one of the two pages was silently lost."""
    section = KINDS[kind][0]
    if kind in ("tool", "prompt"):
        items = [item(kind, "x u1"), item(kind, "x"), item(kind, "u1")]
    else:
        # Two resources named x (told apart by URI), one named "x u1", one named "u1".
        items = [item(kind, "x", "u1"), item(kind, "x", "u2"), item(kind, "x u1", "u3"), item(kind, "u1", "u4")]
    files, _ = site_files(snapshot_with(**{section: items}), CONFIG, renderer=TEMPLATES)
    assert_one_page_each(files, kind, items)


def test_every_kind_at_once_keeps_every_page_on_disk(tmp_path: Path) -> None:
    sections = {
        "tools": [item("tool", n) for n in ("x u1", "x", "u1", "Foo", "foo", "x.md")],
        "prompts": [item("prompt", n) for n in ("x u1", "x", "u1", "Foo", "foo", "x.md")],
        "resources": [item("resource", n, u) for n, u in (("x", "u1"), ("x", "u2"), ("x u1", "u3"), ("Foo", "u4"))],
        "resource_templates": [
            item("resource_template", n, u) for n, u in (("x", "t{a}"), ("x", "t{b}"), ("x t{a}", "t{c}"))
        ],
    }
    files, _ = site_files(snapshot_with(**sections), CONFIG, renderer=TEMPLATES)
    publish(tmp_path / "site", files)
    on_disk = tree_bytes(tmp_path / "site")
    for kind, (section, _, _) in KINDS.items():
        assert_one_page_each(on_disk, kind, sections[section])


# --- case folding, twins and hidden files ----------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_case_variants_get_fold_distinct_slugs(kind: str) -> None:
    names = ["Foo", "foo", "FOO", "café", "cafe\u0301", "ﬁle", "file"]
    items = [item(kind, n, f"test://{i}") for i, n in enumerate(names)]
    model = build_model(snapshot_with(**{KINDS[kind][0]: items}), CONFIG)
    docs = model.tools if kind == "tool" else getattr(model, KINDS[kind][0])
    slugs = [d.slug for d in docs]
    assert slugs[0] == "Foo", "the first of a case clash keeps its plain name"
    assert len({fold(s) for s in slugs}) == len(names)


def test_a_slug_never_sits_where_a_twin_lives() -> None:
    """``x.md/index.html`` would need a directory where ``x.md``, the twin of ``x``, is a file."""
    assert item_slugs([("x", "x"), ("x.md", "x.md")])[0] == "x"
    assert item_slugs([("x", "x"), ("x.md", "x.md")])[1] != "x.md"
    assert item_slugs([("X.MD", "X.MD"), ("x", "x")])[0] == "X.MD"
    assert item_slugs([("X.MD", "X.MD"), ("x", "x")])[1] != "x"
    assert item_slugs([("notes.md", "notes.md")]) == ["notes.md"], "a lone .md name keeps its readable slug"
    assert item_slugs([(".well-known", ".well-known")])[0] != ".well-known"  # hosts skip dot directories


def test_shared_names_are_told_apart_by_identity_not_by_order() -> None:
    one = item_slugs([("x", "u1"), ("x", "u2")])
    two = item_slugs([("x", "u2"), ("x", "u1")])
    assert one == two[::-1], "a resource keeps its URL when the server reorders its list"


# --- repeated names: reported, never folded ---------------------------------------------------

REPEATING_SERVER = """
import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server


async def tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(name="t", input_schema={"type": "object"})])


async def prompts(ctx, params):
    return types.ListPromptsResult(prompts=[
        types.Prompt(name="dup", description="first dup"),
        types.Prompt(name="other"),
        types.Prompt(name="dup", description="second dup"),
    ])


async def resources(ctx, params):
    return types.ListResourcesResult(resources=[
        types.Resource(name="a", uri="test://same", description="first same"),
        types.Resource(name="b", uri="test://same", description="second same"),
    ])


async def templates(ctx, params):
    return types.ListResourceTemplatesResult(resource_templates=[])


server = Server("repeating", version="1.0.0", on_list_tools=tools, on_list_prompts=prompts,
                on_list_resources=resources, on_list_resource_templates=templates)


async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())

anyio.run(main)
"""
FAST = Limits(request_timeout=10, total_timeout=30)


@pytest.fixture(scope="module")
def repeating(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """A real MCP server (the SDK's low-level Server, over stdio) that lists a prompt name and a resource URI twice."""
    script = tmp_path_factory.mktemp("server") / "repeating.py"
    script.write_text(REPEATING_SERVER, encoding="utf-8")
    return [PYTHON, str(script)]


def test_repeated_prompt_names_and_resource_uris_are_an_error(repeating: list[str]) -> None:
    with pytest.raises(PortalError) as failure:
        introspect(ServerSpec(command=tuple(repeating)), FAST, lenient=False)
    message = failure.value.message
    assert "'dup'" in message and "prompt name" in message and "prompts/list" in message
    assert "--lenient" in message and "\n" not in message


def test_lenient_keeps_the_first_listing_and_warns(repeating: list[str], cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "site"
    result = cli("build", "--stdio", shlex.join(repeating), "--out", str(out), "--locales", "en", "--lenient")
    assert result.code == 0, result.err
    warnings = [line for line in result.err.splitlines() if line.startswith("warning:")]
    assert any("prompt name(s) 'dup' more than once in prompts/list" in w for w in warnings), result.err
    assert any("resource URI(s) 'test://same' more than once in resources/list" in w for w in warnings), result.err
    snap = json.loads((out / "snapshot.json").read_text(encoding="utf-8"))
    assert [(p["name"], p.get("description")) for p in snap["prompts"]] == [("dup", "first dup"), ("other", None)]
    assert [r["description"] for r in snap["resources"]] == ["first same"]
    assert len(list((out / "en" / "prompts").glob("*/index.html"))) == 2


def test_build_without_lenient_fails_and_keeps_the_old_site(repeating: list[str], cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "site"
    assert cli("build", "--from", str(_snapshot_file(tmp_path, [item("prompt", "fine")])), "--out", str(out)).code == 0
    before = tree_bytes(out)
    result = cli("build", "--stdio", shlex.join(repeating), "--out", str(out), "--locales", "en")
    assert result.code == 1
    assert "'dup'" in result.err and "Traceback" not in result.err
    assert tree_bytes(out) == before


def _snapshot_file(tmp_path: Path, prompts: list[dict[str, Any]], name: str = "snap.json") -> Path:
    path = tmp_path / name
    path.write_text(snapshot_with(prompts=prompts).to_json(), encoding="utf-8")
    return path


def test_a_snapshot_file_with_a_repeated_prompt_is_refused(cli: Any, tmp_path: Path) -> None:
    """A hand-edited snapshot is not folded either: exit 1, one paragraph, the old site untouched."""
    out = tmp_path / "site"
    assert cli("build", "--from", str(_snapshot_file(tmp_path, [item("prompt", "fine")])), "--out", str(out)).code == 0
    before = tree_bytes(out)
    bad = _snapshot_file(tmp_path, [item("prompt", "dup"), item("prompt", "dup")], "bad.json")
    result = cli("build", "--from", str(bad), "--out", str(out))
    assert result.code == 1
    message = result.err.removeprefix("mcp-portal: error: ").strip()
    assert "prompt name(s) 'dup' more than once" in message and "\n" not in message
    assert tree_bytes(out) == before


# --- the last guard ----------------------------------------------------------------------------


def test_the_guard_names_both_items_when_two_pages_would_share_a_file() -> None:
    model = build_model(snapshot_with(tools=[item("tool", "alpha"), item("tool", "beta")]), CONFIG)
    alpha, beta = model.tools
    for slug in ("alpha", "ALPHA", "alpha.md"):
        broken = replace(model, tools=(alpha, replace(beta, slug=slug)))
        with pytest.raises(PortalError) as failure:
            check_one_page_per_item(broken)
        message = failure.value.message
        assert "'alpha'" in message and "'beta'" in message and "en/tools/" in message, message


def test_the_guard_names_a_resource_and_its_uri() -> None:
    model = build_model(snapshot_with(resources=[item("resource", "r", "test://a"), item("resource", "s")]), CONFIG)
    first, second = model.resources
    with pytest.raises(PortalError, match=r"the resource 'r' \('test://a'\) and the resource 's'"):
        check_one_page_per_item(replace(model, resources=(first, replace(second, slug=first.slug))))


# --- properties -------------------------------------------------------------------------------

NAMES = st.one_of(
    st.sampled_from(["x", "X", "x u1", "u1", "x.md", "X.MD", ".", "..", ".x", "con", "Foo", "foo", "a.", "-a", ""]),
    st.text(alphabet=st.sampled_from("aAbB .-_/\\é\u0301ﬁ\u202e\u0000İı1"), max_size=12),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(NAMES, st.text(max_size=6)), max_size=20))
def test_slugs_are_distinct_fold_distinct_and_plain_ascii(items: list[tuple[str, str]]) -> None:
    slugs = item_slugs(items)
    assert len(slugs) == len(items)
    assert len({fold(s) for s in slugs}) == len(slugs)
    assert len({unicodedata.normalize("NFKD", s).lower() for s in slugs}) == len(slugs)
    for slug in slugs:
        assert slug and set(slug) <= SAFE, slug
        assert not slug.startswith((".", "-")) and not slug.endswith(".")
    twins = {fold(s + ".md") for s in slugs}
    assert twins.isdisjoint(fold(s) for s in slugs), "a page directory where another page's twin is a file"
    assert item_slugs(items) == slugs  # deterministic


URIS = st.one_of(st.sampled_from(["u1", "u2", "U1", "x", "x u1", "t{a}"]), st.text(max_size=5))
ITEMS = st.lists(st.tuples(NAMES, URIS), unique_by=lambda pair: pair[1], max_size=6)


def _items_for(kind: str, names: list[str]) -> list[dict[str, Any]]:
    return [item(kind, n) for n in names]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tools=st.lists(NAMES, unique=True, max_size=6),
    prompts=st.lists(NAMES, unique=True, max_size=6),
    resources=ITEMS,
    templates=ITEMS,
)
def test_a_build_writes_exactly_one_page_per_item(
    tools: list[str], prompts: list[str], resources: list[tuple[str, str]], templates: list[tuple[str, str]]
) -> None:
    sections = {
        "tools": _items_for("tool", tools),
        "prompts": _items_for("prompt", prompts),
        "resources": [item("resource", n, u) for n, u in resources],
        "resource_templates": [item("resource_template", n, u) for n, u in templates],
    }
    files, _ = site_files(snapshot_with(**sections), CONFIG, renderer=TEMPLATES)
    with tempfile.TemporaryDirectory() as tmp:
        publish(Path(tmp) / "site", files)
        on_disk = tree_bytes(Path(tmp) / "site")
    for kind, (section, directory, _) in KINDS.items():
        html, md = pages_of(on_disk, directory)
        assert len(html) == len(md) == len(sections[section]), (kind, html)
        assert len({fold(p) for p in html + md}) == 2 * len(html)


# --- the sidebar in chromium ------------------------------------------------------------------

EVIL = "evil\u202eeman"
MARKED = "evil[U+202E]eman"


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A site whose tool, prompt, resource and template names carry U+202E, served on 127.0.0.1."""
    site = tmp_path_factory.mktemp("bidi") / "site"
    snap = snapshot_with(
        tools=[item("tool", EVIL), item("tool", "plain")],
        prompts=[item("prompt", EVIL)],
        resources=[item("resource", EVIL, "test://evil")],
        resource_templates=[item("resource_template", EVIL, "test://evil/{id}")],
    )
    files, _ = site_files(snap, PortalConfig(search=False, locales=("en", "ar")), renderer=TEMPLATES)
    publish(site, files)
    with serving(site) as url:
        yield url


# Every text node and every attribute value of the document, as the browser holds it.
_DOM_TEXT = """() => {
  const parts = [];
  const walker = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) { parts.push(walker.currentNode.nodeValue); }
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.attributes) { parts.push(attr.value); }
  }
  return parts.join('\\n');
}"""


@pytest.mark.browser
@pytest.mark.parametrize("locale", ["en", "ar"])
def test_sidebar_shows_bidi_controls_as_markers(browser: Any, hostile_site: str, locale: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.goto(f"{hostile_site}{locale}/tools/plain/")
        page.wait_for_selector("#more-nav a")
        sidebar = page.eval_on_selector_all(".sidebar a bdi", "els => els.map(e => [e.textContent, e.dir])")
        assert sidebar.count([MARKED, "ltr"]) == 4, sidebar  # the tool, prompt, resource and template
        assert [MARKED, "ltr"] in sidebar and ["plain", "ltr"] in sidebar
        text = page.evaluate(_DOM_TEXT)
        assert "\u202e" not in text
        assert MARKED in page.locator(".sidebar").inner_text()
    finally:
        context.close()
