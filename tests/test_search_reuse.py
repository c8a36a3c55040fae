"""Reusing the previous site's search index when no page it indexes changed, and only then.

Every build here is a real one (the demo snapshot, Pagefind included); a build that must not run
Pagefind has it replaced by a function that fails the test.
"""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path

import pytest

from generator.commands.build import build
from generator.commands.demo_portal import demo_config
from generator.commands.progress import Progress
from generator.config.portal import PortalConfig
from generator.site import search, search_parts
from generator.site.assemble import staged_files
from generator.snapshot.snapshot import Snapshot, load_snapshot, revised
from tests.cache_db import records, set_header

DEMO = load_snapshot(Path(__file__).parent / "golden" / "demo.snapshot.json")


@pytest.fixture
def site(tmp_path: Path) -> tuple[PortalConfig, Path]:
    """A config building the demo with search into tmp_path/site, and the snapshot file it builds from."""
    config = dataclasses.replace(
        demo_config(PortalConfig(search=True)), out=str(tmp_path / "site"), cache=str(tmp_path / "cache")
    )
    source = tmp_path / "snapshot.json"
    source.write_text(DEMO.to_json(), encoding="utf-8")
    return config, source


def _runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the times Pagefind indexes the site from now on (it still does; one per locale each time)."""
    runs: list[int] = []
    real = search._run

    def counted(*args: object, **kwargs: object) -> None:
        runs.append(1)
        real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(search, "_run", counted)
    return runs


def _with_description(snapshot: Snapshot, name: str, text: str) -> Snapshot:
    tools = [dict(t) for t in snapshot.tools]
    next(t for t in tools if t["name"] == name)["description"] = text
    return revised(snapshot, tools=tuple(tools))


def test_an_identical_rebuild_reuses_the_index_and_touches_nothing(
    site: tuple[PortalConfig, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    config, source = site
    build(config, from_file=source)
    out = Path(config.out)
    first = staged_files(out)
    entry = out / search.ENTRY
    inode = entry.stat().st_ino
    assert len(records(Path(str(config.cache)), "search")) == 1

    def never(*_: object) -> None:
        raise AssertionError("Pagefind ran although no indexed page changed")

    monkeypatch.setattr(search, "_pagefind", never)
    progress = Progress(io.StringIO(), bars=False)
    build(config, from_file=source, progress=progress)
    assert "index: no indexed page changed, so the previous site's search index was reused" in progress.lines
    assert staged_files(out) == first
    assert entry.stat().st_ino == inode  # left where it was, not written again
    assert len(records(Path(str(config.cache)), "search")) == 1


def test_a_changed_page_runs_pagefind_and_gives_what_a_cold_build_gives(
    site: tuple[PortalConfig, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, source = site
    build(config, from_file=source)
    changed = _with_description(DEMO, "search_chat", "Finds conversations by a zebraword.")
    source.write_text(changed.to_json(), encoding="utf-8")
    runs = _runs(monkeypatch)
    progress = Progress(io.StringIO(), bars=False)
    build(config, from_file=source, progress=progress)
    assert runs == [1]
    assert not any("reused" in line for line in progress.lines)
    cold = dataclasses.replace(config, out=str(tmp_path / "cold"), use_cache=False)
    build(cold, from_file=source)
    assert staged_files(Path(config.out)) == staged_files(tmp_path / "cold")
    assert len(records(Path(str(config.cache)), "search")) == 1  # the old record is pruned


@pytest.mark.parametrize("damage", ["record", "edited index file", "removed index file", "no cache"])
def test_a_record_or_index_that_does_not_check_out_runs_pagefind_again(
    site: tuple[PortalConfig, Path], monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    config, source = site
    build(config, from_file=source)
    out, cache = Path(config.out), Path(str(config.cache))
    first = staged_files(out)
    ((record, _, header),) = records(cache, "search")
    if damage == "record":
        set_header(cache, record, {"filez": header["files"]}, rehash=False)  # its own sha256 no longer matches
    elif damage == "edited index file":
        (out / search.ENTRY).write_text("{}", encoding="utf-8")
    elif damage == "removed index file":
        next((out / "pagefind" / "fragment").iterdir()).unlink()
    else:
        config = dataclasses.replace(config, use_cache=False)
    runs = _runs(monkeypatch)
    build(config, from_file=source)
    assert runs == [1]
    assert staged_files(out) == first


def test_the_key_covers_exactly_the_pages_pagefind_reads() -> None:
    hashes = {
        "index.html": "a",  # the entry page only redirects: never indexed
        "en/index.html": "b",
        "en/tools/x/index.html": "c",
        "en/tools/x.md": "d",
        "en/404.html": "e",
        "en/llms.txt": "f",
    }
    assert sorted(p for p in hashes if search.indexed(p)) == ["en/index.html", "en/tools/x/index.html"]
    key = search.search_key(hashes)
    assert key is not None
    for path in ("index.html", "en/tools/x.md", "en/404.html", "en/llms.txt"):
        assert search.search_key(hashes | {path: "changed"}) == key, path
    for path in ("en/index.html", "en/tools/x/index.html", "ru/tools/y/index.html"):
        assert search.search_key(hashes | {path: "changed"}) != key, path


def test_the_key_changes_with_pagefind_and_its_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    hashes = {"en/index.html": "b"}
    key = search.search_key(hashes)
    monkeypatch.setattr(search, "_pagefind_version", lambda: "9.9.9 9.9.9")
    assert search.search_key(hashes) not in (key, None)
    monkeypatch.setattr(search, "_pagefind_version", lambda: None)
    assert search.search_key(hashes) is None  # an unknown Pagefind is never trusted to match
    monkeypatch.undo()
    monkeypatch.setattr(search, "CONFIG", search.CONFIG | {"exclude_selectors": []})
    assert search.search_key(hashes) != key
    monkeypatch.undo()
    monkeypatch.setattr(search_parts, "PART_PAGES", 2)  # the same pages, indexed in other parts
    assert search.search_key(hashes) != key


def test_the_record_lists_only_the_index_files(site: tuple[PortalConfig, Path]) -> None:
    config, source = site
    build(config, from_file=source)
    ((_, _, header),) = records(Path(str(config.cache)), "search")
    files = header["files"]
    on_disk = {p for p in staged_files(Path(config.out)) if p.startswith("pagefind/")}
    assert set(files) == on_disk
