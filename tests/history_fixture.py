"""Four versions of the demo's snapshot, for the tests of versioned sites (``build --versioned``).

- ``1.0.0``: the demo without ``workspace_status``;
- ``1.1.0``: the demo as it is (``workspace_status`` added);
- ``1.2.0``: ``search_chat``'s ``limit`` made required (a breaking change);
- ``2.0.0``: ``delete_document`` removed (a breaking change).

Each is a real snapshot (its fingerprint recomputed, its endpoints' tool lists kept true), written
to a file so a build reads it with ``--from`` as any snapshot.
"""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from generator.commands.cli import main
from generator.snapshot.snapshot import Snapshot, load_snapshot, revised
from tests.golden_tool import SNAPSHOT

VERSIONS = ("1.0.0", "1.1.0", "1.2.0", "2.0.0")
DAY = 86_400
EPOCH = {version: 1_767_225_600 + n * 30 * DAY for n, version in enumerate(VERSIONS)}
"""Each version's SOURCE_DATE_EPOCH: 2026-01-01, then 30 days apart."""
DATES = {"1.0.0": "2026-01-01", "1.1.0": "2026-01-31", "1.2.0": "2026-03-02", "2.0.0": "2026-04-01"}
ADDED, REQUIRED, REMOVED = "workspace_status", ("search_chat", "limit"), "delete_document"


def at_version(snapshot: Snapshot, version: str, tools: list[dict[str, Any]]) -> Snapshot:
    """*snapshot* as the server's *version*, offering *tools* alone (each endpoint's list kept true)."""
    names = {tool["name"] for tool in tools}
    records = tuple(
        dataclasses.replace(record, tools=tuple(name for name in record.tools if name in names))
        for record in snapshot.endpoints
    )
    server = dict(snapshot.server, version=version)
    return revised(snapshot, tools=tuple(tools), endpoints=records, server=server, capability_version=version)


def demo_versions() -> list[tuple[str, Snapshot]]:
    """The four snapshots, oldest first, each with its version."""
    base = load_snapshot(SNAPSHOT)
    tools = [copy.deepcopy(tool) for tool in base.tools]
    first = at_version(base, "1.0.0", [t for t in tools if t["name"] != ADDED])
    second = at_version(base, "1.1.0", tools)
    required = copy.deepcopy(tools)
    for tool in required:
        if tool["name"] == REQUIRED[0]:
            tool["inputSchema"]["required"] = [*tool["inputSchema"].get("required", []), REQUIRED[1]]
    third = at_version(base, "1.2.0", required)
    fourth = at_version(base, "2.0.0", [t for t in required if t["name"] != REMOVED])
    return [("1.0.0", first), ("1.1.0", second), ("1.2.0", third), ("2.0.0", fourth)]


def write_versions(directory: Path) -> list[tuple[str, Path]]:
    """Each version's snapshot written to *directory* as ``<version>.json``, oldest first."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for version, snapshot in demo_versions():
        path = directory / f"{version}.json"
        path.write_text(snapshot.to_json(), encoding="utf-8")
        written.append((version, path))
    return written


def publish(out: Path, snapshot: Path, *extra: str, epoch: int = EPOCH["1.0.0"]) -> int:
    """``mcp-portal build --versioned`` of *snapshot* into *out* (in this process, one worker), dated *epoch*."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SOURCE_DATE_EPOCH", str(epoch))
        return main(["build", "--from", str(snapshot), "--out", str(out), "--versioned", "--no-search",
                     "--jobs", "1", "--quiet", "--no-cache", *extra])  # fmt: skip


def publish_all(out: Path, snapshots: Path) -> dict[str, Path]:
    """The four versions published into *out*, oldest first; their snapshot files (written to *snapshots*)."""
    written = dict(write_versions(snapshots))
    for version in VERSIONS:
        if publish(out, written[version], epoch=EPOCH[version]) != 0:
            raise AssertionError(f"publishing {version} failed")
    return written
