"""``build --versioned``: publish one version into ``OUT/<version>/`` and keep every other version there.

The version is the server's capability version (``serverInfo.version``) or ``--version-label``. Under
the output's lock (:func:`generator.publish.write.publish`), :func:`produce_versioned` reads what the
output holds, places the version among the others (:mod:`generator.site.versioned`), tells each tool's
history from the snapshots kept there (:mod:`generator.history`), writes the version through the
build's own pipeline into a nested staging, keeps every other version byte for byte, and writes the
top level. The previous site stays untouched unless all of it succeeds.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from generator.cache.keys import site_key
from generator.cache.reuse import Reuse, ThemeRenderer
from generator.commands.build import produce
from generator.commands.progress import Progress
from generator.config.portal import PortalConfig
from generator.errors import PortalError
from generator.history.kept import kept_snapshot, read_kept
from generator.history.timeline import Release
from generator.history.versions import MAX_VERSIONS_BYTES, VERSIONS, Version, parse
from generator.publish.staging import Staging
from generator.publish.versioned import check_layout, keep_version, slim_version
from generator.render.versions import llms_full_pointer
from generator.site.assemble import staged_files
from generator.site.versioned import (
    PAGES_LIMIT,
    histories,
    loader,
    plan,
    published,
    slimmed,
    version_config,
    version_label,
    weight,
    write_top,
)
from generator.snapshot.snapshot import Snapshot

LAST_EPOCH = 253402300799
"""9999-12-31T23:59:59Z: the last second a ``YYYY-MM-DD`` date can name."""


def today() -> str:
    """The date a new version is published on, ``YYYY-MM-DD`` in UTC; ``SOURCE_DATE_EPOCH`` sets it (the
    reproducible-builds convention), so a CI job can date a release from its tag."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not epoch:
        return datetime.datetime.now(tz=datetime.UTC).date().isoformat()
    digits = epoch.isascii() and epoch.isdigit()
    if not digits or len(epoch) > len(str(LAST_EPOCH)) or int(epoch) > LAST_EPOCH:
        # A value in milliseconds (``date +%s%3N``, JavaScript's ``Date.now()``) is the likely slip.
        hint = " (in milliseconds? give seconds)" if digits and len(epoch) in (13, 14) else ""
        raise PortalError(
            f"SOURCE_DATE_EPOCH is {epoch[:40]!r}, not a number of seconds since 1970 before the year 10000{hint}; "
            f"unset it or give e.g. SOURCE_DATE_EPOCH=$(git log -1 --format=%ct)."
        )
    return datetime.datetime.fromtimestamp(int(epoch), tz=datetime.UTC).date().isoformat()


@dataclass
class Versioned:
    """What :func:`produce_versioned` did: the version it published, its warnings, the render cache it used."""

    label: str = ""
    warnings: list[str] | None = None
    renders: Reuse | None = None


def produce_versioned(
    snapshot: Snapshot,
    config: PortalConfig,
    staging: Staging,
    *,
    jobs: int,
    progress: Progress,
    cache: Path | None,
    renderer: ThemeRenderer | None,
    done: Versioned,
) -> None:
    """Write the versioned site into *staging* (the whole output directory), the version of *snapshot* among
    the versions kept there. *cache* is the render cache's directory; *done* receives what was done (also
    when this fails: the render cache opened, to be discarded)."""
    label = version_label(snapshot, config)
    check_layout(Path(config.out), staging, versioned=True)
    versions, lighter = slimmed(plan(published(staging), label, snapshot, config, today()), config.full_versions)
    load = loader(staging, config) if staging.previous else _nothing_kept
    with progress.stage("history", unit="versions") as advance:
        history, releases = histories(versions, snapshot, load)
        advance(len(versions.versions))
    one = version_config(config, label)
    if cache is not None:
        done.renders = Reuse(cache, _history_key(site_key(snapshot, one), history.releases))
    inner = staging.nested(label)
    made = produce(snapshot, one, inner, jobs=jobs, progress=progress, cache=done.renders, renderer=renderer,
                   history=history)  # fmt: skip
    staging.absorb(inner, label)
    for version in versions.versions:
        if version.label in lighter:
            slim_version(staging, version.label, functools.partial(llms_full_pointer, made.model, made.catalogs,
                                                                   version.label))  # fmt: skip
        elif version.label != label:
            keep_version(staging, version.label)
    write_top(staging, releases, made.model, made.catalogs, made.renderer, config.base_url)
    done.label, done.warnings = label, [*made.warnings, *_too_heavy(staging, config)]


def _too_heavy(staging: Staging, config: PortalConfig) -> list[str]:
    """A warning when the whole site passes GitHub Pages' 1 GB."""
    size = weight(staging)
    if size <= PAGES_LIMIT:
        return []
    return [
        f"the versioned site in {config.out} is {size / 1e9:.2f} GB, over GitHub Pages' limit of 1 GB for a "
        f"published site: keep the search index and llms-full.txt of fewer versions (--full-versions 2, or "
        f"`full_versions: 2`), or remove old versions (mcp-portal versions remove VERSION)"
    ]


def _nothing_kept(label: str) -> Snapshot:
    raise RuntimeError(f"no site holds version {label}")


def _history_key(key: str, releases: tuple[Release, ...]) -> str:
    """The render cache's key of a version's pages: its site key and the versions before it (a tool's timeline
    and the release history are made from them)."""
    digest = hashlib.sha256(key.encode())
    for release in releases:
        v = release.version
        digest.update(f"\0{v.label}\0{v.date}\0{v.protocol}\0{v.tools}\0{','.join(v.locales)}".encode())
        digest.update("\0".join(change.what for change in release.changes).encode())
    return digest.hexdigest()


def _stored(config: PortalConfig) -> list[Version]:
    """The versions published in ``config.out``, newest first (none when it holds no versioned site)."""
    out = Path(os.path.realpath(config.out))
    raw = read_kept(out, VERSIONS, MAX_VERSIONS_BYTES) if out.is_dir() else None
    return parse(raw, str(Path(config.out) / VERSIONS)) if raw is not None else []


def published_versions(snapshot: Snapshot, config: PortalConfig) -> tuple[str, list[str]]:
    """The version a versioned build of *snapshot* would publish, and the versions ``config.out`` holds, newest
    first (for ``check --versioned``, which compares that version's directory)."""
    return version_label(snapshot, config), [v.label for v in _stored(config)]


def version_files(snapshot: Snapshot, config: PortalConfig, *, jobs: int = 1) -> tuple[dict[str, bytes], list[str]]:
    """The files the version of *snapshot* would have in the versioned site of ``config.out``, built in memory
    against the versions published there (for ``check --versioned``), and its warnings. Nothing is written to
    the site."""
    out = Path(os.path.realpath(config.out))
    label = version_label(snapshot, config)
    versions = plan(_stored(config), label, snapshot, config, today())
    load = functools.partial(kept_snapshot, out, limit=config.limits.max_snapshot_bytes)
    history, _ = histories(versions, snapshot, load)
    with tempfile.TemporaryDirectory(prefix="mcp-portal-version-") as tmp:
        made = produce(snapshot, version_config(config, label), Staging(Path(tmp)), jobs=jobs, history=history)
        return staged_files(Path(tmp)), made.warnings
