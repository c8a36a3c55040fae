"""Acting on files inside the output directory, never through a symbolic link.

A previous site may hold symlinks (git stores them, so a ``gh-pages`` checkout or a downloaded
artifact can), and its ``manifest.json`` is only as trustworthy as whoever wrote it last. A path
string such as ``site/gone/a.html`` is resolved by the kernel through every link on the way, so
``os.unlink`` on it removes ``../outside/a.html`` when ``gone`` links there.

:class:`Confined` is the one place the publisher removes, replaces, creates or hard-links a file
of the live site. It opens the site's root once and reaches every directory from its parent's
descriptor with ``O_NOFOLLOW | O_DIRECTORY``, then acts on the last name relative to that
descriptor (``unlinkat``, ``renameat``, ``mkdirat``, ``linkat``), which never follows a link in
the last name either. A symlink on the way raises :class:`ThroughLink` and nothing is done. The
kernel checks each step at the moment it is taken, so a link swapped in after the survey of the
site is refused all the same.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class ThroughLink(OSError):
    """A path inside the site has a symbolic link where a directory was expected: nothing was done."""


class Confined:
    """The directory *root*, acted on only through its own directories; use as a context manager.

    Paths are site paths (``a/b/c.html``, checked by the caller with
    :func:`generator.publish.location.is_safe_relative`). Descriptors of the directories reached are
    kept until :meth:`close`, so a publish that places a thousand files opens each directory once.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._open: dict[str, int] = {}

    def __enter__(self) -> Confined:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Close every directory descriptor this tree opened."""
        for fd in self._open.values():
            with contextlib.suppress(OSError):
                os.close(fd)
        self._open.clear()

    def _directory(self, path: str, *, create: bool = False) -> int:
        """A descriptor of the directory *path* ("" is the root), made first (with its parents) when *create*."""
        if path in self._open:
            return self._open[path]
        if not path:
            fd = os.open(self.root, _DIRECTORY)
        else:
            parent, _, name = path.rpartition("/")
            above = self._directory(parent, create=create)
            try:
                fd = os.open(name, _DIRECTORY, dir_fd=above)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, dir_fd=above)
                fd = self._reopen(name, above, path)
            except NotADirectoryError:
                self._refuse_link(name, above, path)
                raise
        self._open[path] = fd
        return fd

    def _reopen(self, name: str, above: int, path: str) -> int:
        try:
            return os.open(name, _DIRECTORY, dir_fd=above)
        except NotADirectoryError:
            self._refuse_link(name, above, path)
            raise

    def _refuse_link(self, name: str, above: int, path: str) -> None:
        """Raise :class:`ThroughLink` when *name* in the directory *above* is a symbolic link."""
        try:
            link = stat.S_ISLNK(os.stat(name, dir_fd=above, follow_symlinks=False).st_mode)
        except OSError:
            return
        if link:
            raise ThroughLink(
                errno.ELOOP,
                f"{self.root / path} is a symbolic link, and mcp-portal never deletes, replaces or creates "
                f"anything through one",
            )

    def _parent(self, path: str, *, create: bool = False) -> tuple[int, str]:
        directory, _, name = path.rpartition("/")
        return self._directory(directory, create=create), name

    def _lstat(self, path: str) -> os.stat_result | None:
        """The entry at *path* itself (a link is not followed), or None when there is none."""
        try:
            above, name = self._parent(path)
            return os.stat(name, dir_fd=above, follow_symlinks=False)
        except (FileNotFoundError, NotADirectoryError):  # a ThroughLink is neither: it goes on up
            return None

    def lexists(self, path: str) -> bool:
        """Whether anything (a symlink included) is at *path*."""
        return self._lstat(path) is not None

    def is_dir(self, path: str) -> bool:
        """Whether a directory (not a link to one) is at *path*."""
        found = self._lstat(path)
        return found is not None and stat.S_ISDIR(found.st_mode)

    def unlink(self, path: str) -> None:
        """Remove the file (or the link itself) at *path*; nothing to do when it is gone."""
        try:
            with self._naming(path):
                above, name = self._parent(path)
                os.unlink(name, dir_fd=above)
        except (FileNotFoundError, NotADirectoryError):  # a ThroughLink is neither: it goes on up
            pass

    def rmdir(self, path: str) -> None:
        """Remove the empty directory at *path* (an OSError when it is not empty or not a directory)."""
        above, name = self._parent(path)
        fd = self._open.pop(path, None)
        if fd is not None:
            os.close(fd)
        for inner in [p for p in self._open if p.startswith(path + "/")]:
            os.close(self._open.pop(inner))
        os.rmdir(name, dir_fd=above)

    def move_in(self, source: Path, path: str) -> None:
        """Rename the file *source* (outside the tree) to *path*, replacing what is there (a link itself,
        never its target) and making missing directories on the way."""
        with self._naming(path):
            above, name = self._parent(path, create=True)
            os.replace(source, name, dst_dir_fd=above)

    @contextlib.contextmanager
    def _naming(self, path: str) -> Iterator[None]:
        """An OSError raised within names the site's file *path* (the call named it relative to a descriptor, or
        by the staged copy): that is where a write was refused, and what a message shows."""
        try:
            yield
        except ThroughLink:
            raise
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, str(self.root / path)) from exc

    def copy_out(self, path: str, target: Path) -> None:
        """Put the entry at *path* at *target* (outside the tree): a hard link to it, else a copy (a link as a link)."""
        above, name = self._parent(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(name, target, src_dir_fd=above, follow_symlinks=False)
            return
        except OSError:  # another file system, a hard-link limit, protected_hardlinks: copy it
            pass
        found = os.stat(name, dir_fd=above, follow_symlinks=False)
        if stat.S_ISLNK(found.st_mode):
            os.symlink(os.readlink(name, dir_fd=above), target)
            return
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=above)
        with os.fdopen(fd, "rb") as source, open(target, "wb") as copy:
            shutil.copyfileobj(source, copy)
        os.chmod(target, stat.S_IMODE(found.st_mode))
        os.utime(target, ns=(found.st_atime_ns, found.st_mtime_ns))
