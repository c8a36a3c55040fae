"""Writing the site: staged, hashed, then swapped in, and only over a site we wrote.

Files are written to a staging directory beside the output and swapped in
only when everything succeeded, so a failed build leaves the previous site
untouched.  A lock file serialises concurrent builds into the same output.
A build killed midway (SIGKILL, a cancelled CI job) can leave its staging or
old directory behind; the next build removes them under the lock, and puts
the old site back first if the kill fell between the two renames.
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
content is swapped and the link stays.  Those checks (where ``--out`` may be,
and whether it holds a site we built) are in :mod:`generator.publish.location`;
this module writes, carries over, locks and swaps.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import glob
import hashlib
import os
import shutil
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from generator.errors import PortalError
from generator.publish.location import MANIFEST, Protected, check_location, inspect, is_safe_relative
from generator.publish.signatures import edited_files, published_signatures, record_published

_SHOWN = 10
"""File names shown in a warning before the rest are counted."""


def _safe_relative(path: str) -> PurePosixPath:
    """Reject any path that could leave the output directory (defence in depth: slugs already avoid it)."""
    if not is_safe_relative(path):
        raise PortalError(f"Refusing to write {path!r}: it would land outside the output directory.")
    return PurePosixPath(path)


class Staging:
    """A new site as it is being written: each file goes straight to disk and is hashed on the way.

    Nothing holds the whole site in memory: a page is written as soon as it is rendered, and
    :attr:`hashes` is all that is kept of it (for ``manifest.json``).
    """

    def __init__(self, root: Path, previous: Path | None = None, unchanged: Mapping[str, str] | None = None) -> None:
        self.root = root
        self.hashes: dict[str, str] = {}
        self._dirs: set[Path] = {root}
        self.previous = previous
        """The site being replaced, whose files :attr:`unchanged` lists."""
        self.unchanged: Mapping[str, str] = unchanged or {}
        """Its files that still hold what its manifest says (path -> sha256): a new file with the same
        bytes is a hard link to the old one, which costs a directory entry instead of a write."""

    def fresh(self) -> Staging:
        """A writer into the same directory with its own :attr:`hashes` (one per render worker)."""
        return Staging(self.root, self.previous, self.unchanged)

    def _claim(self, path: str) -> Path:
        """Where *path* goes, its directory made; a path is written once per build."""
        if path in self.hashes:
            raise PortalError(f"Refusing to write {path!r} twice in one build (two pages claim the same path).")
        target = self.root.joinpath(*_safe_relative(path).parts)
        if target.parent not in self._dirs:
            target.parent.mkdir(parents=True, exist_ok=True)
            self._dirs.add(target.parent)
        return target

    def write(self, path: str, data: bytes) -> None:
        """Write one file of the site (*path* relative to its root)."""
        self.write_known(path, hashlib.sha256(data).hexdigest(), lambda: data)

    def write_known(self, path: str, digest: str, load: Callable[[], bytes | None]) -> bool:
        """Write a file whose sha256 is known: a hard link to the previous site's copy when that holds
        those bytes, else the bytes *load* gives. When *load* has none (a damaged cache entry),
        nothing is written and False is returned."""
        target = self._claim(path)
        if not (self.unchanged.get(path) == digest and self._link(target)):
            data = load()
            if data is None:
                return False
            with open(target, "wb") as handle:
                handle.write(data)
        self.hashes[path] = digest
        return True

    def write_parts(self, path: str, parts: Iterable[bytes], separator: bytes) -> None:
        """Write one file made of *parts* joined by *separator*, one part in memory at a time."""
        target = self._claim(path)
        digest = hashlib.sha256()
        with open(target, "wb") as handle:
            for i, part in enumerate(parts):
                piece = separator + part if i else part  # one chunk of one locale: a few MB at most
                handle.write(piece)
                digest.update(piece)
        self.hashes[path] = digest.hexdigest()

    def _link(self, target: Path) -> bool:
        """Hard-link the previous site's copy of a file to *target*, if it is a regular file there."""
        if self.previous is None:
            return False
        source = self.previous / target.relative_to(self.root)
        try:
            if not stat.S_ISREG(os.lstat(source).st_mode):
                return False
            os.link(source, target, follow_symlinks=False)
        except OSError:  # another file system, no hard links, a file gone since: write it instead
            return False
        return True

    def adopt(self, directory: str) -> None:
        """Record the files another program wrote under *directory* (Pagefind's index)."""
        base = self.root / directory
        for file in sorted(base.rglob("*")):
            if file.is_file() and not file.is_symlink():
                path = file.relative_to(self.root).as_posix()
                _safe_relative(path)
                self.hashes[path] = hashlib.sha256(file.read_bytes()).hexdigest()

    def read(self, path: str) -> bytes:
        """A file already written (the search index reads the pages it indexes from here)."""
        return self.root.joinpath(*_safe_relative(path).parts).read_bytes()


Producer = Callable[[Staging], None]
"""Writes a whole site into a :class:`Staging`, ``manifest.json`` included."""


# --------------------------------------------------------------------------- what the new site keeps


@dataclass(frozen=True)
class Entry:
    """Something in the old site that its manifest does not list: not ours, so it is kept."""

    path: str
    kind: str
    """``file``, ``symlink``, ``dir`` (an empty one) or ``other`` (a fifo, socket or device)."""


def unlisted(real: Path, listed: Mapping[str, str]) -> list[Entry]:
    """Every entry under *real* that the manifest does not list, sorted; symlinks are never followed."""
    found: list[Entry] = []
    for top, dirs, names in _walk(real):
        base = top.relative_to(real).as_posix()
        prefix = "" if base == "." else base + "/"
        for name in dirs:
            if (top / name).is_symlink():
                found.append(Entry(prefix + name, "symlink"))
        if not dirs and not names and prefix:
            found.append(Entry(prefix.rstrip("/"), "dir"))
        for name in names:
            path = prefix + name
            if path in listed or path == MANIFEST:
                continue
            mode = os.lstat(top / name).st_mode
            kind = "symlink" if stat.S_ISLNK(mode) else "file" if stat.S_ISREG(mode) else "other"
            found.append(Entry(path, kind))
    return sorted(found, key=lambda e: e.path)


def _walk(real: Path) -> Iterator[tuple[Path, list[str], list[str]]]:
    def fail(exc: OSError) -> None:
        raise exc

    for top, dirs, names in os.walk(real, onerror=fail, followlinks=False):
        yield Path(top), dirs, names


def _collision(entry: Entry, new_files: set[str], new_dirs: set[str]) -> bool:
    """Whether the new site writes at *entry*'s path, or needs it (or an ancestor) as the other kind."""
    parts = entry.path.split("/")
    ancestors = {"/".join(parts[:i]) for i in range(1, len(parts))}
    if entry.path in new_files or ancestors & new_files:
        return True
    return entry.kind != "dir" and entry.path in new_dirs


def _names(paths: Sequence[str]) -> str:
    shown = ", ".join(paths[:_SHOWN])
    return shown + (f" and {len(paths) - _SHOWN} more" if len(paths) > _SHOWN else "")


def _carry(real: Path, staging: Path, kept: Sequence[Entry], new_dirs: set[str]) -> None:
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
    lock_path = out.parent / f".{out.name}.lock"
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
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


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
    for path in out.parent.glob(f".{glob.escape(out.name)}.{kind}-*"):
        pid = path.name.rpartition("-")[2]
        ours = pid.isdigit() and (int(pid) == os.getpid() or not _alive(int(pid)))
        if ours and path.is_dir() and not path.is_symlink():
            found.append(path)
    return sorted(found, key=lambda p: p.stat().st_mtime)


def _clean_leftovers(out: Path) -> None:
    """Tidy up after killed builds; call only while holding the lock."""
    olds = _leftovers(out, "old")
    if olds and not os.path.lexists(out):
        # Killed between ``out -> old`` and ``staging -> out``: the newest old is the published site.
        os.rename(olds.pop(), out)
    for path in [*olds, *_leftovers(out, "staging")]:
        shutil.rmtree(path, ignore_errors=True)


def _writing(files: Mapping[str, bytes]) -> Producer:
    """A producer that writes files already in memory (tests, and sites assembled elsewhere)."""

    def produce(staging: Staging) -> None:
        for path in files:
            _safe_relative(path)  # every path is checked before the first is written
        for path, data in sorted(files.items()):
            staging.write(path, data)

    return produce


def publish(
    out: Path, files: Mapping[str, bytes] | Producer, *, protected: Protected = (), record: Path | None = None
) -> list[str]:
    """Write the new content of *out*; return warnings.

    *files* is either every file (paths relative to the site root, as bytes) or a producer that
    writes them into the staging directory as they are made, so a large site is never held in
    memory.  The producer runs under the output's lock, after the checks of where *out* is; if it
    fails, the staging directory is removed and the previous site is untouched.
    *protected* are the inputs the build read (config, templates, overlays...): an *out* that
    holds or lies inside one is refused.  *record* keeps the files' signatures between builds
    (:mod:`generator.publish.signatures`).  See the module docstring for the whole contract.
    """
    produce = _writing(files) if isinstance(files, Mapping) else files
    real = check_location(out, protected)
    try:
        real.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PortalError(f"Cannot create the output's parent directory {real.parent} ({exc.strerror}).") from None
    if real.exists() and not real.is_dir():
        raise PortalError(f"The output path {out} exists and is not a directory. Choose another --out.")
    staging = real.parent / f".{real.name}.staging-{os.getpid()}"
    old = real.parent / f".{real.name}.old-{os.getpid()}"
    warnings: list[str] = []
    with _locked(real):
        try:
            _clean_leftovers(real)
            site = inspect(out, real, protected)
            kept = unlisted(real, site.listed) if site.exists else []
            edited = edited_files(real, site.listed, published_signatures(record, real) if site.exists else None)
            shutil.rmtree(staging, ignore_errors=True)
            staging.mkdir()
            edited_set = set(edited)
            unchanged = {p: h for p, h in site.listed.items() if p not in edited_set} if site.exists else {}
            written = Staging(staging, real, unchanged)
            produce(written)
            new_files = set(written.hashes) | {MANIFEST}
            new_dirs = {str(parent) for p in new_files for parent in PurePosixPath(p).parents if parent.parts}
            _refuse_kept(out, kept, new_files, new_dirs)
            _carry(real, staging, kept, new_dirs)
            if site.exists:
                os.chmod(staging, stat.S_IMODE(os.stat(real).st_mode))
                os.rename(real, old)
            os.rename(staging, real)
        except OSError as exc:
            raise PortalError(
                f"Writing the site to {out} failed ({exc.strerror or exc}); the previous site is unchanged."
            ) from None
        finally:
            _settle(real, staging, old)
        record_published(record, real, written.hashes | {MANIFEST: ""})
    if kept:
        warnings.append(
            f"kept {len(kept)} file(s) in {out} that mcp-portal did not write (the previous manifest.json "
            f"does not list them), carried over untouched: {_names([e.path for e in kept])}"
        )
    if edited:
        warnings.append(
            f"replaced {len(edited)} file(s) of the previous site in {out} that were edited after it was built: "
            f"{_names(edited)}; put lasting changes in overlays or a template directory"
        )
    return warnings


def _refuse_kept(out: Path, kept: Sequence[Entry], new_files: set[str], new_dirs: set[str]) -> None:
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


def _settle(real: Path, staging: Path, old: Path) -> None:
    """After the swap or a failure: the site is at *real*, and no staging or old directory is left."""
    if os.path.lexists(old):
        if not os.path.lexists(real):
            os.rename(old, real)  # the swap failed between its two renames: put the old site back
        else:
            shutil.rmtree(old, ignore_errors=True)
    shutil.rmtree(staging, ignore_errors=True)
