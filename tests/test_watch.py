"""``build --watch`` (generator/commands/watch.py) and the reads it makes cheaper (generator/snapshot/remembered.py).

- A remembering read says what a fresh read says: the same snapshot (tools, digests, fingerprint)
  or the same problem in the same words, for every named damage of tests/test_snapshot_mutations.py
  and for random damage, read right after the undamaged snapshot. It does check only the new tools.
- A real ``mcp-portal build --watch`` process: a changed snapshot file is rebuilt into exactly the
  bytes a fresh ``build`` writes; a broken file is reported in one paragraph, the site is left as it
  was, and the watch goes on; Ctrl-C and SIGTERM end it with exit code 0.
- What is watched: the build's inputs and --watch-path, never the output, the cache, hidden
  directories, __pycache__ or node_modules; the usage errors.
"""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from generator.commands.watch import Watched, next_change, relevant, roots, watched_paths
from generator.errors import PortalError
from generator.snapshot import snapshot as snapshot_module
from generator.snapshot.jsonread import MAX_DEPTH
from generator.snapshot.remembered import ToolMemory
from generator.snapshot.snapshot import fingerprint, load_snapshot
from tests.conftest import tree_bytes, wait_until
from tests.golden_tool import SNAPSHOT
from tests.test_snapshot_mutations import DEMO, REJECTED, Mutation, damage, damaged

ROOT = Path(__file__).resolve().parent.parent


def _outcome(path: Path, memory: ToolMemory | None = None) -> tuple[str, Any]:
    """What reading *path* gives: the snapshot's whole content, or the problem's words."""
    try:
        snap = load_snapshot(path, memory)
    except PortalError as exc:
        return ("refused", exc.message)
    return ("read", (snap.to_json(), snap.tool_keys, snap.fingerprint))


def _compare(tmp_path: Path, text: str | bytes) -> None:
    """Read the demo (remembered), then *text* remembering, then *text* fresh: both say the same."""
    good, other = tmp_path / "good.json", tmp_path / "other.json"
    good.write_bytes(SNAPSHOT.read_bytes())
    other.write_bytes(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text)
    memory = ToolMemory()
    assert _outcome(good, memory)[0] == "read"
    assert memory.canonical(load_snapshot(good).tool_keys[0]) is not None
    warm = _outcome(other, memory)
    assert warm == _outcome(other)


@pytest.mark.parametrize("mutate", [c[1] for c in REJECTED], ids=[c[0] for c in REJECTED])
def test_a_remembering_read_refuses_each_named_damage_in_the_same_words(tmp_path: Path, mutate: Mutation) -> None:
    _compare(tmp_path, damage(mutate))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=damaged())
def test_a_remembering_read_of_random_damage_says_what_a_fresh_read_says(
    tmp_path_factory: pytest.TempPathFactory, text: Any
) -> None:
    _compare(tmp_path_factory.mktemp("remembering"), text)


def _edited(data: dict[str, Any], index: int, words: str) -> dict[str, Any]:
    edited = copy.deepcopy(data)
    edited["tools"][index]["description"] += words
    edited["fingerprint"] = fingerprint(edited["tools"], edited.get("endpoints"))
    return edited


def test_a_remembering_read_checks_only_the_tools_it_has_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    first.write_text(json.dumps(DEMO), encoding="utf-8")
    second.write_text(json.dumps(_edited(DEMO, 2, " Changed.")), encoding="utf-8")
    memory = ToolMemory()
    load_snapshot(first, memory)
    encoded: list[object] = []
    original = snapshot_module.canonical_json

    def counted(value: Any) -> str:
        encoded.append(value)
        return original(value)

    monkeypatch.setattr(snapshot_module, "canonical_json", counted)
    warm = load_snapshot(second, memory)
    tools = [value["name"] for value in encoded if isinstance(value, dict)]  # (the endpoint list is a list)
    assert tools == [DEMO["tools"][2]["name"]]
    monkeypatch.undo()
    fresh = load_snapshot(second)
    assert (warm.to_json(), warm.tool_keys, warm.fingerprint) == (fresh.to_json(), fresh.tool_keys, fresh.fingerprint)


def test_a_new_tool_nested_too_deeply_is_refused_as_a_fresh_read_refuses_it(tmp_path: Path) -> None:
    data = copy.deepcopy(DEMO)
    deep: Any = {}
    for _ in range(MAX_DEPTH):  # inside tools[1].inputSchema.properties: past the bound
        deep = {"a": deep}
    data["tools"][1]["inputSchema"]["properties"]["deep"] = deep
    data["fingerprint"] = fingerprint(data["tools"], data.get("endpoints"))
    _compare(tmp_path, json.dumps(data))


# --- a real watching process ------------------------------------------------------------------


class Watcher:
    """``python -m generator build ... --watch`` with its stderr in a file, and ways to wait on it."""

    def __init__(self, tmp_path: Path, *argv: str) -> None:
        self.log = tmp_path / "watch.log"
        self.out = self.log.open("w", encoding="utf-8")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "generator", "build", *argv, "--watch", "--quiet"],
            stdout=self.out,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            # Ctrl-C must reach it even where this test runs with SIGINT ignored (a background job).
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )

    def text(self) -> str:
        return self.log.read_text(encoding="utf-8")

    def wait_for(self, line_start: str, count: int, timeout: float = 180) -> None:
        def seen() -> bool:
            if sum(line.startswith(line_start) for line in self.text().splitlines()) >= count:
                return True
            assert self.proc.poll() is None, f"the watch ended early:\n{self.text()}"
            return False

        wait_until(seen, timeout, lambda: f"no {count} lines starting {line_start!r}:\n{self.text()}")

    def stop(self, signum: int) -> int:
        self.proc.send_signal(signum)
        code = self.proc.wait(timeout=60)
        self.out.close()
        return code

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.out.close()


def _replace(path: Path, text: str) -> None:
    """Write *path* as an editor or ``introspect -o`` would: a new file renamed over the old one."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def test_a_watching_build_rebuilds_a_changed_snapshot_into_a_fresh_builds_bytes(tmp_path: Path, cli: Any) -> None:
    source, site = tmp_path / "snapshot.json", tmp_path / "site"
    source.write_text(json.dumps(DEMO), encoding="utf-8")
    watcher = Watcher(tmp_path, "--from", str(source), "--out", str(site), "--no-search")
    try:
        watcher.wait_for("Watching", 1)
        assert "Built " in watcher.text()
        _replace(source, json.dumps(_edited(DEMO, 0, " Edited while watching.")))
        watcher.wait_for("Watching", 2)
        assert f"Rebuilding: {source} changed." in watcher.text()
        fresh = tmp_path / "fresh"
        assert cli("build", "--from", str(source), "--out", str(fresh), "--no-search").code == 0
        built = tree_bytes(site)
        assert built == tree_bytes(fresh)
        assert not list(tmp_path.glob(".site.*-*")), "what the site no longer needs was removed meanwhile"
        assert any(b"Edited while watching." in data for name, data in built.items() if name.endswith(".md"))

        _replace(source, '{"snapshot_version": 2, "tools": [')  # broken: reported, and the site stays
        watcher.wait_for("Watching", 3)
        assert f"mcp-portal: error: The snapshot {source} is not usable" in watcher.text()
        assert "Traceback" not in watcher.text()
        assert tree_bytes(site) == built
        code = watcher.stop(signal.SIGINT)
    finally:
        watcher.kill()
    assert code == 0, watcher.text()
    assert watcher.text().rstrip().endswith("mcp-portal: stopped watching.")


def _twins(site: Path) -> str:
    return "".join(data.decode("utf-8") for name, data in tree_bytes(site).items() if name.endswith(".md"))


def test_a_snapshot_that_was_a_symlink_is_still_watched_once_replaced(tmp_path: Path) -> None:
    """``--from`` names a symlink to a snapshot in another directory (issue 47). The watch sees the target
    edited, the link pointed elsewhere, the link replaced by a regular file, and that file edited."""
    (tmp_path / "data").mkdir()
    (tmp_path / "other").mkdir()
    first, second = tmp_path / "data" / "first.json", tmp_path / "other" / "second.json"
    first.write_text(json.dumps(DEMO), encoding="utf-8")
    second.write_text(json.dumps(_edited(DEMO, 0, " Second target.")), encoding="utf-8")
    link, site = tmp_path / "snapshot.json", tmp_path / "site"
    link.symlink_to(first)
    watcher = Watcher(tmp_path, "--from", str(link), "--out", str(site), "--no-search")

    def repoint() -> None:
        (tmp_path / "new-link").symlink_to(second)
        os.replace(tmp_path / "new-link", link)

    steps: list[tuple[Callable[[], object], str]] = [
        (lambda: _replace(first, json.dumps(_edited(DEMO, 0, " Target edited."))), "Target edited."),
        (repoint, "Second target."),
        (lambda: _replace(link, json.dumps(_edited(DEMO, 0, " A file now."))), "A file now."),
        (lambda: link.write_text(json.dumps(_edited(DEMO, 0, " Edited in place.")), encoding="utf-8"), "In place"),
    ]
    try:
        watcher.wait_for("Watching", 1)
        for count, (change, words) in enumerate(steps, start=2):
            change()
            watcher.wait_for("Watching", count, timeout=60)
            assert words.replace("In place", "Edited in place.") in _twins(site), watcher.text()
        assert not link.is_symlink()
        watcher.stop(signal.SIGTERM)
    finally:
        watcher.kill()


def test_a_watch_whose_first_build_fails_goes_on_and_sigterm_ends_it(tmp_path: Path) -> None:
    source, site = tmp_path / "snapshot.json", tmp_path / "site"
    source.write_text("not json", encoding="utf-8")
    watcher = Watcher(tmp_path, "--from", str(source), "--out", str(site), "--no-search")
    try:
        watcher.wait_for("Watching", 1)
        assert "mcp-portal: error:" in watcher.text() and not site.exists()
        _replace(source, json.dumps(DEMO))
        watcher.wait_for("Watching", 2)
        assert (site / "manifest.json").is_file()
        code = watcher.stop(signal.SIGTERM)
    finally:
        watcher.kill()
    assert code == 0 and "stopped watching" in watcher.text()


def test_a_watched_directory_holding_the_output_starts_no_second_build(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    source, site = project / "snapshot.json", project / "site"
    source.write_text(json.dumps(DEMO), encoding="utf-8")
    watcher = Watcher(tmp_path, "--from", str(source), "--out", str(site), "--no-search", "--watch-path", str(project))
    try:
        watcher.wait_for("Watching", 1)
        # Two changes of the server's source, each waited for: a write of the build's own (site/, .site.*,
        # the cache) taken for a change would show as a rebuild of its own or beside server.py in one.
        for count in (2, 3):
            (project / "server.py").write_text(f"# the server's source changed, take {count}\n", encoding="utf-8")
            watcher.wait_for("Watching", count)
        rebuilt = [line for line in watcher.text().splitlines() if line.startswith("Rebuilding")]
        assert len(rebuilt) == 2, watcher.text()
        assert all(line.endswith("/server.py changed.") and "," not in line for line in rebuilt), rebuilt
        watcher.stop(signal.SIGTERM)
    finally:
        watcher.kill()


SERVER = """
import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

DESCRIPTION = {description!r}


async def list_tools(ctx, params):
    schema = {{"type": "object", "properties": {{"who": {{"type": "string"}}}}, "required": ["who"]}}
    return types.ListToolsResult(tools=[types.Tool(name="greet", description=DESCRIPTION, input_schema=schema)])


async def main():
    server = Server("watched-server", version="1.0.0", on_list_tools=list_tools)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


anyio.run(main)
"""


def test_a_watched_live_server_is_introspected_again_when_its_source_changes(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    server = source / "server.py"
    server.write_text(SERVER.format(description="Greets the first way."), encoding="utf-8")
    site = tmp_path / "site"
    stdio = f"{sys.executable} {server}"
    watcher = Watcher(tmp_path, "--stdio", stdio, "--out", str(site), "--no-search", "--watch-path", str(source))
    twin = site / "en" / "tools" / "greet.md"
    try:
        watcher.wait_for("Watching", 1)
        assert "Greets the first way." in twin.read_text(encoding="utf-8")
        server.write_text(SERVER.format(description="Greets the second way."), encoding="utf-8")
        watcher.wait_for("Watching", 2)
        assert "Greets the second way." in twin.read_text(encoding="utf-8"), watcher.text()
        watcher.stop(signal.SIGTERM)
    finally:
        watcher.kill()


def test_a_changed_config_file_is_read_again(tmp_path: Path) -> None:
    source, site, config = tmp_path / "snapshot.json", tmp_path / "site", tmp_path / "portal.yaml"
    source.write_text(json.dumps(DEMO), encoding="utf-8")
    config.write_text("title: First title\n", encoding="utf-8")
    watcher = Watcher(tmp_path, "--from", str(source), "--config", str(config), "--out", str(site), "--no-search")
    try:
        watcher.wait_for("Watching", 1)
        assert "First title" in (site / "en" / "index.html").read_text(encoding="utf-8")
        _replace(config, "title: Second title\n")
        watcher.wait_for("Watching", 2)
        assert "Second title" in (site / "en" / "index.html").read_text(encoding="utf-8"), watcher.text()
        _replace(config, "titel: typo\n")  # refused in its usual words; the site stays
        watcher.wait_for("Watching", 3)
        assert "titel" in watcher.text() and "Second title" in (site / "en" / "index.html").read_text("utf-8")
        watcher.stop(signal.SIGTERM)
    finally:
        watcher.kill()


# --- what is watched --------------------------------------------------------------------------


def test_only_changes_the_build_did_not_make_are_relevant(tmp_path: Path) -> None:
    for name in ("src/server.py", "src/tools/a.py", "site/index.html", "cache/x", ".git/HEAD", "src/__pycache__/a.pyc",
                 "node_modules/x/index.js", ".site.staging-1/index.html", "notes.txt"):  # fmt: skip
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(name, encoding="utf-8")
    ours = [tmp_path / "site", tmp_path / "cache"]
    watched = watched_paths([tmp_path / "snapshot.json"], [str(tmp_path / "src")], ours)
    assert watched == Watched((tmp_path / "src", tmp_path / "snapshot.json"), (tmp_path / "site", tmp_path / "cache"))
    assert roots(watched) == [str(tmp_path / "src"), str(tmp_path)]  # a file through its directory
    wanted = relevant(watched)
    theirs = ["snapshot.json", "src/server.py", "src/tools/a.py", "src/tools/new.py"]
    assert [n for n in theirs if wanted(None, str(tmp_path / n))] == theirs
    for mine in ("site/index.html", "cache/x", ".git/HEAD", "src/__pycache__/a.pyc", "node_modules/x/index.js",
                 ".site.staging-1/index.html", "notes.txt", ".snapshot.json.tmp"):  # fmt: skip
        assert not wanted(None, str(tmp_path / mine)), mine


def test_a_replaced_file_and_an_edit_in_a_tree_are_each_seen_once_settled(tmp_path: Path) -> None:
    # introspect -o replaces its file whole (a new inode); an editor writes in place.
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n", encoding="utf-8")
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text("{}", encoding="utf-8")
    watched = watched_paths([snapshot], [str(tmp_path / "src")], [])

    def replace_snapshot() -> None:
        (tmp_path / "new.json").write_text("{}", encoding="utf-8")
        os.replace(tmp_path / "new.json", snapshot)

    def edit() -> None:
        (tmp_path / "src" / "a.py").write_text("x = 2\n", encoding="utf-8")

    changes = ((replace_snapshot, [snapshot]), (edit, [tmp_path / "src" / "a.py"]), (replace_snapshot, [snapshot]))
    for change, expected in changes:
        timer = threading.Timer(0.5, change)
        timer.start()
        assert next_change(watched) == [str(p) for p in expected]
        timer.join()


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--watch-path", "src"], "--watch-path only applies with --watch"),
        (["--watch", "--from", "/dev/null"], "--watch needs --from to name a snapshot file"),
        (["--watch", "--watch-path", "no/such/dir"], "--watch-path no/such/dir does not exist"),
        (["--watch"], "--watch has nothing to watch"),
    ],
)
def test_a_watch_that_cannot_work_is_a_usage_error(cli: Any, tmp_path: Path, argv: list[str], words: str) -> None:
    result = cli("build", "--out", str(tmp_path / "site"), *argv)
    assert result.code == 2, result.err
    assert words in result.err and not (tmp_path / "site").exists()
