"""The survey of the previous site a publish needs before it changes anything.

Before a build writes anything, :func:`generator.publish.write.publish` must know two things about
the site it replaces: what in it the manifest does not list (kept, never deleted:
:func:`unlisted`), and which listed files still hold what the manifest says
(:func:`generator.publish.signatures.check_published`; the rest were edited by hand). A symlink in
the site is never entered: it is kept like any file we did not write, and a listed path beneath one
(:func:`beneath_links`) is left alone, never hashed, replaced or removed. The output directory's
lock is held throughout, so no other build changes the site while it is surveyed.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from generator.publish.location import MANIFEST
from generator.publish.signatures import Kept, check_published, published_signatures, sha256_of


@dataclass(frozen=True)
class Foreign:
    """Something in the old site that its manifest does not list: not ours, so it is kept."""

    path: str
    kind: str
    """``file``, ``symlink``, ``dir`` (an empty one) or ``other`` (a fifo, socket or device)."""


def unlisted(real: Path, listed: Mapping[str, str], walked: set[str] | None = None) -> list[Foreign]:
    """Every entry under *real* that the manifest does not list, sorted; symlinks are never followed.

    One ``scandir`` per directory, each entry told apart by the type the directory listing gives,
    with no ``lstat`` per entry: every build lists the whole previous site. A symlink to a directory is an entry
    of its own, never walked into; a directory with nothing in it is one too. *walked*, when given,
    receives every directory listed (``""`` for *real*): those reached with no symlink on the way.
    """
    found: list[Foreign] = []
    pending = [("", os.fspath(real))]
    while pending:
        prefix, directory = pending.pop()
        if walked is not None:
            walked.add(prefix.rstrip("/"))
        with os.scandir(directory) as listing:
            entries = list(listing)
        if not entries and prefix:
            found.append(Foreign(prefix.rstrip("/"), "dir"))
        for entry in entries:
            path = prefix + entry.name
            if entry.is_dir():  # follows a symlink, as os.walk sorts entries
                if entry.is_symlink():
                    found.append(Foreign(path, "symlink"))
                else:
                    pending.append((path + "/", entry.path))
            elif path not in listed and path != MANIFEST:
                kind = "symlink" if entry.is_symlink() else "file" if entry.is_file(follow_symlinks=False) else "other"
                found.append(Foreign(path, kind))
    return sorted(found, key=lambda e: e.path)


@dataclass(frozen=True)
class Survey:
    """What a publish needs to know of the site it replaces (all empty when there is none)."""

    kept: list[Foreign] = field(default_factory=list)
    """Entries the manifest does not list: carried over, never deleted."""
    intact: dict[str, str] = field(default_factory=dict)
    """Listed files that still hold what the manifest says (path -> sha256), ``manifest.json`` too."""
    edited: list[str] = field(default_factory=list)
    """Listed files whose bytes no longer match: edited by hand since the site was built."""
    signatures: dict[str, list[int]] = field(default_factory=dict)
    """The signature of each intact file as the survey took it (see :func:`check_published`)."""
    beyond: list[str] = field(default_factory=list)
    """Listed paths with a symlink on the way to them: not ours to touch, left alone (never followed)."""


def survey(real: Path, listed: Mapping[str, str], record: Kept | None) -> Survey:
    """The survey of the site at *real*, whose manifest lists *listed*; *record* holds the signatures
    the last publish took (:func:`generator.publish.signatures.record_published`)."""
    walked: set[str] = set()
    kept = unlisted(real, listed, walked)
    beyond = beneath_links(real, listed, walked)
    ours = {p: d for p, d in listed.items() if p not in beyond} if beyond else listed
    signatures: dict[str, list[int]] = {}
    intact, edited = check_published(real, ours, published_signatures(record, real), signatures)
    intact[MANIFEST] = _digest(real / MANIFEST)  # an unchanged site keeps its manifest too
    return Survey(kept, intact, edited, signatures, sorted(beyond))


def beneath_links(real: Path, listed: Mapping[str, str], walked: set[str]) -> set[str]:
    """The *listed* paths with a symlink on the way to them inside *real* (*walked* are the directories
    :func:`unlisted` reached with none). A manifest is read from the previous site, so it may name
    files beneath a link to anywhere: those are never read, replaced or removed."""
    found: set[str] = set()
    linked: dict[str, bool] = {}
    for path in listed:
        directory = path.rpartition("/")[0]
        if directory not in walked and _linked(real, directory, linked):
            found.add(path)
    return found


def _linked(real: Path, directory: str, linked: dict[str, bool]) -> bool:
    """Whether *directory* or a directory above it is a symlink (answers kept in *linked*)."""
    if not directory:
        return False
    if directory not in linked:
        try:
            link = stat.S_ISLNK(os.lstat(os.path.join(real, directory)).st_mode)
        except OSError:
            link = False
        linked[directory] = link or _linked(real, directory.rpartition("/")[0], linked)
    return linked[directory]


def _digest(path: Path) -> str:
    """The sha256 of the regular file at *path*, or "" (matching nothing) when it is not one."""
    try:
        if stat.S_ISREG(os.lstat(path).st_mode):
            return sha256_of(os.fspath(path))
    except OSError:
        pass
    return ""
