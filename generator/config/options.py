"""Every setting, declared once: its ``portal.yaml`` key, type, default, check and command-line option.

The table below is the single source for a setting. :mod:`generator.config.portal` takes its
dataclass defaults and its file validation from it, :mod:`generator.commands.arguments` builds its
options and checks their values with it, and the reference tables of ``docs/configuration.md``
are generated from it (``python -m generator.config.options --write docs/configuration.md``,
run by ``scripts/update-golden``; a test fails when the page is stale). Adding a setting means
adding one :class:`Option`; settings with a nested shape (``server``, ``endpoints``, ``limits``)
are listed here for their key, docs and defaults, and parsed by ``portal.py``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from generator.config import checks
from generator.config.features import FEATURES
from generator.config.files import replace_file
from generator.config.limits import LIMITS as LIMITS
from generator.config.option import BUILD, CHECK, SERVER_COMMANDS, TRANSLATIONS, VERSIONS, Option
from generator.config.registry import REGISTRY
from generator.config.versioning import VERSIONING

OPTIONS: tuple[Option, ...] = (
    Option(
        key="title",
        field="title",
        default=None,
        type_doc="string",
        meaning="site title",
        check=checks.text,
        cli="--title",
        reference="site title (default: the server's title or name)",
        usage='--title "Acme MCP"',
        default_doc="the server's title or name",
        commands=(BUILD, CHECK, VERSIONS),
    ),
    Option(
        key="base_url",
        field="base_url",
        default=None,
        type_doc="http(s) URL",
        meaning="public URL of the site, for canonical links and llms.txt",
        check=checks.site_url,
        cli="--base-url",
        reference="public URL of the site, for canonical links, `sitemap.xml` and absolute llms.txt links",
        usage="--base-url https://docs.acme.dev/mcp/",
        metavar="URL",
        commands=(BUILD, CHECK, VERSIONS),
    ),
    Option(
        key="locales",
        field="locales",
        default=("en", "ru", "ar"),
        type_doc="list of locale codes",
        meaning="the locales to build",
        check=checks.locales,
        cli="--locales",
        reference=(
            "comma-separated locales (default `en,ru,ar`); each needs a `locales/<code>.yaml` ([adding a UI "
            "language](authoring.md#adding-a-ui-language))"
        ),
        usage="--locales en,ar",
        metavar="en,ru,ar",
    ),
    Option(
        key="server_language",
        field="server_language",
        default="en",
        type_doc="language tag",
        meaning="the language the server writes its descriptions in, marked with lang= on every page",
        check=checks.language,
        cli="--server-language",
        reference=(
            "the language the server writes its descriptions in (default `en`); verbatim text is marked "
            "`lang=TAG` so screen readers voice it right"
        ),
        usage="--server-language de",
        metavar="TAG",
    ),
    Option(
        key="server",
        field="server",
        default=None,
        type_doc="mapping",
        meaning="the one server to document",
        default_doc="the bundled demo",
        cli_doc="`--stdio` / `--url` (with `--env`, `--header`)",
    ),
    Option(
        key="endpoints",
        field="endpoints",
        default=(),
        type_doc="list of mappings",
        meaning="several endpoints or profiles of one product, introspected together",
        default_doc="none",
        cli_doc="`--stdio` / `--url` replace them",
    ),
    Option(
        key="capability_version",
        field="capability_version",
        default="server",
        type_doc="`server`, `fingerprint` or `meta:KEY`",
        meaning="the version stamped on every page: server, fingerprint, or meta:KEY",
        check=checks.capability_rule,
        cli="--capability-version",
        reference=(
            "the version stamped on every page: `server` (the server's version, default), `fingerprint` (a "
            "hash of the tool list) or `meta:KEY` (a `_meta` key of the discover/initialize result)"
        ),
        usage="--capability-version meta:com.acme/capabilityVersion",
        metavar="RULE",
        commands=SERVER_COMMANDS,
    ),
    Option(
        key="out",
        field="out",
        default="site",
        type_doc="path",
        meaning="output directory: new, empty, or a site mcp-portal built",
        check=checks.text,
        example="site",
        cli="--out",
        reference=(
            "output directory (default `./site`): a new or empty directory, or a site mcp-portal built "
            "before; see [the output directory](#the-output-directory)"
        ),
        usage="--out public",
        references={
            CHECK: "the built site to check (default `./site`)",
            VERSIONS: "the versioned site (default `./site`)",
        },
        metavar="DIR",
        relative=True,
        helps={CHECK: "the built site to check", VERSIONS: "the versioned site (default ./site)"},
        commands=(BUILD, CHECK, VERSIONS),
    ),
    Option(
        key="limits",
        field="limits",
        default=None,
        type_doc="mapping of numbers",
        meaning="bounds on what one server can cost a build",
        default_doc="see [`limits`](#limits)",
        cli_doc="one option per limit",
    ),
    Option(
        key="registry",
        field="registry",
        default=None,
        type_doc="mapping of strings",
        meaning="what registries need to know of the server that it does not say: its reverse-DNS name, a short "
        "description, its repository and package (`server.json`, the Server Card)",
        default_doc="see [`registry`](#registry)",
        cli_doc="none",
    ),
    Option(
        key="templates",
        field="template_dir",
        default=None,
        type_doc="path",
        meaning="a directory of templates searched before the shipped ones",
        check=checks.text,
        example="my-templates",
        cli="--templates",
        reference=(
            "a theme: templates, macros and UI strings searched before the shipped ones "
            "([docs/authoring.md](authoring.md#overriding-templates))"
        ),
        usage="--templates my-theme",
        metavar="DIR",
        relative=True,
        commands=(BUILD, CHECK, VERSIONS),
    ),
    Option(
        key="translations",
        field="translations_dir",
        default=None,
        type_doc="path",
        meaning="translations of server titles and descriptions (DIR/<locale>.yaml)",
        check=checks.text,
        example="translations",
        cli="--translations",
        reference=(
            "translations of the titles and descriptions of tools, prompts and resources, "
            "`DIR/<locale>.yaml` ([docs/authoring.md](authoring.md#translations-of-server-text))"
        ),
        usage="--translations translations",
        references={TRANSLATIONS: "where the existing translations live (default `./translations`)"},
        metavar="DIR",
        commands=(BUILD, CHECK, TRANSLATIONS),
        relative=True,
        helps={TRANSLATIONS: "where existing translations live (default ./translations)"},
    ),
    Option(
        key="search",
        field="search",
        default=True,
        type_doc="`true` / `false`",
        meaning="skip the Pagefind search index",
        check=checks.flag,
        cli="--no-search",
        reference="skip the Pagefind search index (faster builds, no search box)",
        usage="--no-search",
        negated=True,
    ),
    *FEATURES,
    Option(
        key="overlays",
        field="overlays_dir",
        default=None,
        type_doc="path",
        meaning="author overlays, one YAML file per tool: notes, examples, troubleshooting, related tools, scope, "
        "API operation",
        check=checks.text,
        example="overlays",
        cli="--overlays",
        reference=(
            "author overlays, one YAML file per tool: notes, examples, troubleshooting rows, related tools, "
            "scope, API operation; every example is validated "
            "([docs/authoring.md](authoring.md#author-overlays))"
        ),
        usage="--overlays overlays",
        metavar="DIR",
        relative=True,
    ),
    Option(
        key="scope_meta_key",
        field="scope_meta_key",
        default=None,
        type_doc="string",
        meaning="the tool `_meta` key holding the capability or scope a tool requires",
        check=checks.text,
    ),
    Option(
        key="openapi",
        field="openapi",
        default=None,
        type_doc="path",
        meaning="the product's OpenAPI 3.x document: tools are mapped to its operations; it is published with the site",
        check=checks.text,
        example="openapi.yaml",
        cli="--openapi",
        reference=(
            "the product's OpenAPI 3.x document: tools are mapped to its operations, and it is published at "
            "the site root ([docs/configuration.md](configuration.md#mapping-tools-to-api-operations))"
        ),
        usage="--openapi api/openapi.yaml",
        metavar="FILE",
        relative=True,
    ),
    Option(
        key="operation_meta_key",
        field="operation_meta_key",
        default=None,
        type_doc="string",
        meaning="the tool `_meta` key naming its API operation (an operationId or `METHOD /path`)",
        check=checks.text,
    ),
    Option(
        key="",
        field="jobs",
        default=None,
        type_doc="positive whole number",
        meaning="render pages in N worker processes; the output is the same for any N",
        check=checks.count,
        cli="--jobs",
        reference=(
            "render pages in N worker processes (default: one per CPU; never more than the CPUs the process "
            "may use, a container's CPU quota included, and a larger N is capped with a one-line note); the site "
            "is byte-identical for any N"
        ),
        usage="--jobs 1",
        metavar="N",
        default_doc="the number of CPUs",
    ),
    Option(
        key="",
        field="cache",
        default=None,
        type_doc="path",
        meaning="keep rendered pages in DIR and reuse them when nothing they are made from changed",
        check=checks.text,
        cli="--cache",
        reference=(
            "where the render cache lives (default `.mcp-portal-cache/<name of --out>/` beside `--out`; add "
            "it to `.gitignore`). A cache never changes a byte of the site: a damaged entry is a miss. "
            "Refused inside `--out`, and not used when anyone but you can write it "
            "([docs/performance.md](performance.md#the-render-cache))"
        ),
        usage="--cache .cache/portal",
        metavar="DIR",
        commands=(BUILD,),
        default_doc="`.mcp-portal-cache/<name of --out>/` beside --out",
        example=".cache/portal",
    ),
    Option(
        key="",
        field="use_cache",
        default=True,
        type_doc="`true` / `false`",
        meaning="render every page again, without reading or writing the cache",
        check=checks.flag,
        cli="--no-cache",
        reference="render every page again, without reading or writing the cache",
        usage="--no-cache",
        commands=(BUILD,),
        negated=True,
    ),
    *VERSIONING,
    Option(
        key="",
        field="previous",
        default=None,
        type_doc="path",
        meaning="a previous snapshot or built site: adds a localized changelog page",
        check=checks.text,
        example="old/snapshot.json",
        cli="--previous",
        reference=(
            'a previous snapshot or built site: adds a localized "Changes since X"'
            " page (tools, prompts and resources), linked from the index and from each changed tool"
        ),
        usage="--previous published/snapshot.json",
        metavar="SNAPSHOT",
    ),
)
"""Every top-level setting, in the order the reference lists them."""

FILE_KEYS = frozenset(o.key for o in OPTIONS if o.key)
"""The keys ``portal.yaml`` accepts at its top level."""


def default(key: str) -> Any:
    """The default of the setting with this ``portal.yaml`` key (``limits.max_pages`` for a limit),
    or with this field name for a setting that only the command line has (``jobs``)."""
    for option in (*OPTIONS, *LIMITS):
        if option.key == key or (not option.key and option.field == key):
            return option.default
    raise KeyError(key)


# --- the reference tables of docs/configuration.md ------------------------------------------------


def _cli_cell(option: Option) -> str:
    if option.cli_doc:
        return option.cli_doc
    return f"`{option.cli}`" if option.cli else "none"


def keys_table() -> str:
    """The "All keys at a glance" table."""
    rows = ["| key | type | default | command-line option |", "| --- | --- | --- | --- |"]
    for o in OPTIONS:
        if o.key:
            rows.append(f"| [`{o.key}`](#{o.key}) | {o.type_doc} | {o.shown_default()} | {_cli_cell(o)} |")
    return "\n".join(rows)


def limits_table() -> str:
    """The table of the ``limits`` section."""
    rows = ["| key | meaning | type | default | option |", "| --- | --- | --- | --- | --- |"]
    for o in LIMITS:
        rows.append(f"| `{o.name}` | {o.meaning} | {o.type_doc} | {o.shown_default()} | {_cli_cell(o)} |")
    return "\n".join(rows)


def registry_table() -> str:
    """The table of the ``registry`` section."""
    rows = ["| key | meaning | type |", "| --- | --- | --- |"]
    rows += [f"| `{o.name}` | {o.meaning} | {o.type_doc} |" for o in REGISTRY]
    return "\n".join(rows)


TABLES: dict[str, Callable[[], str]] = {"keys": keys_table, "limits": limits_table, "registry": registry_table}
"""Generated blocks of the reference, each between ``<!-- options:NAME -->`` and ``<!-- /options:NAME -->``."""


def refresh(page: str, tables: dict[str, Callable[[], str]] = TABLES) -> str:
    """*page* with every generated block of *tables* replaced by the table as the code declares it now."""
    for name, table in tables.items():
        start, end = f"<!-- options:{name} -->", f"<!-- /options:{name} -->"
        head, found, rest = page.partition(start)
        if not found or end not in rest:
            raise ValueError(f"the page has no {start} ... {end} block")
        page = f"{head}{start}\n{table()}\n{end}{rest.partition(end)[2]}"
    return page


def regenerate(argv: list[str] | None, tables: dict[str, Callable[[], str]], module: str) -> int:
    """The command line of a page's generated tables: ``python -m MODULE PAGE --write`` rewrites them,
    without ``--write`` it exits 1 when they are stale. Shared by this module (docs/configuration.md)
    and :mod:`generator.commands.reference` (docs/cli.md)."""
    parser = argparse.ArgumentParser(prog=f"python -m {module}", description="Regenerate a page's option tables.")
    parser.add_argument("page", type=Path)
    parser.add_argument("--write", action="store_true", help="rewrite the page instead of checking it")
    args = parser.parse_args(argv)
    old = args.page.read_text(encoding="utf-8")
    new = refresh(old, tables)
    if args.write:
        replace_file(args.page, new)
        return 0
    if new != old:
        print(f"{args.page} is stale: run python -m {module} {args.page} --write", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m generator.config.options docs/configuration.md --write`` (without ``--write``: check it)."""
    return regenerate(argv, TABLES, "generator.config.options")


if __name__ == "__main__":
    sys.exit(main())
