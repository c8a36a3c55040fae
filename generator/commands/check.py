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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from generator.cache.reuse import ThemeRenderer
from generator.commands.build import check_versioned_options, site_files
from generator.commands.demo_portal import is_bundled_demo
from generator.commands.obtain import obtain_snapshot, servers_to_document
from generator.compare.changes import ITEM_SUBJECTS, noun
from generator.config.portal import PortalConfig
from generator.errors import PortalError, UsageError
from generator.forked import usable_jobs
from generator.history.versions import VERSIONS
from generator.model.discovery import SERVER_CARD, SERVER_JSON, problems
from generator.publish.location import MANIFEST
from generator.publish.write import reading
from generator.site.search import OUTPUT as SEARCH
from generator.site.search import same_index
from generator.snapshot.shape import ITEM_KEYS
from generator.snapshot.snapshot import Snapshot, SnapshotError, canonical_json, parse_snapshot, read_bounded
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
    """What ``check`` found; ``status`` is ``ok`` only when the site is byte-identical (its search index may be
    numbered in another order: :attr:`search_reordered`)."""

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
    proofs_sent: int | None = None
    """How many proven examples ``check --prove`` sent again (None: it sent none)."""
    proof_drift: tuple[str, ...] = ()
    """One line per proven example the server no longer accepts, or whose answer changed shape."""
    snapshot: Snapshot | None = field(default=None, compare=False, repr=False)
    """What the fresh build was made from (``check --lint`` lints it)."""
    invalid: tuple[str, ...] = ()
    """Where the site's ``server.json`` or Server Card breaks its schema (:mod:`generator.model.discovery`)."""
    search_reordered: bool = False
    """Whether the site's search index differs from the fresh one only in Pagefind's page order (a note says so)."""

    @property
    def status(self) -> str:
        return "drift" if self.files or self.proof_drift or self.invalid else "ok"

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
            "invalid": list(self.invalid),
            "notes": list(self.notes),
            **(
                {}
                if self.proofs_sent is None
                else {"proofs": {"sent": self.proofs_sent, "drift": list(self.proof_drift)}}
            ),
        }


def _read_tree(root: Path, max_snapshot_bytes: int) -> dict[str, bytes]:
    """Every regular file under *root*, keyed by POSIX relative path; the site's ``snapshot.json`` (read as
    a snapshot) only when it holds at most *max_snapshot_bytes*."""
    files: dict[str, bytes] = {}
    try:
        for path in sorted(root.rglob("*")):
            if path.is_file():
                name = path.relative_to(root).as_posix()
                files[name] = read_bounded(path, max_snapshot_bytes) if name == "snapshot.json" else path.read_bytes()
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
    reordered = _reordered_search(on_disk, fresh, hashes)
    if reordered is not None:
        fresh = reordered
    # Files the manifest does not list are the user's: a build carries them over, so they are not drift.
    kept = tuple(sorted(p for p in set(on_disk) - set(fresh) if hashes is not None and p not in hashes))
    files = Changes(
        added=tuple(sorted(set(on_disk) - set(fresh) - set(kept))),
        removed=tuple(sorted(set(fresh) - set(on_disk))),
        changed=tuple(sorted(p for p in set(fresh) & set(on_disk) if fresh[p] != on_disk[p])),
    )
    notes: list[str] = [REORDERED] if reordered is not None else []
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
    report = DriftReport(site, len(fresh), tools, files, hand, tuple(notes), items=tuple(items), kept=kept)
    return replace(report, search_reordered=reordered is not None)


REORDERED = (
    "the search index in pagefind/ holds the same pages as a fresh build's, numbered in another order: it was "
    "built on a file system that lists directories in another order"
)
"""The note of a site whose search index differs from a fresh build's only in Pagefind's page order."""


def _reordered_search(
    on_disk: dict[str, bytes], fresh: dict[str, bytes], hashes: dict[str, str] | None
) -> dict[str, bytes] | None:
    """*fresh* with the site's search files and manifest in place of its own, when the site's search files
    differ from *fresh*'s but are intact (as its manifest lists them) and hold the same index in another
    page order: a build on another file system (:func:`~generator.site.search.same_index`); else None."""
    bundle = [path for path in on_disk if path.startswith(SEARCH + "/")]
    if {p: on_disk[p] for p in bundle} == {p: data for p, data in fresh.items() if p.startswith(SEARCH + "/")}:
        return None
    intact = hashes is not None and all(hashes.get(p) == hashlib.sha256(on_disk[p]).hexdigest() for p in bundle)
    unlisted = [_unlisted_search(raw) for raw in (on_disk.get(MANIFEST), fresh.get(MANIFEST))]
    if not intact or unlisted[0] is None or unlisted[0] != unlisted[1] or not same_index(on_disk, fresh):
        return None
    same = {path: data for path, data in fresh.items() if not path.startswith(SEARCH + "/")}
    return same | {path: on_disk[path] for path in (*bundle, MANIFEST)}


def _unlisted_search(raw: bytes | None) -> Any:
    """A manifest without its search files' entries; None when it is unreadable."""
    try:
        manifest = json.loads(raw or b"")
        manifest["files"] = {p: h for p, h in manifest["files"].items() if not p.startswith(SEARCH + "/")}
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    return manifest


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
    renderer: ThemeRenderer | None = None,
) -> DriftReport:
    """Build the site in memory and compare it with ``config.out`` on disk; nothing is written.

    *lenient* and *introspect_warnings* are passed to :func:`~generator.commands.obtain.obtain_snapshot`;
    *renderer* to :func:`~generator.commands.build.site_files`.
    """
    check_versioned_options(config)
    site = Path(config.out)
    if not site.is_dir():
        what = "is not a directory" if site.exists() else "does not exist"
        raise PortalError(
            f"The site directory {site} {what}, so there is nothing to check. Build it first with "
            f"`mcp-portal build --out {site}`, or point --out (or `out` in the config) at the built site."
        )
    if not config.versioned and (site / VERSIONS).is_file():
        raise PortalError(
            f"The site in {site} is a versioned site (it has a {VERSIONS}), and a check without --versioned would "
            f"compare all of its versions with one site and call every file drift. Add --versioned (or `versioned: "
            f"true` in portal.yaml) to check the version of this server against the site."
        )
    snapshot, config = obtain_snapshot(
        config, from_file, lenient=lenient, introspect_warnings=introspect_warnings, prove=False
    )
    with reading(site):  # a build publishing into the site meanwhile waits, or is waited for
        root, notes = _checked_directory(site, snapshot, config)
        on_disk = _read_tree(root, config.limits.max_snapshot_bytes)
    if snapshot.proofs is None:  # what the published pages show: the answers recorded when the site was built
        snapshot = replace(snapshot, proofs=_recorded_proofs(on_disk.get("snapshot.json"), root))
    sent, drift = _reprove(snapshot, config, from_file) if config.prove else (None, [])
    fresh, warnings = _fresh_build(snapshot, config, renderer)
    report = compare(root, on_disk, fresh, snapshot)
    return replace(
        report,
        notes=(*notes, *report.notes),
        warnings=tuple(warnings),
        proofs_sent=sent,
        proof_drift=tuple(drift),
        snapshot=snapshot,
        invalid=invalid_discovery(on_disk),
    )


def _recorded_proofs(raw: bytes | None, site: Path) -> dict[str, Any] | None:
    """The proofs in the site's own ``snapshot.json`` (checked as any snapshot is); None when it has none
    or cannot be read (the file comparison then says so)."""
    if raw is None or b'"proofs"' not in raw:
        return None
    try:
        return parse_snapshot(raw.decode("utf-8"), site / "snapshot.json").proofs
    except (SnapshotError, UnicodeDecodeError):
        return None


def _reprove(snapshot: Snapshot, config: PortalConfig, from_file: Path | None) -> tuple[int, list[str]]:
    """``check --prove``: the recorded examples sent again to the live server (the bundled demo when none is
    given); how many were sent, and a line for each that drifted."""
    from generator.commands.prove import reprove

    if snapshot.proofs is None:
        raise PortalError(
            f"check --prove sends the examples the site's snapshot.json proved again, but the site in {config.out} "
            f"was built without --prove, so it records none. Build it with --prove first."
        )
    if from_file is not None and not config.connections and not is_bundled_demo(snapshot):
        raise UsageError(
            "check --prove --from needs the server the snapshot was taken from, to send its examples again: "
            'give it with --stdio, --url or --config, e.g. --stdio "uvx mcp-server-time".'
        )
    with servers_to_document(config) as (specs, config):
        return reprove(snapshot, config, specs)


def invalid_discovery(on_disk: dict[str, bytes]) -> tuple[str, ...]:
    """Where the site's ``server.json`` and ``server-card.json`` (those it has) break their schemas."""
    found: list[str] = []
    for path in (SERVER_JSON, SERVER_CARD):
        if path not in on_disk:
            continue
        try:
            document = json.loads(on_disk[path].decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            found.append(f"{path}: it is not JSON")
            continue
        found += [f"{path}: {problem}" for problem in problems(path, document)]
    return tuple(found)


def _checked_directory(site: Path, snapshot: Snapshot, config: PortalConfig) -> tuple[Path, tuple[str, ...]]:
    """The directory ``check`` compares: the site itself, or with ``--versioned`` the directory of the version of
    *snapshot* in the versioned site, or the newest published version's when that one is not published yet (a
    note says so)."""
    if not config.versioned:
        return site, ()
    from generator.commands.versioned import published_versions

    label, published = published_versions(snapshot, config)
    if not published:
        raise PortalError(
            f"The site directory {site} holds no versioned site (it has no versions.json), so there is nothing to "
            f"check it against. Publish a version first with `mcp-portal build --versioned --out {site}`."
        )
    if label in published:
        return site / label, ()
    note = (
        f"version {label} is not published in {site} yet, so it was compared with the newest published version, "
        f"{published[0]}; publish it with `mcp-portal build --versioned`"
    )
    return site / published[0], (note,)


def _fresh_build(
    snapshot: Snapshot, config: PortalConfig, renderer: ThemeRenderer | None
) -> tuple[dict[str, bytes], list[str]]:
    """The files a build of *snapshot* would write (for ``--versioned``, into its version's directory), in memory."""
    if not config.versioned:
        return site_files(snapshot, config, jobs=usable_jobs(config.jobs)[0], renderer=renderer)
    from generator.commands.versioned import version_files

    return version_files(snapshot, config, jobs=usable_jobs(config.jobs)[0])


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
    proofs = _proof_lines(report)
    if not report.files:
        if report.status == "ok":
            head = f"The site in {report.site} is up to date: all {report.files_checked} files match a fresh build."
            head += f"\nNote: {REORDERED}." if report.search_reordered else ""
        else:
            head = (
                f"Drift: all {report.files_checked} files of the site in {report.site} match a fresh build, but "
                f"the server no longer answers every example the site shows as proven as it did."
            )
        tail = ["", "Build again with --prove to record what the server answers now."] if report.proof_drift else []
        return "\n".join([head, *proofs, *tail]) + "\n" + kept
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
    if proofs:
        lines += ["", *proofs]
    hand = set(report.hand_edited)
    lines += ["", "Files:"]
    for label, names in (("added", report.files.added), ("removed", report.files.removed),
                         ("changed", report.files.changed)):  # fmt: skip
        lines += [f"  {label}: {one_line(name)}{_why(label, name in hand)}" for name in names]
    if report.invalid:
        lines += ["", "Invalid (against the vendored schemas):", *(f"  {one_line(text)}" for text in report.invalid)]
    if report.notes:
        lines += ["", *(f"Note: {note}." for note in report.notes)]
    if kept:
        lines += ["", kept.rstrip("\n")]
    lines += ["", "Rebuild with `mcp-portal build` (same options) to bring the site up to date."]
    return "\n".join(lines) + "\n"


def _proof_lines(report: DriftReport) -> list[str]:
    """What ``check --prove`` found: one line per proven example that drifted, after a line that counts."""
    if report.proofs_sent is None:
        return []
    if not report.proof_drift:
        return [
            f"Proven examples: all {report.proofs_sent} sent again are still accepted, with answers of the same shape."
        ]
    head = f"Proven examples: {len(report.proof_drift)} of {report.proofs_sent} sent again drifted on the server:"
    return [head, *(f"  {line}" for line in report.proof_drift)]


def _why(label: str, by_hand: bool) -> str:
    if by_hand:
        return {"added": " (added by hand)", "removed": " (deleted by hand)"}.get(label, " (edited by hand)")
    return {
        "added": " (left from the earlier build; a fresh build no longer writes it)",
        "removed": " (new in a fresh build)",
    }.get(label, "")
