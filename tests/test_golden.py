"""The demo portal, and server-everything's tool twins, byte for byte, against reviewed golden files.

Regenerate after an intended change with ``scripts/update-golden`` and review the diff.
"""

from __future__ import annotations

import difflib
import json

import pytest

from generator.model.gather import gather
from generator.snapshot.snapshot import load_snapshot
from tests.conftest import TEMPLATES, node_bin
from tests.golden_tool import (
    EVERYTHING_MODEL,
    EVERYTHING_SNAPSHOT,
    MODEL,
    PAGES,
    SITE,
    SNAPSHOT,
    demo_config,
    dump_model,
    everything_config,
    everything_snapshot,
    golden_files,
    live_snapshot,
)

HINT = "If the change is intended, run scripts/update-golden and review `git diff tests/golden`."


def _diff(expected: str, actual: str, name: str) -> str:
    lines = difflib.unified_diff(
        expected.splitlines(), actual.splitlines(), f"golden/{name}", "built", lineterm="", n=2
    )
    return "\n".join(list(lines)[:60])


def test_demo_server_still_matches_its_golden_snapshot() -> None:
    live = json.loads(live_snapshot().to_json())
    golden = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert live == golden, "the demo server's tools changed. " + HINT


def test_model_dump_matches_golden() -> None:
    snapshot = load_snapshot(SNAPSHOT)
    actual = dump_model(gather(snapshot, demo_config()).model)
    expected = MODEL.read_text(encoding="utf-8")
    assert actual == expected, _diff(expected, actual, MODEL.name) + "\n" + HINT


def test_site_matches_golden_files() -> None:
    built = golden_files(load_snapshot(SNAPSHOT), TEMPLATES)
    on_disk = {p.relative_to(SITE).as_posix(): p.read_bytes() for p in SITE.rglob("*") if p.is_file()}
    assert sorted(on_disk) == sorted(PAGES), "the set of golden files changed. " + HINT
    for path, data in on_disk.items():
        if built[path] != data:
            pytest.fail(
                _diff(data.decode("utf-8", "replace"), built[path].decode("utf-8", "replace"), path) + "\n" + HINT
            )


def test_the_demo_site_has_every_tool_in_every_locale() -> None:
    snapshot = load_snapshot(SNAPSHOT)
    built = golden_files(snapshot, TEMPLATES)
    names = [t["name"] for t in snapshot.tools]
    assert len(names) == 6
    for locale in ("en", "ru", "ar"):
        for name in names:
            assert f"{locale}/tools/{name}/index.html" in built and f"{locale}/tools/{name}.md" in built


# --- @modelcontextprotocol/server-everything (pinned in tests/package.json) ---------------------


def test_everything_model_dump_matches_golden() -> None:
    actual = dump_model(gather(load_snapshot(EVERYTHING_SNAPSHOT), everything_config()).model)
    expected = EVERYTHING_MODEL.read_text(encoding="utf-8")
    assert actual == expected, _diff(expected, actual, EVERYTHING_MODEL.name) + "\n" + HINT


def test_the_everything_snapshot_names_no_machine_path() -> None:
    snapshot = load_snapshot(EVERYTHING_SNAPSHOT)
    names = [t["name"] for t in snapshot.tools]
    assert len(names) >= 10 and "echo" in names and "get-structured-content" in names
    assert snapshot.endpoint == "mcp-server-everything stdio", "the snapshot names a machine-specific path"
    assert "node_modules" not in EVERYTHING_SNAPSHOT.read_text(encoding="utf-8")


@pytest.mark.npm
def test_everything_server_still_matches_its_golden_snapshot() -> None:
    # Two live introspections were byte-identical, so nothing is normalized here. What the tool
    # list depends on, besides the pinned package version: (1) simulate-research-query is
    # registered in the server's `oninitialized` hook, which runs before the first tools/list is
    # answered; (2) get-roots-list, trigger-sampling-request and the elicitation tools appear only
    # when the client declares roots, sampling or elicitation, which our SDK client does not.
    # A change in either shows up as a tool added or removed below, named in the message.
    node_bin("mcp-server-everything")
    live = json.loads(everything_snapshot().to_json())
    golden = json.loads(EVERYTHING_SNAPSHOT.read_text(encoding="utf-8"))
    live_names = [t["name"] for t in live["tools"]]
    golden_names = [t["name"] for t in golden["tools"]]
    assert live_names == golden_names, (
        f"tools added: {sorted(set(live_names) - set(golden_names))}, "
        f"removed: {sorted(set(golden_names) - set(live_names))}, order: {live_names}. " + HINT
    )
    for new, old in zip(live["tools"], golden["tools"], strict=True):
        assert new == old, f"the tool {new['name']} changed. " + HINT
    assert (live["server"]["name"], live["capability_version"]) == (
        golden["server"]["name"],
        golden["capability_version"],
    ), HINT
