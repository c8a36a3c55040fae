"""Whose the render cache's directory is: a cache is used only when no one but its user can write it.

A cache holds what pages are made of (rendered pages, the search index's file list, the signatures of
the files last published), so whoever can write it can change a site built with it. A cache directory is therefore
used only when it is a directory (not a symbolic link to one: a build removes the records it did not
use, and must never remove them wherever a link leads) that belongs to the user running the build
and that neither its group nor others can write (nor the ``.mcp-portal-cache`` directory above it,
where the default location puts it); otherwise
the build says why in one warning and renders without it. The directories a build creates for a cache
are its user's alone (mode 0700), each created exclusively and checked again once made, so a directory
someone else slips in while the build starts is never used either. The cache's records hold only data
(JSON, and page bytes checked against their sha256): nothing in them is ever run or unpickled.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
from pathlib import Path

from generator.errors import PortalError


def _problem(path: Path) -> str | None:
    """What makes the existing directory *path* unfit to hold a cache (None when it is fit, or absent)."""
    me = os.geteuid()
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be examined ({exc.strerror})"
    if stat.S_ISLNK(found.st_mode):
        return "is a symbolic link, which a cache is never kept behind: its clean-up would remove files where it leads"
    if not stat.S_ISDIR(found.st_mode):
        return "is not a directory"
    if found.st_uid != me:
        return (
            f"belongs to uid {found.st_uid}, not to you (uid {me}), so someone else could change what this build "
            f"reads from it"
        )
    if found.st_mode & 0o022:
        return (
            f"can be written by its group or by others (mode {stat.S_IMODE(found.st_mode):04o}), so someone else "
            f"could change what this build reads from it"
        )
    return None


def _unfit(root: Path) -> tuple[Path, str] | None:
    """The directory that makes *root* unfit to hold a cache, and why; None when it is fit."""
    for path in (root, root.parent) if root.parent.name == ".mcp-portal-cache" else (root,):
        problem = _problem(path)
        if problem is not None:
            return path, problem
    return None


def refusal(root: Path) -> str | None:
    """Why the cache directory *root* may not be used, as a warning, or None when it may.

    A cache holds what pages are made of, so only its owner may write it: *root* (and the
    ``.mcp-portal-cache`` directory above it, where the default location puts it) must, where they
    exist, be directories (never symbolic links) of the current user that neither their group nor
    others can write.
    """
    unfit = _unfit(root)
    if unfit is None:
        return None
    path, problem = unfit
    return (
        f"not using the render cache in {root}: {path} {problem}. The site is built without the cache "
        f"(the same bytes, more slowly); "
        f"{'run chmod go-w ' + str(path) + ', ' if 'mode' in problem else ''}remove {path} or give --cache "
        f"a directory of your own that only you can write."
    )


def usable_cache(root: Path | None) -> tuple[Path | None, list[str]]:
    """*root* when it may hold the cache (see :func:`refusal`), else None and the warning that says why."""
    problem = refusal(root) if root is not None else None
    return (root, []) if problem is None else (None, [problem])


def make_private(root: Path) -> list[Path]:
    """Create the missing directories of *root*, each for the current user alone (mode 0700); return
    those created, innermost first. Each is created exclusively, and *root* is checked again after: a
    directory someone else made in the meantime fails the build (:class:`PortalError`)."""
    created: list[Path] = []
    for path in reversed([p for p in (root, *root.parents) if not os.path.lexists(p)]):
        try:
            os.mkdir(path, 0o700)
            created.insert(0, path)
        except FileExistsError:
            pass
        except OSError:
            break  # a cache that cannot be written only costs time
    unfit = _unfit(root)
    if unfit is not None:
        for path in created:
            with contextlib.suppress(OSError):
                path.rmdir()
        raise PortalError(
            f"The cache directory {unfit[0]} appeared while this build started and {unfit[1]}: someone else "
            f"may be trying to feed this build. Nothing was built. Check who made {unfit[0]}, remove it, "
            f"and build again (or give --cache a directory of your own)."
        )
    return created


_LEGACY = re.compile(r"[0-9a-f]{64}\.(?:pages|index|rows|snapshot|search|entry|json|pieces|parts)|[0-9a-f]{40}\.code")
"""The names earlier versions gave their record files and compiled templates, the only files removed here."""


def remove_legacy(root: Path) -> None:
    """Remove what earlier versions kept in the cache directory: a file per record, the compiled templates
    of ``templates-*`` (then the directory, if empty) and the ``.pending-PID`` directories of builds whose
    process is gone; all through the directory opened without following a symbolic link."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        for name in os.listdir(fd):
            mode = os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode
            pid = name.removeprefix(".pending-")
            if stat.S_ISREG(mode) and _LEGACY.fullmatch(name):
                os.unlink(name, dir_fd=fd)
            elif stat.S_ISDIR(mode) and pid.isdigit() and name.startswith(".pending-") and gone(int(pid)):
                shutil.rmtree(name, dir_fd=fd, ignore_errors=True)
            elif stat.S_ISDIR(mode) and re.fullmatch(r"templates-[0-9a-f]{16}", name):
                remove_legacy(root / name)
                with contextlib.suppress(OSError):
                    os.rmdir(name, dir_fd=fd)
    finally:
        os.close(fd)


def gone(pid: int) -> bool:
    """Whether no process *pid* runs any more (one that runs as another user is not gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False
