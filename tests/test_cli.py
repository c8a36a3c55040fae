"""The command line: exit codes, one-paragraph errors, and a previous site that survives failures.

Most runs are in-process through the ``cli`` fixture; a few start ``python -m generator``
as a real subprocess to check what a user sees on the terminal (no traceback without --debug).
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import textwrap
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from generator.commands.cli import main
from generator.snapshot.snapshot import load_snapshot
from tests.conftest import PYTHON, ROOT, TEMPLATES, TESTS, Run, tree_bytes

Cli = Callable[..., Run]

FIXTURE = TESTS / "servers" / "fixture_server.py"


def fixture_command(mode: str) -> str:
    """A --stdio command line for the fixture server (run as a script: needs no PYTHONPATH)."""
    return shlex.join([PYTHON, str(FIXTURE), "--mode", mode])


def one_paragraph(err: str) -> str:
    """The error line of a failed run, checked to be a single ``mcp-portal: error:`` paragraph."""
    lines = [line for line in err.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("mcp-portal: error:")]
    assert len(errors) == 1, err
    assert "Traceback" not in err
    return errors[0]


@pytest.fixture(scope="module")
def snapshot_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One introspection of the bundled demo per module, written by the CLI itself."""
    path = tmp_path_factory.mktemp("snapshot") / "demo.json"
    assert main(["introspect", "-o", str(path)], renderer=TEMPLATES) == 0
    return path


@pytest.fixture
def built_site(tmp_path: Path, snapshot_file: Path, cli: Cli) -> Path:
    """A complete site in tmp_path/site, built from the module's snapshot."""
    out = tmp_path / "site"
    run = cli("build", "--from", str(snapshot_file), "--out", str(out))
    assert run.code == 0, run.err
    assert (out / "index.html").is_file() or any(out.rglob("*.html"))
    return out


def assert_untouched(out: Path, before: dict[str, bytes]) -> None:
    assert tree_bytes(out) == before
    leftovers = sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.") and p.is_dir())
    assert leftovers == [], leftovers  # no .site.staging-* or .site.old-* left behind


# --- exit code 2: usage errors ----------------------------------------------------------------


def test_unknown_option_is_a_usage_error(cli: Cli) -> None:
    run = cli("build", "--no-such-option")
    assert run.code == 2
    assert "unrecognized arguments: --no-such-option" in run.err


def test_missing_command_is_a_usage_error(cli: Cli) -> None:
    run = cli()
    assert run.code == 2
    assert "usage: mcp-portal" in run.err


def test_introspect_needs_an_output(cli: Cli) -> None:
    run = cli("introspect")
    assert run.code == 2
    assert "-o/--output" in run.err


def test_stdio_and_url_together(cli: Cli, tmp_path: Path) -> None:
    run = cli("build", "--stdio", "uvx mcp-server-time", "--url", "http://127.0.0.1:1/mcp", "--out", str(tmp_path))
    assert run.code == 2
    assert "either --stdio or --url, not both" in one_paragraph(run.err)


def test_header_without_url(cli: Cli) -> None:
    run = cli("build", "--header", "Authorization: Bearer x")
    assert run.code == 2
    assert "--header needs --url" in one_paragraph(run.err)


def test_header_with_stdio(cli: Cli) -> None:
    run = cli("introspect", "--stdio", "uvx mcp-server-time", "--header", "X-Key: 1", "-o", "x.json")
    assert run.code == 2
    assert "--header applies to --url servers" in one_paragraph(run.err)


def test_env_with_url(cli: Cli) -> None:
    run = cli("introspect", "--url", "http://127.0.0.1:1/mcp", "--env", "HOME", "-o", "x.json")
    assert run.code == 2
    assert "--env applies to --stdio servers" in one_paragraph(run.err)


@pytest.mark.parametrize("header", ["NoColonHere", "Bearer s3cret-value", ": s3cret-value"])
def test_malformed_header_is_refused_without_quoting_it(cli: Cli, header: str) -> None:
    """Before: "--header 'Bearer s3cret-value'... must look like", a token in the CI log."""
    run = cli("introspect", "--url", "http://127.0.0.1:1/mcp", "--header", header, "-o", "x.json")
    assert run.code == 2
    message = one_paragraph(run.err)
    assert '--header must look like "Name: value"' in message and "s3cret" not in run.err and "NoColon" not in message


@pytest.mark.parametrize(
    ("header", "words"),
    [
        ("Bad Name: s3cret-value", 'the header name "Bad ..." is not a valid HTTP header name'),
        ("X-Key(1): s3cret-value", 'the header name "X-Key(1)" is not a valid HTTP header name'),
        # A forgotten colon after the name: only the first word is shown, never the token after it.
        ("Authorization Bearer s3cret-value: x", 'the header name "Authorization ..." is not a valid HTTP header'),
    ],
)
def test_a_header_no_http_client_can_send_is_a_usage_error(
    cli: Cli, demo_url: str, tmp_path: Path, header: str, words: str
) -> None:
    """Against a real server that is up (issue 47): the header is the problem, not the server."""
    run = cli("introspect", "--url", f"{demo_url}/mcp/", "--header", header, "-o", str(tmp_path / "x.json"))
    assert run.code == 2, run.err
    message = one_paragraph(run.err)
    assert f"mcp-portal: error: --header: {words}" in message
    assert "could not be reached" not in message and "s3cret" not in run.err
    assert not (tmp_path / "x.json").exists()
    config = tmp_path / "portal.yaml"
    name, _, value = header.partition(": ")
    config.write_text(json.dumps({"server": {"url": f"{demo_url}/mcp/", "headers": {name: value}}}), encoding="utf-8")
    run = cli("introspect", "--config", str(config), "-o", str(tmp_path / "x.json"))
    assert run.code == 1, run.err
    assert f"`server.headers` cannot be sent: {words}" in one_paragraph(run.err) and "s3cret" not in run.err


@pytest.mark.parametrize("name", ["", "   "])
def test_a_blank_header_name_in_the_config_is_a_configuration_error(cli: Cli, tmp_path: Path, name: str) -> None:
    """Before: an internal error (ValueError) where the name's first word was taken for the message."""
    config = tmp_path / "portal.yaml"
    config.write_text(json.dumps({"server": {"url": "http://127.0.0.1:9/mcp", "headers": {name: "v"}}}), "utf-8")
    run = cli("introspect", "--config", str(config), "-o", str(tmp_path / "x.json"))
    assert run.code == 1, run.err
    assert '`server.headers` cannot be sent: the header name "" is not a valid HTTP header name' in one_paragraph(
        run.err
    )


def test_url_must_be_http(cli: Cli) -> None:
    run = cli("introspect", "--url", "ftp://example.com/mcp", "-o", "x.json")
    assert run.code == 2
    assert "http:// or https://" in one_paragraph(run.err)


def test_from_with_a_server(cli: Cli, snapshot_file: Path) -> None:
    run = cli("build", "--from", str(snapshot_file), "--stdio", "uvx mcp-server-time")
    assert run.code == 2
    assert "--from renders from a snapshot" in one_paragraph(run.err)


def test_bad_locales(cli: Cli) -> None:
    run = cli("build", "--locales", "en,r!u")
    assert run.code == 2
    message = one_paragraph(run.err)
    assert "--locales" in message and "'r!u'" in message


def test_bad_limits_and_capability_rule_are_listed_together(cli: Cli) -> None:
    run = cli("build", "--max-pages", "0", "--request-timeout", "-1", "--capability-version", "latest")
    assert run.code == 2
    message = one_paragraph(run.err)
    assert "--max-pages" in message and "--request-timeout" in message and "`--capability-version`" in message


def test_version_and_help(cli: Cli) -> None:
    run = cli("--version")
    assert run.code == 0
    assert run.out.startswith("mcp-portal ")
    run = cli("build", "--help")
    assert run.code == 0
    assert "--stdio" in run.out and "exit codes" in run.out


# --- exit code 1: errors with one paragraph ---------------------------------------------------


def test_server_program_that_does_not_exist(cli: Cli, tmp_path: Path) -> None:
    run = cli("build", "--stdio", "no-such-mcp-server-xyz --port 1", "--out", str(tmp_path / "site"))
    assert run.code == 1
    assert "'no-such-mcp-server-xyz' was not found" in one_paragraph(run.err)
    assert not (tmp_path / "site").exists()


def test_env_naming_an_unset_variable(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PORTAL_TEST_UNSET", raising=False)
    run = cli(
        "introspect", "--stdio", fixture_command("paged"), "--env", "PORTAL_TEST_UNSET", "-o", str(tmp_path / "s.json")
    )
    assert run.code == 1
    assert "PORTAL_TEST_UNSET" in one_paragraph(run.err)
    assert not (tmp_path / "s.json").exists()


def test_snapshot_that_is_not_json(cli: Cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("this is not JSON\n", encoding="utf-8")
    run = cli("build", "--from", str(bad), "--out", str(tmp_path / "site"))
    assert run.code == 1
    message = one_paragraph(run.err)
    assert str(bad) in message and "not valid JSON" in message and "introspect" in message


def test_snapshot_with_a_wrong_fingerprint(cli: Cli, tmp_path: Path, snapshot_file: Path) -> None:
    data = json.loads(snapshot_file.read_text(encoding="utf-8"))
    data["tools"][0]["description"] = "Edited by hand."
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data), encoding="utf-8")
    run = cli("build", "--from", str(edited), "--out", str(tmp_path / "site"))
    assert run.code == 1
    assert "`fingerprint` does not match its tools" in one_paragraph(run.err)


def test_snapshot_that_does_not_exist(cli: Cli, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.json"
    run = cli("build", "--from", str(missing), "--out", str(tmp_path / "site"))
    assert run.code == 1
    message = one_paragraph(run.err)
    assert str(missing) in message and "cannot be read" in message


def test_invalid_config_lists_every_problem(cli: Cli, tmp_path: Path) -> None:
    config = tmp_path / "portal.yaml"
    config.write_text(
        "title: Docs\n"
        "colour: blue\n"
        "server:\n"
        "  url: ftp://example.com/mcp\n"
        "  headers: {X-Key: 42}\n"
        "  retries: 3\n"
        "limits:\n"
        "  max_pages: -1\n"
        "  speed: 9\n"
        "capability_version: newest\n",
        encoding="utf-8",
    )
    run = cli("build", "--config", str(config), "--out", str(tmp_path / "site"))
    assert run.code == 1
    message = one_paragraph(run.err)
    assert str(config) in message
    for key in (
        "`colour`",
        "`server.retries`",
        "`server.headers.X-Key`",
        "`server.url`",
        "`limits.max_pages`",
        "`limits.speed`",
        "`capability_version`",
    ):
        assert key in message, key
    assert "`title`" not in message  # a valid key is not a problem


def test_config_server_needs_exactly_one_transport(cli: Cli, tmp_path: Path) -> None:
    config = tmp_path / "portal.yaml"
    config.write_text("server:\n  stdio: uvx mcp-server-time\n  url: http://127.0.0.1:1/mcp\nlocales: 7\n")
    run = cli("build", "--config", str(config))
    assert run.code == 1
    message = one_paragraph(run.err)
    assert "exactly one of `stdio`" in message and "`locales`" in message


def test_config_that_is_not_yaml(cli: Cli, tmp_path: Path) -> None:
    config = tmp_path / "portal.yaml"
    config.write_text("title: [unclosed\n", encoding="utf-8")
    run = cli("build", "--config", str(config))
    assert run.code == 1
    assert "not valid YAML" in one_paragraph(run.err)


def test_unknown_locale(cli: Cli, tmp_path: Path, snapshot_file: Path) -> None:
    run = cli("build", "--from", str(snapshot_file), "--locales", "en,xx", "--out", str(tmp_path / "site"))
    assert run.code == 1
    message = one_paragraph(run.err)
    assert "locales/xx.yaml" in message
    assert not (tmp_path / "site").exists()


# --- a failed build never touches the previous site -------------------------------------------


def test_corrupt_snapshot_leaves_the_previous_site(cli: Cli, built_site: Path, tmp_path: Path) -> None:
    before = tree_bytes(built_site)
    assert "snapshot.json" in before
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_bytes(b'{"snapshot_version": 1, "tools": [')
    run = cli("build", "--from", str(corrupt), "--out", str(built_site))
    assert run.code == 1
    one_paragraph(run.err)
    assert_untouched(built_site, before)


def test_crashing_server_leaves_the_previous_site(cli: Cli, built_site: Path) -> None:
    before = tree_bytes(built_site)
    run = cli("build", "--stdio", fixture_command("crash"), "--out", str(built_site))
    assert run.code == 1
    message = one_paragraph(run.err)
    assert "closed the connection during tools/list (page 2)" in message
    assert_untouched(built_site, before)


def test_unknown_locale_leaves_the_previous_site(cli: Cli, built_site: Path, snapshot_file: Path) -> None:
    before = tree_bytes(built_site)
    run = cli("build", "--from", str(snapshot_file), "--locales", "en,xx", "--out", str(built_site))
    assert run.code == 1
    assert_untouched(built_site, before)


# --- round trip ------------------------------------------------------------------------------


def test_introspect_then_build_round_trip(cli: Cli, tmp_path: Path, snapshot_file: Path) -> None:
    snap = load_snapshot(snapshot_file)  # the CLI wrote a snapshot that reads back cleanly
    assert len(snap.tools) == 6
    out = tmp_path / "site"
    run = cli("build", "--from", str(snapshot_file), "--out", str(out), "--locales", "en")
    assert run.code == 0, run.err
    assert f"for 6 tools into {out}" in run.out
    assert (out / "snapshot.json").read_bytes() == snapshot_file.read_bytes()
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["fingerprint"] == snap.fingerprint
    assert manifest["capability_version"] == "2.4.0"


def test_introspect_reports_what_it_wrote(cli: Cli, tmp_path: Path) -> None:
    output = tmp_path / "paged.json"
    run = cli("introspect", "--stdio", fixture_command("paged"), "-o", str(output))
    assert run.code == 0, run.err
    assert f"Wrote {output}: 7 tools from fixture-server over 1 endpoint (capability version 1.0.0)." in run.out
    assert len(load_snapshot(output).tools) == 7


def test_introspect_replaces_its_output_whole_and_writes_a_pipe_as_it_is(cli: Cli, tmp_path: Path) -> None:
    """A watching build (or any reader) never sees half a snapshot: the file is written beside it and
    renamed over it, keeping its mode (a symlink at the name is replaced: tests/test_trust_inputs.py);
    a pipe or device is written to as it is."""
    target = tmp_path / "snapshot.json"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o640)
    before = target.stat().st_ino
    run = cli("introspect", "--stdio", fixture_command("paged"), "-o", str(target))
    assert run.code == 0, run.err
    assert target.stat().st_ino != before  # renamed over
    assert (target.stat().st_mode & 0o777) == 0o640
    assert len(load_snapshot(target).tools) == 7
    assert sorted(p.name for p in tmp_path.iterdir()) == ["snapshot.json"]  # no temporary left
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with ThreadPoolExecutor(1) as pool:
        reader = pool.submit(fifo.read_text, encoding="utf-8")
        run = cli("introspect", "--stdio", fixture_command("paged"), "-o", str(fifo))
        assert run.code == 0, run.err
        assert json.loads(reader.result(timeout=60))["tools"]


def test_introspect_output_that_cannot_be_written_is_named_as_given(cli: Cli, tmp_path: Path) -> None:
    """A directory, or a path under a file: the error names the -o the user gave, never the temporary file
    written beside it (before: "Is a directory: /tmp/.site.9b210d5201c92ad0.tmp")."""
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    for output, why in ((tmp_path, "Is a directory"), (tmp_path / "a-file" / "s.json", "Not a directory")):
        run = cli("introspect", "--stdio", fixture_command("paged"), "-o", str(output))
        assert run.code == 1
        message = one_paragraph(run.err)
        assert f"Cannot write the snapshot to {output} ({why}: {output})." in message and ".tmp" not in message


def test_introspect_creates_the_directories_of_its_output(cli: Cli, tmp_path: Path) -> None:
    """As ``build --out`` and ``translations -o`` do: ``-o build/snapshot.json`` in a fresh checkout works."""
    output = tmp_path / "missing-dir" / "deeper" / "s.json"
    run = cli("introspect", "--stdio", fixture_command("paged"), "-o", str(output))
    assert run.code == 0, run.err
    assert len(load_snapshot(output).tools) == 7


# --- a real subprocess: what the terminal shows --------------------------------------------------


def run_portal(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [PYTHON, "-m", "generator", *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_subprocess_help() -> None:
    proc = run_portal("--help")
    assert proc.returncode == 0
    assert proc.stdout.startswith("usage: mcp-portal")
    assert "build" in proc.stdout and "introspect" in proc.stdout and "exit codes" in proc.stdout


def test_subprocess_error_has_no_traceback_unless_debug(tmp_path: Path) -> None:
    missing = str(tmp_path / "nowhere.json")
    proc = run_portal("build", "--from", missing, "--out", str(tmp_path / "site"))
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.startswith("mcp-portal: error: The snapshot")
    assert "Traceback" not in proc.stderr
    debug = run_portal("build", "--debug", "--from", missing, "--out", str(tmp_path / "site"))
    assert debug.returncode == 1
    assert "Traceback (most recent call last)" in debug.stderr
    assert "mcp-portal: error: The snapshot" in debug.stderr


def test_subprocess_usage_error_exits_2() -> None:
    proc = run_portal("build", "--stdio", "x", "--url", "http://127.0.0.1:1/mcp")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "not both" in proc.stderr


# --- server URLs: ${VAR} first, then parse (issue 11 §5) ---------------------------------------


def test_url_with_a_port_variable_is_expanded_before_it_is_parsed(
    cli: Cli, tmp_path: Path, demo_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEMO_PORT", demo_url.rsplit(":", 1)[1])
    out = tmp_path / "s.json"
    run = cli("introspect", "--url", "http://127.0.0.1:${DEMO_PORT}/mcp/", "-o", str(out))
    assert run.code == 0, run.err
    # The snapshot keeps the URL as written (the value is read when connecting, never stored).
    assert load_snapshot(out).endpoint == "http://127.0.0.1:${DEMO_PORT}/mcp/"


def test_url_with_an_unset_port_variable(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MCP_PORTAL_UNSET_PORT", raising=False)
    run = cli("introspect", "--url", "http://127.0.0.1:${MCP_PORTAL_UNSET_PORT}/mcp/", "-o", str(tmp_path / "s.json"))
    assert run.code == 1
    assert "MCP_PORTAL_UNSET_PORT, which is not set" in one_paragraph(run.err)
    assert not (tmp_path / "s.json").exists()


def test_url_with_an_empty_host_variable(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: "--url 'http://${MCP_HOST}:8000/mcp/' is not a valid server URL: it has no host" (the shape check
    # read the empty value), where the variable was the problem.
    monkeypatch.setenv("MCP_HOST", "")
    run = cli("introspect", "--url", "http://${MCP_HOST}:8000/mcp/", "-o", str(tmp_path / "s.json"))
    assert run.code == 1
    assert "the environment variable MCP_HOST, which is set but empty" in one_paragraph(run.err)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://[::1", "cannot be parsed as a URL"),
        ("http://[::1/mcp", "cannot be parsed as a URL"),
        ("http://127.0.0.1:abc/mcp", "port is not a number"),
        ("http://127.0.0.1:99999/mcp", "port is not a number"),
        ("http://127.0.0.1:${MCP_PORTAL_BAD_PORT}/mcp", "port is not a number"),
        ("http:///mcp", "has no host"),
        ("127.0.0.1:8000/mcp", "must start with http:// or https://"),
        ("http://127.0.0.1:8000/m cp", "spaces or control characters"),
    ],
)
def test_malformed_url_is_a_usage_error(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str, reason: str
) -> None:
    monkeypatch.setenv("MCP_PORTAL_BAD_PORT", "eighty")
    run = cli("build", "--url", url, "--out", str(tmp_path / "site"))
    assert run.code == 2
    message = one_paragraph(run.err)
    assert message.startswith("mcp-portal: error: --url ") and reason in message
    assert "e.g. --url http://127.0.0.1:8000/mcp/" in message
    assert not (tmp_path / "site").exists()


def test_malformed_url_with_credentials_is_not_quoted(cli: Cli) -> None:
    run = cli("introspect", "--url", "http://alice:hunter2-secret@[::1/mcp", "-o", "x.json")
    assert run.code == 2
    assert "hunter2-secret" not in run.err and "--url is not a valid server URL" in one_paragraph(run.err)


def test_config_url_is_expanded_and_checked(
    cli: Cli, tmp_path: Path, demo_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEMO_PORT", demo_url.rsplit(":", 1)[1])
    good = tmp_path / "good.yaml"
    good.write_text("server:\n  url: 'http://127.0.0.1:${DEMO_PORT}/mcp/'\n", encoding="utf-8")
    run = cli("introspect", "--config", str(good), "-o", str(tmp_path / "s.json"))
    assert run.code == 0, run.err
    bad = tmp_path / "bad.yaml"
    bad.write_text("server:\n  url: 'http://[::1'\n", encoding="utf-8")
    run = cli("introspect", "--config", str(bad), "-o", str(tmp_path / "t.json"))
    assert run.code == 1
    message = one_paragraph(run.err)
    assert "`server.url` must be an http:// or https:// URL" in message and "cannot be parsed" in message


# --- empty options: an unset CI variable is not "no option" ---------------------------------------


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (("build", "--stdio", ""), "--stdio"),
        (("build", "--stdio", "   "), "--stdio"),
        (("build", "--url", ""), "--url"),
        (("build", "--url", " "), "--url"),
        (("introspect", "--stdio", "", "-o", "s.json"), "--stdio"),
        (("introspect", "--url", "", "-o", "s.json"), "--url"),
        (("introspect", "-o", ""), "--output"),
        (("check", "--url", ""), "--url"),
        (("build", "--from", ""), "--from"),
        (("build", "--config", ""), "--config"),
        (("build", "--out", ""), "--out"),
        (("build", "--url", "http://127.0.0.1:1/mcp", "--header", ""), "--header"),
        (("build", "--stdio", "true", "--env", ""), "--env"),
        (("build", "--previous", ""), "--previous"),
        (("serve", "--out", ""), "--out"),
        (("diff", "", "site"), "OLD"),
    ],
)
def test_an_empty_option_is_a_usage_error(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: tuple[str, ...], option: str
) -> None:
    monkeypatch.chdir(tmp_path)
    run = cli(*argv)
    assert run.code == 2, run.err
    message = one_paragraph(run.err)
    assert message.startswith(f"mcp-portal: error: {option} is empty.")
    assert "variable" in message and "unset or empty" in message
    assert list(tmp_path.iterdir()) == []  # the demo was not documented into ./site, nothing was written


def test_a_build_stopped_by_sigterm_once_its_site_is_out_says_that_out_holds_it(
    cli: Cli, tmp_path: Path, snapshot_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real SIGTERM, sent as the build reports its published site: the one line must not claim the
    previous site is unchanged. (Before the site is placed: tests/test_trust_processes.py.)"""
    from generator.commands import cli as command_line

    said = command_line.say

    def say_then_stop(text: str, **how: Any) -> None:
        said(text, **how)
        if text.startswith("Built "):
            os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(command_line, "say", say_then_stop)
    handler = signal.getsignal(signal.SIGTERM)
    out = tmp_path / "site"
    run = cli("build", "--from", str(snapshot_file), "--out", str(out))
    assert run.code == 128 + signal.SIGTERM, run.err
    assert run.out.startswith("Built ")
    expected = f"mcp-portal: stopped by SIGTERM once the build had published its site; {out} holds the new site.\n"
    assert run.err.endswith(expected), run.err
    assert (out / "manifest.json").is_file()
    assert signal.getsignal(signal.SIGTERM) == handler  # the build's own handler is gone with the build


def test_a_build_on_another_thread_than_the_main_one_runs(tmp_path: Path, snapshot_file: Path) -> None:
    """Only the main thread may set a signal handler: a program that runs a build on a thread of its own
    (as the browser tests do, beside Playwright's loop) gets its site, without the build's SIGTERM handling."""
    out = tmp_path / "site"
    argv = ["build", "--from", str(snapshot_file), "--out", str(out), "--locales", "en", "--no-search"]
    with ThreadPoolExecutor(1) as pool:
        assert pool.submit(main, argv, renderer=TEMPLATES).result(timeout=120) == 0
    assert (out / "manifest.json").is_file()


# --- the end of a build: no teardown of the heap (issue 13) --------------------------------------

_ENDING = """
import atexit, sys, threading, time
from generator.commands.cli import run

class Sentinel:
    def __del__(self):
        print("torn down", flush=True)

KEEP = Sentinel()  # freed only when the interpreter tears the heap down
atexit.register(print, "exit handlers ran")
def wait_for_main():
    threading.main_thread().join()  # returns when the interpreter begins its usual exit

if sys.argv[1] == "thread":
    threading.Thread(target=wait_for_main).start()
sys.argv = ["mcp-portal", *sys.argv[2:]]
run()
"""


def run_ending(tmp_path: Path, how: str, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [PYTHON, "-c", _ENDING, how, *argv], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )


def test_build_and_check_end_without_teardown_but_with_their_output(tmp_path: Path, snapshot_file: Path) -> None:
    site = tmp_path / "site"
    built = run_ending(tmp_path, "plain", "build", "--from", str(snapshot_file), "--out", str(site), "--quiet")
    assert built.returncode == 0, built.stderr
    # The result line is flushed before the process ends, and the heap is not torn down: nothing after it.
    (result,) = built.stdout.splitlines()
    assert result.startswith("Built ") and result.endswith("(capability version 2.4.0).")
    assert (site / "manifest.json").is_file()
    checked = run_ending(
        tmp_path, "plain", "check", "--from", str(snapshot_file), "--out", str(site), "--format", "json"
    )
    assert checked.returncode == 0, checked.stderr
    report, _, rest = checked.stdout.rpartition("}\n")
    assert json.loads(report + "}")["status"] == "ok"  # check's report is whole on stdout
    assert rest == ""
    failed = run_ending(tmp_path, "plain", "build", "--from", str(tmp_path / "none.json"), "--out", str(site))
    assert failed.returncode == 1 and failed.stdout == ""
    assert failed.stderr.startswith("mcp-portal: error: The snapshot")


def test_introspect_ends_without_teardown(tmp_path: Path) -> None:
    """`introspect` keeps every tool it listed until it has written them, as a build keeps its snapshot: the
    console script ends without the heap's teardown, once the snapshot is written whole and its line
    flushed; a failure ends the same way. It keeps Python's collector thresholds (builds raise them)."""
    output = tmp_path / "s.json"
    listed = run_ending(tmp_path, "plain", "introspect", "--stdio", fixture_command("paged"), "-o", str(output))
    assert listed.returncode == 0, listed.stderr
    (result,) = listed.stdout.splitlines()  # no "torn down"
    assert result.startswith(f"Wrote {output}: ")
    assert len(json.loads(output.read_text("utf-8"))["tools"]) == 7
    failed = run_ending(tmp_path, "plain", "introspect", "--stdio", fixture_command("crash"), "-o", str(output))
    assert failed.returncode == 1 and failed.stdout == ""
    assert failed.stderr.startswith("mcp-portal: error:") and len(json.loads(output.read_text("utf-8"))["tools"]) == 7
    frozen = """
        import gc, sys
        from generator.commands import cli
        code = cli.main(["introspect", "--stdio", sys.argv[2], "-o", sys.argv[3]], tune_gc=sys.argv[1] == "tune")
        print(code, gc.get_threshold() == (700, 10, 10))
    """
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for tune in ("tune", "plain"):
        done = subprocess.run(
            [PYTHON, "-c", textwrap.dedent(frozen), tune, fixture_command("paged"), str(output)],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=True,
        )  # fmt: skip
        code, default_thresholds = done.stdout.splitlines()[-1].split()  # after the "Wrote" line
        assert code == "0"
        assert default_thresholds == "True"  # introspect keeps Python's thresholds (builds raise them)


def test_other_commands_and_live_threads_get_the_usual_exit(tmp_path: Path, snapshot_file: Path) -> None:
    helped = run_ending(tmp_path, "plain", "--help")
    assert helped.returncode == 0 and helped.stdout.endswith("exit handlers ran\ntorn down\n")
    threaded = run_ending(tmp_path, "thread", "build", "--from", str(snapshot_file), "--out", str(tmp_path / "s"))
    assert threaded.returncode == 0, threaded.stderr
    assert threaded.stdout.endswith("exit handlers ran\ntorn down\n")
