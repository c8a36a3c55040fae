"""The settings of a versioned site (``build --versioned``): publish into ``OUT/<version>/`` and keep every
version there, as which version, and how many keep their search index. Declared as every setting is
(:class:`Option`), and listed in :data:`generator.config.options.OPTIONS` in this order; kept apart so that
each module stays small. What a version label may be is :func:`generator.labels.label_problem`.
"""

from __future__ import annotations

from generator.config import checks
from generator.config.option import BUILD, Option

VERSIONING: tuple[Option, ...] = (
    Option(
        key="versioned",
        field="versioned",
        default=False,
        type_doc="`true` / `false`",
        meaning="publish into OUT/<version>/, keeping every version already there, with a version switcher",
        check=checks.flag,
        cli="--versioned",
        reference=(
            "publish into `OUT/<version>/` (the server's version, or `--version-label`), keeping every version "
            "already in `OUT` byte for byte, with `versions.json`, `latest/`, a version switcher on every page "
            "and each tool's timeline ([docs/site.md](site.md#versioned-sites))"
        ),
        usage="--versioned",
    ),
    Option(
        key="full_versions",
        field="full_versions",
        default=None,
        type_doc="positive whole number",
        meaning="in a versioned site, only the N newest versions keep their search index and llms-full.txt",
        check=checks.count,
        cli="--full-versions",
        reference=(
            "with `--versioned`: only the N newest versions keep their search index and `llms-full.txt`; older "
            "ones lose them (their pages, twins and `llms.txt` stay byte for byte), to keep a large site under "
            "its host's size limit ([docs/site.md](site.md#versioned-sites))"
        ),
        usage="--full-versions 2",
        metavar="N",
        commands=(BUILD,),
        default_doc="every version",
    ),
    Option(
        key="",
        field="version_label",
        default=None,
        type_doc="version label",
        meaning="the version a versioned build publishes, instead of the server's version",
        check=checks.version_label,
        cli="--version-label",
        reference=(
            "with `--versioned`: the version to publish as, instead of the server's `serverInfo.version` (one path "
            "segment of letters, digits and `. _ + -`)"
        ),
        usage="--version-label 2.5.0",
        metavar="LABEL",
        example="2.5.0",
    ),
)
