"""Every HTML page of the demo portal passes the Nu Html Checker (vnu.jar), errors only.

One JVM run checks all pages: the checker takes seconds to start. Java comes from
Debian (default-jre-headless) and the jar from tests/package.json; scripts/test
installs both. A missing checker fails the test: it is never skipped silently.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from generator.commands.build import site_files
from generator.publish.write import publish
from generator.snapshot.snapshot import load_snapshot
from tests.conftest import TEMPLATES, TESTS
from tests.golden_tool import SNAPSHOT, demo_config, golden_files

VNU = TESTS / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("vnu") / "site"
    publish(out, golden_files(load_snapshot(SNAPSHOT), TEMPLATES))
    # The tool pages again with the Try it panel (a form, a data block), under try-it/.
    config = dataclasses.replace(demo_config(), try_it=True, try_it_tools=("delete_document",))
    files, _ = site_files(load_snapshot(SNAPSHOT), config, renderer=TEMPLATES)
    for path, data in files.items():
        if "/tools/" in path and path.endswith("/index.html"):
            (out / "try-it" / path).parent.mkdir(parents=True, exist_ok=True)
            (out / "try-it" / path).write_bytes(data)
    # The Agent readiness page of each locale (lint_page), under lint/.
    files, _ = site_files(
        load_snapshot(SNAPSHOT), dataclasses.replace(demo_config(), lint_page=True), renderer=TEMPLATES
    )
    for path, data in files.items():
        if "/readiness/" in path:
            (out / "lint" / path).parent.mkdir(parents=True, exist_ok=True)
            (out / "lint" / path).write_bytes(data)
    return out


def _java() -> str:
    java = shutil.which("java")
    if java is None:
        pytest.fail("java is not installed: run scripts/test, which installs Debian's default-jre-headless")
    if not VNU.is_file():
        pytest.fail(f"{VNU} is missing: run scripts/test, which installs tests/package.json (vnu-jar)")
    return java


def _format(message: dict[str, object], site: Path) -> str:
    url = str(message.get("url", "?")).removeprefix("file:")
    where = Path(url).relative_to(site).as_posix() if url.startswith(str(site)) else url
    line = message.get("lastLine", "?")
    extract = str(message.get("extract", "")).replace("\n", "⏎")
    return f"{where}:{line}: [{message.get('type')}] {message.get('message')}\n    …{extract}…"


def test_every_page_is_valid_html(site: Path) -> None:
    java = _java()
    pages = sorted(site.rglob("*.html"))
    # Every page of the portal is among them: a lost page would silently shrink the check.
    tools = [t["name"] for t in load_snapshot(SNAPSHOT).tools]
    expected = {"index.html"} | {
        f"{loc}/{page}index.html"
        for loc in ("en", "ru", "ar")
        for page in (
            "",
            "connecting/",
            "instructions/",
            "prompts/triage_defect/",
            "resources/handbook/",
            "resource-templates/document/",
            *(f"tools/{t}/" for t in tools),
        )
    }
    assert expected <= {p.relative_to(site).as_posix() for p in pages}
    assert "try-it/en/tools/search_chat/index.html" in {p.relative_to(site).as_posix() for p in pages}
    proc = subprocess.run(
        [java, "-jar", str(VNU), "--errors-only", "--format", "json", *map(str, pages)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    # The JSON report goes to stderr; the exit code is 1 when there are errors.
    try:
        report = json.loads(proc.stderr)
    except json.JSONDecodeError:
        pytest.fail(f"vnu.jar did not produce a JSON report (exit {proc.returncode}):\n{proc.stderr}\n{proc.stdout}")
    messages = report.get("messages", [])
    assert not messages and proc.returncode == 0, (
        f"the Nu Html Checker reports {len(messages)} error(s) (exit {proc.returncode}):\n"
        + "\n".join(_format(m, site) for m in messages)
    )
