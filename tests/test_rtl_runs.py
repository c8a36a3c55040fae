"""Left-to-right runs on right-to-left pages, checked in Debian chromium by what a reader sees (issue 47).

A pattern, an allowed value, a default, a name or a JSON-RPC code written bare inside Arabic text is
reordered by the Unicode bidi algorithm: ``^prj-[0-9]+$`` reads ``$+prj-[0-9]^`` and
``["minimal", "standard"]`` loses its brackets. Each such run must be an element of its own with
``dir="ltr"`` (or a ``<bdi>`` where its direction is unknown).

The Arabic pages of the demo and of a portal of seven real servers' tool lists (``tests/corpus/``,
157 tools) are opened at 1280 and 390 px, and in print. On each page:

- every constraint value the model has for the page's tables is an element of its own whose text is
  the value, and whose glyphs, read left to right (line by line, top to bottom), are the value's
  characters in order;
- every other isolated left-to-right run outside code blocks (``[dir=ltr]``, a ``<bdi>`` that
  resolves to left to right) reads left to right as its text does;
- no text that sits in right-to-left text holds a left-to-right word other than those the Arabic
  catalog itself writes as prose (names such as Markdown or HTTP) and plain numbers.

Search excerpts (made by portal.js from Pagefind's text) and the Try it panel's check and answer
(made by try-it.js from a real server's reply) are held to the same rules.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from generator.commands.build import site_files
from generator.config.portal import PortalConfig
from generator.model.gather import gather
from generator.model.pages import Page
from generator.publish.write import publish
from generator.render.i18n import load_catalog
from generator.snapshot.snapshot import Snapshot, load_snapshot, new_snapshot
from tests.conftest import PYTHON, ROOT, TEMPLATES, free_port, http_server, serving
from tests.golden_tool import SNAPSHOT, demo_config, http_endpoints_changed

pytestmark = pytest.mark.browser

CORPUS = ROOT / "tests" / "corpus"
SERVERS = (
    "npm-brave-brave-search-mcp-server",  # patterns, negative bounds, formats
    "npm-firecrawl-mcp",  # patterns, enums
    "pypi-awslabs-dynamodb-mcp-server",  # many patterns
    "npm-mcp-server-kubernetes",  # defaults, a negative number
    "npm-notionhq-notion-mcp-server",  # enums, formats
    "pypi-excel-mcp-server",  # enums, defaults
    "npm-sentry-mcp-server",  # defaults, a pattern
)
"""Real servers' tool lists, chosen for their patterns, enums, defaults, formats and signed numbers."""

_RTL = "\\u0590-\\u08ff\\ufb1d-\\ufeff"
_WORD = f"[^\\s{_RTL}]*[A-Za-z0-9][^\\s{_RTL}]*"
"""A left-to-right word: no white space, no right-to-left letter, a Latin letter or a digit."""
_EDGES = r"^[(«\"']+|[)»\"'.,:;،؛]+$"
"""The sentence's punctuation around a word, which the bidi algorithm places by the sentence."""
_CODE = re.compile(r"`[^`]*`")
_PLACEHOLDER = re.compile(r"\{\w+\}")


def corpus_snapshot(stems: tuple[str, ...]) -> Snapshot:
    """One portal of real servers' tool lists (tests/corpus/), as introspection writes a snapshot."""
    tools = [
        tool for stem in stems for tool in json.loads((CORPUS / f"{stem}.json").read_text(encoding="utf-8"))["tools"]
    ]
    return new_snapshot(
        protocol_version="2025-11-25",
        server={"name": "corpus-portal", "version": "1.0.0", "capabilities": {"tools": {}}},
        tools=tuple(tools),
        capability_version="1.0.0",
        transport="stdio",
        endpoint="npx corpus-portal",
    )


@dataclass(frozen=True)
class Site:
    root: Path
    pages: tuple[str, ...]
    """Every Arabic HTML page."""
    values: dict[str, list[str]]
    """Each Arabic tool page's constraint values, as its tables show them: one run each."""


def _values(snapshot: Snapshot, config: PortalConfig) -> dict[str, list[str]]:
    catalog = load_catalog("ar")
    takes_value = {key.removeprefix("constraint."): "{value}" in catalog.t(key) for key in catalog.strings}
    found: dict[str, list[str]] = {}
    for tool in gather(snapshot, config).model.tools:
        flats = [tool.params] + ([tool.returns] if tool.returns is not None else [])
        rows = [row for flat in flats for row in flat.rows] + [flat.root for flat in flats if flat.root]
        values = [c.inline for row in rows for c in row.constraints if takes_value[c.kind]]
        found[Page.of(tool, "ar").html_path] = values
    return found


def _site(root: Path, snapshot: Snapshot, config: PortalConfig) -> Site:
    files, _ = site_files(snapshot, config, renderer=TEMPLATES)
    publish(root, files)
    pages = tuple(sorted(path for path in files if path.startswith("ar/") and path.endswith(".html")))
    return Site(root, pages, _values(snapshot, config))


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> list[Site]:
    root = tmp_path_factory.mktemp("rtl")
    demo = _site(root / "demo", load_snapshot(SNAPSHOT), replace(demo_config(), search=False))
    # The corpus portal has its Agent readiness page too: hundreds of findings quoting the servers' text.
    config = PortalConfig(search=False, locales=("en", "ar"), lint_page=True)
    portal = _site(root / "corpus", corpus_snapshot(SERVERS), config)
    return [demo, portal]


@pytest.fixture(scope="module")
def prose_words() -> list[str]:
    return catalog_prose()


def catalog_prose() -> list[str]:
    """The left-to-right words the Arabic catalog writes as prose (outside its code spans and placeholders)."""
    words: set[str] = set()
    for entry in load_catalog("ar").strings.values():
        for text in entry.values() if isinstance(entry, Mapping) else [entry]:
            plain = _PLACEHOLDER.sub(" ", _CODE.sub(" ", text))
            words.update(re.sub(_EDGES, "", word) for word in re.findall(_WORD, plain))
    return sorted(words)


# How a reader reads an element: the glyph box of each character of its text (a bracket drawn right to
# left as its mirror image), read left to right within each line and the lines top to bottom. For a
# left-to-right run, what a reader sees is its source exactly when this equals its text (white space
# left out: its boxes at a line's end are empty).
_CHECK = r"""(args) => {
const MIRROR = { '(': ')', ')': '(', '[': ']', ']': '[', '{': '}', '}': '{', '<': '>', '>': '<', '«': '»', '»': '«' };
function read(segments) {
  const range = document.createRange();
  const boxes = [];
  let text = '';
  for (const [node, start, end] of segments) {
    for (let i = start; i < end; ) {
      const size = node.data.codePointAt(i) > 0xffff ? 2 : 1;
      const ch = node.data.slice(i, i + size);
      if (!/\s/.test(ch)) {
        range.setStart(node, i);
        range.setEnd(node, i + size);
        const b = range.getBoundingClientRect();
        if (!b.width && !b.height) return null;
        text += ch;
        boxes.push({ ch, x: b.left + b.width / 2, y: b.top + b.height / 2, h: b.height });
      }
      i += size;
    }
  }
  // A paired character drawn right to left is drawn mirrored ("[" as "]"): a reader sees the mirror
  // image. It is drawn right to left when a logical neighbour on its line lies on the wrong side.
  const same = (a, b) => b && Math.abs(a.y - b.y) < a.h / 2;
  boxes.forEach((b, i) => {
    const before = boxes[i - 1], after = boxes[i + 1];
    const rtl = (same(b, after) && after.x < b.x) || (same(b, before) && before.x > b.x);
    b.shown = rtl && MIRROR[b.ch] ? MIRROR[b.ch] : b.ch;
  });
  const lines = [];
  for (const b of [...boxes].sort((a, b) => a.y - b.y)) {
    const last = lines[lines.length - 1];
    if (last && same(last[0], b)) last.push(b);
    else lines.push([b]);
  }
  return { text, read: lines.map(l => l.sort((a, b) => a.x - b.x).map(b => b.shown).join('')).join('') };
}
function seen(el) {
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const segments = [];
  for (let node; (node = walker.nextNode()); ) segments.push([node, 0, node.data.length]);
  return read(segments);
}
const root = document.querySelector(args.scope);
const rtl = new RegExp('[' + args.rtl + ']');
const prose = new Set(args.words);
const runs = [];
for (const el of [root, ...root.querySelectorAll('[dir=ltr], bdi')]) {
  if (!el.matches('[dir=ltr], bdi') || el.closest('pre') || el.matches('textarea, input')) continue;
  if (getComputedStyle(el).direction !== 'ltr' || !el.getClientRects().length || rtl.test(el.textContent)) continue;
  const r = seen(el);
  if (r === null || !r.text) continue;
  const constraint = el.parentElement.matches('.c') && !!el.closest('table.fields, p.constraints');
  runs.push({ constraint, text: r.text, read: r.read });
}
const values = [...root.querySelectorAll('table.fields .c > [dir=ltr], p.constraints .c > [dir=ltr]')]
  .map(e => e.textContent);
// A value written bare in its constraint's words: how a reader reads it there.
for (const c of root.querySelectorAll('table.fields .c, p.constraints .c')) {
  const node = c.firstChild;
  if (c.childNodes.length !== 1 || node.nodeType !== Node.TEXT_NODE) continue;
  for (const value of args.values || []) {
    const at = node.data.indexOf(value);
    const r = at >= 0 && read([[node, at, at + value.length]]);
    if (r) runs.push({ constraint: false, bare: true, text: r.text, read: r.read });
  }
}
const bare = [];
const wordRe = new RegExp(args.word, 'g'), edgesRe = new RegExp(args.edges, 'g');
const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
for (let node; (node = walker.nextNode()); ) {
  const p = node.parentElement;
  if (p.closest('[hidden], script, style, noscript, pre, textarea, .search-words')) continue;
  if (getComputedStyle(p).direction !== 'rtl') continue;
  for (const word of node.data.match(wordRe) || []) {
    const token = word.replace(edgesRe, '');
    if (prose.has(token) || /^[0-9][0-9.,]*$/.test(token)) continue;
    bare.push(`${token}  in  ${node.data.trim().slice(0, 80)}`);
  }
}
const mixed = args.mixed ? runs.length > 0 && rtl.test(root.innerText) : null;
// Only what the test reports goes back, not the thousands of runs that read as their text.
const misread = runs.filter(r => r.read !== r.text).map(r => ({ text: r.text, read: r.read }));
const isolated = runs.filter(r => !r.bare).length, constraints = runs.filter(r => r.constraint).length;
return { misread, isolated, constraints, values, bare, mixed };
}"""


@dataclass
class Seen:
    """What the check found on one page or in one part of a page."""

    problems: list[str]
    runs: int
    constraints: int
    mixed: bool | None
    """Whether the part holds both right-to-left text and an isolated run (so the check means something);
    None unless asked for."""


def check(
    page: Any, words: list[str], where: str, scope: str = "body", values: list[str] | None = None, mixed: bool = False
) -> Seen:
    """Every isolated run in *scope* reads as its text, *values* (if given) are isolated, and no bare run;
    with *mixed*, also whether the part mixes right-to-left text and isolated runs."""
    args = {"scope": scope, "words": words, "rtl": _RTL, "word": _WORD, "edges": _EDGES, "values": values,
            "mixed": mixed}  # fmt: skip
    result = page.evaluate(_CHECK, args)
    problems = [f"{where}: {r['text']!r} reads {r['read']!r} left to right" for r in result["misread"]]
    if values is not None and Counter(result["values"]) != Counter(values):
        missing = sorted((Counter(values) - Counter(result["values"])).elements())
        problems.append(f"{where}: constraint values that are not elements of their own: {missing[:6]}")
    problems += [f"{where}: bare left-to-right run {token!r}" for token in result["bare"][:10]]
    return Seen(problems, result["isolated"], result["constraints"], result["mixed"])


_UNFOLD = """() => {
  for (let clicks = 0; clicks < 10000; clicks++) {
    const b = document.querySelector("main .fold-more button, main button.fold[aria-expanded=false]");
    if (!b) { return clicks; }
    b.click();
  }
  throw new Error("the folded tables never opened");
}"""
"""Opens every folded row of the page's parameter tables (templates/static/call.js folds them)."""


MODES = ((1280, "screen"), (390, "screen"), (1280, "print"))
"""Each page is read at each of these: the viewport's width and the media it is laid out for."""
CHUNKS = 4
"""The pages are read in this many tests, so the two test workers share them."""


def _check_pages(browser: Any, sites: list[Site], words: list[str], chunk: int) -> tuple[list[str], Counter[str], int]:
    """Every *chunk*-th page of *sites* opened once and read in each mode (the viewport resized, the
    media emulated: the page lays itself out again, as a reader turning a phone or printing sees it).
    A page is opened in the mode the page before it was last read in, and read in that one first: no
    mode is set twice, and pages are opened in every mode in turn."""
    context = browser.new_context(viewport={"width": MODES[0][0], "height": 900})
    problems: list[str] = []
    runs: Counter[str] = Counter()
    pages = 0
    try:
        page = context.new_page()
        page.emulate_media(media=MODES[0][1])
        current = 0
        for site in sites:
            with serving(site.root) as base:
                for path in site.pages[chunk::CHUNKS]:
                    page.goto(base + path)
                    # Long parameter tables fold (issue 52): every row is read, so all of them are opened.
                    page.evaluate(_UNFOLD)
                    pages += 1
                    for step in range(len(MODES)):
                        current = (current + 1) % len(MODES) if step else current
                        width, media = MODES[current]
                        if step:
                            page.set_viewport_size({"width": width, "height": 900})
                            page.emulate_media(media=media)
                        where = f"{path} ({width} px, {media})"
                        seen = check(page, words, where, values=site.values.get(path))
                        problems += seen.problems
                        runs[f"{width} px {media}"] += seen.runs
                        runs[f"{width} px {media}, constraint values"] += seen.constraints
    finally:
        context.close()
    return problems, runs, pages


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_every_ltr_run_on_arabic_pages_reads_as_its_source(
    browser: Any, sites: list[Site], prose_words: list[str], chunk: int
) -> None:
    problems, runs, pages = _check_pages(browser, sites, prose_words, chunk)
    total = sum(len(site.pages) for site in sites)
    values = sum(len(v) for site in sites for v in site.values.values())
    assert total >= 170 and len(sites[1].values) >= 150 and values >= 1000, (total, len(sites[1].values), values)
    assert pages == sum(len(site.pages[chunk::CHUNKS]) for site in sites) and pages >= total // CHUNKS
    expected = sum(len(site.values.get(path, [])) for site in sites for path in site.pages[chunk::CHUNKS])
    assert expected >= 100, expected
    # What a reader misreads first, then values that are no elements of their own, then bare runs.
    problems.sort(key=lambda problem: (" reads " not in problem, "constraint values" not in problem))
    assert not problems, f"{len(problems)} problems, the first ones:\n" + "\n".join(problems[:40])
    for width, media in MODES:
        read = runs[f"{width} px {media}, constraint values"]
        assert read == expected, f"{width} px {media}: {read} constraint runs read, {expected} in the model"
        assert runs[f"{width} px {media}"] > pages, runs
    print(f"\npages {chunk}::{CHUNKS}: {pages} Arabic pages, runs read: {dict(runs)}")


# -- search excerpts ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def search_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("rtl-search") / "site"
    files, _ = site_files(
        load_snapshot(SNAPSHOT), replace(demo_config(), search=True, locales=("en", "ar")), renderer=TEMPLATES
    )
    publish(root, files)
    with serving(root) as url:
        yield url


@pytest.mark.parametrize("query", ["search_chat", "limit", "read_all"])
def test_search_excerpts_on_arabic_pages_isolate_every_ltr_run(
    browser: Any, search_site: str, prose_words: list[str], query: str
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(search_site + "ar/connecting/")
        page.click("header.top .search-open")
        page.fill("#search-input", query)
        page.wait_for_selector("#search-results > li > p mark", timeout=15000)
        seen = check(page, prose_words, f"search {query!r}", scope="#search-results", mixed=True)
        assert not seen.problems, "\n".join(seen.problems)
        excerpts = page.locator("#search-results > li > p")
        assert any(re.search(f"[{_RTL}]", text) for text in excerpts.all_inner_texts()), excerpts.all_inner_texts()
        assert seen.mixed and seen.runs > 0
    finally:
        context.close()


# -- Try it ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Panels:
    current: str
    """A site whose endpoint speaks the protocol version it records."""
    future: str
    """A site that records a protocol version the server does not speak: it answers a JSON-RPC error."""


@pytest.fixture(scope="module")
def panels(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Panels]:
    tmp = tmp_path_factory.mktemp("rtl-try-it")
    port = free_port()

    def site(name: str, **changes: Any) -> Path:
        moved = {"address": lambda e: str(e["address"]).replace("127.0.0.1:8765", f"127.0.0.1:{port}")}
        snapshot = http_endpoints_changed(tmp, **moved, **changes)
        files, _ = site_files(snapshot, replace(demo_config(), try_it=True, locales=("en", "ar")), renderer=TEMPLATES)
        publish(tmp / name, files)
        return tmp / name

    with ExitStack() as stack:
        current = stack.enter_context(serving(site("current")))
        future = stack.enter_context(
            serving(site("future", protocol_version="2099-01-01", supported_versions=["2099-01-01"]))
        )
        origins = [option for url in (current, future) for option in ("--cors-origin", url.rstrip("/"))]
        demo = [PYTHON, "-m", "generator.demo", "--http", "--host", "127.0.0.1", "--port", str(port), *origins]
        stack.enter_context(http_server(demo, port))
        yield Panels(current, future)


def _answered(page: Any) -> None:
    """Press Send and wait until the panel has shown the server's answer."""
    from playwright.sync_api import expect

    page.click(".try-send")
    expect(page.locator(".try-answer > *").first).to_be_visible(timeout=20_000)
    expect(page.locator(".try-send")).to_be_enabled(timeout=40_000)


def test_try_it_check_and_answer_isolate_every_ltr_run(browser: Any, panels: Panels, prose_words: list[str]) -> None:
    """The check's paths and limits, the status, the tool's error and a JSON-RPC error code with its message."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(panels.current + "ar/tools/search_chat/")
        # The raw arguments are behind the form (issue 52): the Try it tab, then its JSON toggle.
        page.click("label[for=call-try]")
        page.click(".try-mode")
        page.fill("#try-args", '{"query": "report", "limit": -5, "colour": "red"}')
        page.wait_for_selector("#try-check li")
        _answered(page)
        panel = check(page, prose_words, "Try it (tool error)", scope=".try-it", mixed=True)
        assert not panel.problems, "\n".join(panel.problems)
        isolated = page.eval_on_selector_all(
            ".try-it [dir=ltr]:not(pre, textarea)", "els => els.map(e => e.textContent)"
        )
        assert {"arguments.limit", "isError: true"} <= set(isolated), isolated
        assert panel.mixed

        page.goto(panels.future + "ar/tools/search_chat/")
        page.click("label[for=call-try]")  # another origin: the remembered tab is not shared with it
        _answered(page)
        answer = check(page, prose_words, "Try it (JSON-RPC error)", scope=".try-answer")
        assert not answer.problems, "\n".join(answer.problems)
        codes = page.eval_on_selector_all(".try-answer p [dir=ltr]", "els => els.map(e => e.textContent)")
        assert "-32022" in codes and "400" in codes, codes  # the server's code and HTTP status, each an element
        message = page.locator(".try-answer p bdi:not([dir])")
        assert message.first.text_content() == "Unsupported protocol version"  # the server's words, isolated
    finally:
        context.close()
