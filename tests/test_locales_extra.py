"""Adding a UI language is adding one YAML file, and the stylesheet mirrors for free.

A template directory given with ``--templates`` may carry ``locales/<code>.yaml``; here a
German catalog (English with a few strings translated, so they can be spotted) is added
that way and the demo is built in en, de and ar. Every place that lists the languages
must then list German: the switcher on every page, the hreflang alternates, the sitemap,
the root chooser and the llms.txt files.

The second half checks that ``portal.css`` uses logical properties only, so that the
Arabic (rtl) pages mirror without a second stylesheet.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from generator.commands.cli import main
from tests.conftest import ROOT, TEMPLATES

SNAPSHOT = ROOT / "tests" / "golden" / "demo.snapshot.json"
BASE = "https://docs.example.com/"
LOCALES = ("en", "de", "ar")
# Strings changed in the German copy of en.yaml: (dotted key, German text).
GERMAN = {
    "meta.tools_nav": "Werkzeuge",
    "meta.skip": "Zum Inhalt springen",
    "meta.languages": "Sprachen",
    "tool.description": "Beschreibung",
    "tool.parameters": "Parameter der Anfrage",
}


def _set(data: dict[str, object], dotted: str, value: str) -> None:
    *parents, last = dotted.split(".")
    node = data
    for key in parents:
        child = node[key]
        assert isinstance(child, dict), dotted
        node = child
    assert isinstance(node[last], str), f"{dotted} is not a plain string in en.yaml"
    node[last] = value


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("extra-locale")
    templates = work / "theme"
    (templates / "locales").mkdir(parents=True)
    german = yaml.safe_load((ROOT / "locales" / "en.yaml").read_text(encoding="utf-8"))
    for key, text in GERMAN.items():
        _set(german, key, text)
    (templates / "locales" / "de.yaml").write_text(
        yaml.safe_dump(german, allow_unicode=True, sort_keys=False), encoding="utf-8"
    )
    out = work / "site"
    code = main(
        [
            "build",
            "--from",
            str(SNAPSHOT),
            "--templates",
            str(templates),
            "--locales",
            ",".join(LOCALES),
            "--base-url",
            BASE,
            "--no-search",
            "--out",
            str(out),
        ],
        renderer=TEMPLATES,
    )
    assert code == 0
    return out


class _Links(HTMLParser):
    """Every ``<a>`` inside ``<nav class="langs">`` (the language switcher) and every ``<link>``."""

    def __init__(self) -> None:
        super().__init__()
        self.in_langs = 0
        self.switcher: list[tuple[dict[str, str | None], str]] = []
        self.links: list[dict[str, str | None]] = []
        self._anchor: dict[str, str | None] | None = None
        self._text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "nav" and (self.in_langs or "langs" in (a.get("class") or "").split()):
            self.in_langs += 1
        elif tag == "a" and self.in_langs:
            self._anchor, self._text = a, ""
        elif tag == "link":
            self.links.append(a)

    def handle_data(self, data: str) -> None:
        if self._anchor is not None:
            self._text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._anchor is not None:
            self.switcher.append((self._anchor, self._text.strip()))
            self._anchor = None
        elif tag == "nav" and self.in_langs:
            self.in_langs -= 1


def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def _locale_pages(site: Path) -> Iterator[tuple[str, str]]:
    """(locale, path relative to the locale directory) of every page with the site frame."""
    for page in sorted((site / "en").rglob("index.html")):
        rel = page.relative_to(site / "en").as_posix()
        for code in LOCALES:
            yield code, rel


def test_german_pages_exist_for_every_english_page(site: Path) -> None:
    english = sorted(p.relative_to(site / "en").as_posix() for p in (site / "en").rglob("*") if p.is_file())
    german = sorted(p.relative_to(site / "de").as_posix() for p in (site / "de").rglob("*") if p.is_file())
    assert english == german
    assert "tools/search_chat/index.html" in german
    assert "tools/search_chat.md" in german
    assert "nav.js" in german


def test_switcher_on_every_page_links_the_german_page(site: Path) -> None:
    checked = 0
    for code, rel in _locale_pages(site):
        parsed = _parse(site / code / rel)
        targets = {a.get("hreflang"): (a.get("href"), text) for a, text in parsed.switcher}
        assert list(targets) == list(LOCALES), f"{code}/{rel}: switcher lists {list(targets)}"
        href, text = targets["de"]
        assert text == "Deutsch", f"{code}/{rel}: the German link reads {text!r}"
        assert href
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(f"{code}/{rel}"), href))
        assert resolved == f"de/{rel}", f"{code}/{rel}: the German link points at {resolved}"
        assert (site / resolved).is_file()
        alternates = {link.get("hreflang"): link.get("href") for link in parsed.links if link.get("hreflang")}
        assert alternates["de"] == BASE + "de/" + rel.removesuffix("index.html")
        checked += 1
    # index, connecting, instructions, API, 6 tools, a prompt, a resource, a template; 3 locales
    assert checked == 3 * 13


def test_german_pages_declare_their_language(site: Path) -> None:
    for page in (site / "de").rglob("index.html"):
        assert '<html lang="de" dir="ltr">' in page.read_text(encoding="utf-8"), page
    assert '<html lang="ar" dir="rtl">' in (site / "ar" / "index.html").read_text(encoding="utf-8")


def test_root_chooser_and_404_list_german(site: Path) -> None:
    root = (site / "index.html").read_text(encoding="utf-8")
    assert '<a href="de/index.html" hreflang="de" lang="de" dir="ltr">Deutsch</a>' in root
    assert f'<link rel="alternate" hreflang="de" href="{BASE}de/">' in root
    for page in ("404.html", "de/404.html"):
        assert 'href="/de/index.html" hreflang="de"' in (site / page).read_text(encoding="utf-8"), page


def test_sitemap_has_german_alternates(site: Path) -> None:
    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    urls = re.findall(r"<url>.*?</url>", sitemap, re.S)
    assert len(urls) == 3 * 13
    for url in urls:
        loc = re.search(r"<loc>(.*?)</loc>", url)
        assert loc is not None
        rel = loc.group(1).removeprefix(BASE).split("/", 1)[1]
        assert f'<xhtml:link rel="alternate" hreflang="de" href="{BASE}de/{rel}"/>' in url, url
    assert f"<loc>{BASE}de/tools/search_chat/</loc>" in sitemap


def test_llms_txt_lists_german(site: Path) -> None:
    root = (site / "llms.txt").read_text(encoding="utf-8")
    assert f"- [Deutsch]({BASE}de/llms.txt)" in root
    german = (site / "de" / "llms.txt").read_text(encoding="utf-8")
    assert f"- [search_chat]({BASE}de/tools/search_chat.md)" in german
    assert f"({BASE}en/" not in german, "de/llms.txt links another locale's pages"
    assert (site / "de" / "llms-full.txt").read_text(encoding="utf-8").count("\n# ") >= 7


def test_german_strings_appear_on_german_pages_only(site: Path) -> None:
    tool = (site / "de" / "tools" / "search_chat" / "index.html").read_text(encoding="utf-8")
    for text in GERMAN.values():
        assert text in tool, text
    twin = (site / "de" / "tools" / "search_chat.md").read_text(encoding="utf-8")
    assert "## Beschreibung" in twin
    assert "## Parameter der Anfrage" in twin
    index = (site / "de" / "index.html").read_text(encoding="utf-8")
    assert "Zum Inhalt springen" in index
    for code in ("en", "ar"):
        other = (site / code / "tools" / "search_chat" / "index.html").read_text(encoding="utf-8")
        assert "Beschreibung" not in other and "Zum Inhalt springen" not in other, code


# --- the stylesheet: logical properties only --------------------------------------------------

CSS = ROOT / "templates" / "static" / "portal.css"

# Side-specific properties: they do not mirror in rtl. Block-axis and size properties are listed
# too, because the stylesheet promises logical properties only (they would break vertical
# writing modes, and every one of them has a well-supported logical twin).
PHYSICAL_PROPERTIES = re.compile(
    r"""^(?:
        (?:margin|padding|border|scroll-margin|scroll-padding)-(?:left|right|top|bottom)(?:-\w+)?
      | border-(?:top|bottom)-(?:left|right)-radius
      | inset-(?:left|right|top|bottom)
      | left | right | top | bottom
      | (?:min-|max-)?(?:width|height)
    )$""",
    re.X,
)
# Values naming a side (text-align, float, clear, background-position, transform-origin...).
PHYSICAL_VALUE = re.compile(r"\b(?:left|right)\b")
# Shorthands whose 4-value form sets the inline sides separately (top right bottom left).
BOX_SHORTHANDS = {"margin", "padding", "border-width", "border-style", "border-color", "inset", "scroll-margin"}


def _rules(css: str) -> Iterator[tuple[str, str, str]]:
    """(selector, property, value) of every declaration; @media preludes are skipped, their rules kept."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    for match in re.finditer(r"([^{}]+)\{([^{}]*)\}", css):
        selector = " ".join(match.group(1).split())
        for declaration in match.group(2).split(";"):
            prop, sep, value = declaration.partition(":")
            if sep:
                yield selector, prop.strip().lower(), " ".join(value.split()).lower()


def _code_block_exemption(selector: str, prop: str, value: str, rule_has_ltr: bool) -> bool:
    # `pre` holds code, JSON and shell commands, which read left to right in every locale: the
    # rule sets `direction: ltr` and aligns the text to the left, so an Arabic page does not
    # right-align a JSON block. With `direction: ltr` in the same rule, `left` is the block's own
    # start side, so this is still a logical choice; anything else in that rule is checked.
    return selector == "pre" and prop == "text-align" and value == "left" and rule_has_ltr


def _mirrored_shadows_exemption(selector: str, prop: str, value: str) -> bool:
    # The scroll box's edge shadows: the same gradient pair at the left and at the right edge, so
    # the rule is its own mirror image and reads the same in rtl (CSS has no logical background
    # positions). Any asymmetry (a left without its right) is still reported.
    words = re.findall(r"\b(?:left|right)\b", value)
    return selector == ".scroll" and prop == "background" and words.count("left") == words.count("right")


def physical_declarations(css: str) -> list[str]:
    found = []
    rules = list(_rules(css))
    ltr_rules = {sel for sel, prop, value in rules if prop == "direction" and value == "ltr"}
    for selector, prop, value in rules:
        if _code_block_exemption(selector, prop, value, selector in ltr_rules):
            continue
        if _mirrored_shadows_exemption(selector, prop, value):
            continue
        where = f"{selector} {{ {prop}: {value} }}"
        if PHYSICAL_PROPERTIES.match(prop):
            found.append(f"physical property: {where}")
        elif PHYSICAL_VALUE.search(value):
            found.append(f"physical value: {where}")
        elif prop in BOX_SHORTHANDS:
            parts = value.split()
            if len(parts) == 4 and parts[1] != parts[3]:
                found.append(f"asymmetric inline sides in a physical shorthand: {where}")
        elif prop == "border-radius":
            corners = value.split("/")[0].split()
            # 1 value: all corners; 2 values a b: top-left/bottom-right a, top-right/bottom-left b.
            if len(set(corners)) > 1:
                found.append(f"physical corners: {where}")
    return found


def test_stylesheet_uses_logical_properties_only() -> None:
    found = physical_declarations(CSS.read_text(encoding="utf-8"))
    assert not found, "portal.css must use logical properties (rtl mirrors for free):\n" + "\n".join(found)


def test_the_code_block_exemption_is_what_the_stylesheet_does() -> None:
    # The exemption above is narrow; if the pre rule stops forcing ltr, it stops applying.
    rules = [(s, p, v) for s, p, v in _rules(CSS.read_text(encoding="utf-8")) if s == "pre"]
    assert ("pre", "direction", "ltr") in rules
    assert ("pre", "text-align", "left") in rules or ("pre", "text-align", "start") in rules


@pytest.mark.parametrize(
    "css",
    [
        ".a { margin-left: 1rem; }",
        ".a { padding-right: 0; }",
        ".a { left: 0; }",
        ".a { text-align: right; }",
        ".a { float: left; }",
        ".a { border-left: 4px solid red; }",
        ".a { border-right-width: 1px; }",
        ".a { inset-left: 0; }",
        ".a { margin: 0 1rem 0 2rem; }",
        ".a { border-radius: 0 0.5rem; }",
        ".a { width: 10rem; }",
        "@media (max-width: 40rem) { .a { max-width: 10rem; } }",
        ".a { text-align: left; }",
        "pre { text-align: left; }",
        "pre code { text-align: left; direction: ltr; }",
    ],
)
def test_the_checker_catches_physical_css(css: str) -> None:
    assert physical_declarations(css)


@pytest.mark.parametrize(
    "css",
    [
        ".a { margin-inline-start: 1rem; padding-inline: 0 1rem; inset-inline-end: 0; }",
        ".a { text-align: start; float: inline-start; border-inline-start: 4px solid red; }",
        ".a { padding: 0.75rem 1rem; margin: 0; border-radius: 0.5rem; inline-size: 100%; }",
        "@media (max-width: 40rem) { .a { max-inline-size: 10rem; } }",
        "pre { direction: ltr; text-align: left; }",
        ".a { clip-path: inset(50%); }",
    ],
)
def test_the_checker_accepts_logical_css(css: str) -> None:
    assert not physical_declarations(css)
