"""A plain, non-editable install carries its templates and locales and builds from any directory."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from tests.conftest import ROOT


def test_wheel_ships_templates_and_locales_and_builds_elsewhere(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), str(ROOT)],
        check=True,
    )
    wheel = next(dist.glob("mcp_portal-*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        zf.extractall(tmp_path / "installed")
    for needed in (
        "generator/templates/html/tool.html.j2",
        "generator/templates/static/portal.css",
        "generator/locales/en.yaml",
        "generator/locales/ar.yaml",
        "generator/demo/server.py",
        "generator/demo/openapi.yaml",
        "generator/templates/html/prompt.html.j2",
        "generator/templates/md/resource.md.j2",
    ):
        assert needed in names, needed
    # Run from an unrelated directory, importing only the unpacked wheel (not the checkout).
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {"PYTHONPATH": str(tmp_path / "installed"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "generator", "build", "--locales", "en,ar"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert (work / "site" / "ar" / "tools" / "search_chat" / "index.html").is_file()
    assert (work / "site" / "openapi.yaml").is_file()  # the demo's API contract travels in the wheel
    assert "/mcp/readonly/" in (work / "site" / "en" / "connecting.md").read_text(encoding="utf-8")
    assert str(ROOT) not in (work / "site" / "snapshot.json").read_text(encoding="utf-8")
