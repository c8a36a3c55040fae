"""The render cache can cost time, never bytes: cold, warm, damaged and stale caches give the same site."""

from __future__ import annotations

import copy
import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import pytest

import generator.site.assemble
from generator.cache.pages import Pages
from generator.cache.reuse import Warm
from generator.commands.build import build, site_files
from generator.commands.demo_portal import demo_config
from generator.config.portal import PortalConfig
from generator.render.rendered import RenderedGroup
from generator.site.assemble import staged_files
from generator.site.job import Job
from generator.snapshot.snapshot import Snapshot, load_snapshot, revised
from tests.cache_db import builds, delete_blobs, flip_blob, records, set_header
from tests.conftest import TEMPLATES

GOLDEN = Path(__file__).parent / "golden"
DEMO = load_snapshot(GOLDEN / "demo.snapshot.json")


def _warm() -> Warm:
    """What a build here keeps: this test process's compiled templates (tests/conftest.py)."""
    return Warm(renderer=TEMPLATES)


def _config(tmp_path: Path, **changes: Any) -> PortalConfig:
    overlays = tmp_path / "overlays"
    overlays.mkdir(exist_ok=True)
    # search_chat's page summarises the two tools it is related to: their changes must reach it.
    (overlays / "search_chat.yaml").write_text("tool: search_chat\nrelated: [my_capabilities, file_defect]\n")
    return dataclasses.replace(demo_config(PortalConfig(search=False)), overlays_dir=str(overlays), **changes)


def _with_tool(snapshot: Snapshot, name: str, change: str) -> Snapshot:
    tools = [copy.deepcopy(dict(t)) for t in snapshot.tools]
    tool = next(t for t in tools if t["name"] == name)
    if change == "description":
        # The first sentence: it is the summary that a related tool's page shows.
        tool["description"] = "Now also finds threads. " + str(tool.get("description", ""))
    elif change == "title":
        tool["title"] = "Renamed"
    elif change == "annotations":
        tool["annotations"] = {**tool.get("annotations", {}), "readOnlyHint": False, "destructiveHint": True}
    elif change == "schema":
        schema = tool["inputSchema"]
        schema["properties"] = {**schema.get("properties", {}), "extra": {"type": "integer", "minimum": 3}}
    elif change == "key order":
        # The same JSON with its keys in another order: pages list parameters in the server's order,
        # and snapshot.json keeps it. (Sorted-key hashes saw no change here, and served stale pages.)
        schema = tool["inputSchema"]
        schema["properties"] = dict(reversed(list(schema.get("properties", {}).items())))
        tools[tools.index(tool)] = dict(reversed(list(tool.items())))
    return revised(snapshot, tools=tuple(tools))


def test_a_warm_cache_renders_nothing_and_gives_the_same_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config, cache = _config(tmp_path), tmp_path / "cache"
    cold, cold_warnings = site_files(DEMO, config, renderer=TEMPLATES)
    first, _ = site_files(DEMO, config, cache=cache, renderer=TEMPLATES)
    assert first == cold
    assert len(records(cache, "pages")) == len(DEMO.tools) + 3  # each tool, prompt, resource, template

    render_group = generator.site.assemble._render_group

    def only_site_pages(job: Job, group: int) -> RenderedGroup:
        # The tool list, connecting, changes and API pages are made from the whole site: always rendered.
        first = job.plan.pages[job.plan.groups[group][0]]
        if first.doc is not None:
            raise AssertionError(f"a warm cache rendered {first.html_path}")
        return render_group(job, group)

    monkeypatch.setattr(generator.site.assemble, "_render_group", only_site_pages)
    warm, warm_warnings = site_files(DEMO, config, cache=cache, renderer=TEMPLATES)
    assert warm == cold and warm_warnings == cold_warnings


def _damage(cache: Path, record: int, page: int, part: str) -> None:
    """Flip one byte of *part* (``html``, ``md`` or ``full``) of the *page*-th page of the ``pages`` record *record*."""
    count = len(next(h for i, _, h in records(cache, "pages") if i == record)["pages"])
    flip_blob(cache, record, {"full": page, "html": count + 2 * page, "md": count + 2 * page + 1}[part])


def test_a_damaged_cache_is_a_miss(tmp_path: Path) -> None:
    config, cache = _config(tmp_path), tmp_path / "cache"
    cold, _ = site_files(DEMO, config, renderer=TEMPLATES)
    site_files(DEMO, config, cache=cache, renderer=TEMPLATES)
    entries = records(cache, "pages")
    assert len(entries) >= 7
    delete_blobs(cache, entries[0][0])  # its blobs lost
    set_header(cache, entries[1][0], "garbage", rehash=True)  # not a pages record's header
    header = entries[2][2]
    header["pages"][0][0] = "xx/"
    set_header(cache, entries[2][0], header, rehash=False)  # its hash left as it was
    header = entries[3][2]
    header["pages"] = header["pages"][:1]
    set_header(cache, entries[3][0], header, rehash=True)  # not the pages asked for
    _damage(cache, entries[4][0], 0, "html")  # bytes that no longer match their hash
    _damage(cache, entries[5][0], 2, "md")
    _damage(cache, entries[6][0], 1, "full")
    (cache / "notes.txt").write_text("mine")  # a file the cache did not write
    damaged, _ = site_files(DEMO, config, cache=cache, renderer=TEMPLATES)
    assert damaged == cold
    assert (cache / "notes.txt").read_text() == "mine"
    assert len(records(cache, "pages")) == len(DEMO.tools) + 3  # the damaged records were written anew


def test_a_rebuild_links_pages_from_the_previous_site_and_checks_what_it_reads(tmp_path: Path) -> None:
    """Over a previous site, a hit whose page that site holds is a hard link; bytes read from an entry are
    checked, and a damaged one is rendered again even when some of its pages were already placed."""
    out, cache = tmp_path / "site", tmp_path / "cache"
    config = dataclasses.replace(_config(tmp_path), out=str(out), cache=str(cache))
    source = tmp_path / "snapshot.json"
    source.write_text(DEMO.to_json(), encoding="utf-8")
    build(config, from_file=source, warm=_warm())
    cold, _ = site_files(DEMO, config, renderer=TEMPLATES)
    page = out / "en" / "tools" / "search_chat" / "index.html"
    inode = page.stat().st_ino
    entries = {header["pages"][0][0]: rowid for rowid, _, header in records(cache, "pages")}
    _damage(cache, entries["en/tools/search_chat/index.html"], 0, "html")  # the previous site has it: never read
    _damage(cache, entries["en/tools/file_defect/index.html"], 1, "md")  # ru's twin: read, since it is gone below
    (out / "ru" / "tools" / "file_defect.md").unlink()
    build(config, from_file=source, warm=_warm())
    assert page.stat().st_ino == inode  # linked, not written
    rebuilt = staged_files(out)
    assert rebuilt == cold


@pytest.mark.parametrize("change", ["description", "title", "annotations", "schema", "key order"])
@pytest.mark.parametrize("tool", ["search_chat", "my_capabilities", "file_defect"])
def test_a_changed_tool_is_rendered_again_wherever_it_shows(tmp_path: Path, tool: str, change: str) -> None:
    config, cache = _config(tmp_path), tmp_path / "cache"
    site_files(DEMO, config, cache=cache, renderer=TEMPLATES)
    changed = _with_tool(DEMO, tool, change)
    warm, warm_warnings = site_files(changed, config, cache=cache, renderer=TEMPLATES)
    cold, cold_warnings = site_files(changed, config, renderer=TEMPLATES)
    assert warm == cold and warm_warnings == cold_warnings
    assert len(records(cache, "pages")) == len(DEMO.tools) + 3  # the stale entries were pruned


def test_a_theme_or_catalog_change_reaches_every_page(tmp_path: Path) -> None:
    theme, cache = tmp_path / "theme", tmp_path / "cache"
    (theme / "locales").mkdir(parents=True)
    config = _config(tmp_path, template_dir=str(theme))
    site_files(DEMO, config, cache=cache, renderer=TEMPLATES)
    (theme / "locales" / "en.yaml").write_text("tool:\n  related: See also\n", encoding="utf-8")
    warm, _ = site_files(DEMO, config, cache=cache, renderer=TEMPLATES)
    cold, _ = site_files(DEMO, config, renderer=TEMPLATES)
    assert warm == cold
    assert b"See also" in warm["en/tools/search_chat/index.html"]


def test_schema_warnings_come_from_the_cache_in_the_same_order(tmp_path: Path) -> None:
    """A tool's schema warnings are found with its pages, so a warm build repeats them from the cache."""
    config, cache = _config(tmp_path), tmp_path / "cache"
    tools = [copy.deepcopy(dict(t)) for t in DEMO.tools]
    for tool in (tools[1], tools[4]):
        tool["inputSchema"]["properties"]["broken"] = {"$ref": "#/$defs/missing"}
    snapshot = revised(DEMO, tools=tuple(tools))
    cold, cold_warnings = site_files(snapshot, config, renderer=TEMPLATES)
    site_files(snapshot, config, cache=cache, renderer=TEMPLATES)
    warm, warm_warnings = site_files(snapshot, config, cache=cache, renderer=TEMPLATES)
    dangling = [w for w in cold_warnings if "dangling $ref" in w]
    assert [w.split(":")[0] for w in dangling] == [f"tool {tools[1]['name']}", f"tool {tools[4]['name']}"]
    assert warm == cold and warm_warnings == cold_warnings


def test_compiled_templates_are_never_kept(tmp_path: Path) -> None:
    """No compiled code is written to the cache (reading it back would run it): it holds its one database
    (with SQLite's write-ahead log while a connection is open)."""
    config, cache = _config(tmp_path), tmp_path / "cache"
    cold, _ = site_files(DEMO, config, renderer=TEMPLATES)
    assert site_files(DEMO, config, cache=cache, renderer=TEMPLATES)[0] == cold
    assert site_files(DEMO, config, cache=cache, renderer=TEMPLATES)[0] == cold
    names = sorted(p.name for p in cache.iterdir())
    assert names[0] == "cache.sqlite3" and set(names) <= {"cache.sqlite3", "cache.sqlite3-wal", "cache.sqlite3-shm"}


def test_files_nobody_touched_are_not_hashed_again_and_an_edit_is_still_found(tmp_path: Path) -> None:
    """The cache keeps each published file's signature; a hand edit changes it even with mtime restored."""
    out, cache = tmp_path / "site", tmp_path / "cache"
    config = dataclasses.replace(_config(tmp_path), out=str(out), cache=str(cache))
    source = tmp_path / "snapshot.json"
    source.write_text(DEMO.to_json(), encoding="utf-8")
    build(config, from_file=source, warm=_warm())
    ((_, _, record),) = records(cache, "published")
    assert record["site"] == str(out.resolve()) and "en/index.html" in record["files"]
    page = out / "en" / "tools" / "search_chat" / "index.html"
    before, times = page.read_bytes(), page.stat()
    page.write_bytes(before.replace(b"<main", b"<mAin", 1))  # same size
    os.utime(page, ns=(times.st_atime_ns, times.st_mtime_ns))  # and the same modification time
    result = build(config, from_file=source, warm=_warm())
    assert page.read_bytes() == before
    assert any("edited after it was built" in w and "en/tools/search_chat/index.html" in w for w in result.warnings)
    assert staged_files(out) == site_files(DEMO, config, renderer=TEMPLATES)[0]


def test_snapshot_json_is_kept_when_it_did_not_change_and_replaced_when_it_did(tmp_path: Path) -> None:
    """snapshot.json is written a tool at a time (never whole in memory); an identical rebuild still
    leaves the previous copy in place, and a changed snapshot still replaces it."""
    out, cache = tmp_path / "site", tmp_path / "cache"
    config = dataclasses.replace(_config(tmp_path), out=str(out), cache=str(cache))
    source = tmp_path / "snapshot.json"
    source.write_text(DEMO.to_json(), encoding="utf-8")
    build(config, from_file=source, warm=_warm())
    written = out / "snapshot.json"
    inode = written.stat().st_ino
    assert written.read_bytes() == source.read_bytes()
    build(config, from_file=source, warm=_warm())
    assert written.stat().st_ino == inode
    changed = _with_tool(DEMO, "file_defect", "title")
    source.write_text(changed.to_json(), encoding="utf-8")
    build(config, from_file=source, warm=_warm())
    assert written.read_bytes() == source.read_bytes()
    assert staged_files(out) == site_files(changed, config, renderer=TEMPLATES)[0]


def test_a_reordered_schema_reaches_its_pages_and_snapshot_json(tmp_path: Path) -> None:
    """The key-order change above is a real change: the warm rebuild lists the parameters anew."""
    config, cache = _config(tmp_path), tmp_path / "cache"
    site_files(DEMO, config, cache=cache, renderer=TEMPLATES)
    changed = _with_tool(DEMO, "search_chat", "key order")
    assert changed.fingerprint == DEMO.fingerprint  # the fingerprint hashes sorted keys: it cannot tell
    warm, _ = site_files(changed, config, cache=cache, renderer=TEMPLATES)
    names = list(next(t for t in changed.tools if t["name"] == "search_chat")["inputSchema"]["properties"])
    rows = [line.split("`")[1] for line in warm["en/tools/search_chat.md"].decode("utf-8").splitlines()
            if line.startswith("| `") and line.split("`")[1] in names]  # fmt: skip
    assert rows[: len(names)] == names and names[0] == "limit"  # the input table, in the new order
    assert warm["snapshot.json"] == changed.to_json().encode("utf-8")


def test_the_signatures_recorded_after_an_in_place_publish_are_the_files_own(tmp_path: Path) -> None:
    """After a change published in place, the untouched files' signatures are carried over, not taken
    again; every one must still be the file's own, or the next build would hash (or trust) wrongly."""
    out, cache = tmp_path / "site", tmp_path / "cache"
    config = dataclasses.replace(_config(tmp_path), out=str(out), cache=str(cache))
    source = tmp_path / "snapshot.json"
    source.write_text(DEMO.to_json(), encoding="utf-8")
    build(config, from_file=source, warm=_warm())
    before = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["files"]
    inodes = {path: (out / path).stat().st_ino for path in before}
    source.write_text(_with_tool(DEMO, "file_defect", "title").to_json(), encoding="utf-8")
    build(config, from_file=source, warm=_warm())
    after = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["files"]
    same = [path for path in after if before.get(path) == after[path]]
    assert 0 < len(same) < len(after)
    assert all((out / path).stat().st_ino == inodes[path] for path in same)  # published in place
    record = records(cache, "published")[0][2]["files"]
    assert record.keys() == set(after) | {"manifest.json"}
    for path, signature in record.items():
        info = os.lstat(out / path)
        assert signature == [info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns], path


def test_an_identical_rebuild_replaces_no_file(tmp_path: Path) -> None:
    """Over its own site with a warm cache, the same build replaces no file: the pages, the site-wide
    files and the files written whole from parts (each locale's llms-full.txt, snapshot.json) alike."""
    out, cache = tmp_path / "site", tmp_path / "cache"
    config = dataclasses.replace(_config(tmp_path), out=str(out), cache=str(cache))
    source = tmp_path / "snapshot.json"
    source.write_text(DEMO.to_json(), encoding="utf-8")
    build(config, from_file=source, warm=_warm())
    inodes = {p: (out / p).stat().st_ino for p in staged_files(out)}
    assert {"en/llms-full.txt", "ar/llms-full.txt", "snapshot.json"} <= inodes.keys()
    build(config, from_file=source, warm=_warm())
    assert {p: (out / p).stat().st_ino for p in staged_files(out)} == inodes


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_rebuild_over_its_own_site_takes_each_unchanged_group_from_its_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    """A rebuild after one tool changed takes every other group's pages from its ``pages`` record (the
    changed tool's and search_chat's, whose page sums up the tools it is related to, are rendered). An
    llms-full.txt edited by hand, or a damaged blob, costs no byte: the site is the cold build's every time."""
    out, cache = tmp_path / "site", tmp_path / "cache"
    config = dataclasses.replace(_config(tmp_path), out=str(out), cache=str(cache))
    source = tmp_path / "snapshot.json"
    changed = _with_tool(DEMO, "file_defect", "description")
    cold = site_files(changed, config, renderer=TEMPLATES)[0]
    opened: list[str] = []
    real = Pages._recorded

    def counted(self: Pages, site: Any, record: Any, pages: Any) -> Any:
        opened.append(pages[0].html_path)
        return real(self, site, record, pages)

    monkeypatch.setattr(Pages, "_recorded", counted)
    for damage in ("none", "llms-full.txt edited", "a blob flipped"):
        source.write_text(DEMO.to_json(), encoding="utf-8")
        build(config, from_file=source, warm=_warm())
        recorded = records(cache, "pages")
        if damage == "llms-full.txt edited":
            full = out / "ru" / "llms-full.txt"
            full.write_bytes(full.read_bytes().replace(b"search_chat", b"search_chaT", 1))
        elif damage == "a blob flipped":
            _damage(cache, recorded[0][0], 0, "full")
        opened.clear()
        source.write_text(changed.to_json(), encoding="utf-8")
        build(config, from_file=source, jobs=jobs, warm=_warm())
        assert staged_files(out) == cold, damage
        if jobs == 1:  # the forked workers count in their own memory
            assert len(opened) == len(recorded) - 2, damage
            assert not any("/file_defect/" in p or "/search_chat/" in p for p in opened), damage


def test_a_watch_commits_the_cache_after_its_site_and_a_record_damaged_since_costs_no_byte(tmp_path: Path) -> None:
    """``build --watch`` leaves the cache's bookkeeping until after its "Built" line (the *later* calls);
    a record damaged on disk between two builds is read, found wanting, and costs time, not a byte."""

    warm = Warm()
    out, cache = tmp_path / "site", tmp_path / "cache"
    config = dataclasses.replace(_config(tmp_path), out=str(out), cache=str(cache))
    source = tmp_path / "snapshot.json"
    changed = _with_tool(DEMO, "file_defect", "description")
    for snapshot, damage in ((DEMO, ""), (changed, ""), (DEMO, "published"), (changed, "pages")):
        if damage:
            ((record, _, _), *_) = records(cache, damage)
            set_header(cache, record, {}, rehash=False)
        later: list[Any] = []
        source.write_text(snapshot.to_json(), encoding="utf-8")
        build(config, from_file=source, later=later, warm=warm)
        assert builds(cache) - {""}  # not committed yet: that waits for the caller
        for finish in later:
            finish()
        assert builds(cache) == {""}
        assert staged_files(out) == site_files(snapshot, config, renderer=TEMPLATES)[0]


def test_a_watch_reads_each_tools_key_once_and_a_revised_snapshot_computes_them_again(tmp_path: Path) -> None:
    """The keys a watch's reader made for its memory are the snapshot's tool keys; a snapshot revised from
    it (other tools) has the keys of its own tools, never the ones it was revised from."""
    from generator.snapshot.remembered import ToolMemory
    from generator.snapshot.snapshot import raw_digest

    source = tmp_path / "snapshot.json"
    source.write_text(DEMO.to_json(), encoding="utf-8")
    read = load_snapshot(source, ToolMemory())  # a watch's reader: it hands its keys over
    assert read.digests and read.tool_keys == tuple(map(raw_digest, read.tools))
    changed = _with_tool(read, "file_defect", "description")
    assert changed.digests == () and changed.tool_keys == tuple(map(raw_digest, changed.tools))
    assert changed.tool_keys != read.tool_keys
