"""Whose the render cache's directory is: a cache is used only when no one but its user can write it.

Whoever can write a cache can change a site built with it, so a directory that is a symbolic link, another
user's, or writable by its group or others is not used: one warning says why (:func:`usable_cache`). The
directories a build creates for a cache are its user's alone, checked again once made (:func:`make_private`).
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from generator.errors import PortalError


def _unfit(root: Path) -> tuple[Path, str] | None:
    """The directory that makes *root* unfit to hold a cache, and why; None when it is fit. *root* (and the
    default location's ``.mcp-portal-cache`` above it), where they exist, must be directories (not links) of
    the current user that neither their group nor others can write."""
    me = os.geteuid()
    for path in (root, root.parent) if root.parent.name == ".mcp-portal-cache" else (root,):
        try:
            found = os.lstat(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            return path, f"cannot be examined ({exc.strerror})"
        if stat.S_ISLNK(found.st_mode):
            return path, ("is a symbolic link, which a cache is never kept behind: its clean-up would remove files "
                          "where it leads")  # fmt: skip
        if not stat.S_ISDIR(found.st_mode):
            return path, "is not a directory"
        if found.st_uid != me:
            return path, (f"belongs to uid {found.st_uid}, not to you (uid {me}), so someone else could change "
                          f"what this build reads from it")  # fmt: skip
        if found.st_mode & 0o022:
            return path, (f"can be written by its group or by others (mode {stat.S_IMODE(found.st_mode):04o}), so "
                          f"someone else could change what this build reads from it")  # fmt: skip
    return None


def usable_cache(root: Path | None) -> tuple[Path | None, list[str]]:
    """*root* when it may hold the cache (:func:`_unfit`), else None and the warning that says why."""
    unfit = _unfit(root) if root is not None else None
    if root is None or unfit is None:
        return root, []
    path, problem = unfit
    fix = f"run chmod go-w {path}, remove it" if "mode" in problem else f"remove {path}"
    return None, [not_used(root, path, problem, f"{fix} or give --cache a directory that only you can write")]


def not_used(root: Path, path: Path, problem: str, fix: str) -> str:
    """The warning that the cache in *root* is not used, because of *problem* with *path*, and what to do."""
    return (f"not using the render cache in {root}: {path} {problem}. The site is built without the cache "
            f"(the same bytes, more slowly); {fix}.")  # fmt: skip


def make_private(root: Path) -> list[Path]:
    """Create the missing directories of *root*, each exclusively and for the current user alone (mode 0700);
    return those created, innermost first. A directory someone else made meanwhile fails the build."""
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
