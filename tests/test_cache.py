"""The render cache can cost time, never bytes: cold, warm, damaged and stale caches give the same site."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

import generator.publish.assemble
from generator.commands.build import site_files
from generator.commands.demo_portal import demo_config
from generator.config.portal import PortalConfig
from generator.publish.assemble import Job
from generator.publish.cache import Entry
from generator.snapshot.snapshot import Snapshot, load_snapshot

GOLDEN = Path(__file__).parent / "golden"
DEMO = load_snapshot(GOLDEN / "demo.snapshot.json")


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
    return dataclasses.replace(snapshot, tools=tuple(tools), fingerprint="")  # the fingerprint is recomputed


def test_a_warm_cache_renders_nothing_and_gives_the_same_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config, cache = _config(tmp_path), tmp_path / "cache"
    cold, cold_warnings = site_files(DEMO, config)
    first, _ = site_files(DEMO, config, cache=cache)
    assert first == cold
    assert len(list(cache.glob("*.json"))) == len(DEMO.tools) + 3  # each tool, prompt, resource, template

    render_group = generator.publish.assemble._render_group

    def only_site_pages(job: Job, indexes: list[int]) -> Entry:
        # The tool list, connecting, changes and API pages are made from the whole site: always rendered.
        if job.pages[indexes[0]].doc is not None:
            raise AssertionError(f"a warm cache rendered {job.pages[indexes[0]].html_path}")
        return render_group(job, indexes)

    monkeypatch.setattr(generator.publish.assemble, "_render_group", only_site_pages)
    warm, warm_warnings = site_files(DEMO, config, cache=cache)
    assert warm == cold and warm_warnings == cold_warnings


def test_a_damaged_cache_is_a_miss(tmp_path: Path) -> None:
    config, cache = _config(tmp_path), tmp_path / "cache"
    cold, _ = site_files(DEMO, config)
    site_files(DEMO, config, cache=cache)
    entries = sorted(cache.glob("*.json"))
    entries[0].write_bytes(entries[0].read_bytes()[:100])  # cut short
    entries[1].write_bytes(b"\x00garbage")  # not JSON
    data = json.loads(entries[2].read_bytes())  # valid JSON, but its content was edited
    data["body"]["pages"][0][1] = data["body"]["pages"][0][1].replace("<main", "<main data-evil")
    entries[2].write_text(json.dumps(data), encoding="utf-8")
    data = json.loads(entries[3].read_bytes())  # edited and re-hashed: still not the pages asked for
    data["body"]["pages"] = data["body"]["pages"][:1]
    entries[3].write_text(json.dumps(data), encoding="utf-8")
    (cache / "notes.txt").write_text("mine")  # a file the cache did not write
    damaged, _ = site_files(DEMO, config, cache=cache)
    assert damaged == cold
    assert (cache / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("change", ["description", "title", "annotations", "schema"])
@pytest.mark.parametrize("tool", ["search_chat", "my_capabilities", "file_defect"])
def test_a_changed_tool_is_rendered_again_wherever_it_shows(tmp_path: Path, tool: str, change: str) -> None:
    config, cache = _config(tmp_path), tmp_path / "cache"
    site_files(DEMO, config, cache=cache)
    changed = _with_tool(DEMO, tool, change)
    warm, warm_warnings = site_files(changed, config, cache=cache)
    cold, cold_warnings = site_files(changed, config)
    assert warm == cold and warm_warnings == cold_warnings
    assert len(list(cache.glob("*.json"))) == len(DEMO.tools) + 3  # the stale entries were pruned


def test_a_theme_or_catalog_change_reaches_every_page(tmp_path: Path) -> None:
    theme, cache = tmp_path / "theme", tmp_path / "cache"
    (theme / "locales").mkdir(parents=True)
    config = _config(tmp_path, template_dir=str(theme))
    site_files(DEMO, config, cache=cache)
    (theme / "locales" / "en.yaml").write_text("tool:\n  related: See also\n", encoding="utf-8")
    warm, _ = site_files(DEMO, config, cache=cache)
    cold, _ = site_files(DEMO, config)
    assert warm == cold
    assert b"See also" in warm["en/tools/search_chat/index.html"]
