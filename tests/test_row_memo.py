"""The rows of the site-wide lists (tool lists, llms.txt lines) kept between builds: they save time, never change bytes.

Every build here is a real one of the demo snapshot; the cold build (no cache) is the reference.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from generator.cache import rows as list_rows
from generator.cache.record import read_record, write_record
from generator.commands.build import site_files
from generator.commands.demo_portal import demo_config
from generator.config.portal import PortalConfig
from generator.render import listings
from generator.snapshot.snapshot import Snapshot, load_snapshot, revised

DEMO = load_snapshot(Path(__file__).parent / "golden" / "demo.snapshot.json")
SCOPE = "teamspace.example/capability"


def _config() -> PortalConfig:
    return demo_config(PortalConfig(search=False))


def _edited(snapshot: Snapshot, edit: Callable[[dict[str, Any]], None], *names: str) -> Snapshot:
    tools = [copy.deepcopy(dict(t)) for t in snapshot.tools]
    for tool in tools:
        if tool["name"] in names:
            edit(tool)
    return revised(snapshot, tools=tuple(tools))


def _unscoped(tool: dict[str, Any]) -> None:
    tool.get("_meta", {}).pop(SCOPE, None)


def _rows_written(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The tools whose rows are written (not taken from the cache) from now on, one name per row."""
    written: list[str] = []
    real = listings.RowMemo.row

    def counted(
        self: listings.RowMemo, where: str, kept: Any, name: str, make: Callable[[], str], marks: list[int] | None
    ) -> str:
        def making() -> str:
            written.append(name)
            return make()

        return real(self, where, kept, name, making, marks)

    monkeypatch.setattr(listings.RowMemo, "row", counted)
    return written


def test_a_rebuild_writes_only_the_changed_tools_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config, cache = _config(), tmp_path / "cache"
    site_files(DEMO, config, cache=cache)
    changed = _edited(DEMO, lambda t: t.update(description="Finds threads. " + t["description"]), "file_defect")
    written = _rows_written(monkeypatch)
    warm, _ = site_files(changed, config, cache=cache)
    # In each of three locales the HTML list, the twin's and its copy's in llms-full.txt (whose links
    # differ); then the root llms.txt's first section and each locale's llms.txt.
    assert written == ["file_defect"] * 13
    written.clear()
    again, _ = site_files(changed, config, cache=cache)
    assert written == []
    assert warm == again == site_files(changed, config)[0]


def test_a_column_that_one_tool_turns_off_reaches_every_row(tmp_path: Path) -> None:
    """The scope column shows while any tool has a scope: the last one losing it changes every row."""
    others = [t["name"] for t in DEMO.tools if t["name"] != "file_defect"]
    before = _edited(DEMO, _unscoped, *others)
    after = _edited(before, _unscoped, "file_defect")
    config, cache = _config(), tmp_path / "cache"
    first, _ = site_files(before, config, cache=cache)
    assert b'data-label="Requires"' in first["en/index.html"]
    warm, _ = site_files(after, config, cache=cache)
    cold, _ = site_files(after, config)
    assert b'data-label="Requires"' not in cold["en/index.html"]
    assert warm == cold


def test_a_damaged_record_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config, cache = _config(), tmp_path / "cache"
    cold, _ = site_files(DEMO, config)
    site_files(DEMO, config, cache=cache)
    (record,) = cache.glob("*.rows")
    data, site = record.read_bytes(), record.stem
    read = read_record(record, "rows", site)
    assert read is not None
    blobs = [read.read(blob) or b"" for blob in read.blobs]
    # Per locale the HTML list, the twin's and its llms-full copy's, and four llms.txt: a blob each.
    assert len(blobs) == 13

    def written_as(kind: str, key: str, first: bytes) -> bytes:
        """A record that checks out, with *first* as its first blob: only what it says is wrong."""
        write_record(record, kind, key, read.header, [first, *blobs[1:]])
        return record.read_bytes()

    wrong_types = json.dumps({key: ["one", "row"] for key in json.loads(blobs[0])}).encode()
    damaged = [
        data[: len(data) // 2],  # cut short
        data[: data.rindex(b"\n", 0, -1) + 1],  # the header's sha256 line lost
        data.replace(b"<tr>", b"<tR>", 1),  # a row edited, the hash left as it was
        written_as("rows", site, wrong_types),  # checks out, but a row is not [links, text]
        written_as("rows", "0" * 64, blobs[0]),  # checks out, but made for another site
        written_as("search", site, blobs[0]),  # another kind of record
    ]
    for bad in damaged:
        record.write_bytes(bad)
        written = _rows_written(monkeypatch)
        warm, _ = site_files(DEMO, config, cache=cache)
        assert warm == cold
        assert written  # every row was written again
        monkeypatch.undo()
    # The last build rewrote a whole record: the next one writes no row.
    written = _rows_written(monkeypatch)
    assert site_files(DEMO, config, cache=cache)[0] == cold
    assert written == []


def test_without_a_cache_every_row_is_written(monkeypatch: pytest.MonkeyPatch) -> None:
    written = _rows_written(monkeypatch)
    site_files(DEMO, _config())
    assert written == []  # no memo at all: the lists are written directly


def test_a_list_changed_after_the_record_was_checked_is_a_miss(tmp_path: Path) -> None:
    """The record's header is checked when it is opened, and each list when it is parsed (perhaps much later)."""
    path = tmp_path / "site.rows"
    rows = {"k1": [0, "<tr>one</tr>"], "k2": [0, "<tr>two</tr>"]}
    write_record(path, "rows", "site", {"lists": [["list", 2]]}, [json.dumps(rows).encode()])
    kept = list_rows.read_rows(path, "site")
    assert kept is not None and kept.counts == {"list": 2}
    assert kept["list"] == {"k1": (0, "<tr>one</tr>"), "k2": (0, "<tr>two</tr>")}
    path.write_bytes(path.read_bytes().replace(b"one", b"One"))
    assert kept["list"] == {}
    assert list_rows.read_rows(path, "site") is not None  # the header still checks out: the list does not
    assert list_rows.read_rows(path, "another site") is None


def _more_tools(snapshot: Snapshot, copies: int) -> Snapshot:
    """*snapshot* with *copies* more tools: copies of its tools under new names (for lists of 8 rows and more)."""
    tools = [dict(t) for t in snapshot.tools]
    tools += [{**copy.deepcopy(dict(t)), "name": f"{t['name']}_copy"} for t in snapshot.tools[:copies]]
    return revised(snapshot, tools=tuple(tools))


def _rows_kept(cache: Path) -> dict[str, int]:
    """List -> how many rows the cache's record holds for it."""
    (record,) = cache.glob("*.rows")
    kept = list_rows.read_rows(record, record.stem)
    assert kept is not None
    return kept.counts


def test_unused_rows_are_copied_until_one_in_eight_then_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A one-tool change copies each list's lines with the old row in them; more unused rows are dropped."""
    config, cache = _config(), tmp_path / "cache"
    first = _more_tools(DEMO, 6)  # 12 tools: a list of 12 rows may carry one unused (1 in 8)
    site_files(first, config, cache=cache)
    assert set(_rows_kept(cache).values()) == {12}

    def described(snapshot: Snapshot, *names: str) -> Snapshot:
        return _edited(snapshot, lambda t: t.update(description="Changed. " + t["description"]), *names)

    one = described(first, "file_defect")
    copied = list_rows.ListRows.blobs
    calls: list[str] = []

    def copying(self: list_rows.ListRows, where: str) -> list[tuple[bytes, int]] | None:
        calls.append(where)
        return copied(self, where)

    monkeypatch.setattr(list_rows.ListRows, "blobs", copying)
    assert site_files(one, config, cache=cache)[0] == site_files(one, config)[0]
    assert len(calls) == 13 and set(_rows_kept(cache).values()) == {13}  # every list copied, the old row kept
    written = _rows_written(monkeypatch)
    assert site_files(first, config, cache=cache)[0] == site_files(first, config)[0]
    assert written == []  # back to the old description: its rows were still there
    assert set(_rows_kept(cache).values()) == {13}  # and the record stayed as it was
    calls.clear()
    three = described(first, "file_defect", "search_chat", "my_capabilities")
    assert site_files(three, config, cache=cache)[0] == site_files(three, config)[0]
    assert calls == [] and set(_rows_kept(cache).values()) == {12}  # 4 unused of 13: written without them
