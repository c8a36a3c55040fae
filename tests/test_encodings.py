"""Any terminal, any path: what the command line prints reaches a terminal or a CI log that is not UTF-8
whole, a command started with its output closed still does its work and says how it went by its exit code,
and an output directory whose name is not UTF-8 (Linux allows any bytes but ``/`` and NUL) builds,
searches, caches and checks as any other.

Before :func:`generator.text.encodable`, ``PYTHONIOENCODING=ascii mcp-portal build --out сайт`` published
the site and then ended in an internal error on its summary line; a name such as ``b"bad\\xffname"``
stopped Pagefind (its configuration is JSON, which holds no such name) and the render cache; and
``mcp-portal build >&-`` ended in an internal error with a traceback.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import PYTHON, ROOT, Run
from tests.golden_tool import SNAPSHOT

NOT_UTF8 = os.fsdecode(b"bad\xffname")
"""A file name that is not UTF-8, as Python holds it: the byte 0xff as the lone surrogate U+DCFF."""
Cli = Callable[..., Run]


def _run(*argv: str, encoding: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    env.pop("PYTHONUTF8", None)
    return subprocess.run(
        [PYTHON, "-m", "generator", *argv], env=env, cwd=ROOT, capture_output=True, text=True,
        encoding=encoding, timeout=120, check=False,
    )  # fmt: skip


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_a_terminal_that_is_not_utf8_gets_every_line_and_json_stays_json(tmp_path: Path, encoding: str) -> None:
    out = tmp_path / "сайт"
    built = _run("build", "--from", str(SNAPSHOT), "--out", str(out), "--no-search", encoding=encoding)
    assert built.returncode == 0, built.stderr
    assert "internal error" not in built.stderr
    assert f"into {tmp_path}/\\u0441\\u0430\\u0439\\u0442 in " in built.stdout, built.stdout
    checked = _run("check", "--from", str(SNAPSHOT), "--out", str(out), "--no-search", "--format", "json",
                   encoding=encoding)  # fmt: skip
    assert checked.returncode == 0, checked.stderr
    assert json.loads(checked.stdout)["site"] == str(out)
    linted = _run("lint", "--from", str(SNAPSHOT), encoding=encoding)
    assert linted.returncode == 0 and "Agent readiness of " in linted.stdout, linted.stderr
    # The table in ASCII: a rule under each head, + and x for marks, never escapes such as \u2500 or \u2713.
    assert "\\u" not in linted.stdout and linted.stdout.count("\n" + "-" * 100 + "\n") == 2, linted.stdout
    assert re.search(r"\n\w+ +\d+( +[+x]){8}\n", linted.stdout), linted.stdout


def test_an_output_directory_whose_name_is_not_utf8_builds_searches_caches_and_checks(cli: Cli, tmp_path: Path) -> None:
    out, cache = tmp_path / NOT_UTF8, tmp_path / f"cache-{NOT_UTF8}"
    argv = ("--from", str(SNAPSHOT), "--out", str(out), "--locales", "en")
    for _ in range(2):  # the second build reads the cache the first one wrote, and its search record
        built = cli("build", *argv, "--cache", str(cache))
        assert built.code == 0, built.err
        assert "\\udcff" in built.out and "warning" not in built.err, (built.out, built.err)
    assert (out / "pagefind" / "pagefind-entry.json").is_file()
    assert (cache / "cache.sqlite3").is_file()
    checked = cli("check", *argv)
    assert checked.code == 0 and "up to date" in checked.out, (checked.out, checked.err)


def test_a_sarif_report_names_a_snapshot_whose_name_is_not_utf8_by_its_bytes(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshot = tmp_path / f"{NOT_UTF8}.json"
    snapshot.write_bytes(SNAPSHOT.read_bytes())
    monkeypatch.chdir(tmp_path)  # a relative path stays relative in the report (code scanning wants that)
    relative = cli("lint", "--from", snapshot.name, "--format", "sarif")
    absolute = cli("lint", "--from", str(snapshot), "--format", "sarif")
    uris = {
        run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for report in (relative, absolute)
        for run in json.loads(report.out)["runs"]
    }
    assert uris == {"bad%FFname.json", snapshot.as_uri()}, uris


def _closed(*argv: str, closed: str) -> subprocess.CompletedProcess[str]:
    """``mcp-portal ARGV`` started with the descriptors *closed* names closed (``>&-``, ``<&-``): bash closes them
    and then becomes the command, so Python starts with them closed."""
    command = ["bash", "-c", f'exec "$@" {closed}', "bash", PYTHON, "-m", "generator", *argv]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("closed", [">&-", "2>&-", ">&- 2>&- <&-"])
def test_a_command_started_with_its_output_closed_builds_and_exits_by_its_result(tmp_path: Path, closed: str) -> None:
    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return _closed(*argv, closed=closed)

    out = tmp_path / "site"
    built = run("build", "--from", str(SNAPSHOT), "--out", str(out), "--no-search")
    assert built.returncode == 0, built
    assert "internal error" not in built.stderr and "Traceback" not in built.stderr, built.stderr
    assert (out / "en" / "index.html").is_file()
    assert run("check", "--from", str(SNAPSHOT), "--out", str(out), "--no-search").returncode == 0
    (out / "en" / "index.html").write_text("edited", encoding="utf-8")
    assert run("check", "--from", str(SNAPSHOT), "--out", str(out), "--no-search").returncode == 3  # drift


def test_mcp_on_stdio_with_its_input_closed_says_so(tmp_path: Path) -> None:
    """``mcp-portal mcp SITE <&-`` has no stream to read requests from: a usage error that says what to do
    (once an internal error: an AttributeError inside the SDK's stdio transport)."""
    out = tmp_path / "site"
    assert _closed("build", "--from", str(SNAPSHOT), "--out", str(out), "--no-search", closed="").returncode == 0
    served = _closed("mcp", str(out), closed="<&-")
    assert served.returncode == 2, served
    assert served.stderr.endswith(
        "mcp-portal: error: Standard input is closed, and `mcp` on stdio reads a client's requests from it. Let the "
        "MCP client start the command (docs/agents.md shows client configurations), or serve Streamable HTTP with "
        "--http.\n"
    ), served.stderr


@pytest.mark.parametrize("argv", [["build", "--no-search"], ["lint", "--format", "json"]], ids=["build", "lint"])
def test_output_into_a_pipe_whose_reader_is_gone_ends_quietly(tmp_path: Path, argv: list[str]) -> None:
    """``mcp-portal ... | head -1``: when the reader ends first, the command ends as one killed by SIGPIPE
    (141, what a shell shows for it), saying nothing more; it once reported an internal error (BrokenPipeError)
    and asked for a bug report. A build publishes its site before its summary line, which no one reads."""
    reader, writer = os.pipe()
    os.close(reader)  # the reader has gone before the first line
    out = tmp_path / "site"
    where = ["--out", str(out)] if argv[0] == "build" else []
    try:
        done = subprocess.run(
            [PYTHON, "-m", "generator", *argv, "--from", str(SNAPSHOT), *where],
            stdout=writer, stderr=subprocess.PIPE, cwd=ROOT, text=True, timeout=120, check=False,
        )  # fmt: skip
    finally:
        os.close(writer)
    assert done.returncode == 141, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert (out / "en" / "index.html").is_file() == (argv[0] == "build")


def test_a_command_run_from_a_removed_directory_says_so(tmp_path: Path) -> None:
    """A shell still in a folder that a CI step removed: a relative --out names nothing. Once an internal error
    (FileNotFoundError from getcwd, inside pathlib)."""
    script = 'mkdir gone && cd gone && rmdir ../gone && exec "$@"'
    argv = [PYTHON, "-m", "generator", "build", "--from", str(SNAPSHOT), "--out", "site", "--no-search"]
    done = subprocess.run(
        ["bash", "-c", script, "bash", *argv], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert done.stderr.endswith(
        "mcp-portal: error: The current directory no longer exists (it was removed while this shell was in it), "
        "so a relative path names nothing. cd to a directory that exists, or give absolute paths, and run again.\n"
    ), done.stderr
