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

from generator.cache import reuse
from generator.cache.reuse import ListRows
from generator.cache.store import Store
from generator.commands.build import site_files
from generator.commands.demo_portal import demo_config
from generator.config.portal import PortalConfig
from generator.snapshot.snapshot import Snapshot, load_snapshot, revised
from tests.cache_db import blobs, flip_blob, opened, records, set_blob, set_header
from tests.conftest import TEMPLATES

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
    real = reuse.RowMemo.row

    def counted(
        self: reuse.RowMemo, where: str, kept: Any, name: str, make: Callable[[], str], marks: list[int] | None
    ) -> str:
        def making() -> str:
            written.append(name)
            return make()

        return real(self, where, kept, name, making, marks)

    monkeypatch.setattr(reuse.RowMemo, "row", counted)
    return written


def test_a_rebuild_writes_only_the_changed_tools_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config, cache = _config(), tmp_path / "cache"
    site_files(DEMO, config, cache=cache, renderer=TEMPLATES)
    changed = _edited(DEMO, lambda t: t.update(description="Finds threads. " + t["description"]), "file_defect")
    written = _rows_written(monkeypatch)
    warm, _ = site_files(changed, config, cache=cache, renderer=TEMPLATES)
    # In each of three locales the HTML list, the twin's and its copy's in llms-full.txt (whose links
    # differ); then the root llms.txt's first section and each locale's llms.txt.
    assert written == ["file_defect"] * 13
    written.clear()
    again, _ = site_files(changed, config, cache=cache, renderer=TEMPLATES)
    assert written == []
    assert warm == again == site_files(changed, config, renderer=TEMPLATES)[0]


def test_a_column_that_one_tool_turns_off_reaches_every_row(tmp_path: Path) -> None:
    """The scope column shows while any tool has a scope: the last one losing it changes every row."""
    others = [t["name"] for t in DEMO.tools if t["name"] != "file_defect"]
    before = _edited(DEMO, _unscoped, *others)
    after = _edited(before, _unscoped, "file_defect")
    config, cache = _config(), tmp_path / "cache"
    first, _ = site_files(before, config, cache=cache, renderer=TEMPLATES)
    assert b'data-label="Requires"' in first["en/index.html"]
    warm, _ = site_files(after, config, cache=cache, renderer=TEMPLATES)
    cold, _ = site_files(after, config, renderer=TEMPLATES)
    assert b'data-label="Requires"' not in cold["en/index.html"]
    assert warm == cold


def test_a_damaged_record_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config, cache = _config(), tmp_path / "cache"
    cold, _ = site_files(DEMO, config, renderer=TEMPLATES)
    site_files(DEMO, config, cache=cache, renderer=TEMPLATES)
    ((record, site, header),) = records(cache, "rows")
    sound = blobs(cache, record)
    # Per locale the HTML list, the twin's and its llms-full copy's, and four llms.txt: a blob each.
    assert len(sound) == 13
    wrong_types = json.dumps({key: ["one", "row"] for key in json.loads(sound[0])}).encode()
    damages: list[Callable[[int], None]] = [
        lambda r: flip_blob(cache, r, 0),  # a row edited, its hash left as it was
        lambda r: set_blob(cache, r, 0, wrong_types, rehash=True),  # checks out, but a row is not [links, text]
        lambda r: set_header(cache, r, {"lists": header["lists"][:-1]}, rehash=True),  # not a list a blob
        lambda r: set_header(cache, r, {"lists": [[n, w] for w, n in header["lists"]]}, rehash=True),
        lambda r: set_header(cache, r, header | {"lists": header["lists"][::-1]}, rehash=False),  # hash left
    ]
    for damage in damages:
        ((record, _, _),) = records(cache, "rows")
        damage(record)
        written = _rows_written(monkeypatch)
        warm, _ = site_files(DEMO, config, cache=cache, renderer=TEMPLATES)
        assert warm == cold
        assert written  # rows were written again
        monkeypatch.undo()
    # The last build rewrote a whole record: the next one writes no row.
    written = _rows_written(monkeypatch)
    assert site_files(DEMO, config, cache=cache, renderer=TEMPLATES)[0] == cold
    assert written == []
    with opened(cache) as db:  # a record of another site is not this one's
        db.execute("UPDATE record SET key = ? WHERE kind = 'rows'", ("0" * 64,))
    written = _rows_written(monkeypatch)
    assert site_files(DEMO, config, cache=cache, renderer=TEMPLATES)[0] == cold
    assert len(written) >= len(DEMO.tools)
    assert [key for _, key, _ in records(cache, "rows")] == [site]


def test_without_a_cache_every_row_is_written(monkeypatch: pytest.MonkeyPatch) -> None:
    written = _rows_written(monkeypatch)
    site_files(DEMO, _config())
    assert written == []  # no memo at all: the lists are written directly


def test_a_list_changed_after_the_record_was_checked_is_a_miss(tmp_path: Path) -> None:
    """The record's header is checked when it is opened, and each list when it is parsed (perhaps much later)."""
    store = Store(tmp_path)
    rows = {"k1": [0, "<tr>one</tr>"], "k2": [0, "<tr>two</tr>"]}
    assert store.put("rows", "site", {"lists": [["list", 2]]}, [json.dumps(rows).encode()])
    store.commit({"site"}, drop="rows-part")
    record = store.get("rows", "site")
    assert record is not None
    kept = ListRows(store, record)
    assert kept.counts == {"list": 2}
    assert kept["list"] == {"k1": (0, "<tr>one</tr>"), "k2": (0, "<tr>two</tr>")}
    set_blob(tmp_path, record.id, 0, json.dumps(rows).replace("one", "One").encode(), rehash=False)
    assert kept["list"] == {}
    assert store.get("rows", "site") is not None  # the header still checks out: the list does not
    assert store.get("rows", "another site") is None
    store.close()


def _more_tools(snapshot: Snapshot, copies: int) -> Snapshot:
    """*snapshot* with *copies* more tools: copies of its tools under new names (for lists of 8 rows and more)."""
    tools = [dict(t) for t in snapshot.tools]
    tools += [{**copy.deepcopy(dict(t)), "name": f"{t['name']}_copy"} for t in snapshot.tools[:copies]]
    return revised(snapshot, tools=tuple(tools))


def _rows_kept(cache: Path) -> dict[str, int]:
    """List -> how many rows the cache's record holds for it."""
    ((_, _, header),) = records(cache, "rows")
    counts: dict[str, int] = {}
    for where, count in header["lists"]:
        counts[where] = counts.get(where, 0) + count
    return counts


def test_unused_rows_are_copied_until_one_in_eight_then_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A one-tool change copies each list's lines with the old row in them; more unused rows are dropped."""
    config, cache = _config(), tmp_path / "cache"
    first = _more_tools(DEMO, 6)  # 12 tools: a list of 12 rows may carry one unused (1 in 8)
    site_files(first, config, cache=cache, renderer=TEMPLATES)
    assert set(_rows_kept(cache).values()) == {12}

    def described(snapshot: Snapshot, *names: str) -> Snapshot:
        return _edited(snapshot, lambda t: t.update(description="Changed. " + t["description"]), *names)

    one = described(first, "file_defect")
    copied = ListRows.pieces
    calls: list[str] = []

    def copying(self: ListRows, where: str) -> list[tuple[tuple[int, int], int]]:
        calls.append(where)
        return copied(self, where)

    monkeypatch.setattr(ListRows, "pieces", copying)
    assert site_files(one, config, cache=cache, renderer=TEMPLATES)[0] == site_files(one, config, renderer=TEMPLATES)[0]
    assert len(calls) == 13 and set(_rows_kept(cache).values()) == {13}  # every list copied, the old row kept
    written = _rows_written(monkeypatch)
    assert (
        site_files(first, config, cache=cache, renderer=TEMPLATES)[0]
        == site_files(first, config, renderer=TEMPLATES)[0]
    )
    assert written == []  # back to the old description: its rows were still there
    assert set(_rows_kept(cache).values()) == {13}  # and the record stayed as it was
    calls.clear()
    three = described(first, "file_defect", "search_chat", "my_capabilities")
    assert (
        site_files(three, config, cache=cache, renderer=TEMPLATES)[0]
        == site_files(three, config, renderer=TEMPLATES)[0]
    )
    assert calls == [] and set(_rows_kept(cache).values()) == {12}  # 4 unused of 13: written without them
