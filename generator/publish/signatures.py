"""Which files of the previous site were edited by hand, without hashing the ones nobody touched.

A build replaces the previous site; a file of it that no longer holds what its manifest says
was edited after it was built, so it is written afresh (never kept or hard-linked into the new
site) and named in a warning. Hashing every file to find out is most of a rebuild's I/O on a large site
(1.1 GB at 5,000 tools), so after each publish the render cache keeps every file's signature
(:func:`record_published`), and the next build hashes only the files whose signature moved.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol


def signature(info: os.stat_result) -> list[int]:
    """What changes whenever a file is written, replaced, touched or has its mode changed.

    The inode change time cannot be set by a user: an edit, a ``touch -d`` or a ``chmod`` each
    moves it, so a file with the same signature still holds what was hashed when it was taken.
    """
    return [info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]


def check_published(
    real: Path,
    listed: Mapping[str, str],
    seen: Mapping[str, list[int]] | None = None,
    signatures: dict[str, list[int]] | None = None,
) -> tuple[dict[str, str], list[str]]:
    """The previous site's files that still hold what its manifest says (path -> sha256), and the
    ones edited by hand since (their bytes no longer match).

    A file whose signature is the one *seen* recorded when the site was published (see
    :func:`record_published`) is not read again: hashing a large site is most of a rebuild's I/O.
    A listed file that is gone, unreadable or no longer a regular file is in neither: the new site
    writes it afresh. *signatures*, when given, receives the signature of every intact file as it
    was just taken, for :func:`record_published` to reuse for the files a publish leaves alone.
    """
    intact: dict[str, str] = {}
    edited = []
    seen = seen or {}
    base = os.fspath(real)
    for path, digest in sorted(listed.items()):
        target = os.path.join(base, path)  # a string: a site has thousands of files
        try:  # not contextlib.suppress: a context manager per file cost 11 ms at 6,000 files
            info = os.lstat(target)
            if not stat.S_ISREG(info.st_mode):
                continue
            taken = signature(info)
            if seen.get(path) == taken or sha256_of(target) == digest:
                intact[path] = digest
                if signatures is not None:
                    signatures[path] = taken
            else:
                edited.append(path)
        except OSError:
            pass
    return intact, edited


def sha256_of(path: str) -> str:
    """The sha256 of the file at *path*, as the manifest records it."""
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


class Kept(Protocol):
    """Where the signatures of a published site's files are kept between builds (the render cache's
    :class:`generator.cache.reuse.Published`): data only, checked as any record of it is."""

    def signatures(self, site: str) -> dict[str, list[int]]:
        """The signatures kept for the site at *site* (none when absent, or another site's)."""
        ...

    def keep(self, site: str, files: dict[str, list[int]]) -> None:
        """Keep *files*' signatures for the site at *site*, in place of any kept before."""
        ...


def published_signatures(record: Kept | None, real: Path) -> dict[str, list[int]]:
    """The signatures :func:`record_published` kept for the site at *real* (none when absent or not that site's)."""
    return record.signatures(str(real)) if record is not None else {}


def record_published(
    record: Kept | None, real: Path, hashes: Mapping[str, str], untouched: Mapping[str, list[int]] | None = None
) -> None:
    """After a publish: each file's signature as it stands, so the next build need not hash it again.

    Taken after the old site is gone (removing its hard links moves the files' change time). A
    record that cannot be written only costs the next build time. *untouched* are signatures
    :func:`check_published` took of files the publish did not write, replace or link (a change
    published in place leaves all but a few alone): they are recorded without another ``lstat``.
    """
    if record is None:
        return
    files: dict[str, list[int]] = {}
    base = os.fspath(real)
    untouched = untouched or {}
    for path in hashes:
        if (known := untouched.get(path)) is not None:
            files[path] = known
            continue
        with contextlib.suppress(OSError):
            info = os.lstat(os.path.join(base, path))
            if stat.S_ISREG(info.st_mode):
                files[path] = signature(info)
    record.keep(str(real), files)
