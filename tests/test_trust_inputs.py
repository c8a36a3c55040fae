"""Inputs that must not get to act (issue 35): the checkout, Action inputs, symlinks, Host headers, YAML.

* the GitHub Action runs the installed mcp-portal, never a ``generator/`` package in the working
  directory (the checked-out repository);
* a line break in a one-line Action input is refused before anything is printed, messages pass
  through the CLI's neutraliser, and ``$GITHUB_OUTPUT`` gets a random heredoc delimiter;
* files written outside ``--out`` replace a symlink at their name instead of writing through it;
* ``serve`` answers only its own host names and never serves a dotfile;
* YAML anchors and aliases are refused in every YAML input, with the file and the line.

Everything runs for real: the Action's script as a runner would, the CLI in-process or as a
process, the preview server as a process on a free port.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.config.options import main as refresh_options_page
from generator.publish.write import publish
from generator.snapshot.snapshot import load_snapshot
from tests.conftest import ROOT, TEMPLATES, Run
from tests.golden_tool import SNAPSHOT, golden_files
from tests.test_action import DEMO, run_action
from tests.test_cli import fixture_command

VICTIM = "ssh-ed25519 AAAA... the victim's own line\n"


# ---------------------------------------------------------------- the Action runs only mcp-portal


def _plant_package(directory: Path) -> Path:
    """A ``generator`` package in *directory* that leaves a marker when anything imports it."""
    marker = directory / "planted-code-ran"
    package = directory / "generator"
    package.mkdir()
    (package / "__init__.py").write_text(
        f"open({str(marker)!r}, 'w').write('imported from the working directory')\n", encoding="utf-8"
    )
    (package / "__main__.py").write_text("raise SystemExit(0)\n", encoding="utf-8")
    return marker


@pytest.mark.parametrize(
    "inputs",
    [
        pytest.param({"command": "diff", "old": str(DEMO), "new": str(DEMO)}, id="diff"),
        pytest.param(
            {"command": "build", "from": str(DEMO), "out": "site", "locales": "en", "no_search": "true"}, id="build"
        ),
    ],
)
def test_the_action_never_imports_a_generator_package_from_the_checkout(tmp_path: Path, inputs: dict[str, str]) -> None:
    marker = _plant_package(tmp_path)
    run, outputs, _ = run_action(tmp_path, **inputs)
    assert not marker.exists(), "the Action imported the working directory's generator/ package"
    assert run.returncode == 0, run.stderr
    assert outputs["exit-code"] == "0"


# ---------------------------------------------------------------- Action inputs are data


def _workflow_commands(text: str) -> list[str]:
    """The lines of *text* a GitHub runner would read as workflow commands."""
    return [line for line in text.splitlines() if line.lstrip().startswith("::") or "##[" in line]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("command", "build\n::warning::injected"),
        ("out", "site\nexit-code=0\n::add-mask::injected"),
        ("title", "Docs\r\n::error::injected"),
        ("python", "python3\n::notice::injected"),
    ],
)
def test_a_line_break_in_a_one_line_input_is_refused_before_anything_runs(
    tmp_path: Path, name: str, value: str
) -> None:
    inputs = {"command": "build", "from": str(DEMO), "out": "site", "no_search": "true", name: value}
    run, outputs, summary = run_action(tmp_path, **inputs)
    assert run.returncode == 2, run.stderr
    commands = _workflow_commands(run.stdout + run.stderr)
    assert commands == [
        f"::error title=mcp-portal action::input '{name}' holds a line break, but it takes a single line; "
        "remove the break (a YAML '|' block adds one at its end)."
    ]
    assert "injected" not in run.stdout + run.stderr
    assert outputs == {} and summary == ""
    assert not (tmp_path / "site").exists()


def test_every_input_but_env_and_header_is_checked_for_line_breaks() -> None:
    script = (ROOT / "scripts" / "action.sh").read_text(encoding="utf-8")
    listed = re.search(r"^single_line=\((.*?)\)$", script, re.S | re.M)
    assert listed is not None
    declared = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["inputs"]
    assert set(listed.group(1).split()) == set(declared) - {"env", "header"}


def test_messages_about_inputs_pass_through_the_neutraliser(tmp_path: Path) -> None:
    run, _, _ = run_action(tmp_path, command="publish\x1b[2J##[warning]injected %0A")
    assert run.returncode == 2
    (line,) = run.stderr.splitlines()
    assert line == (
        "::error title=mcp-portal action::input 'command' must be build, check, diff or lint, not "
        "'publish[U+001B][2J#[U+0023][warning]injected %250A'."
    )


def test_outputs_use_a_random_heredoc_delimiter(tmp_path: Path) -> None:
    delimiters = []
    for attempt in ("one", "two"):
        work = tmp_path / attempt
        work.mkdir()
        run, outputs, _ = run_action(work, command="diff", old=str(DEMO), new=str(DEMO))
        assert run.returncode == 0, run.stderr
        assert outputs["exit-code"] == "0" and Path(outputs["report"]).is_file()
        raw = (work / "github_output").read_text(encoding="utf-8").splitlines()
        assert len(raw) == 6, raw
        for start in (0, 3):
            name, _, delimiter = raw[start].partition("<<")
            assert name in {"exit-code", "report"} and raw[start + 2] == delimiter
            assert re.fullmatch(r"mcp-portal-[0-9a-f]{32}", delimiter), delimiter
            delimiters.append(delimiter)
    assert len(set(delimiters)) == len(delimiters)


# ---------------------------------------------------------------- writes replace a symlink


def _link_to_victim(link: Path, victim: Path) -> None:
    victim.write_text(VICTIM, encoding="utf-8")
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(victim)


def test_translations_replace_a_symlink_at_the_todo_file(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    directory, victim = tmp_path / "translations", tmp_path / "authorized_keys"
    todo = directory / "ru.todo.yaml"
    _link_to_victim(todo, victim)
    run: Run = cli("translations", "--from", str(DEMO), "--translations", str(directory), "--locale", "ru")
    assert run.code == 0, run.err
    assert victim.read_text(encoding="utf-8") == VICTIM
    assert not todo.is_symlink() and todo.is_file()
    assert "# Translations to do for locale ru" in todo.read_text(encoding="utf-8")
    assert sorted(p.name for p in directory.iterdir()) == ["ru.todo.yaml"]  # no temporary left


def test_introspect_output_replaces_a_symlink(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    output, victim = tmp_path / "snapshot.json", tmp_path / "victim"
    _link_to_victim(output, victim)
    run: Run = cli("introspect", "--stdio", fixture_command("paged"), "-o", str(output))
    assert run.code == 0, run.err
    assert victim.read_text(encoding="utf-8") == VICTIM
    assert not output.is_symlink()
    assert len(load_snapshot(output).tools) == 7


def test_a_symlink_to_a_pipe_is_written_through(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """``-o /dev/stdout`` keeps working: through a link, a pipe (no file can be overwritten) gets the text."""
    fifo, link = tmp_path / "pipe", tmp_path / "stdout"
    os.mkfifo(fifo)
    link.symlink_to(fifo)
    with ThreadPoolExecutor(1) as pool:
        reader = pool.submit(fifo.read_text, encoding="utf-8")
        run: Run = cli("introspect", "--stdio", fixture_command("paged"), "-o", str(link))
        assert run.code == 0, run.err
        assert len(json.loads(reader.result(timeout=60))["tools"]) == 7
    assert link.is_symlink()


def test_the_options_page_refresh_replaces_a_symlink(tmp_path: Path) -> None:
    page, victim = tmp_path / "configuration.md", tmp_path / "victim.md"
    stale = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    stale = stale.replace("<!-- options:keys -->\n", "<!-- options:keys -->\nstale row\n", 1)
    victim.write_text(stale, encoding="utf-8")
    page.symlink_to(victim)
    assert refresh_options_page([str(page), "--write"]) == 0
    assert victim.read_text(encoding="utf-8") == stale
    assert not page.is_symlink() and "stale row" not in page.read_text(encoding="utf-8")


# ---------------------------------------------------------------- serve: its own host, no dotfiles


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, int]]:
    """A real ``mcp-portal serve`` process on a free port, serving the demo site with dotfiles planted in it."""
    site = tmp_path_factory.mktemp("serve") / "site"
    publish(site, golden_files(load_snapshot(SNAPSHOT), TEMPLATES))
    (site / ".git").mkdir()
    (site / ".git" / "config").write_text("[remote]\n\turl = https://token@example.com/\n", encoding="utf-8")
    (site / ".env").write_text("SECRET=1\n", encoding="utf-8")
    (site / "en" / ".hidden.html").write_text("hidden\n", encoding="utf-8")
    (site / "git-config").symlink_to(site / ".git" / "config")
    (site / ".well-known").mkdir()
    (site / ".well-known" / "security.txt").write_text("Contact: mailto:security@example.com\n", encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "generator", "serve", "--out", str(site), "--port", "0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("Serving "), first + proc.stderr.read() if proc.stderr else first
        yield site, int(first.rsplit(":", 1)[1].split("/", 1)[0])
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=10)


def _get(port: int, path: str, host: str | None) -> tuple[int, bytes]:
    """GET *path* with exactly the ``Host`` header *host* (none when None)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
        if host is not None:
            conn.putheader("Host", host)
        conn.endheaders()
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_serve_answers_its_own_host_names_only(served: tuple[Path, int]) -> None:
    _, port = served
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}"):
        assert _get(port, "/en/", host)[0] == 200, host
    for host in (f"evil.example:{port}", "evil.example", f"127.0.0.1.nip.io:{port}", f"127.0.0.1:{port + 1}"):
        status, body = _get(port, "/en/", host)
        assert status == 421, host
        assert b"search_chat" not in body
    assert _get(port, "/en/", None)[0] == 400


@pytest.mark.parametrize(
    "path",
    ["/.git/config", "/.env", "/%2egit/config", "/.git/", "/en/.hidden.html", "/git-config", "/.well-known/../.env"],
)
def test_serve_never_serves_a_dotfile(served: tuple[Path, int], path: str) -> None:
    _, port = served
    status, body = _get(port, path, f"127.0.0.1:{port}")
    assert status == 404, path
    assert b"token@" not in body and b"SECRET" not in body and body != b"hidden\n"


def test_serve_still_serves_well_known(served: tuple[Path, int]) -> None:
    _, port = served
    assert _get(port, "/.well-known/security.txt", f"localhost:{port}") == (
        200,
        b"Contact: mailto:security@example.com\n",
    )


# ---------------------------------------------------------------- YAML: no anchors, no aliases


def _bomb(key: str) -> str:
    """Nine lines of anchors and aliases that stand for 9**9 (387 million) values, ending at *key*."""
    lines = ["x0: &x0 [" + ", ".join(["lol"] * 9) + "]"]
    lines += [f"x{n}: &x{n} [" + ", ".join([f"*x{n - 1}"] * 9) + "]" for n in range(1, 9)]
    return "\n".join([*lines, f"{key}: *x8"]) + "\n"


def _yaml_case(kind: str, tmp: Path) -> tuple[Path, int, list[str]]:
    """A file of *kind* holding the bomb, the line of its first anchor, and the build options that read it."""
    base = ["build", "--from", str(DEMO), "--out", str(tmp / "site"), "--no-search", "--no-cache"]
    if kind == "portal.yaml":
        path = tmp / "portal.yaml"
        path.write_text("title: Docs\n" + _bomb("locales"), encoding="utf-8")
        return path, 2, [*base, "--config", str(path)]
    if kind == "translations":
        path = tmp / "translations" / "ru.yaml"
        path.parent.mkdir()
        path.write_text(_bomb("tools"), encoding="utf-8")
        return path, 1, [*base, "--locales", "en,ru", "--translations", str(path.parent)]
    if kind == "overlay":
        path = tmp / "overlays" / "search_chat.yaml"
        path.parent.mkdir()
        path.write_text("tool: search_chat\n" + _bomb("related"), encoding="utf-8")
        return path, 2, [*base, "--locales", "en", "--overlays", str(path.parent)]
    if kind == "theme catalog":
        path = tmp / "theme" / "locales" / "en.yaml"
        path.parent.mkdir(parents=True)
        path.write_text("# the theme's strings\n\n" + _bomb("nav"), encoding="utf-8")
        return path, 3, [*base, "--locales", "en", "--templates", str(path.parent.parent)]
    path = tmp / "openapi.yaml"
    path.write_text("openapi: 3.1.0\ninfo: {title: API, version: '1'}\n" + _bomb("paths"), encoding="utf-8")
    return path, 3, [*base, "--locales", "en", "--openapi", str(path)]


@pytest.mark.parametrize("kind", ["portal.yaml", "translations", "overlay", "theme catalog", "openapi"])
def test_yaml_anchors_and_aliases_are_refused_with_the_file_and_line(tmp_path: Path, kind: str) -> None:
    path, line, argv = _yaml_case(kind, tmp_path)
    started = time.monotonic()
    run = subprocess.run(
        [sys.executable, "-m", "generator", *argv], cwd=tmp_path, capture_output=True, text=True, timeout=30
    )
    took = time.monotonic() - started
    assert run.returncode == 1, run.stderr
    (message,) = [m for m in run.stderr.splitlines() if m.strip()]
    assert message.startswith("mcp-portal: error: ") and str(path) in message, message
    assert "anchor &x0" in message and "accepts no anchors or aliases" in message, message
    assert f"line {line}" in message or f"{path}:{line}:" in message, message
    assert "Traceback" not in run.stderr
    assert took < 2 + _startup_seconds(), f"{took:.1f} s"
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("encoding", ["utf-16", "latin-1"])
@pytest.mark.parametrize("kind", ["portal.yaml", "translations", "overlay", "theme catalog", "openapi"])
def test_a_file_that_is_not_utf8_is_named_with_what_it_is(cli: Any, tmp_path: Path, kind: str, encoding: str) -> None:
    """Every YAML file a user writes, saved by Windows PowerShell 5 (UTF-16) or an old editor (Latin-1): one
    message that names the file, says what its bytes are and asks for UTF-8, never Python's codec message."""
    path, _, argv = _yaml_case(kind, tmp_path)
    text = "# caf\xe9\n" + path.read_text(encoding="utf-8")
    path.write_bytes(text.encode(encoding))
    run = cli(*argv)
    assert run.code == 1, run.err
    (message,) = [m for m in run.err.splitlines() if m.strip()]
    assert message.startswith("mcp-portal: error: ") and str(path) in message, message
    what = "UTF-16, as Windows PowerShell writes by default" if encoding == "utf-16" else "byte 0xe9"
    assert "not UTF-8 text" in message and what in message and "save it as utf-8" in message.lower(), message
    assert "codec" not in message and "position" not in message, message
    assert not (tmp_path / "site").exists()


def _startup_seconds() -> float:
    """How long this machine takes to start the CLI and print its version: the test's 2 s come on top."""
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "generator", "--version"], cwd=ROOT, capture_output=True, check=False)
    return time.monotonic() - started
