"""llms.txt, llms-full.txt and the Markdown twins, read the way an agent reads them.

The demo is built from the golden snapshot twice, with and without ``--base-url``
(links are relative in one and absolute in the other). Every llms.txt is parsed with
the ``llms_txt`` package and checked line by line against the llmstxt.org shape.
"""

from __future__ import annotations

import posixpath
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from llms_txt import parse_llms_file

from generator.commands.cli import main
from generator.snapshot.snapshot import load_snapshot
from tests.conftest import ROOT, tree_bytes

GOLDEN = ROOT / "tests" / "golden" / "demo.snapshot.json"
BASE = "https://docs.example.com/developers/"
LOCALES = ("en", "ru", "ar")
TOOLS = [t["name"] for t in load_snapshot(GOLDEN).tools]  # server order
ITEM = re.compile(r"^- \[((?:\\.|[^\]\\])+)\]\(([^()\s]+)\): (\S.*)$")
LINK = re.compile(r"\]\(([^()\s]+)\)")


@pytest.fixture(scope="module", params=[None, BASE], ids=["relative", "base-url"])
def site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str | None]:
    out = tmp_path_factory.mktemp("llms") / "site"
    argv = ["build", "--from", str(GOLDEN), "--out", str(out)]
    if request.param:
        argv += ["--base-url", request.param]
    assert main(argv) == 0
    return out, request.param


def _target(url: str, source: str, base: str | None) -> str:
    """The site path a link in the file *source* names: absolute via the base URL, else relative."""
    path = url.split("#")[0]
    if urlsplit(url).scheme:
        assert base and url.startswith(base), f"{source}: {url} is outside the site"
        path = url[len(base) :].split("#")[0]
    else:
        assert not url.startswith("/"), f"{source}: {url} is root-relative"
        path = posixpath.normpath(posixpath.join(posixpath.dirname(source), path))
    assert not path.startswith("../"), f"{source}: {url} leaves the site"
    return path + "index.html" if path in ("", ".") or url.endswith("/") else path


def _twins(files: dict[str, bytes], locale: str) -> list[str]:
    """A locale's twins in page order: index, connecting, instructions, API operations, the tools
    in server order, then the demo's prompt, resource and resource template."""
    return [
        f"{locale}/index.md",
        f"{locale}/connecting.md",
        f"{locale}/instructions.md",
        f"{locale}/api.md",
        *(f"{locale}/tools/{t}.md" for t in TOOLS),
        f"{locale}/prompts/triage_defect.md",
        f"{locale}/resources/handbook.md",
        f"{locale}/resource-templates/document.md",
    ]


def _llms_files(files: dict[str, bytes]) -> list[str]:
    found = sorted(p for p in files if p.endswith("llms.txt"))
    assert found == sorted(["llms.txt", *(f"{code}/llms.txt" for code in LOCALES)])
    return found


def _structure(text: str, where: str) -> dict[str, list[tuple[str, str, str]]]:
    """Check the llmstxt.org shape strictly; return each H2 section's (name, url, summary) items."""
    assert text.endswith("\n") and not text.endswith("\n\n\n"), where
    lines = text.split("\n")
    assert re.match(r"^# \S", lines[0]), f"{where}: the first line must be the H1"
    assert lines[1] == "" and re.match(r"^> \S", lines[2]) and lines[3] == "", f"{where}: a blockquote summary"
    i = 4
    details = []
    while i < len(lines) and lines[i] != "":
        assert not lines[i].startswith(("#", ">", "- ")), f"{where}: details must be a paragraph: {lines[i]}"
        details.append(lines[i])
        i += 1
    assert details, f"{where}: a details paragraph after the summary"
    sections: dict[str, list[tuple[str, str, str]]] = {}
    current = None
    for line in lines[i:]:
        if line.startswith("## "):
            current = line[3:]
            assert current.strip() and current not in sections, f"{where}: H2 {line!r}"
            sections[current] = []
        elif line:
            assert current is not None, f"{where}: {line!r} outside any H2 section"
            match = ITEM.match(line)
            assert match, f"{where}: not a `- [name](url): summary` item: {line!r}"
            sections[current].append((match[1], match[2], match[3]))
    assert sections, f"{where}: no H2 sections"
    assert all(sections.values()), f"{where}: empty sections {[k for k, v in sections.items() if not v]}"
    assert not any(line.startswith("### ") for line in lines), f"{where}: only H2 sections"
    return sections


def test_every_llms_txt_parses_and_has_the_llmstxt_shape(site: tuple[Path, str | None]) -> None:
    root, base = site
    files = tree_bytes(root)
    for path in _llms_files(files):
        text = files[path].decode("utf-8")
        sections = _structure(text, path)
        parsed = parse_llms_file(text)
        lines = text.split("\n")
        assert parsed["title"] == lines[0][2:]
        assert parsed["summary"] == lines[2][2:]
        assert parsed["info"] and parsed["info"].strip() in text
        assert list(parsed["sections"]) == list(sections), path
        for name, items in sections.items():
            assert [(x["title"], x["url"], x["desc"]) for x in parsed["sections"][name]] == items, f"{path}: {name}"
        for _, url, _ in (item for items in sections.values() for item in items):
            if base:
                assert url.startswith(base), f"{path}: {url} is not absolute under the base URL"
            else:
                assert not urlsplit(url).scheme, f"{path}: {url}"
            assert _target(url, path, base) in files, f"{path}: {url} does not resolve"


def test_each_locale_llms_txt_lists_each_of_its_twins_once(site: tuple[Path, str | None]) -> None:
    root, base = site
    files = tree_bytes(root)
    for code in LOCALES:
        path = f"{code}/llms.txt"
        sections = _structure(files[path].decode("utf-8"), path)
        listed = [_target(url, path, base) for items in sections.values() for _, url, _ in items]
        twins = sorted(p for p in files if p.startswith(f"{code}/") and p.endswith(".md"))
        assert sorted(p for p in listed if p.endswith(".md")) == twins == sorted(_twins(files, code)), path
        # Tools are listed in the server's order, by name.
        tool_items = [
            name for items in sections.values() for name, url, _ in items if "/tools/" in _target(url, path, base)
        ]
        assert tool_items == TOOLS, path
    # The root llms.txt links every locale's llms.txt and the default locale's twins, once each.
    sections = _structure(files["llms.txt"].decode("utf-8"), "llms.txt")
    listed = [_target(url, "llms.txt", base) for items in sections.values() for _, url, _ in items]
    assert sorted(p for p in listed if p.endswith(".md")) == sorted(_twins(files, LOCALES[0]))
    assert [p for p in listed if p.endswith("llms.txt")] == [f"{code}/llms.txt" for code in LOCALES]


def _strip_targets(text: str) -> str:
    return LINK.sub("]()", text)


def test_llms_full_is_every_twin_of_the_locale_in_page_order(site: tuple[Path, str | None]) -> None:
    """Each page once, in page order, after the notice every twin repeats (stated once, at the top).
    A tool's copy leaves out what its twin alone holds (front matter, raw schemas, the call's shape,
    annotations, sequences) and links to the twin; every other page's copy is its twin."""
    root, _ = site
    files = tree_bytes(root)
    for code in LOCALES:
        full = _strip_targets(files[f"{code}/llms-full.txt"].decode("utf-8"))
        paths = _twins(files, code)
        twins = [_strip_targets(files[p].decode("utf-8")) for p in paths]
        head = full[: full.index("---\n")].strip("\n")
        assert head.startswith("> ") and all(head in t for t in twins), code
        body = full[len(head) :]
        assert head not in body, code
        # Where each copy starts: a tool's at its "# name" heading, any other page's at its front matter.
        starts, at = [], 0
        for path, twin in zip(paths, twins, strict=True):
            first = f"# {path.rsplit('/', 1)[1][:-3]}\n\n" if "/tools/" in path else "---\n" + twin.split("\n", 2)[1]
            at = body.index(first, at)
            starts.append(at)
        ends = [*starts[1:], len(body)]
        for path, twin, start, end in zip(paths, twins, starts, ends, strict=True):
            copy = body[start:end].strip("\n")
            expected = twin.replace(head + "\n\n", "", 1).strip("\n")
            if "/tools/" not in path:
                assert copy == expected, path
                continue
            name = path.rsplit("/", 1)[1]
            assert f"[{name}]()" in copy, path  # the link to the complete twin
            lines = [line for line in copy.splitlines() if line and f"[{name}]()" not in line]
            assert all(line in expected for line in lines), path
            assert expected.startswith("---\n") and not copy.startswith("---\n"), path
            assert "```json" in expected and copy.count("```json") < expected.count("```json"), path
            assert copy.count('"method": "tools/call"') == 1, path  # the complete call, once


def test_links_in_llms_full_resolve_from_its_own_location(site: tuple[Path, str | None]) -> None:
    """llms-full.txt lives at L/llms-full.txt, so its links must work from there, not from each twin."""
    root, base = site
    files = tree_bytes(root)
    broken = []
    for code in LOCALES:
        path = f"{code}/llms-full.txt"
        for url in LINK.findall(files[path].decode("utf-8")):
            if url.startswith(("vscode:", "vscode-insiders:", "cursor:")):
                continue  # the connecting page's one-click install links open an editor, not a page
            if _target(url, path, base) not in files:
                broken.append(f"{path}: {url}")
    assert not broken, f"{len(broken)} broken links, e.g. {broken[:4]}"


class _Head(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[dict[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "link":
            self.links.append({k: v or "" for k, v in attrs})


def _twin_of(page: str) -> str:
    locale, _, rest = page.partition("/")
    return f"{locale}/index.md" if rest == "index.html" else page.removesuffix("/index.html") + ".md"


def test_every_page_links_its_twin_and_its_llms_txt(site: tuple[Path, str | None]) -> None:
    root, _ = site
    files = tree_bytes(root)
    pages = [p for p in files if p.endswith(".html") and "/" in p and not p.endswith("404.html")]
    # index, connecting, instructions, API, prompt, resource, template
    assert len(pages) == len(LOCALES) * (7 + len(TOOLS))
    for page in [*pages, "index.html"]:
        head = _Head()
        head.feed(files[page].decode("utf-8"))
        described = [link["href"] for link in head.links if link.get("rel") == "describedby"]
        expected = "llms.txt" if page == "index.html" else f"{page.split('/')[0]}/llms.txt"
        assert [_target(h, page, None) for h in described] == [expected], page
        if page == "index.html":
            continue  # the language chooser has no twin
        twins = [
            link["href"]
            for link in head.links
            if link.get("rel") == "alternate" and link.get("type") == "text/markdown"
        ]
        assert [_target(h, page, None) for h in twins] == [_twin_of(page)], page
        assert _twin_of(page) in files


def test_every_twin_has_front_matter_and_links_twins_by_md_url(site: tuple[Path, str | None]) -> None:
    root, base = site
    files = tree_bytes(root)
    twins = sorted(p for p in files if p.endswith(".md"))
    assert twins == sorted(t for code in LOCALES for t in _twins(files, code))
    for twin in twins:
        text = files[twin].decode("utf-8")
        assert text.startswith("---\n"), twin
        head, sep, _ = text[4:].partition("\n---\n")
        assert sep, f"{twin}: front matter is not closed"
        front = yaml.safe_load(head)
        assert {"title", "description", "locale", "version", "canonical", "generated"} <= set(front), twin
        assert front["locale"] == twin.split("/")[0] and front["generated"] is True
        if base:
            html = next(p for p in files if p.endswith(".html") and "/" in p and _twin_of(p) == twin)
            assert front["canonical"] == base + html.removesuffix("index.html"), twin
        for url in LINK.findall(text):
            if urlsplit(url).scheme:
                continue  # an outside link (none in the demo, but allowed)
            # Pages are linked by their twins' .md URLs; the other targets are the llms.txt index and
            # the product's OpenAPI document.
            target = url.split("#")[0]
            assert target.endswith((".md", "llms.txt", "openapi.yaml")), f"{twin}: {url} is not a twin's .md URL"
            assert _target(url, twin, base) in files, f"{twin}: {url} does not resolve"
