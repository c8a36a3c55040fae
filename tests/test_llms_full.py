"""llms-full.txt: shared text stated once, and the split into parts under a token budget.

A real site of 1,000 tools makes an ``llms-full.txt`` of about 8.5 MB per locale, far past any
context window; over :data:`generator.site.job.PART_TOKENS` it is also written as parts
that each fit the budget, and ``llms.txt`` lists them.  Here the budget is lowered so the demo
splits, in one process and with forked workers (the output must be the same).
"""

from __future__ import annotations

import dataclasses
import io
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from llms_txt import parse_llms_file

from generator.commands.build import build, site_files
from generator.site import assemble
from generator.site.assemble import staged_files
from generator.site.llms_full import BYTES_PER_TOKEN, Fragments, _copies, estimate_tokens, without_shared
from generator.snapshot.snapshot import load_snapshot, revised
from tests.conftest import TEMPLATES
from tests.golden_tool import SNAPSHOT, demo_config

BUDGET = 6_000


@pytest.fixture(scope="module")
def split_sites() -> list[dict[str, bytes]]:
    """The demo built with a 6,000-token budget, with jobs=1 and jobs=2."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(assemble, "PART_TOKENS", BUDGET)
        snapshot = load_snapshot(SNAPSHOT)
        return [site_files(snapshot, demo_config(), jobs=jobs, renderer=TEMPLATES)[0] for jobs in (1, 2)]


def _parts(files: dict[str, bytes], code: str) -> list[str]:
    return sorted(p for p in files if re.fullmatch(rf"{code}/llms-full-\d\d\.txt", p))


def test_the_output_is_the_same_for_any_number_of_jobs(split_sites: list[dict[str, bytes]]) -> None:
    one, two = split_sites
    assert sorted(one) == sorted(two)
    assert all(one[p] == two[p] for p in one if not p.startswith("manifest"))


def test_each_part_fits_the_budget_and_together_they_are_the_whole(split_sites: list[dict[str, bytes]]) -> None:
    files = split_sites[0]
    for code in ("en", "ru", "ar"):
        full = files[f"{code}/llms-full.txt"].decode("utf-8")
        parts = _parts(files, code)
        assert len(parts) >= 2, code
        head = full[: full.index("---\n")]
        bodies = []
        for path in parts:
            text = files[path].decode("utf-8")
            assert text.startswith(head), path  # every part starts with the shared notice
            body = text[len(head) :]
            # A part over the budget holds one page only (a page is never cut).
            assert estimate_tokens(len(files[path])) <= BUDGET or body.count("\n---\ntitle: ") == 0, path
            bodies.append(body)
        assert "\n".join(bodies) == full[len(head) :], code


def test_llms_txt_lists_every_part_and_still_parses(split_sites: list[dict[str, bytes]]) -> None:
    files = split_sites[0]
    for code in ("en", "ru", "ar"):
        text = files[f"{code}/llms.txt"].decode("utf-8")
        parsed = parse_llms_file(text)
        urls = [item["url"] for items in parsed["sections"].values() for item in items]
        expected = [f"https://teamspace.example/developers/{p}" for p in _parts(files, code)]
        assert [u for u in urls if "llms-full-" in u] == expected, code
        assert f"https://teamspace.example/developers/{code}/llms-full.txt" in urls
    root = parse_llms_file(files["llms.txt"].decode("utf-8"))
    root_urls = [item["url"] for items in root["sections"].values() for item in items]
    assert sum("/en/llms-full-" in u for u in root_urls) == len(_parts(files, "en"))


def test_without_a_split_there_are_no_parts() -> None:
    files, _ = site_files(load_snapshot(SNAPSHOT), demo_config(), renderer=TEMPLATES)
    assert not [p for p in files if "llms-full-" in p]
    assert "llms-full-" not in files["en/llms.txt"].decode("utf-8")


@pytest.mark.parametrize(
    ("twin", "expected"),
    [
        ("# t\n\n> a\n\n> b\n\nbody\n", "# t\n\nbody\n"),
        ("# t\n\n> a\n\n> b\nbody\n", "# t\n\nbody\n"),
        ("# t\n\nbody\n", "# t\n\nbody\n"),  # a user template without the notice is left alone
        ("# t\n\n> a\n\n> b c\n", "# t\n\n> a\n\n> b c\n"),  # only the whole notice is cut
    ],
)
def test_without_shared_cuts_only_the_whole_notice(twin: str, expected: str) -> None:
    assert without_shared(twin.encode(), b"> a\n\n> b") == expected.encode()


def test_the_estimate_is_four_bytes_a_token() -> None:
    assert BYTES_PER_TOKEN == 4
    assert [estimate_tokens(n) for n in (0, 1, 4, 5, 400_000)] == [0, 1, 1, 2, 100_000]


def _cut_in_text(twin: str, shared: str) -> str:
    """The cut as it was written for text: the bytes version must give the same, encoded."""
    at = twin.find("\n" + shared + "\n")
    if not shared or at < 0:
        return twin
    end = at + len(shared) + 2
    return twin[: at + 1] + twin[end + 1 if twin[end : end + 1] == "\n" else end :]


_PIECES = st.sampled_from(["\n", "> ", "a", "б", "ب", "\u00e9", "\U0001f600", "\n\n", "> б\n\n> ب"])


@given(st.lists(_PIECES, max_size=12).map("".join), st.lists(_PIECES, max_size=4).map("".join))
def test_the_cut_in_bytes_is_the_cut_in_text(twin: str, shared: str) -> None:
    assert without_shared(twin.encode(), shared.encode()) == _cut_in_text(twin, shared).encode()


def test_a_rebuild_writes_the_parts_a_cold_build_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a one-tool change, a rebuild over the previous site and its cache gives the parts a cold
    build gives: only those holding that tool's copies differ from before."""
    monkeypatch.setattr(assemble, "PART_TOKENS", BUDGET)
    out, cache, source = tmp_path / "site", tmp_path / "cache", tmp_path / "snapshot.json"
    config = dataclasses.replace(demo_config(), search=False, out=str(out), cache=str(cache))
    before = load_snapshot(SNAPSHOT)
    tools = [dict(t) for t in before.tools]
    tools[-1] = {**tools[-1], "description": "Changed. " + str(tools[-1].get("description", ""))}
    after = revised(before, tools=tuple(tools))
    old = site_files(before, config, renderer=TEMPLATES)[0]
    new = site_files(after, config, renderer=TEMPLATES)[0]
    changed = sorted(p for p in new if "llms-full-" in p and old.get(p) != new[p])
    assert changed and len(changed) < len(_parts(new, "en")) * 3  # some parts change, most do not
    source.write_text(before.to_json(), encoding="utf-8")
    build(config, from_file=source)
    assert staged_files(out) == old
    source.write_text(after.to_json(), encoding="utf-8")
    build(config, from_file=source)
    assert staged_files(out) == new


@settings(max_examples=200, deadline=None)
@given(
    st.binary(max_size=5),
    # Every chunk holds a page in each locale: none is empty.
    st.lists(st.lists(st.binary(max_size=6), min_size=1, max_size=4), max_size=4),
)
def test_the_fragments_join_to_the_file_and_read_back_copy_by_copy(head: bytes, chunks: list[list[bytes]]) -> None:
    """Each chunk's copies go to a fragment file as render_pages appends them; the pieces join to the head and
    every copy, a newline between each, and the file read back by the placed sizes gives each copy with its page."""
    flat = [copy for chunk in chunks for copy in chunk]
    with tempfile.TemporaryDirectory() as tmp:
        fragments = Fragments(Path(tmp), {"en": b""})
        placed, page = [], 0
        for chunk in chunks:
            placed.append(fragments.add([(page + n, "en", copy) for n, copy in enumerate(chunk)]))
            page += len(chunk)
        fragments.close()
        text = b"".join(fragments.pieces("en", placed, head))
    assert text == b"\n".join(([head] if head else []) + flat)
    pages: list[Any] = list(range(len(flat)))
    read: list[tuple[Any, bytes]] = list(_copies(pages, "en", placed, io.BytesIO(text), len(head)))
    assert read == list(enumerate(flat))
