"""Files an earlier build left in the output directory, read back as untrusted input.

A versioned build reads what earlier builds published: ``versions.json`` and each version's
``snapshot.json``. The output directory may be a checkout of a Pages branch that anyone with push
access edited, so every read is confined and bounded: each directory on the way is opened from its
parent with ``O_NOFOLLOW`` (a symbolic link anywhere on the path is refused, never followed), the
file must be a regular file, and it is never read past its limit.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from generator.errors import PortalError
from generator.history.labels import label_problem
from generator.snapshot.snapshot import Snapshot, SnapshotError, parse_snapshot

_SNAPSHOT_LIMIT = "--max-snapshot-bytes, or `max_snapshot_bytes` under `limits:` in portal.yaml"
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def read_kept(root: Path, relative: str, limit: int, *, limit_name: str = "") -> bytes | None:
    """The bytes of the site file *relative* (``1.4.0/snapshot.json``) under *root*; None when it is absent.

    Refused with one paragraph when a symbolic link is on the way or at the end, when it is not a
    regular file, or when it is larger than *limit* bytes (*limit_name* says which setting sets it, if one does).
    """
    larger = f"is larger than {limit:,} bytes" + (f" (the limit is {limit_name})" if limit_name else "")
    parts = relative.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise ValueError(f"not a site path: {relative!r}")
    opened: list[int] = []
    try:
        fd = os.open(root, _DIRECTORY)
        opened.append(fd)
        for part in parts[:-1]:
            fd = os.open(part, _DIRECTORY, dir_fd=fd)
            opened.append(fd)
        fd = os.open(parts[-1], _FILE, dir_fd=fd)
        opened.append(fd)
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _refused(root, relative, "is not a regular file")
        if info.st_size > limit:
            raise _refused(root, relative, larger)
        with os.fdopen(os.dup(fd), "rb") as reader:
            data = reader.read(limit + 1)
        if len(data) > limit:
            raise _refused(root, relative, larger)
        return data
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise _refused(root, relative, "has a symbolic link (or a file) where mcp-portal expects a directory or "
                           "a file it wrote, and it never reads through a link") from None  # fmt: skip
        raise PortalError(f"Cannot read {root / relative} ({exc.strerror or exc}).") from None
    finally:
        for handle in opened:
            with contextlib.suppress(OSError):
                os.close(handle)


def _refused(root: Path, relative: str, why: str) -> PortalError:
    return PortalError(
        f"Refusing to read {root / relative}: it {why}. A versioned build reads each earlier version's files "
        f"back from the output directory; restore that version from the last published site, or remove it "
        f"with `mcp-portal versions remove`."
    )


def kept_snapshot(root: Path, label: str, *, limit: int) -> Snapshot:
    """The snapshot the build of version *label* published, checked as any snapshot file is, and read only when it
    holds at most *limit* bytes (``limits.max_snapshot_bytes``)."""
    problem = label_problem(label)
    if problem is not None:
        raise ValueError(f"not a version label: {label!r} ({problem})")
    relative = f"{label}/snapshot.json"
    raw = read_kept(root, relative, limit, limit_name=_SNAPSHOT_LIMIT)
    if raw is None:
        raise PortalError(
            f"The version {label} is listed in {root / 'versions.json'}, but {root / relative} is missing. "
            f"Restore it from the last published site, or remove the version with "
            f"`mcp-portal versions remove {label} --out {root}`."
        )
    try:
        return parse_snapshot(raw.decode("utf-8"), root / relative)
    except UnicodeDecodeError:
        raise SnapshotError(root / relative, "it is not UTF-8 text") from None
