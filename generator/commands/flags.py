"""The command-line options that are no setting of ``portal.yaml``, each declared once: its argparse
declaration (:mod:`generator.commands.arguments` adds it to its commands) and its row in docs/cli.md
(:mod:`generator.commands.reference` writes the tables from here and from the settings of
:mod:`generator.config.options`).
"""

from __future__ import annotations

import argparse

from generator.config.option import Flag


def port(text: str) -> int:
    """A TCP port for ``--port``: 0 to 65535, where 0 picks a free one (argparse names the option on error)."""
    value = int(text) if text.strip().isdigit() else -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port: give a number from 1 to 65535 (0 picks a free one)")
    return value


STDIO = Flag(
    names=("--stdio",),
    help="start the server as a child process and talk over stdio",
    reference=(
        "start the server as a child process and talk over stdio; `${VAR}` in arguments is expanded "
        "from the environment"
    ),
    usage='--stdio "npx @modelcontextprotocol/server-everything stdio"',
    metavar='"CMD ARGS"',
)

ENV = Flag(
    names=("--env",),
    help="pass this environment variable to the stdio server (repeatable); the SDK passes only a safe few",
    reference=(
        "pass this environment variable to the stdio server (repeatable); the SDK gives a child only "
        "a safe allow-list otherwise. A name, never `NAME=VALUE`: export the variable first. Only with `--stdio`"
    ),
    usage="--env GITHUB_TOKEN",
    metavar="NAME",
    settings={"action": "append", "default": []},
)

URL = Flag(
    names=("--url",),
    help="the server's Streamable HTTP endpoint, e.g. http://127.0.0.1:8765/mcp/",
    reference=(
        "connect over Streamable HTTP; `${VAR}` is expanded before the URL is checked, and a "
        "malformed URL is a usage error"
    ),
    usage="--url 'http://127.0.0.1:${PORT}/mcp/'",
)

PUBLIC = Flag(
    names=("--public",),
    help='what readers run or connect to, shown instead of --stdio or --url, e.g. --public "npx -y @scope/server"',
    reference=(
        "what readers run or connect to, shown on every page and in every client configuration "
        "instead of `--stdio` or `--url` (a URL for `--url`). Without it, a `--stdio` command that is "
        "a path on this machine gets a warning"
    ),
    usage='--public "npx -y @scope/server"',
    metavar='"CMD" or URL',
)

HEADER = Flag(
    names=("--header",),
    help="HTTP header for --url (repeatable); ${VAR} is read from the environment and never stored",
    reference=(
        "HTTP header for `--url` (repeatable); `${VAR}` is read from the environment and never "
        "stored. Only with `--url`"
    ),
    usage='--header "Authorization: Bearer ${TOKEN}"',
    metavar='"Name: value"',
    settings={"action": "append", "default": []},
)

ALLOW_LITERAL_SECRETS = Flag(
    names=("--allow-literal-secrets",),
    help="go on when --stdio, --url or --public holds what looks like a literal secret (it is masked in every output)",
    reference=(
        "go on when the server's command, URL or `public` value holds what looks like a secret written "
        "literally (a value after `--api-key`, `--token`, `--password`, `--secret` and the like; `key=` or "
        "`token=` in a query; a user name and password in a URL; a key in a known credential shape), "
        "which is otherwise refused with exit 2. The value is still masked in every page, file and message "
        "([security.md](security.md#literal-secrets))"
    ),
    usage="--allow-literal-secrets",
    settings={"action": "store_true"},
)

FROM = Flag(
    names=("--from",),
    help="render offline from a snapshot file",
    reference="render offline from a snapshot written by `introspect` (not `introspect` itself)",
    usage="--from snapshot.json",
    metavar="SNAPSHOT",
    settings={"dest": "from_file"},
)

CONFIG = Flag(
    names=("--config",),
    help="read settings (and the server) from a YAML file",
    reference=(
        "read settings, and the server or endpoints, from a YAML file ([docs/configuration.md](configuration.md))"
    ),
    usage="--config portal.yaml",
    metavar="portal.yaml",
)

LENIENT = Flag(
    names=("--lenient",),
    help="skip tools that break the MCP spec (and repeated names) with a warning, instead of failing",
    reference=(
        "skip tools that break the MCP specification, and repeated names (of tools, prompts, "
        "resources and resource templates; the first listing is kept), with a warning (skipped tools "
        "are listed on the index page) instead of failing; not for snapshot files (`build`, `check`, "
        "`introspect`)"
    ),
    usage="--lenient",
    settings={"action": "store_true"},
)

DEBUG = Flag(
    names=("--debug",),
    help="show tracebacks for errors",
    reference="show a traceback with errors (every command)",
    usage="--debug",
    settings={"action": "store_true"},
)

STRICT = Flag(
    names=("--strict",),
    help="turn warnings (stale translations, unmapped API operations, overlay problems...) into errors",
    reference=(
        "treat warnings (stale translations, missing UI strings, schema notes, unmapped API "
        "operations, overlay problems) as errors"
    ),
    usage="--strict",
    settings={"action": "store_true"},
)

QUIET = Flag(
    names=("--quiet",),
    help="no progress bars on a terminal: only one summary line per stage on stderr (as in CI)",
    reference=(
        "no progress bars on a terminal, only one summary line per stage (`read`/`connect`, `model`, "
        "`render`, `index`, `publish`) with its time on stderr, as in CI"
    ),
    usage="--quiet",
    settings={"action": "store_true"},
)

WATCH = Flag(
    names=("--watch",),
    help="after the build, build again whenever an input changes (the --from file, the config, "
    "templates, overlays, translations, --watch-path), until Ctrl-C",
    reference=(
        "after the build, stay running and build again whenever an input changes "
        "([below](#build---watch)); Ctrl-C (or SIGTERM) stops it with exit code 0"
    ),
    usage="--watch",
    settings={"action": "store_true"},
)

WATCH_PATH = Flag(
    names=("--watch-path",),
    help="with --watch, also rebuild when a file under PATH changes, e.g. the server's source (repeatable)",
    reference=(
        "with `--watch`, also rebuild when a file under PATH changes, such as your server's source (repeatable)"
    ),
    usage="--watch-path src/",
    metavar="PATH",
    settings={"action": "append", "default": []},
)

SNAPSHOT_OUTPUT = Flag(
    names=("-o", "--output"),
    help="where to write the snapshot",
    reference=(
        "where to write the snapshot (required; missing directories are created); written beside it and "
        "renamed over the name, so a symlink there is replaced, never written through"
    ),
    usage="-o snapshot.json",
    metavar="SNAPSHOT.json",
    settings={"required": True},
)

CHECK_FORMAT = Flag(
    names=("--format",),
    help="report format (default text)",
    reference=(
        'report format; `json` prints `{"status": "ok"\\|"drift", "tools": {"added", "removed", '
        '"changed"}, "prompts": {...}, "resources": {...}, "resource_templates": {...}, "files": '
        '{"added", "removed", "changed"}, "hand_edited": [...], "kept": [...], "notes": [...]}`, and with '
        '`--prove` `"proofs": {"sent": N, "drift": [...]}`'
    ),
    usage="--format json",
    settings={"choices": ("text", "json"), "default": "text"},
)

DIFF_FORMAT = Flag(
    names=("--format",),
    help="report format (default text)",
    reference=(
        '`text`: grouped by class and tool; `json`: `{"counts": {...}, "changes": [{"subject", '
        '"name", "tool", "class", "kind", "path", "old", "new", "message", "endpoint"}]}` (`subject` '
        "is `tool`, `prompt`, `resource` or `resource-template`; `tool` repeats `name` for tools and "
        "is null otherwise; `endpoint` is null unless the change is confined to one endpoint); "
        "`markdown`: a table per class, for a pull-request comment (server text in it cannot add "
        "links, images or `@mentions`)"
    ),
    usage="--format markdown",
    settings={"choices": ("text", "json", "markdown"), "default": "text"},
)

FAIL_ON = Flag(
    names=("--fail-on",),
    help="exit 4 when there is a breaking change (breaking) or any change (any); default: always exit 0",
    reference=("exit 4 when there is a breaking change, or any change at all (default: exit 0 whatever changed)"),
    usage="--fail-on breaking",
    settings={"choices": ("breaking", "any")},
)

LOCALE = Flag(
    names=("--locale",),
    help="the locale to translate into, e.g. ru",
    reference="the locale to translate into (required)",
    usage="--locale ru",
    settings={"required": True},
)

TODO_OUTPUT = Flag(
    names=("-o", "--output"),
    help="where to write (default DIR/<locale>.todo.yaml)",
    reference=(
        "where to write (default `DIR/<locale>.todo.yaml`); renamed over the name, so a symlink there "
        "is replaced, never written through"
    ),
    usage="-o ru.todo.yaml",
    metavar="FILE",
)

SERVE_OUT = Flag(
    names=("--out",),
    help="the built site (default ./site)",
    reference="the built site (default `./site`)",
    usage="--out public",
    metavar="DIR",
    settings={"default": "site"},
)

HOST = Flag(
    names=("--host",),
    help="address to listen on (default 127.0.0.1)",
    reference="address to listen on (default `127.0.0.1`)",
    usage="--host localhost",
    settings={"default": "127.0.0.1"},
)

PORT = Flag(
    names=("--port",),
    help="port (default 8000)",
    reference="port (default 8000)",
    usage="--port 8080",
    settings={"type": port, "default": 8000},
)

LINT_FORMAT = Flag(
    names=("--format",),
    help="report format: text (a table), json, sarif (SARIF 2.1.0) or markdown (a PR comment); default text",
    reference=(
        "`text`: the score, a table of tools by dimension, every finding and how to fix it; `json`: "
        '`{"format", "server", "score", "tool_quality", "coherence", "counts", "rules", "server_findings", '
        '"tools": [{"name", "score", "dimensions", "findings": [{"rule", "severity", "dimension", "tool", '
        '"field", "text", "message", "fix"}]}]}`; `sarif`: SARIF 2.1.0 for GitHub code scanning; `markdown`: '
        "for a pull-request comment (server text in it cannot add links, images or `@mentions`)"
    ),
    usage="--format sarif",
    settings={"choices": ("text", "json", "sarif", "markdown"), "default": "text"},
)

MIN_SCORE = Flag(
    names=("--min-score",),
    help="exit 5 when the server's score (0-100) is below N",
    reference="exit 5 when the server's score (0 to 100) is below N",
    usage="--min-score 80",
    metavar="N",
    settings={"type": int},
)

LINT_FAIL_ON = Flag(
    names=("--fail-on",),
    help="exit 5 when a finding of these rules (or of this severity: error, warning, note) is found",
    reference=(
        "exit 5 when a finding of one of these comma-separated rules is found; a severity (`error`, "
        "`warning`, `note`) stands for every rule of that severity or worse. A rule named here runs even "
        "when it is off by default"
    ),
    usage="--fail-on concise-injection,behaviour-contradicts-annotations",
    metavar="RULE,...",
)

ENABLE = Flag(
    names=("--enable",),
    help="also run these rules, which are off by default (comma-separated)",
    reference="also run these comma-separated rules, which are off by default ([docs/lint.md](lint.md#rules))",
    usage="--enable purpose-restates-name",
    metavar="RULE,...",
)

DISABLE = Flag(
    names=("--disable",),
    help="do not run these rules (comma-separated)",
    reference="do not run these comma-separated rules",
    usage="--disable errors-unstated,usage-missing",
    metavar="RULE,...",
)

CHECK_LINT = Flag(
    names=("--lint",),
    help="also lint the server's tools (as mcp-portal lint does) and apply --min-score and --fail-on",
    reference=(
        "also lint the server's tools, as `mcp-portal lint` does, and print the report after the drift "
        "report; with `--min-score` or `--fail-on`, exit 5 when the bar is missed (exit 3 when the site "
        "drifted as well)"
    ),
    usage="--lint --min-score 80",
    settings={"action": "store_true"},
)
MCP_HTTP = Flag(
    names=("--http",),
    help="serve Streamable HTTP on 127.0.0.1 (at /mcp) instead of stdio",
    reference="serve Streamable HTTP at `http://127.0.0.1:PORT/mcp` instead of stdio; it listens on 127.0.0.1 only",
    usage="--http --port 8001",
    settings={"action": "store_true"},
)

MCP_PORT = Flag(
    names=("--port",),
    help="with --http, the port of 127.0.0.1 to listen on (default 8001; 0 picks a free one)",
    reference=(
        "with `--http`, the port of 127.0.0.1 to listen on (default 8001, beside `serve`'s 8000; 0 picks a free one)"
    ),
    usage="--port 8001",
    settings={"type": port, "default": None},
)

VERSION = Flag(
    names=("version",),
    help="the version to remove, as `versions list` names it",
    reference="the version to remove, as `versions list` names it; the others stay byte for byte",
    usage="1.2.0",
    metavar="VERSION",
)

VERSIONS_OUT = Flag(
    names=("--out",),
    help="the versioned site (default ./site)",
    reference="the versioned site (default `./site`)",
    usage="--out public",
    metavar="DIR",
    settings={"default": "site"},
)

VERSIONS_FORMAT = Flag(
    names=("--format",),
    help="list format (default text)",
    reference=(
        "`text`: a line per version, newest first; `json`: the site's `versions.json` as it is "
        '(`{"latest": ..., "versions": [{"version", "path", "date", "protocol", "breaking", "tools", '
        '"locales", "search"}]}`)'
    ),
    usage="--format json",
    settings={"choices": ("text", "json"), "default": "text"},
)
