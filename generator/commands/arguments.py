"""The command line's arguments: the ``argparse`` parser of every command, and the configuration they give.

:func:`make_parser` declares each command and its options (the settings themselves come from
:data:`generator.config.options.OPTIONS`); :func:`reject_empty_options` and
:func:`config_from_args` turn what was parsed into a :class:`PortalConfig`, or a usage error
(exit 2).  Running the commands is :mod:`generator.commands.cli`.
"""

from __future__ import annotations

import argparse
import shlex
from dataclasses import replace
from pathlib import Path
from typing import Any

from generator import __version__
from generator.commands import flags
from generator.config.checks import URL_EXAMPLE, Collector, env_name_problem, header_name_problem, url_problem
from generator.config.option import (
    BUILD,
    CHECK,
    DIFF,
    INTROSPECT,
    LINT,
    SERVE,
    TRANSLATIONS,
    VERSIONS,
    add_arguments,
    from_arguments,
)
from generator.config.options import LIMITS, OPTIONS
from generator.config.portal import Limits, PortalConfig, ServerSpec, load_config
from generator.errors import UsageError

EPILOG = """examples:
  mcp-portal build                                   # document the bundled demo server into ./site
  mcp-portal build --stdio "uvx mcp-server-time" --out docs/site
  mcp-portal build --url https://api.example.com/mcp/ --header "Authorization: Bearer ${TOKEN}"
  mcp-portal introspect --stdio "npx @modelcontextprotocol/server-everything" -o snapshot.json
  mcp-portal build --from snapshot.json --locales en,ru
  mcp-portal check --out site --from snapshot.json       # exit 3 when the site drifted
  mcp-portal diff old/snapshot.json site --fail-on breaking
  mcp-portal lint --from snapshot.json --min-score 80 --format sarif
  mcp-portal build --versioned --out site                # publish this server version beside the others

exit codes: 0 success, 1 error (one paragraph, no traceback unless --debug), 2 usage error,
  3 check found drift, 4 diff --fail-on found such changes, 5 lint missed --min-score or --fail-on"""


def _source_options(parser: argparse.ArgumentParser, command: str) -> None:
    """Where the server is, the limits, and every setting of *command* from :data:`OPTIONS`."""
    group = _server_options(parser)
    if command != INTROSPECT:
        flags.FROM.add_to(group)
    flags.CONFIG.add_to(group)
    add_arguments(parser.add_argument_group("limits"), command, LIMITS)
    add_arguments(parser, command, OPTIONS)
    flags.DEBUG.add_to(parser)
    if command == BUILD:
        for flag in (flags.QUIET, flags.WATCH, flags.WATCH_PATH):
            flag.add_to(parser)


def _server_options(parser: argparse.ArgumentParser) -> Any:
    """The group of options that say where the server is (``--stdio``, ``--url`` and theirs)."""
    group = parser.add_argument_group("server (choose one; default: the bundled demo server)")
    for flag in (flags.STDIO, flags.ENV, flags.URL, flags.PUBLIC, flags.HEADER, flags.ALLOW_LITERAL_SECRETS):
        flag.add_to(group)
    return group


def make_parser() -> argparse.ArgumentParser:
    """The ``mcp-portal`` parser with every command and its options."""
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
    flags.SNAPSHOT_OUTPUT.add_to(intro)
    _lenient_option(intro)
    check = _command(sub, "check", "build the site in memory and compare it with the one on disk (exit 3 on drift)")
    _source_options(check, CHECK)
    flags.CHECK_FORMAT.add_to(check)
    _strict_option(check)
    _lenient_option(check)
    for flag in (flags.CHECK_LINT, *LINT_GATE):
        flag.add_to(check)
    _diff_command(sub)
    _lint_command(sub)
    _translations_and_serve(sub)
    _mcp_command(sub)
    _versions_command(sub)
    return parser


def _versions_command(sub: Any) -> None:
    """``versions list`` and ``versions remove VERSION``: a versioned site's versions."""
    versions = _command(sub, "versions", "list the versions of a versioned site (build --versioned), or remove one")
    actions = versions.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="print every version, newest first")
    for flag in (flags.VERSIONS_OUT, flags.VERSIONS_FORMAT, flags.DEBUG):
        flag.add_to(listing)
    remove = actions.add_parser("remove", help="publish the site again without one version")
    flags.VERSION.add_to(remove)
    add_arguments(remove, VERSIONS, OPTIONS)
    add_arguments(remove.add_argument_group("limits"), VERSIONS, LIMITS)
    for flag in (flags.CONFIG, flags.DEBUG):
        flag.add_to(remove)


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
    for flag in (flags.DIFF_FORMAT, flags.FAIL_ON, flags.DEBUG):
        flag.add_to(diff)
    add_arguments(diff.add_argument_group("limits"), DIFF, LIMITS)


LINT_GATE = (flags.MIN_SCORE, flags.LINT_FAIL_ON, flags.ENABLE, flags.DISABLE)
"""The lint options ``check --lint`` takes too."""


def _lint_command(sub: Any) -> None:
    """``lint``: the server options of ``build``, the report format and the gate."""
    lint = _command(sub, "lint", "score how well the tools' descriptions and schemas serve an agent (exit 5 on a miss)")
    _source_options(lint, LINT)
    _lenient_option(lint)
    for flag in (flags.LINT_FORMAT, *LINT_GATE):
        flag.add_to(lint)


def _translations_and_serve(sub: Any) -> None:
    """The translators' ``translations`` command and the ``serve`` preview (which has no shared epilog)."""
    trans = _command(
        sub, "translations", "write the missing and stale translations of one locale to a file for translators"
    )
    _source_options(trans, TRANSLATIONS)
    flags.LOCALE.add_to(trans)
    flags.TODO_OUTPUT.add_to(trans)
    serve = sub.add_parser("serve", help="preview a built site on 127.0.0.1 with the right content types")
    for flag in (flags.SERVE_OUT, flags.HOST, flags.PORT, flags.DEBUG):
        flag.add_to(serve)
    # serve --try-it builds its own preview from the server: where it is, and the panel's settings.
    add_arguments(serve, SERVE, OPTIONS)
    flags.CONFIG.add_to(_server_options(serve))


def _mcp_command(sub: Any) -> None:
    """``mcp SITE``: the docs server over a built site; it takes no server or site options."""
    mcp = sub.add_parser("mcp", help="serve a built portal to agents over MCP (stdio, or --http on 127.0.0.1)")
    mcp.add_argument("site", metavar="SITE", help="the built site: its folder, or the base URL it is published at")
    for flag in (flags.MCP_HTTP, flags.MCP_PORT, flags.DEBUG):
        flag.add_to(mcp)


def _lenient_option(parser: argparse.ArgumentParser) -> None:
    flags.LENIENT.add_to(parser)


def _strict_option(parser: argparse.ArgumentParser) -> None:
    flags.STRICT.add_to(parser)


NEVER_EMPTY = {
    "stdio": ("--stdio", '--stdio "uvx mcp-server-time"'),
    "url": ("--url", f"--url {URL_EXAMPLE}"),
    "from_file": ("--from", "--from snapshot.json"),
    "config": ("--config", "--config portal.yaml"),
    "output": ("--output", "-o snapshot.json"),
    "old": ("OLD", "old/snapshot.json"),
    "new": ("NEW", "site"),
    "site": ("SITE", "site"),
    "header": ("--header", '--header "Authorization: Bearer ${TOKEN}"'),
    "env": ("--env", "--env API_KEY"),
    "public": ("--public", '--public "npx -y @scope/server"'),
    "watch_path": ("--watch-path", "--watch-path src/"),
    "fail_on": ("--fail-on", "--fail-on concise-injection"),
    "enable": ("--enable", "--enable purpose-restates-name"),
    "disable": ("--disable", "--disable errors-unstated"),
    # and every path setting of the options table (--out, --templates, ...), with its example
    **{o.dest: (o.cli, f"{o.cli} {o.example}") for o in OPTIONS if o.cli and o.example},
}
"""The options an empty or blank value is refused for (docs/cli.md, "Empty values", names each): argparse
dest to (how the user wrote it, an example of a valid value)."""


_RULE_LISTS = frozenset({"fail_on", "enable", "disable"})
"""The options above that take a comma-separated list."""


def reject_empty_options(args: argparse.Namespace) -> None:
    """An empty server or path option is a usage error, never "not given".

    ``--stdio "$SERVER"`` with an unset CI variable would otherwise document the bundled demo
    (or render the current directory) and exit 0, hiding the mistake.
    """
    for dest, (option, example) in NEVER_EMPTY.items():
        value = getattr(args, dest, None)
        values = value if isinstance(value, list) else [value]
        # A list of rules names nothing when only commas are left: --fail-on "$A,$B" with both unset.
        texts = [v.replace(",", " ") if dest in _RULE_LISTS else v for v in values if isinstance(v, str)]
        if any(not v.strip() for v in texts):
            raise UsageError(
                f"{option} is empty. Give a value, e.g. {example}. If it comes from a variable "
                f'(such as {option} "$VALUE" in a CI job), that variable is unset or empty.'
            )


def _public(value: str | None, *, url: bool) -> str | None:
    """``--public``: the command or URL readers are shown; a URL for --url, a command for --stdio."""
    if value is None:
        return None
    value = value.strip()  # never empty: reject_empty_options refused that
    if url and url_problem(value):
        raise UsageError(
            f"--public must be the http:// or https:// URL readers connect to when the server is given "
            f"by --url ({url_problem(value)}), e.g. --public https://mcp.example.com/mcp"
        )
    return value


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
        unfit = next(filter(None, map(env_name_problem, args.env)), None)
        if unfit is not None:
            raise UsageError(f"--env {unfit}.")
        return ServerSpec(command=command, env=tuple(args.env), public=_public(args.public, url=False))
    if args.url:
        if args.env:
            raise UsageError("--env applies to --stdio servers; for --url use --header.")
        headers = []
        for raw in args.header:
            name, sep, value = raw.partition(":")
            if not sep or not name.strip():
                raise UsageError(
                    '--header must look like "Name: value", e.g. --header "Authorization: Bearer ${TOKEN}". The one '
                    "given has no name before a colon; it is not shown, in case it holds a secret."
                )
            problem = header_name_problem(name.strip())
            if problem:
                raise UsageError(
                    f'--header: {problem}. Give each header as "Name: value", e.g. '
                    f'--header "Authorization: Bearer ${{TOKEN}}".'
                )
            headers.append((name.strip(), value.strip()))
        problem = url_problem(args.url)
        if problem:
            shown = f" {args.url.strip()[:200]!r}" if "@" not in args.url else ""  # userinfo may be a secret
            raise UsageError(
                f"--url{shown} is not a valid server URL: {problem}. Give the server's Streamable HTTP "
                f"endpoint as an http:// or https:// URL with a host, e.g. --url {URL_EXAMPLE} "
                f"(${{VAR}} references are expanded first)."
            )
        return ServerSpec(url=args.url.strip(), headers=tuple(headers), public=_public(args.public, url=True))
    if args.env or args.header:
        raise UsageError("--env needs --stdio and --header needs --url.")
    if args.public:
        raise UsageError("--public needs --stdio or --url: it is what readers are shown instead of them.")
    return None


def site_config_from_args(args: argparse.Namespace) -> PortalConfig:
    """The configuration file (if any) with the site options of a command that connects to no server."""
    config = load_config(Path(args.config)) if args.config else PortalConfig()
    collect = Collector()
    changes = from_arguments(args, collect, OPTIONS)
    limits = from_arguments(args, collect, LIMITS)
    if collect.problems:
        raise UsageError("Invalid options: " + "; ".join(collect.problems) + ".")
    if limits:
        changes["limits"] = replace(config.limits, **limits)
    return config.with_overrides(**changes)


def diff_limits(args: argparse.Namespace) -> Limits:
    """The limits ``diff`` takes (it reads no configuration file): the defaults, and its options, checked."""
    collect = Collector()
    limits = from_arguments(args, collect, LIMITS)
    if collect.problems:
        raise UsageError("Invalid options: " + "; ".join(collect.problems) + ".")
    return Limits(**limits)


def config_from_args(args: argparse.Namespace) -> PortalConfig:
    """The configuration file (if any) with command-line options layered on top."""
    config = load_config(Path(args.config)) if args.config else PortalConfig()
    if getattr(args, "from_file", None) == "-":  # as -o - is refused: "-" is no file name here
        raise UsageError(
            "--from - would read a file named '-': mcp-portal reads a snapshot from a file, never from standard "
            "input. Give the file, e.g. --from snapshot.json (`mcp-portal introspect ... -o snapshot.json` writes "
            "one; in bash or zsh, --from <(command) reads what a command prints; a file named '-' is --from ./-)."
        )
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
    return config.with_overrides(**changes).without_literal_secrets(
        allowed=args.allow_literal_secrets, from_cli=server is not None
    )
