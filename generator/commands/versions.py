"""``versions list`` and ``versions remove``: the versions a versioned site holds, and taking one out.

``list`` reads the site's ``versions.json`` (confined and checked, as a build reads it). ``remove``
publishes the site again without one version, through the same lock, survey, staging and swap as a
build: every other version is kept byte for byte, the removed one's files (all of which mcp-portal
wrote) go, and the top level (``versions.json``, the page that lists the versions, ``llms.txt``, the
feed, ``latest/``) is written again from the versions that remain. A version's own pages are never
rendered again, so the version after the removed one still says what changed since the removed one.
"""

from __future__ import annotations

import functools
import os
from dataclasses import replace
from pathlib import Path

from generator.cache.reuse import ThemeRenderer
from generator.commands.build import build_inputs, catalogs_for, template_dir_of
from generator.config.portal import PortalConfig
from generator.errors import PortalError
from generator.history.kept import read_kept
from generator.history.timeline import releases_of
from generator.history.versions import MAX_VERSIONS_BYTES, VERSIONS, Version, parse
from generator.model.gather import gather
from generator.publish.staging import Staging
from generator.publish.versioned import keep_version
from generator.publish.write import publish
from generator.site.versioned import loader, published, write_top
from generator.text import counted


def _no_site(out: Path) -> PortalError:
    return PortalError(
        f"There is no versioned site in {out}: it has no {VERSIONS}. Publish a version into it with "
        f"`mcp-portal build --versioned --out {out}`, or point --out at the versioned site."
    )


def read_versions(out: Path) -> tuple[list[Version], bytes]:
    """The versions of the versioned site in *out*, newest first, and its ``versions.json`` as it is."""
    raw = read_kept(Path(os.path.realpath(out)), VERSIONS, MAX_VERSIONS_BYTES) if out.is_dir() else None
    if raw is None:
        raise _no_site(out)
    return parse(raw, str(out / VERSIONS)), raw


def render_list(versions: list[Version], raw: bytes, fmt: str) -> str:
    """``versions list``'s report: a line per version (newest first), or ``versions.json`` itself."""
    if fmt == "json":
        return raw.decode("utf-8")
    lines = []
    for n, v in enumerate(versions):
        changes = "first version" if n == len(versions) - 1 else "breaking" if v.breaking else "no breaking change"
        newest = "  (newest)" if n == 0 else ""
        lines.append(
            f"{v.label}  {v.date}  protocol {v.protocol}  {counted(v.tools, 'tool')}  "
            f"{','.join(v.locales)}  {changes}{newest}"
        )
    return "\n".join(lines) + "\n"


def remove_version(config: PortalConfig, label: str) -> tuple[list[str], list[Version]]:
    """Publish the site of ``config.out`` again without version *label*; return the warnings and the
    versions that remain, newest first."""
    out = Path(config.out)
    template_dir_of(config)
    remaining: list[Version] = []

    def produce(staging: Staging) -> None:
        if VERSIONS not in staging.listed:  # not a versioned site: nothing to remove a version from
            raise _no_site(out)
        stored = published(staging)
        if not any(v.label == label for v in stored):
            listed = ", ".join(v.label for v in stored) or "none"
            raise PortalError(f"The site in {out} has no version {label!r}; its versions are: {listed}.")
        if len(stored) == 1:
            raise PortalError(
                f"{label} is the only version of the site in {out}; removing it would leave no site. Publish "
                f"another version first, or delete the directory {out} yourself if the whole site may go."
            )
        remaining[:] = [v for v in stored if v.label != label]
        load = loader(staging, config)
        releases = releases_of([(v, functools.partial(load, v.label)) for v in reversed(remaining)])
        for version in remaining:
            keep_version(staging, version.label)
        newest = remaining[0]
        assert staging.previous is not None
        snapshot = load(newest.label)
        top = replace(config, locales=newest.locales, search=newest.search)
        made = gather(snapshot, top)
        renderer = ThemeRenderer().for_theme(template_dir_of(config))
        write_top(staging, releases, made.model, catalogs_for(top), renderer, config.base_url)

    warnings = publish(out, produce, protected=build_inputs(config, None))
    return warnings, remaining
