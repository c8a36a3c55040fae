"""Pages rendered by worker processes and streamed to disk: the same bytes for any --jobs, progress on stderr only."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from generator.commands.build import site_files
from generator.commands.demo_portal import demo_config
from generator.config.portal import PortalConfig
from generator.snapshot.snapshot import load_snapshot

GOLDEN = Path(__file__).parent / "golden"


def test_the_site_is_byte_identical_for_any_number_of_workers() -> None:
    snapshot = load_snapshot(GOLDEN / "everything.snapshot.json")
    config = PortalConfig(search=False)
    one, warnings_one = site_files(snapshot, config, jobs=1)
    for jobs in (2, 3):
        many, warnings_many = site_files(snapshot, config, jobs=jobs)
        assert many == one
        assert warnings_many == warnings_one


def test_workers_write_every_page_once_and_the_manifest_lists_exactly_what_was_written() -> None:
    files, _ = site_files(load_snapshot(GOLDEN / "demo.snapshot.json"), demo_config(PortalConfig()), jobs=2)
    listed = json.loads(files["manifest.json"])["files"]
    assert set(listed) == set(files) - {"manifest.json"}
    assert any(path.startswith("pagefind/") for path in listed)  # Pagefind's own files are hashed too


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "generator", *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )


def test_progress_goes_to_stderr_one_line_per_stage_and_never_into_a_json_report(tmp_path: Path) -> None:
    snapshot = str(GOLDEN / "everything.snapshot.json")
    built = _cli("build", "--from", snapshot, "--out", "site", "--no-search", "--quiet", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    stages = [line.split(":")[0] for line in built.stderr.splitlines()]
    assert stages == ["read", "model", "render", "publish"], built.stderr
    assert built.stdout.startswith("Built ")
    checked = _cli("check", "--from", snapshot, "--out", "site", "--no-search", "--format", "json", cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr
    assert json.loads(checked.stdout)["status"] == "ok"
