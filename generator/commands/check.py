"""The check command: is the site on disk still what a build would write?

Builds the site in memory (:func:`generator.commands.build.site_files`, with the same
configuration handling as ``build``) and compares it with the directory on
disk, byte for byte, without writing anything.  A difference is reported two
ways: the tools that changed on the server (the site's own ``snapshot.json``
against the fresh snapshot) and the files that differ (added, removed or
changed).  A changed file whose bytes no longer match the site's own
``manifest.json`` was edited after the build, so it is marked as a hand edit.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from generator.commands.build import check_versioned_options, site_files
from generator.commands.obtain import obtain_snapshot
from generator.compare.changes import ITEM_SUBJECTS, noun
from generator.config.portal import PortalConfig
from generator.errors import PortalError
from generator.forked import usable_cpus
from generator.publish.location import MANIFEST
from generator.snapshot.shape import ITEM_KEYS
from generator.snapshot.snapshot import Snapshot, canonical_json
from generator.text import json_report, one_line

DRIFT_EXIT = 3
"""Exit code of ``mcp-portal check`` when the site differs from a fresh build."""


@dataclass(frozen=True)
class Changes:
    """Names added, removed and changed, each sorted."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def to_dict(self) -> dict[str, list[str]]:
        return {"added": list(self.added), "removed": list(self.removed), "changed": list(self.changed)}


@dataclass(frozen=True)
class DriftReport:
    """What ``check`` found; ``status`` is ``ok`` only when the site is byte-identical."""

    site: Path
    files_checked: int
    tools: Changes
    files: Changes
    hand_edited: tuple[str, ...] = ()
    """Files edited, added or deleted since the build (judged by the site's own manifest.json)."""
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    items: tuple[tuple[str, Changes], ...] = ()
    """Prompts, resources and resource templates that changed, per snapshot section (``snapshot.ITEM_KEYS``)."""
    kept: tuple[str, ...] = ()
    """Files the site's manifest.json does not list: not written by mcp-portal, and kept by every build
    (a CNAME, a .nojekyll), so they are not drift (see publish.py, the --out contract)."""

    @property
    def status(self) -> str:
        return "drift" if self.files else "ok"

    @property
    def server_changed(self) -> bool:
        return bool(self.tools) or any(changes for _, changes in self.items)

    def to_dict(self) -> dict[str, Any]:
        items = dict(self.items)
        return {
            "status": self.status,
            "site": str(self.site),
            "tools": self.tools.to_dict(),
            **{section: items.get(section, Changes()).to_dict() for section in ITEM_KEYS},
            "files": self.files.to_dict(),
            "hand_edited": list(self.hand_edited),
            "kept": list(self.kept),
            "notes": list(self.notes),
        }


def _read_tree(root: Path) -> dict[str, bytes]:
    """Every regular file under *root*, keyed by POSIX relative path."""
    files: dict[str, bytes] = {}
    try:
        for path in sorted(root.rglob("*")):
            if path.is_file():
                files[path.relative_to(root).as_posix()] = path.read_bytes()
    except OSError as exc:
        raise PortalError(f"Cannot read the site in {root} ({exc.strerror or exc}). Check its permissions.") from None
    return files


def _json_key(raw: bytes | None, key: str) -> Any:
    """``data[key]`` of a JSON file's bytes; None when the file is missing, unreadable or not an object."""
    if raw is None:
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return data.get(key) if isinstance(data, dict) else None


def _listing(raw: bytes | None, section: str, key: str) -> dict[str, str] | None:
    """Name (or URI) -> canonical JSON of one list in a site's snapshot.json; None when it is unreadable."""
    items = _json_key(raw, section)
    if items is None and section != "tools" and _json_key(raw, "tools") is not None:
        items = []  # an older snapshot.json without this list: nothing was listed
    if not isinstance(items, list):
        return None
    return {str(t.get(key)): canonical_json(t) for t in items if isinstance(t, dict)}


def _changes(before: dict[str, str], now: dict[str, str]) -> Changes:
    return Changes(
        added=tuple(sorted(set(now) - set(before))),
        removed=tuple(sorted(set(before) - set(now))),
        changed=tuple(sorted(n for n in set(now) & set(before) if now[n] != before[n])),
    )


def _manifest_hashes(raw: bytes | None) -> dict[str, str] | None:
    files = _json_key(raw, "files")
    return {str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else None


def compare(site: Path, on_disk: dict[str, bytes], fresh: dict[str, bytes], snapshot: Snapshot) -> DriftReport:
    """The drift between the files on disk and a fresh in-memory build of *snapshot*."""
    hashes = _manifest_hashes(on_disk.get(MANIFEST))
    # Files the manifest does not list are the user's: a build carries them over, so they are not drift.
    kept = tuple(sorted(p for p in set(on_disk) - set(fresh) if hashes is not None and p not in hashes))
    files = Changes(
        added=tuple(sorted(set(on_disk) - set(fresh) - set(kept))),
        removed=tuple(sorted(set(fresh) - set(on_disk))),
        changed=tuple(sorted(p for p in set(fresh) & set(on_disk) if fresh[p] != on_disk[p])),
    )
    notes: list[str] = []
    tools = Changes()
    items: list[tuple[str, Changes]] = []
    if files:
        raw = on_disk.get("snapshot.json")
        before = _listing(raw, "tools", "name")
        if before is None:
            notes.append("the site's snapshot.json is missing or unreadable, so tool changes cannot be named")
        else:
            tools = _changes(before, {str(t.get("name")): canonical_json(t) for t in snapshot.tools})
            for section, key in ITEM_KEYS.items():
                earlier = _listing(raw, section, key) or {}
                now = {str(t.get(key)): canonical_json(t) for t in getattr(snapshot, section)}
                items.append((section, _changes(earlier, now)))
    if files and hashes is None:
        notes.append("the site's manifest.json is missing or unreadable, so hand edits cannot be told apart")
    hand = _by_hand(files, on_disk, hashes) if hashes is not None else ()
    return DriftReport(site, len(fresh), tools, files, hand, tuple(notes), items=tuple(items), kept=kept)


def _by_hand(files: Changes, on_disk: dict[str, bytes], hashes: dict[str, str]) -> tuple[str, ...]:
    """Files edited, added or deleted since the build, judged by the site's own manifest."""
    hand = [p for p in files.removed if p in hashes]
    for path in (*files.changed, *files.added):
        if path != MANIFEST and hashes.get(path) != hashlib.sha256(on_disk[path]).hexdigest():
            hand.append(path)
    return tuple(sorted(hand))


def check(
    config: PortalConfig,
    *,
    from_file: Path | None = None,
    lenient: bool = False,
    introspect_warnings: list[str] | None = None,
) -> DriftReport:
    """Build the site in memory and compare it with ``config.out`` on disk; nothing is written.

    *lenient* and *introspect_warnings* are passed to :func:`~generator.commands.obtain.obtain_snapshot`.
    """
    check_versioned_options(config)
    site = Path(config.out)
    if not site.is_dir():
        what = "is not a directory" if site.exists() else "does not exist"
        raise PortalError(
            f"The site directory {site} {what}, so there is nothing to check. Build it first with "
            f"`mcp-portal build --out {site}`, or point --out (or `out` in the config) at the built site."
        )
    snapshot, config = obtain_snapshot(config, from_file, lenient=lenient, introspect_warnings=introspect_warnings)
    if config.versioned:
        return _check_version(site, snapshot, config)
    fresh, warnings = site_files(snapshot, config, jobs=config.jobs or usable_cpus())
    return replace(compare(site, _read_tree(site), fresh, snapshot), warnings=tuple(warnings))


def _check_version(site: Path, snapshot: Snapshot, config: PortalConfig) -> DriftReport:
    """``check --versioned``: the version of *snapshot* built in memory against the versions published in *site*,
    compared with its directory there, or with the newest published version's when it is not published yet."""
    from generator.commands.versioned import version_files

    fresh, warnings, label, published = version_files(snapshot, config, jobs=config.jobs or usable_cpus())
    if not published:
        raise PortalError(
            f"The site directory {site} holds no versioned site (it has no versions.json), so there is nothing to "
            f"check it against. Publish a version first with `mcp-portal build --versioned --out {site}`."
        )
    target = label if label in published else published[0]
    report = compare(site / target, _read_tree(site / target), fresh, snapshot)
    notes = () if target == label else (
        f"version {label} is not published in {site} yet, so it was compared with the newest published version, "
        f"{target}; publish it with `mcp-portal build --versioned`",
    )  # fmt: skip
    return replace(report, warnings=tuple(warnings), notes=(*notes, *report.notes))


def render(report: DriftReport, fmt: str) -> str:
    """The report as ``text`` or ``json``."""
    if fmt == "json":
        return json_report(report.to_dict())
    return render_text(report)


def render_text(report: DriftReport) -> str:
    kept = (
        f"Kept: {len(report.kept)} file(s) mcp-portal did not write (the manifest does not list them), "
        f"which every build leaves in place: {', '.join(report.kept)}.\n"
        if report.kept
        else ""
    )
    if report.status == "ok":
        return (
            f"The site in {report.site} is up to date: all {report.files_checked} files match a fresh build.\n" + kept
        )
    lines = [f"Drift: the site in {report.site} differs from what `mcp-portal build` would write now."]
    if report.server_changed:
        lines += ["", "The server changed (the site's snapshot.json against the server now):"]
        for what, changes in (("tool", report.tools), *((noun(ITEM_SUBJECTS[s]), c) for s, c in report.items)):
            for label, names in (("added", changes.added), ("removed", changes.removed),
                                 ("changed", changes.changed)):  # fmt: skip
                lines += [f"  {what} {label}: {one_line(name)}" for name in names]
    elif not any("snapshot.json" in note for note in report.notes):
        lines += [
            "",
            "The tools, prompts and resources are unchanged: the difference comes from the files, "
            "the options or mcp-portal itself.",
        ]
    hand = set(report.hand_edited)
    lines += ["", "Files:"]
    for label, names in (("added", report.files.added), ("removed", report.files.removed),
                         ("changed", report.files.changed)):  # fmt: skip
        lines += [f"  {label}: {one_line(name)}{_why(label, name in hand)}" for name in names]
    if report.notes:
        lines += ["", *(f"Note: {note}." for note in report.notes)]
    if kept:
        lines += ["", kept.rstrip("\n")]
    lines += ["", "Rebuild with `mcp-portal build` (same options) to bring the site up to date."]
    return "\n".join(lines) + "\n"


def _why(label: str, by_hand: bool) -> str:
    if by_hand:
        return {"added": " (added by hand)", "removed": " (deleted by hand)"}.get(label, " (edited by hand)")
    return {
        "added": " (left from the earlier build; a fresh build no longer writes it)",
        "removed": " (new in a fresh build)",
    }.get(label, "")
