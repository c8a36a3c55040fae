"""The option tables of docs/cli.md, written from the declarations: the settings of
:mod:`generator.config.options` and the command-line options of :mod:`generator.commands.flags`.

``python -m generator.commands.reference docs/cli.md --write`` (run by ``scripts/update-golden``)
rewrites each block between ``<!-- options:NAME -->`` and ``<!-- /options:NAME -->``; a test fails
when the page is stale. The prose around the tables is written by hand.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from generator.commands import flags
from generator.config.option import BUILD, CHECK, DIFF, INTROSPECT, LINT, TRANSLATIONS, VERSIONS, Flag, Option
from generator.config.options import LIMITS, OPTIONS, regenerate

Documented = Option | Flag


def _setting(cli: str) -> Option:
    return next(o for o in OPTIONS if o.cli == cli)


def _shown(option: Documented) -> str:
    """How a row names the option: each name with its value's placeholder, as ``--help`` shows it."""
    if not option.names[0].startswith("-"):  # an argument, not an option: its placeholder alone
        return f"`{option.metavar or option.names[0]}`"
    if isinstance(option, Flag):
        settings = option.settings
        if settings.get("action") in ("store_true", "append") and not option.metavar:
            value = ""
        elif "choices" in settings:
            value = "\\|".join(settings["choices"])
        else:
            value = option.metavar or option.names[-1].lstrip("-").upper()
    else:
        value = "" if option.switch else option.metavar or option.names[0].lstrip("-").replace("-", "_").upper()
    return ", ".join(f"`{name} {value}`" if value else f"`{name}`" for name in option.names)


def _table(command: str, options: Sequence[Documented], extra: str = "") -> Callable[[], str]:
    def table() -> str:
        rows = ["| option | meaning | example |", "| --- | --- | --- |"]
        rows += [f"| {_shown(o)} | {o.documented(command)} | `{o.usage}` |" for o in options]
        return "\n".join(rows + ([extra] if extra else []))

    return table


_SERVER = (
    flags.STDIO,
    flags.ENV,
    flags.URL,
    flags.HEADER,
    flags.PUBLIC,
    flags.ALLOW_LITERAL_SECRETS,
    flags.FROM,
    flags.CONFIG,
)
TABLES: dict[str, Callable[[], str]] = {
    "server": _table(BUILD, (*_SERVER, _setting("--capability-version"), flags.LENIENT, flags.DEBUG)),
    "cli-limits": _table(BUILD, LIMITS),
    "build": _table(
        BUILD,
        (
            *(o for o in OPTIONS if o.cli and BUILD in o.commands and o.cli != "--capability-version"),
            flags.STRICT,
            flags.QUIET,
            flags.WATCH,
            flags.WATCH_PATH,
        ),
    ),
    "introspect": _table(INTROSPECT, (flags.SNAPSHOT_OUTPUT,)),
    "check": _table(
        CHECK,
        (_setting("--out"), flags.CHECK_FORMAT, flags.CHECK_LINT),
        "| server, limit and site options | as for `build` | `--from snapshot.json --locales en,ru` |",
    ),
    "diff": _table(DIFF, (flags.DIFF_FORMAT, flags.FAIL_ON, *(o for o in LIMITS if DIFF in o.commands))),
    "lint": _table(
        LINT,
        (flags.LINT_FORMAT, flags.MIN_SCORE, flags.LINT_FAIL_ON, flags.ENABLE, flags.DISABLE),
        "| server and limit options | as for `build` | `--from snapshot.json` |",
    ),
    "translations": _table(TRANSLATIONS, (flags.LOCALE, _setting("--translations"), flags.TODO_OUTPUT)),
    "versions": _table(
        VERSIONS,
        (
            flags.VERSION,
            *(o for o in OPTIONS if o.cli and VERSIONS in o.commands),
            *(o for o in LIMITS if VERSIONS in o.commands),
            flags.CONFIG,
            flags.VERSIONS_FORMAT,
        ),
    ),
    "serve": _table(
        "serve",
        (flags.SERVE_OUT, flags.HOST, flags.PORT, _setting("--try-it"), _setting("--try-it-tools")),
        "| `--stdio`, `--env`, `--url`, `--header`, `--public`, `--config` | with `--try-it`: the server to call, "
        'as for `build` (default: the bundled demo) | `--try-it --stdio "uvx mcp-server-time"` |',
    ),
    "mcp": _table("mcp", (flags.MCP_HTTP, flags.MCP_PORT, flags.DEBUG)),
}
"""Each generated block of docs/cli.md: the command whose text is shown, and its options in order."""


def main(argv: list[str] | None = None) -> int:
    """``python -m generator.commands.reference docs/cli.md --write`` (without ``--write``: check it)."""
    return regenerate(argv, TABLES, "generator.commands.reference")


if __name__ == "__main__":
    sys.exit(main())
