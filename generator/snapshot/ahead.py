"""Reading a snapshot file ahead, in a forked child, while the build imports what it needs.

``mcp-portal build --from FILE`` spends its first 0.2 s importing Jinja, jsonschema, Babel and the
stages, on one core. Checking the snapshot needs none of that work done first: a child forked
before those imports (:func:`read_ahead`, called by the command before it imports the build)
reads the file, parses it and runs every check :func:`generator.snapshot.snapshot.parse_snapshot`
runs up to building the snapshot itself (the depth, the values, the shape), then computes the
tools' digests and the fingerprint (:class:`~generator.snapshot.snapshot.Digests`). At 1,000
tools that is some 150 ms of work, done on the other core. A large text's digests are left to the
build (:data:`~generator.snapshot.snapshot.AHEAD_DIGESTS_BYTES`): the child's share grows with the
text, the build's imports do not, and past some 1,500 tools the build would wait for the child.

When the build reads the file (:func:`generator.snapshot.snapshot.load_snapshot`), it claims the
child's result (:func:`claim`) and uses it only for the very text it read: the child sends the
sha256 of the text it checked, and anything else (a file changed in between, a child that failed
or found a problem) makes the build check the text itself, as it would without a child. So a
problem is always reported by the build's own checks, with its own words.
"""

from __future__ import annotations

import hashlib
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.forked import Forked, in_child

_started: dict[Path, Forked[Checked]] = {}
"""The files being read ahead, by resolved path, until the build claims them."""


@dataclass(frozen=True)
class Checked:
    """A snapshot text that passed every check before the snapshot is built, and what was computed from it."""

    sha256: str
    """Of the text, as UTF-8."""
    digests: Any
    """Its :class:`~generator.snapshot.snapshot.Digests`, or None for a large text, whose digests the build
    computes itself (:data:`~generator.snapshot.snapshot.AHEAD_DIGESTS_BYTES`; typed loosely: this module
    imports nothing heavy)."""


def text_sha256(raw: str) -> str:
    """The sha256 a :class:`Checked` names its text by."""
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


def read_ahead(path: Path) -> None:
    """Start reading and checking the snapshot at *path* in a forked child (see the module docstring).

    Call it before importing the build, so the child does not inherit those imports' work half done
    and the other core is busy while this one imports. A second call for the same file does nothing,
    and so does a call for anything but a regular file: a pipe can be read once only.
    """
    try:
        regular = stat.S_ISREG(path.stat().st_mode)
    except OSError:  # the build reports it, in its own words
        return
    if not regular:  # a pipe (`--from <(...)`) can be read once only: by the build
        return
    key = path.resolve()
    if key not in _started:
        started = in_child(lambda: _check(path), Checked)
        if started.forked:  # with no child, the build checks the text itself, once
            _started[key] = started


def claim(path: Path) -> Forked[Checked] | None:
    """The read-ahead of *path*, if one was started: the caller waits for it with
    :meth:`~generator.forked.Forked.child_result` (None when the child failed), then closes it."""
    return _started.pop(path.resolve(), None)


def release() -> None:
    """Wait for every read-ahead nobody claimed (a build that failed before reading its snapshot)."""
    while _started:
        _started.popitem()[1].close()


def _check(path: Path) -> Checked:
    """In the child: read *path* as :func:`~generator.snapshot.snapshot.load_snapshot` reads it, and check it."""
    from generator.snapshot.snapshot import check_text  # the heavy imports happen here, in the child

    raw = path.read_text(encoding="utf-8")
    return Checked(text_sha256(raw), check_text(raw))
