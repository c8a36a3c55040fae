"""The ``mcp-portal`` command line: parse, load config, call one function.

Exit codes: 0 success; 1 an error with a one-paragraph message; 2 a usage error;
3 ``check`` found drift; 4 ``diff --fail-on`` found such changes; 5 ``lint`` (or ``check --lint``)
missed ``--min-score`` or ``--fail-on`` (when ``check`` finds drift too, 3 wins); 130 after Ctrl-C,
and a build stopped by SIGTERM ends by it (:mod:`generator.commands.stopping`).
Tracebacks are shown only with ``--debug``.  The parser and the options it turns into a
configuration are in :mod:`generator.commands.arguments`; this module runs the commands.
"""

from __future__ import annotations

import argparse
import functools
import logging
import os
import signal
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from generator import heap
from generator.commands.arguments import config_from_args, diff_limits, make_parser, reject_empty_options
from generator.commands.stopping import READER_GONE, TERMINATED, end_by_sigterm, reader_gone, stop, stoppable
from generator.config.checks import url_problem
from generator.config.files import replace_file
from generator.config.portal import PortalConfig
from generator.connect.secrets import redact_logs, session_redactor, start_session
from generator.errors import PortalError, UsageError, missing_directory, os_failure
from generator.forked import usable_jobs
from generator.text import counted, encodable, for_terminal, one_line

if TYPE_CHECKING:
    from generator.cache.reuse import ThemeRenderer, Warm


def say(text: str, *, err: bool = False, end: str = "\n") -> None:
    """Print one message or report: every line the command line prints passes here.

    Server text (names, versions, error messages, a stdio server's stderr) reaches these lines,
    and a terminal or a CI log would obey control characters and GitHub Actions workflow
    commands in it; :func:`generator.text.for_terminal` shows them instead. A character the stream's
    encoding cannot write is escaped (:func:`generator.text.encodable`), never an error.
    """
    stream = sys.stderr if err else sys.stdout
    stream.write(encodable(for_terminal(text) + end, getattr(stream, "encoding", None)))
    stream.flush()


def _with_leniency(args: argparse.Namespace, command: Callable[[argparse.Namespace], int]) -> int:
    """Run *command*; introspection warnings go to stderr when it ends, even if it fails.

    The commands that can connect to a server pass ``args.lenient`` and the list
    ``args.introspect_warnings`` (set here) to :func:`~generator.commands.obtain.obtain_snapshot`.
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


def main(
    argv: Sequence[str] | None = None,
    *,
    tune_gc: bool = False,
    ran: list[str] | None = None,
    renderer: ThemeRenderer | None = None,
) -> int:
    """Run the command line; return the exit code (never raises for user errors).

    *tune_gc* (the console script's) tunes the garbage collector for the command (:func:`generator.heap.tune_for`);
    *ran*, when given, gets the name of the command that ran (the console script's, for :func:`run`).
    *renderer*: the compiled templates ``build`` and ``check`` render with, for a program that runs many
    commands in one process (a test suite): given the same one each time, they compile the templates
    once, as a watch's rebuilds do; the bytes are the same either way.
    """
    parser = make_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse reports usage errors itself, with code 2
        return int(exc.code or 0)
    args.renderer = renderer
    if ran is not None:
        ran.append(args.command)
    if tune_gc:
        heap.tune_for(args.command)
    # The SDK logs transport faults with tracebacks; the user gets our one paragraph instead.
    logging.getLogger("mcp").setLevel(logging.DEBUG if args.debug else logging.CRITICAL)
    start_session()  # every secret a connection registers during this run is masked in all that is printed
    if args.debug:
        redact_logs(logging.getLogger("mcp"))
    try:
        reject_empty_options(args)
        return _with_leniency(args, COMMANDS[args.command])
    except KeyboardInterrupt:
        say("mcp-portal: interrupted; the previous site is unchanged.", err=True)
        return 130
    except BrokenPipeError as exc:
        return READER_GONE if reader_gone() else report(exc, debug=args.debug)
    except Exception as exc:
        gone = missing_directory() if isinstance(exc, FileNotFoundError) else None  # getcwd() inside a path
        return report(gone or exc, debug=args.debug)


def report(exc: Exception, *, debug: bool) -> int:
    """Say what failed in one paragraph on stderr (with the traceback first under ``--debug``), secrets
    masked; return the exit code. A :class:`PortalError` says what to do; anything else is a bug of ours,
    which still ends in one paragraph (:func:`internal_error`)."""
    redactor = session_redactor()
    if debug:  # the chained SDK/httpx exceptions may quote a header value
        say(redactor.redact(traceback.format_exc()), err=True, end="")
    if isinstance(exc, PortalError):
        say(f"mcp-portal: error: {one_line(redactor.redact(exc.message))}", err=True)
        return exc.exit_code
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

    for name, value in (("OLD", args.old), ("NEW", args.new)):
        if "://" in value:  # never echoed: a URL may carry a token
            raise UsageError(
                f"{name} is a URL, and diff compares files on this machine: a snapshot file or a built site "
                f"directory. Download the published snapshot first (curl -fsSLo old.json "
                f"https://docs.example.com/snapshot.json) and give that file."
            )
    found = diff(_side(Path(args.old)), _side(Path(args.new)), diff_limits(args).max_snapshot_bytes)
    say(render(found, args.format), end="")
    return DIFF_EXIT if found.fails(args.fail_on) else 0


def _side(path: Path) -> Path:
    """A side of ``diff``: a versioned site stands for its newest version's directory."""
    if path.is_dir() and not (path / "snapshot.json").exists() and (path / "versions.json").exists():
        from generator.commands.versions import read_versions

        return path / read_versions(path)[0][0].label
    return path


def _cmd_check(args: argparse.Namespace) -> int:
    from generator.commands import lint as linting
    from generator.commands.check import DRIFT_EXIT, check
    from generator.commands.check import render as render_report

    config = config_from_args(args)
    gate = linting.gate_from_args(args)
    rules = linting.rules_from_args(args, gate) if args.lint else ()
    if not args.lint and (gate.min_score is not None or gate.fail_on or args.enable or args.disable):
        raise UsageError("--min-score, --fail-on, --enable and --disable need --lint: check --lint --min-score 80.")
    if capped := usable_jobs(config.jobs)[1]:  # check renders the site too, with as many workers
        say(f"mcp-portal: {capped}", err=True)
    report = check(
        config,
        from_file=Path(args.from_file) if args.from_file else None,
        lenient=args.lenient,
        introspect_warnings=args.introspect_warnings,
        renderer=args.renderer,
    )
    if args.strict and report.warnings:
        raise PortalError(
            "The check has warnings and --strict turns them into failures: " + "; ".join(report.warnings) + "."
        )
    for warning in report.warnings:
        say(f"warning: {one_line(warning)}", err=True)
    if not args.lint:
        say(render_report(report, args.format), end="")
        return DRIFT_EXIT if report.status == "drift" else 0
    linted = linting.lint_snapshot(report.snapshot, rules)
    say(linting.with_drift(render_report(report, args.format), report.to_dict(), linted, args.format), end="")
    code = linting.finish(linted, gate, say)
    return DRIFT_EXIT if report.status == "drift" else code


def _cmd_lint(args: argparse.Namespace) -> int:
    from generator.commands.lint import run

    return run(args, say)


def _a_file(output: str | None, what: str, example: str) -> None:
    """Refuse ``-o -`` before a server is asked anything: the usual name of standard output would be a file
    named ``-`` here, since *what* is written to a file (renamed into place, never seen half written)."""
    if output == "-":
        raise UsageError(f"-o - would write a file named '-': {what} is written to a file, renamed into place so "
                         f"that no reader sees half of it. Give a file name, e.g. -o {example}.")  # fmt: skip


def _cmd_introspect(args: argparse.Namespace) -> int:
    from generator.commands.obtain import obtain_snapshot
    from generator.model.proofs import proof_warnings

    _a_file(args.output, "the snapshot", "snapshot.json")
    snapshot, _ = obtain_snapshot(
        config_from_args(args), None, lenient=args.lenient, introspect_warnings=args.introspect_warnings
    )
    args.introspect_warnings.extend(proof_warnings(snapshot.proofs))
    output = Path(args.output)
    try:
        # Renamed over the name: a watching build never sees half a snapshot, a symlink there is replaced.
        replace_file(output, snapshot.to_json())
    except OSError as exc:
        raise PortalError(f"Cannot write the snapshot to {output} {os_failure(exc, 'choose another -o')}") from None
    say(
        f"Wrote {output}: {counted(len(snapshot.tools), 'tool')} from "
        f"{one_line(snapshot.server.get('name', 'the server'))} over {counted(len(snapshot.endpoints), 'endpoint')} "
        f"(capability version {one_line(snapshot.capability_version)})."
    )
    return 0


def _cmd_build(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    if args.from_file and args.prove:
        raise UsageError(
            "--prove sends the pages' examples to the server, and --from builds from a snapshot file without "
            "one. Prove while you take the snapshot (mcp-portal introspect --prove -o snapshot.json): a build "
            "--from that file shows what the server answered."
        )
    if args.watch_path and not args.watch:
        raise UsageError("--watch-path only applies with --watch, e.g. --watch --watch-path src/.")
    if args.watch:
        return _watch_builds(args, config)
    return stoppable(functools.partial(_read_and_build, args, config), Path(config.out), say)


def _read_and_build(
    args: argparse.Namespace,
    config: PortalConfig,
    *,
    later: list[Callable[[], None]] | None = None,
    warm: Warm | None = None,
) -> int:
    """One build. *later* and *warm*: see :func:`generator.commands.build.build` (without *warm*, the
    command's renderer, when :func:`main` was given one)."""
    if warm is None and args.renderer is not None:
        from generator.cache.reuse import Warm

        warm = Warm(renderer=args.renderer)
    jobs, capped = usable_jobs(config.jobs)
    if capped:
        say(f"mcp-portal: {capped}", err=True)
    return _build(args, config, jobs, later, warm)


def _watch_builds(args: argparse.Namespace, config: PortalConfig) -> int:
    """``build --watch``: build, then build again in this process whenever an input changes
    (:mod:`generator.commands.watch`). A failed build is reported and the watch goes on."""
    from generator.cache.reuse import Warm
    from generator.commands import watch as watching
    from generator.commands.build import build_inputs

    if args.from_file and not Path(args.from_file).is_file():
        raise UsageError(
            f"--watch needs --from to name a snapshot file it can look at again, and {args.from_file} is not "
            f"one. Write the snapshot to a file (mcp-portal introspect -o snapshot.json) and watch that."
        )
    watching.check_watch_paths(args.watch_path)
    settings = [config]

    def watched() -> watching.Watched:
        current = settings[0]
        inputs = [path for _, path in build_inputs(current, Path(args.from_file) if args.from_file else None)]
        cache = current.cache_dir
        return watching.watched_paths(inputs, args.watch_path, [Path(current.out), *([cache] if cache else [])])

    if not watched().paths:
        raise UsageError(
            "--watch has nothing to watch: give --from snapshot.json, --config portal.yaml, --templates DIR "
            "or --watch-path DIR (for a server, its source directory)."
        )

    later: list[Callable[[], None]] = []  # what a published site does not wait for: done once it is out
    published = [watching.site_digest(Path(config.out))]  # the site's, as the build under way found it
    failed, tell = functools.partial(report, debug=args.debug), functools.partial(say, err=True)

    def one_build(reread: bool) -> None:
        try:
            if reread:
                settings[0] = config_from_args(args)  # the config file may have changed too
                published[0] = watching.site_digest(Path(settings[0].out))
            _read_and_build(args, settings[0], later=later, warm=warm)
        except Exception as exc:  # reported like a command's failure; the site is untouched, the watch goes on
            failed(exc)
        finally:
            for warning in args.introspect_warnings:
                say(f"warning: {one_line(warning)}", err=True)
            args.introspect_warnings.clear()
            watching.finish(later, failed)  # the site is out: a cache left untidy only costs the next build time

    def rebuild(changed: list[str]) -> None:
        shown = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
        say(f"Rebuilding: {one_line(shown)} changed.", err=True)
        one_build(reread=True)

    warm = Warm()  # what each rebuild takes from the build before: read tools, compiled templates
    if args.renderer is not None:
        warm.renderer = args.renderer
    signal.signal(signal.SIGTERM, stop)  # a process manager's stop ends the watch as Ctrl-C does
    try:
        one_build(reread=False)  # a first build that fails is reported too: fix the input, and it builds again
        return watching.watch(rebuild, watched, lambda text: say(one_line(text), err=True))
    except KeyboardInterrupt:  # a stop during a build: say which site --out holds now
        return watching.stopped_in_build(Path(settings[0].out), published[0], later, failed, tell)


def _build(
    args: argparse.Namespace,
    config: PortalConfig,
    jobs: int,
    later: list[Callable[[], None]] | None = None,
    warm: Warm | None = None,
) -> int:
    from generator.commands.build import build
    from generator.commands.progress import Progress

    progress = Progress(quiet=args.quiet)
    result = build(
        config,
        from_file=Path(args.from_file) if args.from_file else None,
        strict=args.strict,
        lenient=args.lenient,
        introspect_warnings=args.introspect_warnings,
        jobs=jobs,
        progress=progress,
        later=later,
        warm=warm,
    )
    progress.flush()
    for warning in result.warnings:
        say(f"warning: {one_line(warning)}", err=True)
    if result.version is not None:
        say(
            f"Published version {one_line(result.version)} ({counted(len(result.snapshot.tools), 'tool')}) into "
            f"{result.out / result.version} in {result.seconds:.2f} s ({counted(result.files, 'file')} in "
            f"{result.out})."
        )
        return 0
    say(
        f"Built {counted(result.files, 'file')} for {counted(len(result.snapshot.tools), 'tool')} into {result.out} "
        f"in {result.seconds:.2f} s (capability version {one_line(result.snapshot.capability_version)})."
    )
    return 0


def _cmd_translations(args: argparse.Namespace) -> int:
    from generator.authoring.translations import load_translations, todo
    from generator.commands.build import catalogs_for
    from generator.commands.obtain import obtain_snapshot

    _a_file(args.output, "the list of translations to do", f"{args.locale}.todo.yaml")
    config = config_from_args(args)
    catalogs_for(config.with_overrides(locales=(args.locale,)))  # a locale no catalog has: before the server
    snapshot, config = obtain_snapshot(
        config,
        Path(args.from_file) if args.from_file else None,
        lenient=getattr(args, "lenient", False),
        introspect_warnings=args.introspect_warnings,
        prove=False,  # translators need what the server lists, not what it answers
    )
    directory = Path(config.translations_dir or "translations")
    existing = load_translations(directory if directory.is_dir() else None, [args.locale])
    text, count = todo(snapshot, existing, args.locale, str(directory))
    output = Path(args.output) if args.output else directory / f"{args.locale}.todo.yaml"
    try:
        replace_file(output, text)  # a symlink planted at the name is replaced, never written through
    except OSError as exc:
        raise PortalError(f"Cannot write {output} {os_failure(exc, 'choose another -o')}") from None
    entries = counted(count, "missing or stale entry", "missing or stale entries")
    say(f"Wrote {output}: {entries} for locale {args.locale}.")
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    from generator.commands.serve import serve

    # A process manager's stop ends the preview as Ctrl-C does: its temporary site and servers are removed.
    signal.signal(signal.SIGTERM, stop)
    if args.try_it:
        from generator.commands.try_serve import serve_try_it

        return serve_try_it(args, say)

    directory = Path(args.out)
    if not (directory / "index.html").is_file():
        raise PortalError(f"There is no built site in {directory}. Run `mcp-portal build --out {directory}` first.")
    # serve() says "Serving ..." itself, once it is listening (with the port it really got).
    try:
        serve(directory, host=args.host, port=args.port)
    except OSError as exc:
        raise PortalError(
            f"Cannot listen on {args.host}:{args.port} ({exc.strerror}). Choose another --port."
        ) from None
    return 0


def _cmd_versions(args: argparse.Namespace) -> int:
    from generator.commands.arguments import site_config_from_args
    from generator.commands.versions import read_versions, remove_version, render_list

    if args.action == "list":
        versions, raw = read_versions(Path(args.out))
        say(render_list(versions, raw, args.format), end="")
        return 0
    config = site_config_from_args(args)
    warnings, remaining = remove_version(config, args.version)
    for warning in warnings:
        say(f"warning: {one_line(warning)}", err=True)
    say(
        f"Removed version {one_line(args.version)} from {config.out}; {counted(len(remaining), 'version')}"
        f" {'remains' if len(remaining) == 1 else 'remain'}, the newest {one_line(remaining[0].label)}."
    )
    return 0


def _cmd_mcp(args: argparse.Namespace) -> int:
    from generator.docs_server.server import serve_http, serve_stdio

    if args.port is not None and not args.http:
        raise UsageError("--port applies to --http; over stdio there is nothing to listen on. Add --http.")
    if args.port is not None and not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port} is not a port; give 0 to 65535, e.g. --port 8001.")
    if "://" in args.site and (problem := url_problem(args.site)) is not None:  # the reason never quotes it
        raise UsageError(
            f"SITE is not a usable URL: {problem}. Give the portal's base URL, e.g. https://docs.example.com/."
        )
    if args.http:
        return serve_http(args.site, 8001 if args.port is None else args.port)
    if sys.stdin is None:  # started with it closed (`<&-`): the SDK's stdio transport would fail on it
        raise UsageError(
            "Standard input is closed, and `mcp` on stdio reads a client's requests from it. Let the MCP client "
            "start the command (docs/agents.md shows client configurations), or serve Streamable HTTP with --http."
        )
    return serve_stdio(args.site)


COMMANDS = {
    "build": _cmd_build,
    "introspect": _cmd_introspect,
    "check": _cmd_check,
    "diff": _cmd_diff,
    "lint": _cmd_lint,
    "translations": _cmd_translations,
    "serve": _cmd_serve,
    "mcp": _cmd_mcp,
    "versions": _cmd_versions,
}


def run() -> None:
    """Console-script entry point (``mcp-portal`` and ``python -m generator``).

    After ``build``, ``check`` and ``introspect`` the process ends without tearing down its heap
    (:func:`generator.heap.end_now`); after a build stopped by SIGTERM, and cleaned up, by that signal.
    """
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:  # started with it closed (`>&-`, some service managers)
            # The null device takes the free descriptor, 1 or 2: its lines go nowhere, as print's would, and no
            # file opened later (the cache's database, a page) can end up as a descriptor a child writes to.
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 (open for the process)
    ran: list[str] = []
    code = main(tune_gc=True, ran=ran)
    if code == TERMINATED:  # cleaned up: now end as SIGTERM ends a process, which is what its sender expects
        sys.stdout.flush()
        sys.stderr.flush()
        end_by_sigterm()
    if ran and ran[0] in heap.KEEPING:
        heap.end_now(code)
    sys.exit(code)
