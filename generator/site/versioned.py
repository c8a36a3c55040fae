"""A versioned site's bookkeeping around the version a build publishes: which versions the output holds,
in what order, the snapshots to compare, and the top level written from them.

:func:`plan` reads what the output holds (``versions.json``, checked as untrusted input) and places
the version being published among the others; :func:`write_top` writes the files of the top level
(``versions.json``, the page that lists every version, the root ``llms.txt``, the Atom feed, ``latest/``
and the top ``manifest.json``). The version itself is written by the build's own pipeline into a
nested staging (:meth:`generator.publish.staging.Staging.nested`), and every other version is kept
byte for byte (:func:`generator.publish.versioned.keep_version`).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from generator import __version__
from generator.config.portal import PortalConfig
from generator.errors import PortalError
from generator.history.kept import kept_snapshot, read_kept
from generator.history.labels import label_problem, newest_first
from generator.history.timeline import History, Loader, Release, history_of, releases_of
from generator.history.versions import MAX_VERSIONS_BYTES, VERSIONS, Version, dump, parse
from generator.model.discovery import MEDIA_TYPES
from generator.model.site import SiteModel
from generator.publish.staging import Staging
from generator.publish.versioned import LAYOUT
from generator.render.extras import TYPED
from generator.render.i18n import Catalog
from generator.render.renderer import Renderer
from generator.render.versions import Top, latest_files, top_files
from generator.site.assemble import write_manifest
from generator.snapshot.snapshot import Snapshot


def version_label(snapshot: Snapshot, config: PortalConfig) -> str:
    """The version a versioned build publishes: ``--version-label``, else the server's capability version,
    refused (never rewritten) when it cannot name a directory."""
    if config.version_label is not None:
        return config.version_label
    label = snapshot.capability_version
    problem = label_problem(label)
    if problem is not None:
        shown = label if len(label) <= 80 else label[:79] + "…"
        raise PortalError(
            f"The server's version {shown!r} cannot name the directory a versioned build publishes it in: {problem}. "
            f"Give the version yourself with --version-label, e.g. --version-label 2.5.0."
        )
    return label


def published(staging: Staging) -> list[Version]:
    """The versions the output holds, newest first as its ``versions.json`` lists them (none for a new site)."""
    if staging.previous is None or VERSIONS not in staging.listed:
        return []
    raw = read_kept(staging.previous, VERSIONS, MAX_VERSIONS_BYTES)
    if raw is None:
        return []
    return parse(raw, str(staging.previous / VERSIONS))


@dataclass(frozen=True)
class Plan:
    """The versions of the site once this build is published, newest first, and the one it publishes."""

    label: str
    versions: tuple[Version, ...]

    @property
    def newest(self) -> str:
        return self.versions[0].label

    def chain(self, snapshot: Snapshot, load: Callable[[str], Snapshot]) -> list[tuple[Version, Loader]]:
        """Every version oldest first, each with a loader of its snapshot (this build's own for :attr:`label`)."""
        return [
            (v, (lambda: snapshot) if v.label == self.label else functools.partial(load, v.label))
            for v in reversed(self.versions)
        ]


def plan(stored: Sequence[Version], label: str, snapshot: Snapshot, config: PortalConfig, today: str) -> Plan:
    """Where version *label* of *snapshot* goes among the versions *stored*: a new version is dated *today*, a
    version published again keeps the date it was first published on and replaces only itself."""
    same = [v for v in stored if v.label.casefold() == label.casefold()]
    if same and same[0].label != label:
        raise PortalError(
            f"The site already holds the version {same[0].label!r}, which differs from {label!r} only in upper and "
            f"lower case: on a case-insensitive file system both would be the same directory. Publish it as "
            f"{same[0].label!r} (--version-label {same[0].label})."
        )
    date = same[0].date if same else today
    this = Version(label, date, snapshot.protocol_version, False, len(snapshot.tools), config.locales, config.search)
    others = {v.label: v for v in stored if v.label != label}
    order = newest_first([*others, label], [v.label for v in stored])
    return Plan(label, tuple(this if name == label else others[name] for name in order))


def slimmed(plan: Plan, full: int | None) -> tuple[Plan, frozenset[str]]:
    """*plan* with the versions beyond the *full* newest marked as without search (``full_versions``), and
    their labels: those lose their search index and ``llms-full.txt``. The version published stays whole."""
    if full is None:
        return plan, frozenset()
    lighter = frozenset(v.label for v in plan.versions[full:] if v.label != plan.label)
    versions = tuple(replace(v, search=False) if v.label in lighter else v for v in plan.versions)
    return Plan(plan.label, versions), lighter


PAGES_LIMIT = 1_000_000_000
"""GitHub Pages' limit on a published site (1 GB): a versioned site past it gets a warning."""


def weight(staging: Staging) -> int:
    """The bytes of every file of the site *staging* holds (written, or left in the previous site)."""
    return sum(os.stat(staging.location(path)).st_size for path in staging.hashes)


def histories(plan: Plan, snapshot: Snapshot, load: Callable[[str], Snapshot]) -> tuple[History, tuple[Release, ...]]:
    """The history of the version published (the versions up to it), and every version's release, newest first."""
    chain = plan.chain(snapshot, load)
    upto = next(i for i, (v, _) in enumerate(chain) if v.label == plan.label)
    history = history_of(chain[: upto + 1])
    if upto == len(chain) - 1:
        return history, history.releases
    return history, releases_of(chain)


def loader(staging: Staging, config: PortalConfig) -> Callable[[str], Snapshot]:
    """How a kept version's snapshot is read: from the output, confined and bounded (``limits.max_snapshot_bytes``)."""
    if staging.previous is None:
        raise RuntimeError("a kept version needs a previous site")
    return functools.partial(kept_snapshot, staging.previous, limit=config.limits.max_snapshot_bytes)


def version_config(config: PortalConfig, label: str) -> PortalConfig:
    """The configuration of one version: its public URL is the site's plus its label."""
    if not config.base_url:
        return config
    return replace(config, base_url=config.base_url.rstrip("/") + f"/{label}/")


def write_top(
    staging: Staging,
    releases: tuple[Release, ...],
    site: SiteModel,
    catalogs: Mapping[str, Catalog],
    renderer: Renderer,
    base_url: str | None,
) -> None:
    """The top level of the site: ``versions.json`` (each version's breaking flag from *releases*), the page
    listing every version, the root ``llms.txt``, ``changes.xml``, ``latest/`` and ``manifest.json``. *site*
    is the model of a version (its title and locales are the top level's), *base_url* the whole site's. The
    newest version's ``server.json`` and ``server-card.json`` are copied to the top, where the pages of the top
    level and its ``llms.txt`` link them; each version keeps its own."""
    releases = tuple(replace(r, version=replace(r.version, breaking=r.breaking)) for r in releases)
    staging.write(VERSIONS, dump([r.version for r in releases], f"mcp-portal {__version__}"))
    newest = releases[0].version.label + "/"
    # The newest version's discovery files at the site's stable address, as latest/ leads to its pages.
    discovery = tuple(name for name in MEDIA_TYPES if f"{newest}{name}" in staging.hashes)
    for name in discovery:
        staging.write(name, staging.read(f"{newest}{name}"))
    typed = sorted(p for p in staging.hashes if p.rpartition("/")[2] in TYPED and p.count("/") <= 1)
    top = Top(site, catalogs, releases, base_url, discovery, tuple(typed))
    pages = sorted(p[len(newest) :] for p in staging.hashes if p.startswith(newest) and p.endswith(".html"))
    for path, text in {**top_files(top, renderer), **latest_files(top, renderer, pages)}.items():
        staging.write(path, text.encode("utf-8"))
    staging.write(".nojekyll", b"")  # GitHub Pages from a branch: serve the files as they are, no Jekyll
    if f"{newest}404.html" in staging.hashes:  # hosts answer any missing address with the top 404.html
        staging.write("404.html", staging.read(f"{newest}404.html"))
    write_manifest(staging, {"layout": LAYOUT, "latest": top.newest.label})
