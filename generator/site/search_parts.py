"""A large locale's search index in parts: what keeps each Pagefind run near 200 MB.

Pagefind's peak memory grows with the pages one run indexes (about 130 KB a page; 5,000 pages
peaked at 670 MiB), whatever their size: it holds what it has read until it writes. So a locale
with more than :data:`PART_PAGES` pages is indexed in parts (:func:`split_pages`), one run each.

Searching the parts merged must find what one index finds. Pagefind matches a search word to the
indexed words that start with it; only when none does, it takes the longest indexed word the search
word starts with (``find_word_extensions`` in Pagefind's ``search.rs``). A part that lacks a word
would so answer with pages that hold some shorter word ("a" for "archive"), which one index never
does. Every part therefore also indexes one page of every word the locale's pages hold
(:func:`vocabulary_page`), so each part knows the same words. That page is no page of the site: its
fragment is removed, and the search script drops its results by their ids (:func:`vocabulary_ids`),
listed in ``pagefind/parts.json`` with the parts' bundles.
"""

from __future__ import annotations

import gzip
import html
import json
import re
import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

PART_PAGES = 1500
"""The most pages one Pagefind run indexes (a locale with more is indexed in parts): at about 130 KB
of Pagefind's memory a page, a run stays near 200 MB (docs/performance.md)."""

VOCABULARY = "-vocabulary/index.html"
"""Where, below a locale's directory, a part's vocabulary page sits while Pagefind reads it: a name
no page of a site has (section and page directories never start with a dash)."""

_PLAIN = re.compile(r"[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*")
"""A path Pagefind's glob takes as it is: no ``*?[]{},!\\`` and no other character."""
_TAG = re.compile(rb"<[^<>]*>")
_HTML = re.compile(rb"<html\b[^>]*>", re.IGNORECASE)
_FRAGMENT_PREFIX = b"pagefind_dcd"


def split_pages(pages: Sequence[str], most: int) -> list[list[str]]:
    """*pages* in as few consecutive runs of at most *most* as will do, of lengths that differ by one at most."""
    count = max(1, -(-len(pages) // most))
    return [list(pages[len(pages) * i // count : len(pages) * (i + 1) // count]) for i in range(count)]


def vocabulary_page(site: Path, pages: Sequence[str]) -> bytes:
    """One page holding every word of *pages* (site paths of HTML pages below *site*), once each.

    The words are what lies between tags and whitespace in each page's ``<main>`` (all of the page
    when it has none), entities decoded: every word Pagefind can index there (the pages' own markup
    never puts a tag inside a word, and server text, escaped, holds no tags), and a few more, which
    is harmless: a word only this page holds finds only this page, whose results the search drops.
    Bytes, not text, for speed (3 s for a locale of 5,000 tool pages). The page has the ``<html>``
    tag of the first page, so Pagefind files it under the same language.
    """
    words: set[bytes] = set()
    opening = b"<html>"
    for number, path in enumerate(pages):
        data = (site / path).read_bytes()
        if number == 0 and (found := _HTML.search(data)):
            opening = found.group(0)
        start, end = data.find(b"<main"), data.rfind(b"</main>")
        words.update(_TAG.sub(b" ", data[start:end] if 0 <= start < end else data).split())
    decoded = {html.unescape(word.decode("utf-8", "replace")) for word in words}
    listed = " ".join(html.escape(word, quote=False) for word in sorted(decoded)).encode()
    head = b"<head><meta charset=utf-8><title>-</title></head>"
    return b"<!doctype html>" + opening + head + b"<body><main><p>" + listed + b"</p></main></body></html>"


def part_globs(site: Path, code: str, pages: Sequence[str]) -> list[str]:
    """The globs of Pagefind's runs over locale *code*'s *pages* (sorted site paths below *site*).

    One glob over the locale's directory, or, when it has more than :data:`PART_PAGES` pages, one per
    part, each matching the part's pages and the locale's :data:`VOCABULARY` page. Also one glob when
    a page's path cannot be written in a glob or the vocabulary page's place is taken.
    """
    parts = split_pages(pages, PART_PAGES)
    globs = [part_glob(code, part) for part in parts]
    if len(parts) == 1 or (site / code / VOCABULARY).parent.exists() or None in globs:
        return [f"{code}/**/index.html"]
    return [glob for glob in globs if glob is not None]


@contextmanager
def vocabulary_written(site: Path, code: str, pages: Sequence[str]) -> Iterator[None]:
    """Locale *code*'s vocabulary page (:func:`vocabulary_page`) in its place below *site* while Pagefind
    runs; removed after, so it is never published."""
    place = site / code / VOCABULARY
    place.parent.mkdir()
    try:
        place.write_bytes(vocabulary_page(site, pages))
        yield
    finally:
        shutil.rmtree(place.parent, ignore_errors=True)


def part_glob(code: str, pages: Sequence[str]) -> str | None:
    """A Pagefind glob that matches exactly *pages* (site paths in locale *code*'s directory) and the
    locale's vocabulary page; None when a path holds a character that globs give a meaning to."""
    names = [page.removeprefix(f"{code}/") for page in pages]
    if not all(_PLAIN.fullmatch(name) for name in names):
        return None
    return f"{code}/{{{','.join([*names, VOCABULARY])}}}"


def vocabulary_ids(run: Path, code: str) -> list[str]:
    """Remove the vocabulary page's fragment from Pagefind's output *run*; return its page id(s).

    A search result's id is its fragment's file name without the extension.
    """
    url = f"/{code}/{VOCABULARY}"
    ids = []
    for fragment in sorted((run / "fragment").glob("*.pf_fragment")):
        data = gzip.decompress(fragment.read_bytes())
        if data.startswith(_FRAGMENT_PREFIX) and json.loads(data[len(_FRAGMENT_PREFIX) :]).get("url") == url:
            ids.append(fragment.name.removesuffix(".pf_fragment"))
            fragment.unlink()
    return ids


def place_part(run: Path, bundle: Path) -> None:
    """Move what a later part's search needs from its Pagefind *run* to *bundle*: its entry, its
    language's meta file, index and fragments. Not the scripts and WebAssembly every run writes
    alike: a merged bundle is searched by the main bundle's."""
    for file in sorted(run.rglob("*")):
        if not file.is_file() or file.is_symlink():
            continue
        name = file.relative_to(run).as_posix()
        if "/" in name or name == "pagefind-entry.json" or name.endswith(".pf_meta"):
            target = bundle / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(file, target)
