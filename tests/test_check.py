"""``mcp-portal check``: a fresh in-memory build compared with the site on disk.

Sites are built by the real CLI from the golden demo snapshot; one test talks to
the live demo server over stdio, as ``build`` and ``check`` do with no server option.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from generator.snapshot.snapshot import fingerprint, new_snapshot
from tests.conftest import PYTHON, ROOT, TESTS, Run, tree_bytes, wait_until

Cli = Callable[..., Run]
GOLDEN = TESTS / "golden" / "demo.snapshot.json"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One site built from the golden snapshot per module (copied per test, never touched)."""
    from generator.commands.cli import main

    out = tmp_path_factory.mktemp("pristine") / "site"
    assert main(["build", "--from", str(GOLDEN), "--out", str(out)]) == 0
    return out


@pytest.fixture
def site(pristine: Path, tmp_path: Path) -> Path:
    out = tmp_path / "site"
    shutil.copytree(pristine, out)
    return out


def check(cli: Cli, site: Path, *extra: str, snapshot: Path = GOLDEN) -> Run:
    return cli("check", "--from", str(snapshot), "--out", str(site), *extra)


def modified_snapshot(tmp_path: Path, edit: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> Path:
    """The golden snapshot with its tools edited, re-fingerprinted so it loads cleanly."""
    data = json.loads(GOLDEN.read_text(encoding="utf-8"))
    tools = edit(data["tools"])
    snap = new_snapshot(
        protocol_version=data["protocol_version"],
        server=data["server"],
        tools=tuple(tools),
        capability_version=data["capability_version"],
        transport=data["transport"],
        endpoint=data["endpoint"],
        prompts=tuple(data["prompts"]),
        resources=tuple(data["resources"]),
        resource_templates=tuple(data["resource_templates"]),
        skipped_tools=tuple(data["skipped_tools"]),
    )
    path = tmp_path / "changed.snapshot.json"
    path.write_text(snap.to_json(), encoding="utf-8")
    return path


def test_an_untouched_site_is_up_to_date(cli: Cli, site: Path) -> None:
    before = tree_bytes(site)
    run = check(cli, site)
    assert run.code == 0, run.err
    assert "up to date" in run.out
    assert tree_bytes(site) == before  # check never writes


def test_a_hand_edited_file_is_drift_and_named(cli: Cli, site: Path) -> None:
    page = site / "en" / "tools" / "search_chat.md"
    page.write_bytes(page.read_bytes() + b"\nA note added by hand.\n")
    run = check(cli, site)
    assert run.code == 3, run.err
    assert "changed: en/tools/search_chat.md (edited by hand)" in run.out
    assert "The tools, prompts and resources are unchanged" in run.out


def test_added_and_deleted_files_are_drift_and_named(cli: Cli, site: Path) -> None:
    (site / "notes.txt").write_text("mine\n", encoding="utf-8")
    (site / "ru" / "connecting.md").unlink()
    run = check(cli, site)
    assert run.code == 3
    # A file the manifest does not list is the user's: every build keeps it, so it is not drift.
    assert "added: notes.txt" not in run.out
    assert "Kept: 1 file(s) mcp-portal did not write" in run.out and "notes.txt" in run.out
    assert "removed: ru/connecting.md (deleted by hand)" in run.out


def test_a_changed_server_names_the_tools(cli: Cli, site: Path, tmp_path: Path) -> None:
    def edit(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        tools = [t for t in tools if t["name"] != "delete_document"]
        tools[0] = tools[0] | {"description": "Search the archive (reworded)."}
        return [*tools, {"name": "archive_chat", "inputSchema": {"type": "object", "properties": {}}}]

    changed = modified_snapshot(tmp_path, edit)
    run = check(cli, site, snapshot=changed)
    assert run.code == 3, run.err
    assert "tool added: archive_chat" in run.out
    assert "tool removed: delete_document" in run.out
    assert "tool changed: search_chat" in run.out
    # pages of a removed tool are leftovers of the old build, not hand edits
    assert "added: en/tools/delete_document.md (left from the earlier build" in run.out
    assert "removed: en/tools/archive_chat.md (new in a fresh build)" in run.out

    body = json.loads(check(cli, site, "--format", "json", snapshot=changed).out)
    assert body["tools"] == {"added": ["archive_chat"], "removed": ["delete_document"], "changed": ["search_chat"]}
    assert body["hand_edited"] == []


def test_a_changed_server_names_its_prompts_and_resources(cli: Cli, site: Path, tmp_path: Path) -> None:
    data = json.loads(GOLDEN.read_text(encoding="utf-8"))
    data["prompts"][0]["description"] = "Reworded."
    data["resources"] = []
    for record in data["endpoints"]:
        record.pop("resources", None)
    data["fingerprint"] = fingerprint(data["tools"], data["endpoints"])
    changed = tmp_path / "items.json"
    changed.write_text(json.dumps(data), encoding="utf-8")
    run = check(cli, site, snapshot=changed)
    assert run.code == 3, run.err
    assert "prompt changed: triage_defect" in run.out
    assert "resource removed: teamspace://handbook" in run.out
    assert "tool " not in run.out.split("Files:")[0]
    body = json.loads(check(cli, site, "--format", "json", snapshot=changed).out)
    assert body["prompts"] == {"added": [], "removed": [], "changed": ["triage_defect"]}
    assert body["resources"] == {"added": [], "removed": ["teamspace://handbook"], "changed": []}
    assert body["resource_templates"] == {"added": [], "removed": [], "changed": []}


def test_json_report(cli: Cli, site: Path) -> None:
    run = check(cli, site, "--format", "json")
    assert run.code == 0
    body = json.loads(run.out)
    empty: dict[str, list[str]] = {"added": [], "removed": [], "changed": []}
    assert body["status"] == "ok" and body["tools"] == empty and body["files"] == empty

    (site / "llms.txt").write_text("replaced\n", encoding="utf-8")
    (site / "extra.html").write_text("<p>x</p>\n", encoding="utf-8")
    run = check(cli, site, "--format", "json")
    assert run.code == 3
    body = json.loads(run.out)
    assert body["status"] == "drift"
    assert body["files"] == {"added": [], "removed": [], "changed": ["llms.txt"]}
    assert body["tools"] == empty
    assert body["hand_edited"] == ["llms.txt"]
    assert body["kept"] == ["extra.html"]  # not listed in the manifest: the user's, kept by every build


def test_site_options_count_like_build(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "site"
    options = ("--locales", "en,ar", "--title", "Acme", "--base-url", "https://docs.acme.dev/mcp")
    assert cli("build", "--from", str(GOLDEN), "--out", str(out), *options).code == 0
    assert check(cli, out, *options).code == 0
    run = check(cli, out)  # default locales and title: a different site
    assert run.code == 3
    assert "removed: ru/index.html (new in a fresh build)" in run.out


def test_a_missing_site_is_an_error(cli: Cli, tmp_path: Path) -> None:
    run = check(cli, tmp_path / "nowhere")
    assert run.code == 1
    lines = [line for line in run.err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("mcp-portal: error: The site directory")
    assert "does not exist" in lines[0] and "mcp-portal build" in lines[0]
    assert run.out == ""


def test_a_damaged_site_snapshot_still_lists_files(cli: Cli, site: Path) -> None:
    (site / "snapshot.json").write_text("{not json", encoding="utf-8")
    run = check(cli, site)
    assert run.code == 3
    assert "changed: snapshot.json (edited by hand)" in run.out
    assert "tool changes cannot be named" in run.out


def test_check_against_the_live_demo_server(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "site"
    run = cli("build", "--out", str(out))
    assert run.code == 0, run.err
    run = cli("check", "--out", str(out))
    assert run.code == 0, run.out + run.err
    assert "up to date" in run.out


def test_strict_check_fails_on_the_warnings_a_strict_build_would_fail_on(cli: Cli, tmp_path: Path) -> None:
    api = tmp_path / "mini.json"
    api.write_text(json.dumps({"openapi": "3.1.0", "info": {"title": "Mini", "version": "1"}, "paths": {}}), "utf-8")
    out = tmp_path / "site"
    assert cli("build", "--from", str(GOLDEN), "--openapi", str(api), "--out", str(out), "--no-search").code == 0
    relaxed = check(cli, out, "--openapi", str(api), "--no-search")
    assert relaxed.code == 0 and "mapped to no API operation" in relaxed.err
    strict = check(cli, out, "--openapi", str(api), "--no-search", "--strict")
    assert strict.code == 1 and "--strict turns them into failures" in strict.err
    assert "mapped to no API operation" in strict.err


_HOLD = """import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o644)
fcntl.lockf(fd, fcntl.LOCK_EX)
page, half = sys.argv[2], sys.argv[3]
whole = open(page, "rb").read()
open(page, "wb").write(half.encode())
print("half", flush=True)
sys.stdin.read()
open(page, "wb").write(whole)
"""
"""A build half-way through publishing in place: it holds the output's lock (``.NAME.lock``, an exclusive
POSIX lock, as ``publish`` takes it), has written one page of the new site, and puts the rest in place when
told to (here: the same bytes as before, so the whole site is up to date again)."""


def test_check_waits_for_a_build_publishing_into_the_site_and_reads_the_whole_site(site: Path) -> None:
    page = site / "en" / "index.html"
    build = subprocess.Popen([PYTHON, "-c", _HOLD, str(site.parent / f".{site.name}.lock"), str(page), "half"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)  # fmt: skip
    checking = None
    try:
        assert build.stdout is not None and build.stdout.readline() == b"half\n"
        checking = subprocess.Popen([PYTHON, "-m", "generator", "check", "--from", str(GOLDEN), "--out", str(site)],
                                    cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
        waiting = f" -> POSIX  ADVISORY  READ {checking.pid} "

        def blocked() -> bool:
            assert checking is not None and checking.poll() is None, "check ended without waiting for the build"
            return waiting in Path("/proc/locks").read_text()

        wait_until(blocked, 60, "check never asked for the output's lock")
    finally:
        assert build.stdin is not None
        build.stdin.close()
        build.wait(timeout=30)
    out, err = checking.communicate(timeout=120)
    assert checking.returncode == 0, err.decode()
    assert "up to date" in out.decode() + err.decode()


def test_check_creates_no_lock_beside_a_site_no_build_of_ours_published(cli: Cli, site: Path) -> None:
    lock = site.parent / f".{site.name}.lock"
    lock.unlink(missing_ok=True)
    assert check(cli, site).code == 0
    assert not lock.exists()
