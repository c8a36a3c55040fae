"""Publishing a small change in place: the changed files are moved into the live site, with an undo.

A rebuild after a one-tool change differs from the published site in a few dozen files out
of thousands. Swapping in a whole new directory tree for them costs a directory per page and
the removal of the old tree: most of such a rebuild. Instead, :func:`apply` moves each new
file over its old copy (one atomic rename per file, the manifest last) and removes the files
the new site drops. The rest of the site is not touched.

Every step can be undone. Before anything in the site changes, the undo directory
``.NAME.undo-PID`` beside it gets a journal (the files and directories that will be created)
and a hard link to every file that will be replaced or removed. If a step fails, or the build
is killed and the next build finds the undo directory (:func:`roll_back`), the site is put back
exactly as it was, and only then is the undo directory removed.

Only files are placed: the caller has already refused a new site that needs a path where the
old one holds something that is not ours (:func:`generator.publish.write.publish`), and leaves
out every file its manifest lists beneath a symlink. Every act on the site goes through
:class:`generator.publish.confined.Confined` all the same, so a symlink on the way to a path
(one put there since the survey, or named in a leftover journal) stops the step instead of
being followed.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Collection, Sequence
from pathlib import Path, PurePosixPath

from generator.publish.confined import Confined, ThroughLink
from generator.publish.location import MANIFEST, directories_of, is_safe_relative

JOURNAL = "journal.json"
FILES = "files"
"""Inside the undo directory: the journal, and the old copies under ``files/`` at their site paths."""


def _at(root: Path, path: str) -> Path:
    return root.joinpath(*PurePosixPath(path).parts)


def _deepest_first(directories: Collection[str]) -> list[str]:
    return sorted(directories, key=lambda d: (-d.count("/"), d))


def apply(
    real: Path,
    staging: Path,
    undo: Path,
    changed: Sequence[str],
    dropped: Sequence[str],
    *,
    done: Path | None = None,
) -> None:
    """Move the *changed* files from *staging* into the site at *real* and remove the *dropped* ones.

    ``manifest.json``, when changed, is placed last, so a reader of the manifest never sees one
    that lists a file not yet there. On any failure the site is rolled back and the error raised.
    Once every file is placed the undo directory is removed, or, given *done*, renamed to it (one
    atomic rename: from then on it undoes nothing) for the caller to remove later.
    """
    with Confined(real) as tree:
        created = sorted(p for p in changed if not tree.lexists(p))
        made = _deepest_first({d for d in directories_of(changed) if not tree.is_dir(d)})[::-1]
        undo.mkdir()
        temporary = undo / f".{JOURNAL}.tmp"
        temporary.write_text(json.dumps({"created": created, "directories": made}), encoding="utf-8")
        os.replace(temporary, undo / JOURNAL)  # the journal exists whole, or not at all
        try:
            _place(tree, staging, undo, changed, dropped, set(created))
        except BaseException:
            roll_back(real, undo)
            raise
    if done is not None:
        os.rename(undo, done)  # the old copies' blocks are freed when the caller removes it, not now
    else:
        shutil.rmtree(undo)


def _place(
    tree: Confined, staging: Path, undo: Path, changed: Sequence[str], dropped: Sequence[str], fresh: set[str]
) -> None:
    """Keep a copy of every file :func:`apply` replaces or removes, remove the dropped ones, then place the
    changed ones (*fresh* are those with nothing at their path yet)."""
    for path in [*changed, *dropped]:
        if path not in fresh and tree.lexists(path):
            tree.copy_out(path, _at(undo / FILES, path))
    for path in dropped:
        tree.unlink(path)
    emptied = directories_of(dropped) - directories_of(changed)
    for directory in _deepest_first(emptied):
        with contextlib.suppress(OSError):  # still holds files that are not ours: it stays
            tree.rmdir(directory)
    for path in sorted(changed, key=lambda p: p == MANIFEST):
        tree.move_in(_at(staging, path), path)  # making the directories it needs


def roll_back(real: Path, undo: Path) -> None:
    """Put the site at *real* back as it was before :func:`apply` began, then remove *undo*.

    Safe to run again if it is itself interrupted. With no journal, :func:`apply` changed nothing.
    """
    try:
        journal = json.loads((undo / JOURNAL).read_text(encoding="utf-8"))
        created = [p for p in journal["created"] if isinstance(p, str) and is_safe_relative(p)]
        made = [d for d in journal["directories"] if isinstance(d, str) and is_safe_relative(d)]
    except (OSError, ValueError, KeyError, TypeError):
        created, made = [], []
    with Confined(real) as tree:
        for path in created:
            with contextlib.suppress(ThroughLink):  # never acted through: nothing of ours is there
                tree.unlink(path)
        for directory in _deepest_first(made):
            with contextlib.suppress(OSError):
                tree.rmdir(directory)
        kept = undo / FILES
        for top, _, names in os.walk(kept):
            for name in names:
                old = Path(top) / name
                with contextlib.suppress(ThroughLink):
                    tree.move_in(old, old.relative_to(kept).as_posix())
    shutil.rmtree(undo, ignore_errors=True)
