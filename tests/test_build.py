"""The main job end to end: ``mcp-portal build`` on the demo server, checked as a reader would."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from generator.commands.cli import main
from generator.render.extras import FAVICON
from generator.snapshot.snapshot import load_snapshot
from tests.conftest import TEMPLATES, tree_bytes
from tests.test_install_links import INSTALL_LINK

LOCALES = ("en", "ru", "ar")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The README's first command: build the bundled demo (started over stdio) into ./site."""
    out = tmp_path_factory.mktemp("build") / "site"
    assert main(["build", "--out", str(out)], renderer=TEMPLATES) == 0
    return out


def _tools(site: Path) -> list[dict[str, Any]]:
    return list(load_snapshot(site / "snapshot.json").tools)


def test_layout_has_every_page_and_twin_in_every_locale(site: Path) -> None:
    tools = _tools(site)
    assert [t["name"] for t in tools] == [
        "search_chat",
        "query_research_conversations",
        "file_defect",
        "delete_document",
        "my_capabilities",
        "workspace_status",
    ]
    for top in ("index.html", "llms.txt", "snapshot.json", "manifest.json", "assets/portal.css"):
        assert (site / top).is_file(), top
    for locale in LOCALES:
        for page in ("index.html", "index.md", "connecting/index.html", "connecting.md", "llms.txt"):
            assert (site / locale / page).is_file(), f"{locale}/{page}"
        for tool in tools:
            assert (site / locale / "tools" / tool["name"] / "index.html").is_file()
            assert (site / locale / "tools" / f"{tool['name']}.md").is_file()


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.html_attrs: dict[str, str | None] = {}
        self.links: list[tuple[str, dict[str, str | None]]] = []
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "html":
            self.html_attrs = dict(attrs)
        if tag in ("a", "link"):
            self.links.append((tag, dict(attrs)))
        if tag == "script":
            self.scripts += 1


def _html_pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def test_the_site_has_pages_in_every_locale(site: Path) -> None:
    """What the checks below loop over: a page of each kind in each locale."""
    pages = {p.relative_to(site).as_posix() for p in _html_pages(site)}
    for code in LOCALES:
        assert {f"{code}/index.html", f"{code}/connecting/index.html"} <= pages, code


def test_every_page_declares_language_and_direction(site: Path) -> None:
    pages = _html_pages(site)
    assert {p.relative_to(site).parts[0] for p in pages} >= set(LOCALES)
    for page in pages:
        parser = _Collector()
        parser.feed(page.read_text(encoding="utf-8"))
        rel = page.relative_to(site).as_posix()
        locale = rel.split("/")[0] if "/" in rel else "en"
        assert parser.html_attrs.get("lang") == locale, rel
        assert parser.html_attrs.get("dir") == ("rtl" if locale == "ar" else "ltr"), rel


def test_links_resolve_inside_the_site_and_never_leave_it(site: Path) -> None:
    # 404 pages are served at any URL, so their links are root-absolute by design (see test_publish).
    checked = 0
    for page in (p for p in _html_pages(site) if p.name != "404.html"):
        parser = _Collector()
        parser.feed(page.read_text(encoding="utf-8"))
        checked += len(parser.links)
        for tag, attrs in parser.links:
            href = attrs.get("href") or ""
            if href.startswith("#") or href == FAVICON or attrs.get("rel") == "canonical":
                continue
            if attrs.get("class") == "install-link" and INSTALL_LINK.fullmatch(href):
                continue  # the connecting page's install links open an editor, percent-encoded
            assert not re.match(r"^[a-z]+:", href), f"{page}: {tag} goes to another host: {href}"
            target = (page.parent / href.split("#")[0]).resolve()
            assert target.exists(), f"{page.relative_to(site)} links to missing {href}"
            assert site.resolve() in target.parents or target == site.resolve()
    assert checked > 100  # every page has its navigation


def test_twins_have_front_matter_and_link_other_twins(site: Path) -> None:
    twins = sorted(site.rglob("*.md"))
    assert {t.relative_to(site).parts[0] for t in twins} == set(LOCALES)
    for twin in twins:
        text = twin.read_text(encoding="utf-8")
        assert text.startswith("---\n"), twin
        front = yaml.safe_load(text.split("---\n")[1])
        assert set(front) >= {"title", "description", "locale", "version", "canonical", "generated"}
        assert front["generated"] is True
        assert front["version"] == "2.4.0"
        assert front["locale"] == twin.relative_to(site).parts[0]
        for href in re.findall(r"\]\(([^)]+)\)", text):
            if href.endswith(".md"):
                assert (twin.parent / href).resolve().is_file(), f"{twin}: {href}"


def test_examples_shown_on_every_page_validate_against_the_schemas(site: Path) -> None:
    checked = 0
    for tool in _tools(site):
        for locale in LOCALES:
            text = (site / locale / "tools" / f"{tool['name']}.md").read_text(encoding="utf-8")
            blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)\n```", text, re.S)]
            calls = [b for b in blocks if isinstance(b, dict) and b.get("method") == "tools/call"]
            results = [b for b in blocks if isinstance(b, dict) and "result" in b]
            real = calls[-1]["params"]["arguments"]
            jsonschema.validate(real, tool["inputSchema"], format_checker=jsonschema.FormatChecker())
            assert calls[-1]["params"]["name"] == tool["name"]
            if "outputSchema" in tool:
                # The answer the demo gave (--prove proves the demo's read-only tools), else the generated one.
                proven = re.search(r"structuredContent:\n\n```json\n(.*?)\n```", text, re.S)
                structured = json.loads(proven.group(1)) if proven else results[0]["result"]["structuredContent"]
                jsonschema.validate(structured, tool["outputSchema"], format_checker=jsonschema.FormatChecker())
            checked += 1
    assert checked == 18


def test_tool_page_sections_in_order(site: Path) -> None:
    html = (site / "ru" / "tools" / "search_chat" / "index.html").read_text(encoding="utf-8")
    ids = re.findall(r'<h2 id="([a-z-]+)"', html)
    # What a caller needs first (issue 38): parameters, the call and its result; then the rest, once each.
    # The call is one section (issue 52): its tabs hold the arguments, Python, TypeScript and curl.
    assert ids == [
        "parameters",
        "call",
        "returns",
        "description",
        "annotations",
        "available",
        "api",
        "schemas",
        "troubleshooting",
    ]
    # The generated-notice is in the footer; the access summary opens the annotations.
    assert 'class="notice"' not in html
    assert html.index('id="annotations"') < html.index('class="access"') < html.index('id="available"')
    main, after = html.split("</main>")
    assert "Не редактируйте" not in main and "Не редактируйте" in after
    # The description stays verbatim (English) on the Russian page.
    assert "Search the Teamspace chat archive" in html


def test_parameters_show_nullable_unions(site: Path) -> None:
    text = (site / "en" / "tools" / "search_chat.md").read_text(encoding="utf-8")
    assert re.search(r"\| `chat` \| `string \| null` \| no \|", text.replace("\\|", "|").replace("| null`", "| null`"))


def test_tool_without_annotations_says_the_defaults_are_assumed(site: Path) -> None:
    text = (site / "en" / "tools" / "workspace_status.md").read_text(encoding="utf-8")
    assert "declares none of the four behaviour hints" in text
    assert "| `destructiveHint` | `true` | spec default |" in text


def test_llms_txt_parses_and_lists_every_twin(site: Path) -> None:
    from llms_txt import parse_llms_file

    for llms in [site / "llms.txt", *(site / loc / "llms.txt" for loc in LOCALES)]:
        parsed = parse_llms_file(llms.read_text(encoding="utf-8"))
        assert parsed["title"], llms
        assert parsed["summary"], llms
        links = [link["url"] for section in parsed["sections"].values() for link in section]
        for url in links:
            assert (llms.parent / url).resolve().is_file(), f"{llms}: {url}"
        if llms.parent != site:
            twins = {p.relative_to(llms.parent).as_posix() for p in llms.parent.rglob("*.md")}
            listed = [u for u in links if u.endswith(".md")]
            assert sorted(listed) == sorted(twins), llms


def test_build_from_the_same_snapshot_is_byte_identical(site: Path, tmp_path: Path) -> None:
    snapshot = site / "snapshot.json"
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["build", "--from", str(snapshot), "--out", str(a)], renderer=TEMPLATES) == 0
    assert main(["build", "--from", str(snapshot), "--out", str(b)], renderer=TEMPLATES) == 0
    assert tree_bytes(a) == tree_bytes(b)
    assert (a / "snapshot.json").read_bytes() == snapshot.read_bytes()


def test_manifest_hashes_every_file(site: Path) -> None:
    import hashlib

    manifest = json.loads((site / "manifest.json").read_text(encoding="utf-8"))
    files = tree_bytes(site)
    del files["manifest.json"]
    assert manifest["files"] == {p: hashlib.sha256(d).hexdigest() for p, d in files.items()}
    assert manifest["capability_version"] == "2.4.0"
    assert manifest["fingerprint"].startswith("sha256:")


def test_only_the_bundled_demo_gets_the_demo_settings() -> None:
    """A third-party server that happens to be named like the demo is documented with its own settings."""
    import dataclasses

    from generator.commands.demo_portal import is_bundled_demo
    from generator.snapshot.snapshot import load_snapshot

    demo = load_snapshot(Path(__file__).parent / "golden" / "demo.snapshot.json")
    assert is_bundled_demo(demo)
    elsewhere = tuple(dataclasses.replace(e, address="uvx teamspace-demo") for e in demo.endpoints)
    assert not is_bundled_demo(dataclasses.replace(demo, endpoints=elsewhere))
