"""The Pagefind bundle: complete, byte-identical between builds, and blind to the caller's shell."""

from __future__ import annotations

import gzip
import html
import json
from pathlib import Path

import pytest

from generator.errors import PortalError
from generator.publish.staging import Staging
from generator.site import search, search_parts
from tests.conftest import TEMPLATES

PAGES = {
    **{
        f"en/tools/t{i}/index.html": (
            f"<!doctype html><html lang='en'><body><nav>navword</nav><main><h1>Tool {i}</h1>"
            f"<p>keepword {i}</p><pre>preword</pre><details>detailsword</details></main></body></html>"
        )
        for i in range(12)
    },
    **{
        f"ru/tools/t{i}/index.html": (
            f"<!doctype html><html lang='ru'><body><main><h1>Инструмент {i}</h1><p>поиск</p></main></body></html>"
        )
        for i in range(12)
    },
    "ar/index.html": "<!doctype html><html lang='ar' dir='rtl'><body><main><h1>أدوات</h1></main></body></html>",
    # Written by every build but never indexed: the entry page, the 404 pages, twins.
    "index.html": "<!doctype html><html lang='en'><body><main><h1>rootword</h1></main></body></html>",
    "en/404.html": "<!doctype html><html lang='en'><body><main><h1>missingword</h1></main></body></html>",
    "en/tools/t0/index.md": "# mdword",
}


def _indexed_text(files: dict[str, bytes]) -> bytes:
    # Every index file is gzip; a file cut short fails to decompress, so this also checks completeness.
    index = (data for path, data in files.items() if path.endswith((".pf_fragment", ".pf_index")))
    return b"".join(gzip.decompress(data) for data in index)


@pytest.fixture(scope="module")
def bundle() -> dict[str, bytes]:
    return search.search_files(PAGES)


def test_two_builds_are_byte_identical(bundle: dict[str, bytes]) -> None:
    # CI once caught pagefind-ui.js differing between two identical builds (a write cut short).
    for _ in range(3):
        assert search.search_files(PAGES) == bundle


def test_the_bundle_is_complete_and_split_by_locale(bundle: dict[str, bytes]) -> None:
    assert all(bundle.values())
    for asset in ("pagefind.js", "pagefind-ui.js", "pagefind-ui.css", "pagefind-entry.json"):
        assert f"pagefind/{asset}" in bundle
    entry = json.loads(bundle[search.ENTRY])
    assert sorted(entry["languages"]) == ["ar", "en", "ru"]
    assert {lang: meta["page_count"] for lang, meta in entry["languages"].items()} == {"ar": 1, "en": 12, "ru": 12}
    assert bundle[search.ENTRY] == json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    assert _indexed_text(bundle)


def test_only_the_main_content_is_indexed(bundle: dict[str, bytes]) -> None:
    text = _indexed_text(bundle)
    assert b"keepword" in text
    for skipped in (b"navword", b"preword", b"detailsword", b"rootword", b"missingword", b"mdword"):
        assert skipped not in text
    assert b"/en/tools/t0/index.html" in text  # keep_index_url: links work on any static host


def _one_run(pages: dict[str, str], tmp: Path) -> dict[str, bytes]:
    """The bundle of one Pagefind run over every page, as the build made it before runs per locale."""
    staging = Staging(tmp)
    for path, text in sorted(pages.items()):
        staging.write(path, text.encode("utf-8"))
    search._run(staging, by_locale=False)
    return {path: staging.read(path) for path in sorted(staging.hashes) if path.startswith("pagefind/")}


def test_runs_per_locale_write_what_one_run_writes(bundle: dict[str, bytes], tmp_path: Path) -> None:
    assert list(search._locale_pages(dict.fromkeys(PAGES, "")) or {}) == ["ar", "en", "ru"]
    assert _one_run(PAGES, tmp_path) == bundle


def _run_dir(root: Path, languages: dict[str, object], shared: bytes = b"js") -> Path:
    root.mkdir()
    entry = {"version": "1.5.2", "languages": languages, "include_characters": ["_"]}
    (root / "pagefind-entry.json").write_text(json.dumps(entry), encoding="utf-8")
    (root / "pagefind.js").write_bytes(shared)
    for code in languages:
        (root / f"pagefind.{code}_1.pf_meta").write_bytes(code.encode())
    return root


def test_runs_that_cannot_be_merged_exactly_are_not(tmp_path: Path) -> None:
    en = _run_dir(tmp_path / "en", {"en": {"page_count": 1}})
    ru = _run_dir(tmp_path / "ru", {"ru": {"page_count": 2}})
    assert search._merge([en, ru], tmp_path / "merged")
    merged = json.loads((tmp_path / "merged" / "pagefind-entry.json").read_bytes())
    assert merged["languages"] == {"en": {"page_count": 1}, "ru": {"page_count": 2}}
    assert sorted(p.name for p in (tmp_path / "merged").iterdir()) == [
        "pagefind-entry.json", "pagefind.en_1.pf_meta", "pagefind.js", "pagefind.ru_1.pf_meta",
    ]  # fmt: skip
    # Two runs that wrote the same language (two locale codes Pagefind files under one), or a shared
    # file that differs: the caller indexes every page in one run instead.
    again = _run_dir(tmp_path / "en2", {"en": {"page_count": 3}})
    assert not search._merge([en, again], tmp_path / "no1")
    other = _run_dir(tmp_path / "ar", {"ar": {"page_count": 1}}, shared=b"other js")
    assert not search._merge([ru, other], tmp_path / "no2")
    assert search._locale_pages({"en/index.html": "", "*x/index.html": ""}) is None
    assert search._locale_pages({"index.html": "", "en/404.html": ""}) is None
    assert search._locale_pages({"en/tools/a/index.html": "", "en/index.html": ""}) == {
        "en": ["en/index.html", "en/tools/a/index.html"]
    }


@pytest.mark.parametrize("count", [0, 1, 5, 6, 7, 12, 1500, 1501, 4999])
@pytest.mark.parametrize("most", [1, 5, 1500])
def test_pages_are_split_into_the_fewest_even_runs(count: int, most: int) -> None:
    pages = [f"en/tools/t{i:05}/index.html" for i in range(count)]
    parts = search_parts.split_pages(pages, most)
    assert [page for part in parts for page in part] == pages  # every page once, in order
    assert len(parts) == max(1, -(-count // most))
    assert all(len(part) <= most for part in parts)
    assert max(map(len, parts)) - min(map(len, parts)) <= 1


def _fragment_urls(files: dict[str, bytes], prefix: str) -> list[str]:
    """The URLs of the pages whose fragments lie directly in the bundle at *prefix* (not in its parts)."""
    return sorted(
        json.loads(gzip.decompress(data)[len(b"pagefind_dcd") :])["url"]
        for path, data in files.items()
        if path.startswith(prefix + "fragment/") and path.endswith(".pf_fragment")
    )


def test_a_large_locale_is_indexed_in_parts_that_together_hold_every_page(
    bundle: dict[str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_parts, "PART_PAGES", 5)
    parts = search.search_files(PAGES)
    assert search.search_files(PAGES) == parts  # still byte-identical between builds
    listed = json.loads(parts["pagefind/parts.json"])
    assert {code: split["bundles"] for code, split in listed.items()} == {
        "en": ["parts/en-2/", "parts/en-3/"],
        "ru": ["parts/ru-2/", "parts/ru-3/"],
    }
    assert all(len(split["skip"]) == 1 for split in listed.values())  # one vocabulary page in every part
    main = json.loads(parts[search.ENTRY])["languages"]
    assert {lang: meta["page_count"] for lang, meta in main.items()} == {"ar": 1, "en": 5, "ru": 5}
    found = _fragment_urls(parts, "pagefind/")
    for code, split in listed.items():
        for name in split["bundles"]:
            prefix = f"pagefind/{name}"
            entry = json.loads(parts[prefix + "pagefind-entry.json"])
            assert {lang: meta["page_count"] for lang, meta in entry["languages"].items()} == {code: 5}
            # Only what a merged search reads: the main bundle's scripts and WebAssembly serve every part.
            top = {path[len(prefix) :] for path in parts if path.startswith(prefix) and "/" not in path[len(prefix) :]}
            assert top == {"pagefind-entry.json", f"pagefind.{entry['languages'][code]['hash']}.pf_meta"}
            found += _fragment_urls(parts, prefix)
    # Every page of the site in one bundle; the vocabulary pages in none (their fragments are removed).
    assert sorted(found) == sorted(f"/{path}" for path in PAGES if search.indexed(path) and "/" in path)
    # Outside the parts: the one-bundle index's scripts and WebAssembly, and the split index's own
    # meta, index and fragment files.
    assert {p for p in parts if "/parts/" not in p} - {"pagefind/parts.json"} <= set(bundle) | {
        p for p in parts if p.endswith((".pf_meta", ".pf_index", ".pf_fragment")) or p == search.ENTRY
    }
    assert json.loads(bundle["pagefind/parts.json"]) == {}


def test_pagefind_settings_in_the_environment_are_ignored(
    bundle: dict[str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAGEFIND_ROOT_SELECTOR", "nav")
    monkeypatch.setenv("PAGEFIND_FORCE_LANGUAGE", "fr")
    assert search.search_files(PAGES) == bundle


def test_a_pagefind_that_overruns_its_time_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "TIMEOUT", 0.001)
    with pytest.raises(PortalError) as caught:
        search.search_files(PAGES)
    message = str(caught.value)
    assert "Building the search index with Pagefind failed: it was still running after 0 s." in message
    assert "--no-search" in message


@pytest.fixture(scope="module")
def demo_fragments() -> dict[str, str]:
    """The demo portal's indexed text, page by page: what a reader's search can match (its URL → content)."""
    from dataclasses import replace

    from generator.commands.build import site_files
    from generator.snapshot.snapshot import load_snapshot
    from tests.golden_tool import SNAPSHOT, demo_config

    files, _ = site_files(load_snapshot(SNAPSHOT), replace(demo_config(), search=True), renderer=TEMPLATES)
    fragments = (
        json.loads(gzip.decompress(data)[len(b"pagefind_dcd") :])
        for path, data in files.items()
        if path.endswith(".pf_fragment")
    )
    return {fragment["url"]: fragment["content"] for fragment in fragments}


def test_a_tool_page_is_found_by_its_own_words_not_by_the_words_every_tool_page_repeats(
    demo_fragments: dict[str, str],
) -> None:
    content = demo_fragments["/en/tools/file_defect/index.html"]
    # What tells this tool from the others: its name, its description, its parameters' names and descriptions.
    for own in ("file_defect", "One-line summary shown in defect lists.", "Ordered steps that reproduce the defect"):
        assert own in content
    # What every tool page says in the same words: stock sentences, the access sentence, where it is
    # available, annotation hints, field types and required marks, derived troubleshooting rows.
    for stock in (
        "Hints the server declares",
        "A complete call whose arguments validate",
        "Confirm with the user",
        "Profiles:",
        "readOnlyHint",
        "array of",
        "a JSON-RPC error such as -32602 or -32603",
        "(this server answered so when mcp-portal sent it an argument its schema forbids)",
        "Generated from the running server",
    ):
        assert stock not in content, stock
    # The errors every tool shares are still searchable, once, on the Connecting page: in the words of
    # the demo's --prove probe, which saw how it refuses a bad argument.
    assert "The arguments are refused: a result with isError: true" in demo_fragments["/en/connecting/index.html"]
    # The sentences around a proven answer are the same on every page: not indexed.
    proven = demo_fragments["/en/tools/search_chat/index.html"]
    assert "Proven on server version" not in proven and "validates against the output schema" not in proven
    # A prompt page: its arguments' descriptions are indexed, its stock request sentence is not.
    prompt = demo_fragments["/en/prompts/triage_defect/index.html"]
    assert "Who reads the triage note" in prompt
    assert "A prompts/get request" not in prompt


def test_the_vocabulary_page_holds_every_word_of_the_main_content_once(tmp_path: Path) -> None:
    pages = {
        "en/a/index.html": "<!doctype html><html lang='en' dir='ltr'><body><nav>navword</nav>"
        "<main><h1>Archive</h1><p>Tom &amp; Jerry &lt;b&gt; <code>x_y</code>, again</p></main></body></html>",
        "en/b/index.html": "<!doctype html><html lang='en'><body><main><p>again archive</p></main></body></html>",
    }
    for path, text in pages.items():
        (tmp_path / path).parent.mkdir(parents=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    page = search_parts.vocabulary_page(tmp_path, sorted(pages)).decode()
    assert page.startswith("<!doctype html><html lang='en' dir='ltr'><head>")  # Pagefind files it as English
    listed = page.split("<p>")[1].split("</p>")[0]
    # Tags break words; entities are decoded, then escaped again; each word once, sorted.
    assert [html.unescape(word) for word in listed.split(" ")] == sorted(
        ["&", ",", "<b>", "Archive", "Jerry", "Tom", "again", "archive", "x_y"]
    )
    assert "&amp; " in listed and "&lt;b&gt;" in listed
    assert "navword" not in page


def test_a_locale_whose_paths_a_glob_cannot_name_is_indexed_in_one_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_parts, "PART_PAGES", 2)
    plain = [f"en/tools/t{i}/index.html" for i in range(5)]
    globs = search_parts.part_globs(tmp_path, "en", plain)
    assert globs == [
        "en/{tools/t0/index.html,-vocabulary/index.html}",
        "en/{tools/t1/index.html,tools/t2/index.html,-vocabulary/index.html}",
        "en/{tools/t3/index.html,tools/t4/index.html,-vocabulary/index.html}",
    ]
    for odd in ("en/tools/a,b/index.html", "en/tools/{x}/index.html", "en/tools/*/index.html", "en/tools/é/index.html"):
        assert search_parts.part_globs(tmp_path, "en", [*plain, odd]) == ["en/**/index.html"]
    (tmp_path / "en" / "-vocabulary").mkdir(parents=True)  # a page already there: left alone
    assert search_parts.part_globs(tmp_path, "en", plain) == ["en/**/index.html"]


def test_the_vocabulary_page_is_never_left_in_the_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_parts, "PART_PAGES", 5)
    staging = Staging(tmp_path)
    for path, text in sorted(PAGES.items()):
        staging.write(path, text.encode("utf-8"))
    search._run(staging)
    assert not list(tmp_path.glob("*/-vocabulary")) and not list(tmp_path.rglob("*vocabulary*"))
    assert not [path for path in staging.hashes if "vocabulary" in path]
    assert json.loads(staging.read("pagefind/parts.json"))["en"]["bundles"] == ["parts/en-2/", "parts/en-3/"]
