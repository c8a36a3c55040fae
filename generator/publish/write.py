"""Writing the site: staged, hashed, then swapped in, and only over a site we wrote.

Files are written to a staging directory beside the output and published
only when everything succeeded, so a failed build leaves the previous site
untouched.  A lock file serialises concurrent builds into the same output.
Publishing takes one of two ways:

- a rebuild that changes at most half of the previous site's files (the usual
  case: a tool or two changed) moves only those into the live directory, with
  an undo directory beside it (:mod:`generator.publish.inplace`); files whose
  bytes did not change are never written (:class:`Staging` leaves them);
- anything else (a first build, a new theme, a build whose search index is made
  again, which needs every page in one directory for Pagefind) swaps in the whole
  staging directory.

A build killed midway (SIGKILL, a cancelled CI job) can leave its staging, old
or undo directory behind; the next build deals with them under the lock: it
undoes a half-placed change, puts the old site back if the kill fell between
the two renames of a swap, and removes the rest.  A caller that has time after
the build (``build --watch``, between changes) may take the removal of what the
site no longer needs on itself (``later``): the previous site after a swap, or
the old copies of the files a change replaced, renamed to a ``done``
directory that undoes nothing and that the next build removes if it is still there.
Every path is checked to stay inside the output directory.

The ``--out`` contract (issue 11): the swap replaces a directory wholesale, so
it only ever replaces one that is provably a previous mcp-portal site (its
``manifest.json`` parses, names the generator and lists its files) or an empty
or new one.  Whatever that manifest does not list (a ``CNAME``, a ``.nojekyll``,
a ``.git`` of a worktree) was not written by us and is carried over untouched
into the new site; files it does list are ours and are replaced or dropped.
Everything else is refused before anything is written: the file system root,
the home directory, the current directory and its parents, a non-empty
directory that is not a site, and a directory that holds (or lies inside) the
inputs this build reads.  A symlinked ``--out`` is followed: the target's
content is swapped and the link stays.  Inside ``--out`` nothing is ever
deleted, replaced or created through a symlink: a symlink in the previous site
is kept like any file we did not write and never entered, a path its manifest
lists beneath one is left alone (with a warning), and every act on the live
site goes through :class:`generator.publish.confined.Confined`.  Those checks (where ``--out`` may be,
and whether it holds a site we built) are in :mod:`generator.publish.location`;
this module writes, carries over, locks and swaps.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import glob
import os
import shlex
import shutil
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from generator.errors import PortalError, not_yours, os_failure
from generator.publish.inplace import apply, roll_back
from generator.publish.location import MANIFEST, Protected, check_location, directories_of, inspect, sibling
from generator.publish.signatures import Kept, record_published
from generator.publish.staging import Staging, safe_relative
from generator.publish.survey import Foreign, Survey, survey

_SHOWN = 10
"""File names shown in a warning before the rest are counted."""


Producer = Callable[[Staging], None]
"""Writes a whole site into a :class:`Staging`, ``manifest.json`` included."""


# --------------------------------------------------------------------------- what the new site keeps


def _collision(entry: Foreign, new_files: set[str], new_dirs: set[str]) -> bool:
    """Whether the new site writes at *entry*'s path, or needs it (or an ancestor) as the other kind."""
    parts = entry.path.split("/")
    ancestors = {"/".join(parts[:i]) for i in range(1, len(parts))}
    if entry.path in new_files or ancestors & new_files:
        return True
    return entry.kind != "dir" and entry.path in new_dirs


def _names(paths: Sequence[str]) -> str:
    shown = ", ".join(paths[:_SHOWN])
    return shown + (f" and {len(paths) - _SHOWN} more" if len(paths) > _SHOWN else "")


def _carry(real: Path, staging: Path, kept: Sequence[Foreign], new_dirs: set[str]) -> None:
    """Put the kept entries into *staging* untouched: hard links (else copies), symlinks as symlinks."""
    made: set[str] = set()
    for entry in kept:
        source = real.joinpath(*entry.path.split("/"))
        target = staging.joinpath(*entry.path.split("/"))
        parts = entry.path.split("/")
        for i in range(1, len(parts) if entry.kind != "dir" else len(parts) + 1):
            made.add("/".join(parts[:i]))
        target.parent.mkdir(parents=True, exist_ok=True)
        if entry.kind == "dir":
            target.mkdir(exist_ok=True)
        elif entry.kind == "symlink":
            os.symlink(os.readlink(source), target)
        else:
            try:
                os.link(source, target, follow_symlinks=False)
            except OSError:  # another file system, a hard-link limit, protected_hardlinks
                shutil.copy2(source, target, follow_symlinks=False)
    for directory in sorted(made - new_dirs):
        # Directories only the user's files live in keep their permissions.
        with contextlib.suppress(OSError):
            mode = os.lstat(real / directory).st_mode
            os.chmod(staging / directory, stat.S_IMODE(mode))


# --------------------------------------------------------------------------- lock, leftovers, swap


@contextlib.contextmanager
def _locked(out: Path) -> Iterator[None]:
    """Hold ``.NAME.lock`` beside *out*: never through a symlink, never truncating anything."""
    lock_path = sibling(out, "lock")
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(lock_path, flags, 0o644)
    except OSError as exc:
        what = "is a symbolic link" if exc.errno == errno.ELOOP else f"cannot be opened ({exc.strerror})"
        raise PortalError(
            f"The lock file {lock_path} {what}; mcp-portal takes a lock there so two builds never write "
            f"{out} at once, and never follows a link or writes through one. Remove {lock_path} "
            f"(safe when no build is running) and build again."
        ) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise PortalError(
                f"The lock file {lock_path} is not a regular file. Remove it (safe when no build is running) "
                f"and build again."
            )
        # A POSIX record lock, which belongs to this process alone: the render workers and helpers it
        # forks never hold it (a flock would be theirs too), and it ends when this process does.
        fcntl.lockf(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.lockf(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


@contextlib.contextmanager
def reading(out: Path) -> Iterator[None]:
    """Hold a shared lock on the ``.NAME.lock`` a build holds while it publishes into *out* (:func:`_locked`), for
    as long as the site is read whole (``check``): a build waits for the read to end, and a read waits for a
    publish, so it never sees half of one site and half of another. Nothing is created or followed: without a
    lock file of ours (no build of ours has published there), the site is read as it is."""
    real = Path(os.path.realpath(out))
    try:
        fd = os.open(sibling(real, "lock"), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        fd = None
    try:
        if fd is not None and stat.S_ISREG(os.fstat(fd).st_mode):
            fcntl.lockf(fd, fcntl.LOCK_SH)
        yield
    finally:
        if fd is not None:
            os.close(fd)  # and with it the lock


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    except OverflowError:
        return False
    return True


def _leftovers(out: Path, kind: str) -> list[Path]:
    """``.NAME.<kind>-PID`` directories beside *out* left by builds that are gone.

    Called under the lock before this build writes anything, so a directory named
    with our own pid is a leftover too (a container reuses pids from run to run).
    """
    found = []
    for path in out.parent.glob(glob.escape(sibling(out, f"{kind}-").name) + "*"):
        pid = path.name.rpartition("-")[2]
        ours = pid.isdigit() and (int(pid) == os.getpid() or not _alive(int(pid)))
        if ours and path.is_dir() and not path.is_symlink():
            found.append(path)
    return sorted(found, key=lambda p: p.stat().st_mtime)


def _clean_leftovers(out: Path) -> list[str]:
    """Tidy up after killed builds; call only while holding the lock. Returns a warning for each leftover that
    could not be removed."""
    for undo in _leftovers(out, "undo"):
        roll_back(out, undo)  # killed while placing a change in the site: put the site back as it was
    olds = _leftovers(out, "old")
    if olds and not os.path.lexists(out):
        # Killed between ``out -> old`` and ``staging -> out``: the newest old is the published site.
        os.rename(olds.pop(), out)
    return [w for path in [*olds, *_leftovers(out, "staging"), *_leftovers(out, "done")] if (w := _remove(path))]


def _remove(directory: Path) -> str | None:
    """Remove *directory*, a copy of the site that a build of mcp-portal made beside it; a warning when some of it
    stays (files of another user, such as a site an earlier CI step built as root): then it is the user's to remove."""
    shutil.rmtree(directory, ignore_errors=True)
    if not os.path.lexists(directory):
        return None
    theirs = not_yours(directory)
    whose = f"that {theirs}" if theirs else "whose permissions refuse it"
    return (
        f"could not remove {directory}, a copy of the site {whose}; the site itself is complete. Remove the copy "
        f"yourself, e.g. {'sudo ' if theirs else ''}rm -rf {shlex.quote(str(directory))}"
    )


def _writing(files: Mapping[str, bytes]) -> Producer:
    """A producer that writes files already in memory (tests, and sites assembled elsewhere)."""

    def produce(staging: Staging) -> None:
        for path in files:
            safe_relative(path)  # every path is checked before the first is written
        for path, data in sorted(files.items()):
            staging.write(path, data)

    return produce


def publish(
    out: Path,
    files: Mapping[str, bytes] | Producer,
    *,
    protected: Protected = (),
    record: Kept | None = None,
    later: list[Path] | None = None,
) -> list[str]:
    """Write the new content of *out*; return warnings.

    *files* is either every file (paths relative to the site root, as bytes) or a producer that
    writes them into the staging directory as they are made, so a large site is never held in
    memory.  The producer runs under the output's lock, after the checks of where *out* is; if it
    fails, the staging directory is removed and the previous site is untouched.
    *protected* are the inputs the build read (config, templates, overlays...): an *out* that
    holds or lies inside one is refused.  *record* keeps the files' signatures between builds
    (:mod:`generator.publish.signatures`).  Given *later*, what the published site no longer needs is
    not removed here but put in a ``done`` directory, appended to *later* for the caller to remove.
    See the module docstring for the whole contract.
    """
    produce = _writing(files) if isinstance(files, Mapping) else files
    real = check_location(out, protected)
    try:
        real.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PortalError(
            f"Cannot create the output's parent directory {real.parent} {os_failure(exc, 'choose another --out')}"
        ) from None
    if real.exists() and not real.is_dir():
        raise PortalError(f"The output path {out} exists and is not a directory. Choose another --out.")
    paths = _Paths(real, later is not None)
    found = Survey()
    stuck: list[str] = []
    with _locked(real):
        written: Staging | None = None
        try:
            stuck += _clean_leftovers(real)
            site = inspect(out, real, protected)
            found = survey(real, site.listed, record) if site.exists else Survey()
            shutil.rmtree(paths.staging, ignore_errors=True)
            paths.staging.mkdir()
            beyond = set(found.beyond)
            ours = {path: digest for path, digest in site.listed.items() if path not in beyond}
            written = Staging(paths.staging, real if site.exists else None, found.intact, lazy=True, listed=ours)
            produce(written)
            untouched = _place(out, paths, site.exists, site.listed, found, written)
        except OSError as exc:
            raise PortalError(
                f"Writing the site to {out} failed, and the previous site is unchanged "
                f"{os_failure(exc, 'choose another --out')}"
            ) from None
        finally:
            stuck += _settle(real, paths.staging, paths.old, paths.done)
            if later is not None and paths.done is not None and os.path.lexists(paths.done):
                later.append(paths.done)
        record_published(record, real, written.hashes | {MANIFEST: ""}, untouched)
    return _warnings(out, found) + stuck


class _Paths:
    """The directories a publish uses beside the site at *real*, named after this process."""

    def __init__(self, real: Path, keep_done: bool) -> None:
        pid = os.getpid()
        self.real = real
        self.staging = sibling(real, f"staging-{pid}")
        self.old = sibling(real, f"old-{pid}")
        self.undo = sibling(real, f"undo-{pid}")
        self.done = sibling(real, f"done-{pid}") if keep_done else None


def _place(
    out: Path, paths: _Paths, exists: bool, listed: Mapping[str, str], found: Survey, written: Staging
) -> dict[str, list[int]]:
    """Put the staged site in place: in place when at most half its files change, else by a swap.
    Returns the signatures of the files left where they were (still valid)."""
    new_files = set(written.hashes) | {MANIFEST}
    new_dirs = directories_of(new_files)
    _refuse_kept(out, found.kept, new_files, new_dirs)
    changed = sorted(set(written.hashes) - written.same)
    # Not ours to remove: a listed path beneath a symlink, and a link that is itself kept.
    dropped = sorted(set(listed) - new_files - set(found.beyond) - {e.path for e in found.kept})
    if written.lazy and len(changed) + len(dropped) <= len(new_files) // 2:
        if changed or dropped:
            apply(paths.real, paths.staging, paths.undo, changed, dropped, done=paths.done)
        # Every other file was left where it was: its signature still stands.
        return {path: found.signatures[path] for path in written.same if path in found.signatures}
    written.complete()
    _carry(paths.real, paths.staging, found.kept, new_dirs)
    if exists:
        os.chmod(paths.staging, stat.S_IMODE(os.stat(paths.real).st_mode))
        os.rename(paths.real, paths.old)
    os.rename(paths.staging, paths.real)
    return {}


def _warnings(out: Path, found: Survey) -> list[str]:
    """The warnings about what the previous site held that this build did not write, or that was edited."""
    warnings: list[str] = []
    if found.kept:
        warnings.append(
            f"kept {len(found.kept)} file(s) in {out} that mcp-portal did not write (the previous manifest.json "
            f"does not list them), carried over untouched: {_names([e.path for e in found.kept])}"
        )
    if found.beyond:
        warnings.append(
            f"left alone {len(found.beyond)} file(s) that the previous manifest.json in {out} lists beneath a "
            f"symbolic link, which mcp-portal never follows (the link is kept as a file it did not write): "
            f"{_names(found.beyond)}"
        )
    if found.edited:
        warnings.append(
            f"replaced {len(found.edited)} file(s) of the previous site in {out} that were edited after it was built: "
            f"{_names(found.edited)}; put lasting changes in overlays or a template directory"
        )
    return warnings


def _refuse_kept(out: Path, kept: Sequence[Foreign], new_files: set[str], new_dirs: set[str]) -> None:
    """Refuse when a kept entry cannot be carried over (an odd file type, or a path the new site writes)."""
    odd = [e.path for e in kept if e.kind == "other"]
    if odd:
        raise PortalError(
            f"The site in {out} holds {_names(odd)}, which mcp-portal did not write and cannot carry over "
            f"(not a regular file, directory or symlink). Move it out of {out} and build again."
        )
    clash = [e.path for e in kept if _collision(e, new_files, new_dirs)]
    if clash:
        raise PortalError(
            f"The site in {out} holds {_names(clash)}, which mcp-portal did not write (its manifest.json does "
            f"not list it) but the new site writes at that path. mcp-portal never deletes files it did not "
            f"write: move or delete it yourself (or override the page through a template directory) and "
            f"build again. The previous site is unchanged."
        )


def _settle(real: Path, staging: Path, old: Path, done: Path | None = None) -> list[str]:
    """After the swap or a failure: the site is at *real*, and no staging or old directory is left (the
    old site is renamed to *done*, when given, for the caller to remove, and what is left of the staging
    goes into it when it exists). Returns a warning for each that could not be removed."""
    stuck: list[str | None] = []
    if os.path.lexists(old):
        if not os.path.lexists(real):
            os.rename(old, real)  # the swap failed between its two renames: put the old site back
        elif done is not None and not os.path.lexists(done):
            os.rename(old, done)
        else:
            stuck.append(_remove(old))
    if done is not None and os.path.lexists(done) and os.path.lexists(staging):
        with contextlib.suppress(OSError):  # else removed right here
            os.rename(staging, done / "staging")
    stuck.append(_remove(staging))
    return [warning for warning in stuck if warning]
