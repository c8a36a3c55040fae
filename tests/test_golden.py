"""The demo portal, byte for byte, against reviewed golden files.

Regenerate after an intended change with ``scripts/update-golden`` and review the diff.
"""

from __future__ import annotations

import difflib
import json

import pytest

from generator.model import build_model
from generator.snapshot import load_snapshot
from tests.golden_tool import MODEL, SITE, SNAPSHOT, demo_config, dump_model, golden_files, live_snapshot

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
    actual = dump_model(build_model(snapshot, demo_config()))
    expected = MODEL.read_text(encoding="utf-8")
    assert actual == expected, _diff(expected, actual, MODEL.name) + "\n" + HINT


def test_site_matches_golden_files() -> None:
    built = golden_files(load_snapshot(SNAPSHOT))
    on_disk = {p.relative_to(SITE).as_posix(): p.read_bytes() for p in SITE.rglob("*") if p.is_file()}
    assert sorted(built) == sorted(on_disk), "the set of files changed. " + HINT
    for path, data in built.items():
        if data != on_disk[path]:
            pytest.fail(
                _diff(on_disk[path].decode("utf-8", "replace"), data.decode("utf-8", "replace"), path) + "\n" + HINT
            )


def test_golden_covers_every_demo_tool_in_every_locale() -> None:
    # Guards the golden set itself: a regeneration that silently lost pages would otherwise pass.
    snapshot = load_snapshot(SNAPSHOT)
    names = [t["name"] for t in snapshot.tools]
    assert len(names) == 6
    for locale in ("en", "ru", "ar"):
        for name in names:
            assert (SITE / locale / "tools" / name / "index.html").is_file()
            assert (SITE / locale / "tools" / f"{name}.md").is_file()
