"""The bounds on what one server can cost a build (``limits:`` in ``portal.yaml``), one option each.

Part of the single table of settings in :mod:`generator.config.options` (which re-exports
:data:`LIMITS`): timeouts, sizes and counts, each with its key, default, check and option.
"""

from __future__ import annotations

from generator.config import checks
from generator.config.option import BUILD, CHECK, DIFF, SERVER_COMMANDS, SITE_COMMANDS, TRANSLATIONS, VERSIONS, Option

LIMITS: tuple[Option, ...] = (
    Option(
        key="limits.request_timeout",
        field="request_timeout",
        default=30.0,
        type_doc="positive number",
        meaning="seconds one MCP request may take",
        check=checks.seconds,
        cli="--request-timeout",
        reference="seconds one MCP request may take (default 30)",
        usage="--request-timeout 10",
        metavar="SECONDS",
        commands=SERVER_COMMANDS,
    ),
    Option(
        key="limits.total_timeout",
        field="total_timeout",
        default=120.0,
        type_doc="positive number",
        meaning="seconds the whole introspection of one endpoint may take, connection included; endpoints run "
        "side by side, each with its own budget",
        check=checks.seconds,
        cli="--total-timeout",
        reference=(
            "seconds one endpoint's whole introspection may take, connection included (default 120; "
            "endpoints run side by side, each with its own budget)"
        ),
        usage="--total-timeout 60",
        metavar="SECONDS",
        commands=SERVER_COMMANDS,
    ),
    Option(
        key="limits.prove_timeout",
        field="prove_timeout",
        default=60.0,
        type_doc="positive number",
        meaning="seconds `--prove` may spend calling one endpoint, connection included; what was not proven "
        "by then is left unproven, with a warning",
        check=checks.seconds,
        cli="--prove-timeout",
        reference=(
            "seconds `--prove` may spend calling one endpoint, connection included (default 60); each call "
            "is also bound by `--request-timeout`, and what was not proven in time is left unproven, with a warning"
        ),
        usage="--prove-timeout 20",
        metavar="SECONDS",
        commands=SERVER_COMMANDS,
    ),
    Option(
        key="limits.max_pages",
        field="max_pages",
        default=100,
        type_doc="positive whole number",
        meaning="pages of one paginated list (`tools/list`, `prompts/list`, ...) before mcp-portal gives up",
        check=checks.count,
        cli="--max-pages",
        reference="pages of one paginated list (`tools/list`, `prompts/list`, ...) before giving up (default 100)",
        usage="--max-pages 500",
        metavar="N",
        commands=SERVER_COMMANDS,
    ),
    Option(
        key="limits.max_tools",
        field="max_tools",
        default=5000,
        type_doc="positive whole number",
        meaning="entries accepted in one list from one endpoint",
        check=checks.count,
        cli="--max-tools",
        reference="entries accepted in one list from one endpoint (default 5000)",
        usage="--max-tools 20000",
        metavar="N",
        commands=SERVER_COMMANDS,
    ),
    Option(
        key="limits.max_reply_bytes",
        field="max_reply_bytes",
        default=33554432,
        type_doc="positive whole number",
        meaning="bytes of one HTTP reply from a server, counted after decompression while it is read; a larger "
        "reply stops introspection with an error",
        check=checks.count,
        cli="--max-reply-bytes",
        reference=(
            "bytes of one HTTP reply, counted after decompression while it is read; a larger reply (a gzip "
            "bomb, say) stops introspection with an error naming this option (default 33554432, 32 MiB)"
        ),
        usage="--max-reply-bytes 67108864",
        metavar="BYTES",
        commands=SERVER_COMMANDS,
    ),
    Option(
        key="limits.max_description",
        field="max_description",
        default=20000,
        type_doc="positive whole number",
        meaning="characters of one tool description shown; a longer one is cut, and the page says so (the full "
        "text stays in `snapshot.json`)",
        check=checks.count,
        cli="--max-description",
        reference=(
            "characters of one description shown; a longer one is cut and the page says so, while "
            "`snapshot.json` keeps the full text (default 20000)"
        ),
        usage="--max-description 5000",
        metavar="CHARS",
        commands=SERVER_COMMANDS,
    ),
    Option(
        key="limits.max_schema_bytes",
        field="max_schema_bytes",
        default=262144,
        type_doc="positive whole number",
        meaning="size of one schema (as JSON) that is documented in full; a larger one is shown cut, "
        "without rows or examples",
        check=checks.count,
        cli="--max-schema-bytes",
        reference=(
            "largest schema (as JSON) documented in full; a larger one is shown cut, without rows or "
            "examples (default 262144)"
        ),
        usage="--max-schema-bytes 1048576",
        metavar="BYTES",
        commands=SERVER_COMMANDS,
    ),
    Option(
        key="limits.max_schema_depth",
        field="max_schema_depth",
        default=24,
        type_doc="positive whole number",
        meaning="nesting levels of a schema shown as rows; deeper levels are marked as cut",
        check=checks.count,
        cli="--max-schema-depth",
        reference="schema nesting levels shown as rows; deeper levels are marked as cut (default 24)",
        usage="--max-schema-depth 8",
        metavar="N",
        commands=SERVER_COMMANDS,
    ),
    Option(
        key="limits.max_render_seconds",
        field="max_render_seconds",
        default=900.0,
        type_doc="positive number",
        meaning="seconds a build (or `check`) may spend after introspection: finding examples, rendering pages, "
        "building the search index",
        check=checks.seconds,
        cli="--max-render-seconds",
        reference=(
            "seconds the build may spend after introspection, on examples, pages and the search index "
            "(default 900); when they run out the build fails, naming what it was doing, and writes nothing"
        ),
        usage="--max-render-seconds 300",
        metavar="SECONDS",
        commands=SITE_COMMANDS,
    ),
    Option(
        key="limits.max_snapshot_bytes",
        field="max_snapshot_bytes",
        default=134217728,
        type_doc="positive whole number",
        meaning="bytes of one snapshot file read (`--from`, `previous`, each side of `diff`, a site's "
        "`snapshot.json` in `check`, each version's in a versioned site); a larger one is refused before it is "
        "read",
        check=checks.count,
        cli="--max-snapshot-bytes",
        reference=(
            "bytes of one snapshot file read: `--from`, `--previous`, each side of `diff`, the site's "
            "`snapshot.json` in `check`, each kept version's `snapshot.json` in a versioned site; a larger one is "
            "refused before it is read, with an error naming this "
            "option (default 134217728, 128 MiB)"
        ),
        usage="--max-snapshot-bytes 536870912",
        metavar="BYTES",
        commands=(BUILD, CHECK, TRANSLATIONS, DIFF, VERSIONS),
    ),
)
"""The bounds on what one server can cost a build (``limits:``), one option each."""
