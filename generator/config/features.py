"""The settings that add a feature to the pages: the Try it panel, proven examples and the Agent
readiness page. Declared as every setting is (:class:`Option`), and listed in
:data:`generator.config.options.OPTIONS` in this order; kept apart so that each module stays small.
"""

from __future__ import annotations

from generator.config import checks
from generator.config.option import BUILD, CHECK, INTROSPECT, SERVE, Option

FEATURES: tuple[Option, ...] = (
    Option(
        key="try_it",
        field="try_it",
        default=False,
        type_doc="`true` / `false`",
        meaning="add a Try it panel to the pages of read-only tools on https (or loopback) HTTP endpoints",
        check=checks.flag,
        cli="--try-it",
        reference=(
            "add a Try it panel to the page of each tool declared `readOnlyHint: true` (and each one named in "
            "`try_it_tools`) that an HTTP endpoint at an `https://` address, or a loopback `http://` one, "
            "offers; the server must allow the site's origin (CORS) "
            "([docs/site.md](site.md#try-it-calling-a-tool-from-its-page))"
        ),
        usage="--try-it",
        commands=(BUILD, CHECK, SERVE),
        references={
            SERVE: "build a preview of the portal from the server (the bundled demo by default) with the Try it panel "
            "on every endpoint, stdio included, calling through this preview's own proxy "
            "([docs/site.md](site.md#trying-locally-serve---try-it))"
        },
        helps={SERVE: "preview the portal with the Try it panel on every endpoint, through a local proxy"},
    ),
    Option(
        key="try_it_tools",
        field="try_it_tools",
        default=(),
        type_doc="list of tool names",
        meaning="tools not declared read-only that also get the Try it panel, behind a confirmation",
        check=checks.names,
        cli="--try-it-tools",
        reference=(
            "tools not declared read-only that also get the Try it panel (with `--try-it`); the panel asks the "
            "reader to confirm what the server declares (writes, destructive, open world) before it sends"
        ),
        usage="--try-it-tools file_defect,delete_document",
        metavar="NAME,...",
        commands=(BUILD, CHECK, SERVE),
        default_doc="none",
    ),
    Option(
        key="prove",
        field="prove",
        default=False,
        type_doc="`true` / `false`",
        meaning="call each read-only tool, prompt and resource with its example on the server and show what it "
        "answered; never a tool declared destructive",
        check=checks.flag,
        cli="--prove",
        reference=(
            "after listing, call on the server each tool declared `readOnlyHint: true` (and each named in "
            "`prove_tools`), each prompt and each resource with the page's example, record the answers in the "
            "snapshot and show them on the pages; a tool declared `destructiveHint: true` is never called "
            "([docs/cli.md](cli.md#proving-the-examples---prove))"
        ),
        usage="--prove",
        commands=(BUILD, CHECK, INTROSPECT),
        references={
            CHECK: "call the server again with every example the site's `snapshot.json` proved, and report "
            "drift (exit 3) when one is no longer accepted or its answer changed shape",
        },
        helps={CHECK: "re-run the site's proven examples on the server: drift when one fails or changes shape"},
    ),
    Option(
        key="prove_tools",
        field="prove_tools",
        default=(),
        type_doc="list of tool names",
        meaning="tools not declared read-only that --prove calls too (never one declared destructive)",
        check=checks.names,
        cli="--prove-tools",
        reference=(
            "tools not declared read-only that `--prove` calls too, with their page's example: name only tools "
            "whose calls change nothing that matters; a tool declared `destructiveHint: true` is refused "
            "(exit 2)"
        ),
        usage="--prove-tools workspace_status",
        metavar="NAME,...",
        commands=(BUILD, CHECK, INTROSPECT),
        default_doc="none",
    ),
    Option(
        key="lint_page",
        field="lint_page",
        default=False,
        type_doc="`true` / `false`",
        meaning="add an Agent readiness page: each tool's score and findings, as mcp-portal lint reports them",
        check=checks.flag,
        cli="--lint-page",
        reference=(
            "add a per-server \"Agent readiness\" page, for the server's authors: the score, each tool's "
            "dimensions and every finding of `mcp-portal lint` with how to fix it ([docs/lint.md](lint.md)); "
            "linked from the sidebar, not from tool pages"
        ),
        usage="--lint-page",
    ),
)
