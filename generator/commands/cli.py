"""The ``mcp-portal`` command line: parse, load config, call one function.

Exit codes: 0 success; 1 an error with a one-paragraph message; 2 a usage error;
3 ``check`` found drift; 4 ``diff --fail-on`` found such changes.
Tracebacks are shown only with ``--debug``.
"""

from __future__ import annotations

import argparse
import logging
import shlex
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from generator import __version__
from generator.config.checks import URL_EXAMPLE, Collector, url_problem
from generator.config.option import BUILD, CHECK, INTROSPECT, TRANSLATIONS, add_arguments, from_arguments
from generator.config.options import LIMITS, OPTIONS
from generator.config.portal import PortalConfig, ServerSpec, load_config
from generator.connect.secrets import redact_logs, start_session
from generator.errors import PortalError, UsageError
from generator.text import for_terminal, one_line

EPILOG = """examples:
  mcp-portal build                                   # document the bundled demo server into ./site
  mcp-portal build --stdio "uvx mcp-server-time" --out docs/site
  mcp-portal build --url https://api.example.com/mcp/ --header "Authorization: Bearer ${TOKEN}"
  mcp-portal introspect --stdio "npx @modelcontextprotocol/server-everything" -o snapshot.json
  mcp-portal build --from snapshot.json --locales en,ru
  mcp-portal check --out site --from snapshot.json       # exit 3 when the site drifted
  mcp-portal diff old/snapshot.json site --fail-on breaking

exit codes: 0 success, 1 error (one paragraph, no traceback unless --debug), 2 usage error,
  3 check found drift, 4 diff --fail-on found such changes"""


def _source_options(parser: argparse.ArgumentParser, command: str) -> None:
    """Where the server is, the limits, and every setting of *command* from :data:`OPTIONS`."""
    group = parser.add_argument_group("server (choose one; default: the bundled demo server)")
    group.add_argument("--stdio", metavar='"CMD ARGS"', help="start the server as a child process and talk over stdio")
    group.add_argument(
        "--env",
        metavar="NAME",
        action="append",
        default=[],
        help="pass this environment variable to the stdio server (repeatable); the SDK passes only a safe few",
    )
    group.add_argument("--url", help="the server's Streamable HTTP endpoint, e.g. http://127.0.0.1:8765/mcp/")
    group.add_argument(
        "--header",
        metavar='"Name: value"',
        action="append",
        default=[],
        help="HTTP header for --url (repeatable); ${VAR} is read from the environment and never stored",
    )
    if command != INTROSPECT:
        group.add_argument("--from", dest="from_file", metavar="SNAPSHOT", help="render offline from a snapshot file")
    group.add_argument("--config", metavar="portal.yaml", help="read settings (and the server) from a YAML file")
    add_arguments(parser.add_argument_group("limits"), command, LIMITS)
    add_arguments(parser, command, OPTIONS)
    parser.add_argument("--debug", action="store_true", help="show tracebacks for errors")
    if command == BUILD:
        parser.add_argument(
            "--quiet",
            action="store_true",
            help="no progress bars on a terminal: only one summary line per stage on stderr (as in CI)",
        )


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcp-portal",
        description="Turn a running MCP server into a documentation portal (en/ru/ar HTML, Markdown twins, llms.txt).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"mcp-portal {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    build = _command(sub, "build", "introspect a server (or read a snapshot) and write the site")
    _source_options(build, BUILD)
    _strict_option(build)
    _lenient_option(build)
    intro = _command(sub, "introspect", "connect to a server and write its snapshot")
    _source_options(intro, INTROSPECT)
    intro.add_argument("-o", "--output", required=True, metavar="SNAPSHOT.json", help="where to write the snapshot")
    _lenient_option(intro)
    check = _command(sub, "check", "build the site in memory and compare it with the one on disk (exit 3 on drift)")
    _source_options(check, CHECK)
    check.add_argument("--format", choices=("text", "json"), default="text", help="report format (default text)")
    _strict_option(check)
    _lenient_option(check)
    _diff_command(sub)
    _translations_and_serve(sub)
    return parser


def _command(sub: Any, name: str, help: str) -> argparse.ArgumentParser:
    """A subcommand whose --help ends with the shared examples and exit codes."""
    parser: argparse.ArgumentParser = sub.add_parser(
        name, help=help, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    return parser


def _diff_command(sub: Any) -> None:
    """``diff OLD NEW``: it compares two sides and takes no server options."""
    diff = _command(
        sub, "diff", "classify the tool changes between two snapshots or built sites (breaking, non-breaking, cosmetic)"
    )
    diff.add_argument("old", metavar="OLD", help="the old side: a snapshot file or a built site directory")
    diff.add_argument("new", metavar="NEW", help="the new side: a snapshot file or a built site directory")
    diff.add_argument(
        "--format", choices=("text", "json", "markdown"), default="text", help="report format (default text)"
    )
    diff.add_argument(
        "--fail-on",
        choices=("breaking", "any"),
        help="exit 4 when there is a breaking change (breaking) or any change (any); default: always exit 0",
    )
    diff.add_argument("--debug", action="store_true", help="show tracebacks for errors")


def _translations_and_serve(sub: Any) -> None:
    """The translators' ``translations`` command and the ``serve`` preview (which has no shared epilog)."""
    trans = _command(
        sub, "translations", "write the missing and stale translations of one locale to a file for translators"
    )
    _source_options(trans, TRANSLATIONS)
    trans.add_argument("--locale", required=True, help="the locale to translate into, e.g. ru")
    trans.add_argument("-o", "--output", metavar="FILE", help="where to write (default DIR/<locale>.todo.yaml)")
    serve = sub.add_parser("serve", help="preview a built site on 127.0.0.1 with the right content types")
    serve.add_argument("--out", default="site", metavar="DIR", help="the built site (default ./site)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument("--debug", action="store_true", help="show tracebacks for errors")


def say(text: str, *, err: bool = False, end: str = "\n") -> None:
    """Print one message or report: every line the command line prints passes here.

    Server text (names, versions, error messages, a stdio server's stderr) reaches these lines,
    and a terminal or a CI log would obey control characters and GitHub Actions workflow
    commands in it; :func:`generator.text.for_terminal` shows them instead.
    """
    stream = sys.stderr if err else sys.stdout
    stream.write(for_terminal(text) + end)
    stream.flush()


def _lenient_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lenient",
        action="store_true",
        help="skip tools that break the MCP spec (and repeated names) with a warning, instead of failing",
    )


def _with_leniency(args: argparse.Namespace, command: Callable[[argparse.Namespace], int]) -> int:
    """Run *command*; introspection warnings go to stderr when it ends, even if it fails.

    The commands that can connect to a server pass ``args.lenient`` and the list
    ``args.introspect_warnings`` (set here) to :func:`~generator.commands.build.obtain_snapshot`.
    With --lenient, invalid tools are skipped and each skip is a warning; without it, warnings
    are still printed for what is never an error (an optional list the server does not serve).
    """
    if not hasattr(args, "stdio"):  # diff and serve never connect to a server
        return command(args)
    args.introspect_warnings = []
    try:
        return command(args)
    finally:
        for warning in args.introspect_warnings:
            say(f"warning: {one_line(warning)}", err=True)


def _strict_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--strict",
        action="store_true",
        help="turn warnings (stale translations, unmapped API operations, overlay problems...) into errors",
    )


_PATH_OPTIONS = {
    # argparse dest: (how the user wrote it, an example of a valid value)
    "stdio": ("--stdio", '--stdio "uvx mcp-server-time"'),
    "url": ("--url", f"--url {URL_EXAMPLE}"),
    "from_file": ("--from", "--from snapshot.json"),
    "config": ("--config", "--config portal.yaml"),
    "output": ("--output", "-o snapshot.json"),
    "old": ("OLD", "old/snapshot.json"),
    "new": ("NEW", "site"),
    "header": ("--header", '--header "Authorization: Bearer ${TOKEN}"'),
    "env": ("--env", "--env API_KEY"),
    # and every path setting of the options table (--out, --templates, ...), with its example
    **{o.dest: (o.cli, f"{o.cli} {o.example}") for o in OPTIONS if o.cli and o.example},
}


def _reject_empty_options(args: argparse.Namespace) -> None:
    """An empty server or path option is a usage error, never "not given".

    ``--stdio "$SERVER"`` with an unset CI variable would otherwise document the bundled demo
    (or render the current directory) and exit 0, hiding the mistake.
    """
    for dest, (option, example) in _PATH_OPTIONS.items():
        value = getattr(args, dest, None)
        values = value if isinstance(value, list) else [value]
        if any(isinstance(v, str) and not v.strip() for v in values):
            raise UsageError(
                f"{option} is empty. Give a value, e.g. {example}. If it comes from a variable "
                f'(such as {option} "$VALUE" in a CI job), that variable is unset or empty.'
            )


def _server_from_args(args: argparse.Namespace) -> ServerSpec | None:
    if args.stdio and args.url:
        raise UsageError("Give either --stdio or --url, not both.")
    if args.stdio:
        if args.header:
            raise UsageError("--header applies to --url servers; for --stdio use --env NAME.")
        try:
            command = tuple(shlex.split(args.stdio))
        except ValueError as exc:
            raise UsageError(f"--stdio could not be split into a command line ({exc}).") from None
        if not command:
            raise UsageError('--stdio needs a command, e.g. --stdio "uvx mcp-server-time".')
        return ServerSpec(command=command, env=tuple(args.env))
    if args.url:
        if args.env:
            raise UsageError("--env applies to --stdio servers; for --url use --header.")
        headers = []
        for raw in args.header:
            name, sep, value = raw.partition(":")
            if not sep or not name.strip():
                raise UsageError(f'--header {name.strip()!r}... must look like "Name: value".')
            headers.append((name.strip(), value.strip()))
        problem = url_problem(args.url)
        if problem:
            shown = f" {args.url.strip()[:200]!r}" if "@" not in args.url else ""  # userinfo may be a secret
            raise UsageError(
                f"--url{shown} is not a valid server URL: {problem}. Give the server's Streamable HTTP "
                f"endpoint as an http:// or https:// URL with a host, e.g. --url {URL_EXAMPLE} "
                f"(${{VAR}} references are expanded first)."
            )
        return ServerSpec(url=args.url.strip(), headers=tuple(headers))
    if args.env or args.header:
        raise UsageError("--env needs --stdio and --header needs --url.")
    return None


def config_from_args(args: argparse.Namespace) -> PortalConfig:
    """The configuration file (if any) with command-line options layered on top."""
    config = load_config(Path(args.config)) if args.config else PortalConfig()
    if getattr(args, "from_file", None) and (args.stdio or args.url):
        raise UsageError("--from renders from a snapshot; do not also give --stdio or --url.")
    server = _server_from_args(args)
    collect = Collector()
    changes: dict[str, object] = {"server": server}
    if server is not None:
        changes["endpoints"] = ()  # a server on the command line replaces the configured endpoints
    changes |= from_arguments(args, collect, OPTIONS)
    limits = from_arguments(args, collect, LIMITS)
    if collect.problems:
        raise UsageError("Invalid options: " + "; ".join(collect.problems) + ".")
    if limits:
        changes["limits"] = replace(config.limits, **limits)
    return config.with_overrides(**changes)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (never raises for user errors)."""
    parser = make_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse reports usage errors itself, with code 2
        return int(exc.code or 0)
    # The SDK logs transport faults with tracebacks; the user gets our one paragraph instead.
    logging.getLogger("mcp").setLevel(logging.DEBUG if args.debug else logging.CRITICAL)
    # Every secret a connection registers during this run; masked in all that is printed below.
    redactor = start_session()
    if args.debug:
        redact_logs(logging.getLogger("mcp"))
    try:
        _reject_empty_options(args)
        return _with_leniency(args, COMMANDS[args.command])
    except PortalError as exc:
        if args.debug:  # the chained SDK/httpx exceptions may quote a header value
            say(redactor.redact(traceback.format_exc()), err=True, end="")
        say(f"mcp-portal: error: {one_line(redactor.redact(exc.message))}", err=True)
        return exc.exit_code
    except KeyboardInterrupt:
        say("mcp-portal: interrupted; the previous site is unchanged.", err=True)
        return 130
    except Exception as exc:  # last resort: a bug of ours still ends in one paragraph
        if args.debug:
            say(redactor.redact(traceback.format_exc()), err=True, end="")
        say(internal_error(exc), err=True)
        return 1


INTERNAL_ERROR = "mcp-portal: internal error:"
"""How the last-resort message starts, unlike every ``mcp-portal: error:`` (tests tell the two apart)."""


def internal_error(exc: BaseException) -> str:
    """One paragraph for an exception no stage turned into a :class:`PortalError`: a bug to report.

    It names the exception's type and where it was raised, never its text, which may quote input.
    """
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if Path(f.filename).parent.name == "generator"] or frames
    where = f" in {Path(ours[-1].filename).name}:{ours[-1].lineno}" if ours else ""
    return (
        f"{INTERNAL_ERROR} an unexpected {type(exc).__name__}{where}. This is a bug in mcp-portal, not in "
        f"your input or setup; please report it with the output of the same command run with --debug."
    )


def _cmd_diff(args: argparse.Namespace) -> int:
    from generator.commands.diff_report import render
    from generator.compare.changes import DIFF_EXIT
    from generator.compare.diff import diff

    found = diff(Path(args.old), Path(args.new))
    say(render(found, args.format), end="")
    return DIFF_EXIT if found.fails(args.fail_on) else 0


def _cmd_check(args: argparse.Namespace) -> int:
    from generator.commands.check import DRIFT_EXIT, check
    from generator.commands.check import render as render_report

    report = check(
        config_from_args(args),
        from_file=Path(args.from_file) if args.from_file else None,
        lenient=args.lenient,
        introspect_warnings=args.introspect_warnings,
    )
    if args.strict and report.warnings:
        raise PortalError(
            "The check has warnings and --strict turns them into failures: " + "; ".join(report.warnings) + "."
        )
    for warning in report.warnings:
        say(f"warning: {one_line(warning)}", err=True)
    say(render_report(report, args.format), end="")
    return DRIFT_EXIT if report.status == "drift" else 0


def _cmd_introspect(args: argparse.Namespace) -> int:
    from generator.commands.build import obtain_snapshot

    snapshot, _ = obtain_snapshot(
        config_from_args(args), None, lenient=args.lenient, introspect_warnings=args.introspect_warnings
    )
    output = Path(args.output)
    try:
        output.write_text(snapshot.to_json(), encoding="utf-8")
    except OSError as exc:
        raise PortalError(f"Cannot write the snapshot to {output} ({exc.strerror}).") from None
    say(
        f"Wrote {output}: {len(snapshot.tools)} tools from {one_line(snapshot.server.get('name', 'the server'))} "
        f"over {len(snapshot.endpoints)} endpoint{'s' if len(snapshot.endpoints) != 1 else ''} "
        f"(capability version {one_line(snapshot.capability_version)})."
    )
    return 0


def _cmd_build(args: argparse.Namespace) -> int:
    from generator.commands.build import build
    from generator.commands.progress import Progress
    from generator.publish.assemble import default_jobs

    config = config_from_args(args)
    progress = Progress(quiet=args.quiet)
    result = build(
        config,
        from_file=Path(args.from_file) if args.from_file else None,
        strict=args.strict,
        lenient=args.lenient,
        introspect_warnings=args.introspect_warnings,
        jobs=config.jobs or default_jobs(),
        progress=progress,
    )
    progress.flush()
    for warning in result.warnings:
        say(f"warning: {one_line(warning)}", err=True)
    say(
        f"Built {result.files} files for {len(result.snapshot.tools)} tools into {result.out} "
        f"in {result.seconds:.2f} s (capability version {one_line(result.snapshot.capability_version)})."
    )
    return 0


def _cmd_translations(args: argparse.Namespace) -> int:
    from generator.authoring.translations import load_translations, todo
    from generator.commands.build import obtain_snapshot

    config = config_from_args(args)
    snapshot, config = obtain_snapshot(
        config,
        Path(args.from_file) if args.from_file else None,
        lenient=getattr(args, "lenient", False),
        introspect_warnings=args.introspect_warnings,
    )
    directory = Path(config.translations_dir or "translations")
    existing = load_translations(directory if directory.is_dir() else None, [args.locale])
    text, count = todo(snapshot, existing, args.locale, str(directory))
    output = Path(args.output) if args.output else directory / f"{args.locale}.todo.yaml"
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise PortalError(f"Cannot write {output} ({exc.strerror}).") from None
    say(f"Wrote {output}: {count} missing or stale entr{'y' if count == 1 else 'ies'} for locale {args.locale}.")
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    from generator.commands.serve import serve

    directory = Path(args.out)
    if not (directory / "index.html").is_file():
        raise PortalError(f"There is no built site in {directory}. Run `mcp-portal build --out {directory}` first.")
    say(f"Serving {directory} at http://{args.host}:{args.port}/ (Ctrl-C to stop).")
    try:
        serve(directory, host=args.host, port=args.port)
    except OSError as exc:
        raise PortalError(
            f"Cannot listen on {args.host}:{args.port} ({exc.strerror}). Choose another --port."
        ) from None
    return 0


COMMANDS = {
    "build": _cmd_build,
    "introspect": _cmd_introspect,
    "check": _cmd_check,
    "diff": _cmd_diff,
    "translations": _cmd_translations,
    "serve": _cmd_serve,
}


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
