"""Each tool's timeline, and each release's changes, told from the snapshots of a versioned site.

The versions are compared in order, each with the one before it, by :func:`generator.compare.diff.diff_snapshots`
(the rules of ``mcp-portal diff``), so "breaking" means here what it means to ``diff --fail-on breaking``.
A tool's timeline records the version it was added in, every version where its input schema, output
schema, annotations or description changed (breaking or not), the version where the server first
said it is deprecated, and the version it was removed in. Only two snapshots are held at a time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from generator.compare.changes import BREAKING, Change
from generator.compare.diff import diff_snapshots
from generator.history.versions import Version
from generator.slugs import assign_slugs
from generator.snapshot.snapshot import Snapshot

ASPECTS = ("input", "output", "annotations", "description")
"""What a timeline entry says changed, in the order pages list them."""

_DEPRECATED = re.compile(r"[\s\[(*_>#-]{0,8}deprecated\b", re.IGNORECASE)
"""A description that opens by saying the tool is deprecated ("Deprecated: use x", "[DEPRECATED] ...")."""


def aspect(change: Change) -> str | None:
    """Which of :data:`ASPECTS` a change of a tool is about; None for what a timeline leaves out (an
    endpoint that stopped offering the tool, a ``_meta`` field)."""
    if change.path.startswith("params") or (change.kind == "schema-changed" and change.path == "params"):
        return "input"
    if change.path.startswith("returns") or change.kind.startswith("output-schema"):
        return "output"
    if change.path.startswith("annotations."):
        return "annotations"
    if change.kind in ("title-changed", "description-changed") and not change.path:
        return "description"
    return None


def deprecated(tool: Mapping[str, Any]) -> bool:
    """Whether the server says *tool* is deprecated: ``deprecated: true`` in its annotations, its ``_meta``
    or its input schema's root (JSON Schema's own keyword), or a description that opens with the word."""
    for where in (tool.get("annotations"), tool.get("_meta"), tool.get("inputSchema")):
        if isinstance(where, dict) and where.get("deprecated") is True:
            return True
    description = tool.get("description")
    return isinstance(description, str) and _DEPRECATED.match(description[:64]) is not None


@dataclass(frozen=True)
class Event:
    """One entry of a tool's timeline."""

    version: str
    kind: str
    """``added``, ``changed``, ``deprecated`` or ``removed``."""
    aspects: tuple[str, ...] = ()
    """For ``changed``: which of :data:`ASPECTS` changed."""
    breaking: bool = False


@dataclass(frozen=True)
class Timeline:
    """One tool's history across the versions, oldest first."""

    name: str
    events: tuple[Event, ...]
    first: str
    """The oldest version the site keeps: a tool added there may be older than the site's history."""

    def _last(self, kind: str) -> str | None:
        return next((e.version for e in reversed(self.events) if e.kind == kind), None)

    @property
    def since(self) -> str | None:
        """The version the tool was (last) added in."""
        return self._last("added")

    @property
    def since_first(self) -> bool:
        """Whether the tool is in every version since the oldest one kept (its start is not known)."""
        return self.since == self.first and sum(e.kind == "added" for e in self.events) == 1

    @property
    def changed_in(self) -> tuple[str, ...]:
        return tuple(e.version for e in self.events if e.kind == "changed")

    @property
    def removed_in(self) -> str | None:
        """The version the tool was removed in, when it is gone."""
        return self.events[-1].version if self.events and self.events[-1].kind == "removed" else None

    @property
    def deprecated_in(self) -> str | None:
        """The version the server started calling the tool deprecated in."""
        return self._last("deprecated")


@dataclass(frozen=True)
class Removed:
    """A tool an earlier version had and the version read last does not."""

    name: str
    removed_in: str
    last_version: str
    """The last version that had it."""
    last_slug: str
    """Its page's slug in :attr:`last_version` (``L/tools/<slug>/``)."""


@dataclass(frozen=True)
class Release:
    """One version and what changed from the version before it."""

    version: Version
    previous: str | None
    changes: tuple[Change, ...] = ()

    @property
    def label(self) -> str:
        return self.version.label

    @property
    def breaking(self) -> bool:
        return any(change.cls == BREAKING for change in self.changes)

    def of_class(self, cls: str) -> tuple[Change, ...]:
        return tuple(change for change in self.changes if change.cls == cls)


@dataclass(frozen=True)
class History:
    """The releases up to one version (newest first), its tools' timelines and the tools it no longer has."""

    current: str
    releases: tuple[Release, ...]
    timelines: Mapping[str, Timeline] = field(default_factory=dict)
    removed: tuple[Removed, ...] = ()

    @property
    def first(self) -> str:
        return self.releases[-1].label

    def timeline(self, name: str) -> Timeline | None:
        return self.timelines.get(name)

    def release(self, label: str) -> Release | None:
        return next((r for r in self.releases if r.label == label), None)


Loader = Callable[[], Snapshot]


def history_of(chain: Sequence[tuple[Version, Loader]]) -> History:
    """The history of the last version of *chain*, whose versions are in order, oldest first, each with
    a loader of its snapshot; every version is compared with the one before it."""
    if not chain:
        raise ValueError("a history needs at least one version")
    first = chain[0][0].label
    events: dict[str, list[Event]] = {}
    releases: list[Release] = []
    removed: dict[str, Removed] = {}
    previous: Snapshot | None = None
    for version, load in chain:
        snapshot = load()
        changes = tuple(diff_snapshots(previous, snapshot)) if previous is not None else ()
        _note_events(events, version.label, previous, snapshot, changes)
        if previous is not None:
            _note_removed(removed, version.label, releases[-1].label, previous, snapshot)
        releases.append(Release(version, releases[-1].label if releases else None, changes))
        previous = snapshot
    timelines = {name: Timeline(name, tuple(found), first) for name, found in events.items()}
    return History(chain[-1][0].label, tuple(reversed(releases)), timelines, tuple(removed.values()))


def _tools(snapshot: Snapshot) -> dict[str, Mapping[str, Any]]:
    found: dict[str, Mapping[str, Any]] = {}
    for tool in snapshot.tools:
        found.setdefault(str(tool.get("name")), tool)
    return found


def _note_events(
    events: dict[str, list[Event]], label: str, before: Snapshot | None, now: Snapshot, changes: Iterable[Change]
) -> None:
    """Add *label*'s events to each tool's list: added, changed (by aspect), deprecated, removed."""
    old = _tools(before) if before is not None else {}
    new = _tools(now)
    changed: dict[str, list[Change]] = {}
    for change in changes:
        if change.tool is not None and change.tool in old and change.tool in new and aspect(change) is not None:
            changed.setdefault(change.tool, []).append(change)
    for name, tool in new.items():
        found = events.setdefault(name, [])
        if name not in old:
            found.append(Event(label, "added"))
        elif name in changed:
            rows = changed[name]
            kinds = {aspect(c) for c in rows}
            found.append(Event(label, "changed", tuple(a for a in ASPECTS if a in kinds),
                               any(c.cls == BREAKING for c in rows)))  # fmt: skip
        if deprecated(tool) and (name not in old or not deprecated(old[name])):
            found.append(Event(label, "deprecated"))
    for name in [name for name in old if name not in new]:
        events.setdefault(name, []).append(Event(label, "removed", breaking=True))


def _note_removed(removed: dict[str, Removed], label: str, last: str, before: Snapshot, now: Snapshot) -> None:
    """Record the tools *now* (version *label*) lost since *before* (version *last*), with their page there, and
    forget those it has again."""
    old, new = _tools(before), _tools(now)
    for name in new:
        removed.pop(name, None)
    gone = [name for name in old if name not in new]
    if gone:
        slugs = assign_slugs(str(tool.get("name")) for tool in before.tools)
        for name in gone:
            removed[name] = Removed(name, label, last, slugs[name])


def releases_of(chain: Sequence[tuple[Version, Loader]]) -> tuple[Release, ...]:
    """Every version's release, newest first, each compared with the version before it (*chain* is oldest first)."""
    releases: list[Release] = []
    previous: Snapshot | None = None
    for version, load in chain:
        snapshot = load()
        changes = tuple(diff_snapshots(previous, snapshot)) if previous is not None else ()
        releases.append(Release(version, releases[-1].label if releases else None, changes))
        previous = snapshot
    return tuple(reversed(releases))
