"""The survey of the previous site a publish needs, taken in a child process while the pages are modelled.

Before a build writes anything, :func:`generator.publish.write.publish` must know two things about
the site it replaces: what in it the manifest does not list (kept, never deleted:
:func:`unlisted`), and which listed files still hold what the manifest says
(:func:`generator.publish.signatures.check_published`; the rest were edited by hand). Both pass
over every file: 80 ms of a one-tool rebuild's serial path at 1,000 tools (6,000 files), which
is most of a tenth of it.

Nothing in the survey depends on the new site, so :func:`start_survey` forks a child that takes
it while the parent builds the model and the cache keys, on the other core. The pages need the
result only when they are written, so the parent waits for it (:meth:`Pending.result`) just
before the render workers are forked. The survey is the same whichever process takes it: when
the child cannot be used (no ``fork``, other threads running, the child failed), the parent
takes it itself. The output directory's lock is held throughout, so no other build changes the
site while it is surveyed.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import stat
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from generator.publish.location import MANIFEST
from generator.publish.signatures import check_published, published_signatures, sha256_of


@dataclass(frozen=True)
class Entry:
    """Something in the old site that its manifest does not list: not ours, so it is kept."""

    path: str
    kind: str
    """``file``, ``symlink``, ``dir`` (an empty one) or ``other`` (a fifo, socket or device)."""


def unlisted(real: Path, listed: Mapping[str, str]) -> list[Entry]:
    """Every entry under *real* that the manifest does not list, sorted; symlinks are never followed.

    One ``scandir`` per directory, each entry told apart by the type the directory listing gives
    (``os.walk`` and an ``lstat`` per directory took twice as long over a 5,000-tool site's 45,000
    entries, and every build lists the whole previous site). A symlink to a directory is an entry
    of its own, never walked into; a directory with nothing in it is one too.
    """
    found: list[Entry] = []
    pending = [("", os.fspath(real))]
    while pending:
        prefix, directory = pending.pop()
        with os.scandir(directory) as listing:
            entries = list(listing)
        if not entries and prefix:
            found.append(Entry(prefix.rstrip("/"), "dir"))
        for entry in entries:
            path = prefix + entry.name
            if entry.is_dir():  # follows a symlink, as os.walk sorts entries
                if entry.is_symlink():
                    found.append(Entry(path, "symlink"))
                else:
                    pending.append((path + "/", entry.path))
            elif path not in listed and path != MANIFEST:
                kind = "symlink" if entry.is_symlink() else "file" if entry.is_file(follow_symlinks=False) else "other"
                found.append(Entry(path, kind))
    return sorted(found, key=lambda e: e.path)


@dataclass(frozen=True)
class Survey:
    """What a publish needs to know of the site it replaces (all empty when there is none)."""

    kept: list[Entry] = field(default_factory=list)
    """Entries the manifest does not list: carried over, never deleted."""
    intact: dict[str, str] = field(default_factory=dict)
    """Listed files that still hold what the manifest says (path -> sha256), ``manifest.json`` too."""
    edited: list[str] = field(default_factory=list)
    """Listed files whose bytes no longer match: edited by hand since the site was built."""
    signatures: dict[str, list[int]] = field(default_factory=dict)
    """The signature of each intact file as the survey took it (see :func:`check_published`)."""


def survey(real: Path, listed: Mapping[str, str], record: Path | None) -> Survey:
    """The survey of the site at *real*, whose manifest lists *listed*; *record* holds the signatures
    the last publish took (:func:`generator.publish.signatures.record_published`)."""
    kept = unlisted(real, listed)
    signatures: dict[str, list[int]] = {}
    intact, edited = check_published(real, listed, published_signatures(record, real), signatures)
    intact[MANIFEST] = _digest(real / MANIFEST)  # an unchanged site keeps its manifest too
    return Survey(kept, intact, edited, signatures)


def _digest(path: Path) -> str:
    """The sha256 of the regular file at *path*, or "" (matching nothing) when it is not one."""
    try:
        if stat.S_ISREG(os.lstat(path).st_mode):
            return sha256_of(os.fspath(path))
    except OSError:
        pass
    return ""


class Pending:
    """A survey being taken; :meth:`result` waits for it, :meth:`close` gives up on it."""

    def __init__(self, take: Callable[[], Survey], child: int = 0, pipe: int = -1) -> None:
        self._take = take
        self._child = child
        self._pipe = pipe
        self._result: Survey | None = None

    def result(self) -> Survey:
        """The survey: the child's, or taken here when there is no child or it sent nothing usable."""
        if self._result is None:
            found = self._collect()
            self._result = found if found is not None else self._take()
        return self._result

    def _collect(self) -> Survey | None:
        if not self._child:
            return None
        try:
            with os.fdopen(self._pipe, "rb") as pipe:
                self._pipe = -1
                data = pipe.read()
        finally:
            self.close()
        try:
            found = pickle.loads(data) if data else None  # our own child's pickle, through our own pipe
        except Exception:  # a child cut short: the survey is taken here instead
            return None
        return found if isinstance(found, Survey) else None

    def close(self) -> None:
        """Reap the child, if any (it finishes the survey and exits on its own)."""
        if self._pipe >= 0:
            os.close(self._pipe)
            self._pipe = -1
        if self._child:
            child, self._child = self._child, 0
            with contextlib.suppress(ChildProcessError):
                os.waitpid(child, 0)


def start_survey(real: Path, listed: Mapping[str, str], record: Path | None) -> Pending:
    """Start the survey of the site at *real* in a forked child (see the module docstring).

    No child is forked where ``fork`` is missing, or while other threads run (a child of a process
    with threads may find a lock held forever); :meth:`Pending.result` then takes it here.
    """

    def take() -> Survey:
        return survey(real, listed, record)

    if not hasattr(os, "fork") or threading.active_count() > 1:
        return Pending(take)
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child, which leaves through os._exit
        status = 1
        try:
            os.close(read)
            data = pickle.dumps(take(), protocol=pickle.HIGHEST_PROTOCOL)
            view = memoryview(data)
            while view:
                view = view[os.write(write, view) :]
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    return Pending(take, child, read)
