"""The settings table is the one source of every option: dataclasses, checks, argparse and the docs agree with it."""

from __future__ import annotations

import dataclasses
import os
import threading
from pathlib import Path

import pytest

from generator.commands.arguments import NEVER_EMPTY, make_parser
from generator.commands.cli import main
from generator.config.options import LIMITS, OPTIONS, refresh
from generator.config.portal import Limits, PortalConfig, load_config
from generator.errors import ConfigError
from tests.conftest import TEMPLATES

ROOT = Path(__file__).resolve().parent.parent


def test_the_configuration_reference_is_generated_from_the_table() -> None:
    page = (ROOT / "docs/configuration.md").read_text(encoding="utf-8")
    assert refresh(page) == page, "run scripts/update-golden (or python -m generator.config.options --write ...)"


def test_the_cli_reference_tables_are_generated_from_the_declarations() -> None:
    from generator.commands.reference import TABLES

    page = (ROOT / "docs/cli.md").read_text(encoding="utf-8")
    assert refresh(page, TABLES) == page, "run scripts/update-golden (or python -m generator.commands.reference ...)"
    commands = {"server", "cli-limits", "build", "introspect", "check", "diff", "lint", "translations", "serve"}
    assert set(TABLES) == commands | {"mcp", "versions"}


def test_every_field_takes_its_default_from_the_table() -> None:
    for option, cls in [(o, PortalConfig) for o in OPTIONS] + [(o, Limits) for o in LIMITS]:
        declared = {f.name: f for f in dataclasses.fields(cls)}[option.field]
        if option.key in ("limits", "registry"):
            continue  # a nested dataclass, built from LIMITS or REGISTRY
        assert declared.default == option.default, option.key
    covered = {o.field for o in OPTIONS} | {"source", "try_it_proxy"}  # set by a command, not by a user
    missing = {f.name for f in dataclasses.fields(PortalConfig)} - covered
    assert not missing, f"PortalConfig fields with no Option: {missing}"
    assert {f.name for f in dataclasses.fields(Limits)} == {o.field for o in LIMITS}


def _actions(command: str) -> dict[str, str]:
    """Option string -> help text, for one subcommand."""
    sub = next(a for a in make_parser()._actions if a.dest == "command")
    parser = sub.choices[command]  # type: ignore[index]
    return {s: a.help or "" for a in parser._actions for s in a.option_strings}


@pytest.mark.parametrize("command", ["build", "check", "introspect", "translations"])
def test_each_command_has_exactly_the_options_the_table_gives_it(command: str) -> None:
    actions = _actions(command)
    offered = [option for option in (*OPTIONS, *LIMITS) if option.cli]
    assert len(offered) > 10
    for option in offered:
        assert (option.cli in actions) == (command in option.commands), (command, option.cli)
        if option.cli in actions:
            assert actions[option.cli].startswith(option.helps.get(command, option.meaning)[:20])


NOT_FINITE = "must be a positive number, not NaN or infinity"
BAD = [
    # (portal.yaml text, command-line options, what both must say)
    ("limits: {max_pages: 0}", ["--max-pages", "0"], "must be a positive whole number"),
    ("limits: {request_timeout: -1}", ["--request-timeout", "-1"], "must be a positive number"),
    # Before, NaN failed the handshake and blamed the server ("deadline must not be NaN"); infinity bounded nothing.
    ("limits: {request_timeout: .nan}", ["--request-timeout", "nan"], NOT_FINITE),
    ("limits: {total_timeout: .inf}", ["--total-timeout", "inf"], NOT_FINITE),
    ("limits: {max_render_seconds: 1.0e+309}", ["--max-render-seconds", "1e309"], NOT_FINITE),
    ("base_url: ftp://example.com/", ["--base-url", "ftp://example.com/"], "must be an absolute http(s) URL"),
    # Before, these built: the password on 88 pages of the public site, or ?a=1/en/ in every page address.
    ("base_url: https://ci:s3cr3t@example.com/", ["--base-url", "https://ci:s3cr3t@example.com/"],
     "must not hold a user name or password"),
    ("base_url: https://example.com/docs?v=1", ["--base-url", "https://example.com/docs?v=1"],
     "must be the site's address without ?query or #fragment"),
    ("locales: ['e n']", ["--locales", "e n"], "has an invalid locale code"),
    # Before: "has an invalid locale code ''", once per gap ("," said it twice).
    ("locales: ','", ["--locales", ","], "names no locale: give codes such as en,ru,ar"),
    ("locales: ''", ["--locales", ""], "names no locale"),
    ("locales: 'en,,ru'", ["--locales", "en,,ru"], "has an empty locale code (a comma with nothing on one side)"),
    ("capability_version: latest", ["--capability-version", "latest"], "must be `server`, `fingerprint` or"),
]  # fmt: skip


@pytest.mark.parametrize(("yaml_text", "argv", "problem"), BAD)
def test_a_bad_value_gets_the_same_words_in_the_file_and_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], yaml_text: str, argv: list[str], problem: str
) -> None:
    path = tmp_path / "portal.yaml"
    path.write_text(yaml_text + "\n", encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert problem in raised.value.message
    code = main(
        ["build", "--from", str(tmp_path / "none.json"), "--out", str(tmp_path / "site"), *argv], renderer=TEMPLATES
    )
    assert code == 2
    err = capsys.readouterr().err
    assert err.count(f"`{argv[0]}` {problem}") == 1, err
    assert "s3cr3t" not in err + raised.value.message
    assert not (tmp_path / "site").exists()


def test_the_command_line_overrides_the_file_one_setting_at_a_time(tmp_path: Path) -> None:
    from generator.commands.arguments import config_from_args

    path = tmp_path / "portal.yaml"
    path.write_text(
        "title: From the file\nlocales: [en]\nlimits: {max_pages: 7, max_tools: 9}\nsearch: true\nout: built\n",
        encoding="utf-8",
    )
    args = make_parser().parse_args(
        ["build", "--config", str(path), "--max-pages", "3", "--no-search", "--base-url", "https://d.example/x"]
    )
    config = config_from_args(args)
    assert config.title == "From the file" and config.locales == ("en",)
    assert (config.limits.max_pages, config.limits.max_tools) == (3, 9)
    assert config.search is False and config.base_url == "https://d.example/x/"
    assert config.out == str(tmp_path / "built")  # relative to the file


def test_the_cli_reference_documents_every_command_line_option_with_an_example() -> None:
    """Every option of every command, as argparse knows it (the options table's and the commands' own),
    has a row in docs/cli.md whose example column uses it."""
    import contextlib
    import io
    import re

    reference = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    rows = {
        line.split("|")[1].strip().strip("`").split(" ")[0]: line
        for line in reference.splitlines()
        if line.startswith("| `--")
    }
    options: set[str] = set()
    for command in ("build", "introspect", "check", "diff", "translations", "serve"):
        shown = io.StringIO()
        with contextlib.redirect_stdout(shown):
            assert main([command, "--help"], renderer=TEMPLATES) == 0
        options |= set(re.findall(r"^\s+(--[a-z][a-z-]+)", shown.getvalue(), re.M)) - {"--help"}
    assert {o.cli for o in (*OPTIONS, *LIMITS) if o.cli} <= options
    for option in sorted(options):
        assert option in rows, f"docs/cli.md has no row for {option}"
        example = re.split(r"(?<!\\)\|", rows[option])[3]  # cells split on the pipes that are not escaped
        assert f"`{option}" in example, f"the docs/cli.md row of {option} has no example"


def test_the_cli_reference_names_every_option_an_empty_value_is_refused_for() -> None:
    # Before: --public, --cache, --version-label, SITE and the rule lists were refused but not listed.
    reference = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    section = reference.split("## Empty values", 1)[1].split("\n## ", 1)[0].replace("\n", " ")
    missing = [option for option, _ in NEVER_EMPTY.values() if option not in section]
    assert not missing, f"docs/cli.md's Empty values does not name {missing}"


@pytest.mark.parametrize("command", [["serve", "--out", "site"], ["mcp", "site", "--http"]])
@pytest.mark.parametrize("value", ["70000", "-1", "8080x", ""])
def test_a_port_out_of_range_is_a_usage_error_naming_the_option(
    capsys: pytest.CaptureFixture[str], command: list[str], value: str
) -> None:
    # Before, serve --port 70000 reached the socket and ended in an internal error (OverflowError).
    assert main([*command, "--port", value], renderer=TEMPLATES) == 2
    err = capsys.readouterr().err
    assert f"argument --port: {value!r} is not a port: give a number from 1 to 65535" in err, err
    assert "internal error" not in err


SECRET = "s3cretPASS"


@pytest.mark.parametrize(
    ("site", "said"),
    [
        (f"https://ci:{SECRET}@docs.example.com/", "SITE has a user name, a password, a query or a fragment"),
        (f"https://docs.example.com/?token={SECRET}", "SITE has a user name, a password, a query or a fragment"),
        (f"https://docs.example.com/#{SECRET}", "SITE has a user name, a password, a query or a fragment"),
        (f"ftp://ci:{SECRET}@docs.example.com/", "SITE is not a usable URL: it must start with http:// or https://"),
        # A password with an unescaped "/" reads as a port: once an internal error (httpx's InvalidURL).
        (f"https://ci:{SECRET}/x@docs.example.com/", "SITE is not a usable URL: its port is not a number"),
        ("https://docs.example.com:99999/", "SITE is not a usable URL: its port is not a number"),
        ("https://[::1/", "SITE is not a usable URL: it cannot be parsed as a URL"),  # once a ValueError
        ("https://docs example.com/", "SITE is not a usable URL: it contains spaces"),
    ],
)
def test_mcp_refuses_a_site_url_it_cannot_read_without_showing_it(
    capsys: pytest.CaptureFixture[str], site: str, said: str
) -> None:
    # Before, the URL was quoted whole, its password or token too, and some ended in an internal error.
    assert main(["mcp", site], renderer=TEMPLATES) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mcp-portal: error: {said}") and "https://docs.example.com/." in err, err
    assert SECRET not in err and "internal error" not in err


@pytest.mark.parametrize("side", ["OLD", "NEW"])
def test_diff_refuses_a_url_side_without_showing_it(capsys: pytest.CaptureFixture[str], side: str) -> None:
    url = f"https://ci:{SECRET}@docs.example.com/snapshot.json"
    sides = [url, "new.json"] if side == "OLD" else ["old.json", url]
    assert main(["diff", *sides], renderer=TEMPLATES) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mcp-portal: error: {side} is a URL, and diff compares files on this machine"), err
    assert SECRET not in err  # before: "https:/ci:s3cretPASS@docs.example.com/snapshot.json does not exist"


@pytest.mark.parametrize(
    ("argv", "example"),
    [(["introspect", "-o", "-"], "snapshot.json"), (["translations", "--locale", "ru", "-o", "-"], "ru.todo.yaml")],
)
def test_dash_as_the_output_is_refused_before_a_server_is_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str], example: str
) -> None:
    # "-" is no server: a command that asked one first would fail on the command, not on -o.
    monkeypatch.chdir(tmp_path)
    assert main([*argv, "--stdio", "no-such-server-program"], renderer=TEMPLATES) == 2
    err = capsys.readouterr().err
    assert "-o - would write a file named '-'" in err and f"e.g. -o {example}." in err, err
    assert list(tmp_path.iterdir()) == []  # before: a file named "-"


@pytest.mark.parametrize("command", [["build"], ["check"], ["lint"], ["translations", "--locale", "ru"]])
def test_dash_as_the_snapshot_is_refused_with_what_to_give(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main([*command, "--from", "-"], renderer=TEMPLATES) == 2
    err = capsys.readouterr().err
    assert "--from - would read a file named '-'" in err and "e.g. --from snapshot.json" in err, err
    assert list(tmp_path.iterdir()) == []  # before: "The snapshot - cannot be read (No such file or directory)"


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("API_TOKEN=s3cr3t-VALUE", "takes the name of a variable to pass on, not NAME=VALUE: export API_TOKEN first"),
        ("s3cr3t-VALUE", "holds something that is not the name of an environment variable"),
    ],
)
def test_env_takes_a_name_and_never_shows_what_was_given_instead(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], given: str, said: str
) -> None:
    """``--env NAME=VALUE`` (as docker's -e takes it) was reported whole: "needs the environment variable
    API_TOKEN=s3cr3t-VALUE ... but it is not set", the value in the CI log."""
    config = tmp_path / "portal.yaml"
    config.write_text(f"server:\n  stdio: python3 -c pass\n  env: [{given}]\n", encoding="utf-8")
    for argv, code in (
        (["--stdio", "python3 -c pass", "--env", given], 2),
        (["--config", str(config)], 1),
    ):
        assert main(["introspect", *argv, "-o", str(tmp_path / "s.json")], renderer=TEMPLATES) == code
        err = capsys.readouterr().err
        assert said in err and "s3cr3t" not in err, err
    assert not (tmp_path / "s.json").exists()


def test_a_header_written_with_a_line_break_is_refused_without_talk_of_variables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["introspect", "--url", "http://127.0.0.1:9/mcp", "--header", "X-Team: a\r\nX-Admin: yes"]
    assert main([*argv, "-o", str(tmp_path / "s.json")], renderer=TEMPLATES) == 1
    err = capsys.readouterr().err  # before: "(after expanding nothing)" and "Check the variable's value"
    assert "The header X-Team contains a line break or another control character, which HTTP does not allow." in err
    assert "Check the value: it may hold two lines" in err and "variable" not in err, err


def test_a_site_directory_given_as_the_snapshot_points_to_its_snapshot_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    golden = Path(__file__).parent / "golden" / "demo.snapshot.json"
    site = tmp_path / "site"
    assert main(["build", "--from", str(golden), "--out", str(site), "--no-search"], renderer=TEMPLATES) == 0
    capsys.readouterr()
    assert main(["lint", "--from", str(site)], renderer=TEMPLATES) == 1
    err = capsys.readouterr().err  # before: "cannot be read (Is a directory)"
    assert f"is a directory, and a snapshot is a file; the site in it keeps its own: {site / 'snapshot.json'}" in err


def test_a_snapshot_a_command_prints_is_read_through_a_pipe_as_the_advice_says(tmp_path: Path) -> None:
    """``--from <(command)``, which the refusal of ``--from -`` suggests, names a pipe (``/dev/fd/N``)."""
    golden = (Path(__file__).parent / "golden" / "demo.snapshot.json").read_bytes()
    read, write = os.pipe()

    def feed() -> None:
        with open(write, "wb") as pipe:
            pipe.write(golden)

    feeder = threading.Thread(target=feed)
    feeder.start()
    try:
        out = tmp_path / "site"
        assert main(["build", "--from", f"/dev/fd/{read}", "--out", str(out), "--no-search"], renderer=TEMPLATES) == 0
    finally:
        feeder.join(timeout=30)
        os.close(read)
    assert (out / "snapshot.json").read_bytes() == golden


@pytest.mark.parametrize(
    ("content", "problem", "fix"),
    [
        (None, "the file cannot be read (Is a directory)", "Check that the path names a file you can read."),
        ("title: [unclosed\n", "it is not valid YAML (line 2:", "Fix the file and run again."),
        ("- a\n- b\n", "the top level must be a mapping", "Fix the file and run again."),
        # Once an internal error (UnicodeDecodeError): what Windows PowerShell 5's `>` writes, and Latin-1.
        (
            "title: Acme\r\n".encode("utf-16"),
            "it is not UTF-8 text (it is UTF-16, as Windows PowerShell writes by default)",
            "Save it as UTF-8 and run again.",
        ),
        ("title: Caf\xe9\n".encode("latin-1"), "it is not UTF-8 text", "Save it as UTF-8 and run again."),
    ],
)
def test_a_file_that_is_no_configuration_gets_advice_about_the_file_not_its_keys(
    tmp_path: Path, content: str | bytes | None, problem: str, fix: str
) -> None:
    path = tmp_path / "portal.yaml"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert problem in raised.value.message and raised.value.message.endswith(fix), raised.value.message
    assert "Fix these keys" not in raised.value.message  # before: there were no keys to fix


def test_a_configuration_saved_on_windows_as_utf8_is_read(tmp_path: Path) -> None:
    path = tmp_path / "portal.yaml"
    path.write_bytes("\ufefftitle: Acme Д\r\nlocales: [en, ru]\r\n".encode())  # a byte-order mark, CRLF
    config = load_config(path)
    assert (config.title, config.locales) == ("Acme Д", ("en", "ru"))
