"""The versioned layout on disk: one directory per version, kept byte for byte, and a top level rewritten.

A versioned site (``build --versioned``) is one site for the publisher: its ``manifest.json`` lists
every file of every version (``1.4.0/en/index.html``...) and of the top level (``versions.json``,
``latest/``...), so the lock, the survey, the staging and the swap of :mod:`generator.publish.write`
hold for it as for any site, and a version that a build no longer writes is one it wrote. A build
writes the version it publishes through :meth:`Staging.nested`, and *keeps* every other version
(:func:`keep_version`): each file the previous manifest lists under it is declared again with the
same bytes, so a lazy staging leaves it where it is, never rewritten (a swap hard-links it). The top
manifest names the layout, so an unversioned build never replaces a versioned site (and the other
way round) by mistake: :func:`check_layout`.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable
from pathlib import Path

from generator.errors import PortalError
from generator.history.kept import read_kept
from generator.history.versions import VERSIONS
from generator.publish.staging import Staging

LAYOUT = "versioned"
"""The ``layout`` a versioned site's top ``manifest.json`` names."""
MAX_KEPT_FILE_BYTES = 1024 * 1024 * 1024
"""The largest file of a kept version read back when it is not left in place (an edited file)."""


def check_layout(out: Path, staging: Staging, *, versioned: bool) -> None:
    """Refuse to publish a versioned site over an unversioned one, or the other way round.

    A versioned site is told by its ``versions.json``, listed in its manifest; an empty or new
    output directory takes either.
    """
    if not staging.listed:
        return
    holds = VERSIONS in staging.listed
    if versioned and not holds:
        raise PortalError(
            f"The output directory {out} holds a site built without --versioned. A versioned build keeps every "
            f"version it finds in the output directory and would replace that site with one version. Build into "
            f"a new directory (and copy any files you keep there, such as a CNAME), or drop --versioned."
        )
    if holds and not versioned:
        raise PortalError(
            f"The output directory {out} holds a versioned site (it has a {VERSIONS}), and a build without "
            f"--versioned would replace every version in it with one site. Add --versioned (or `versioned: true` "
            f"in portal.yaml) to publish a version into it, or choose another --out."
        )


def keep_version(staging: Staging, label: str) -> int:
    """Declare every file of the kept version *label* again, with the bytes it holds: a file still as
    its manifest says is left in place (or hard-linked), an edited one is carried over as it now is
    (read without following a link); a listed file that is gone stays gone. Returns the files kept."""
    prefix = label + "/"
    return sum(keep_file(staging, path) for path in sorted(p for p in staging.listed if p.startswith(prefix)))


def keep_file(staging: Staging, path: str) -> int:
    """Declare the previous site's file *path* again with the bytes it holds (see :func:`keep_version`);
    1 when it was kept, 0 when it is gone."""
    digest = staging.unchanged.get(path)
    if digest is not None:
        staging.write_known(path, digest, functools.partial(_read, staging, path))
        return 1
    data = read_kept(staging.previous, path, MAX_KEPT_FILE_BYTES) if staging.previous is not None else None
    if data is None:
        return 0
    staging.write_known(path, hashlib.sha256(data).hexdigest(), functools.partial(_bytes, data))
    return 1


EXTRAS = re.compile(r"pagefind/.*|[^/]+/llms-full(?:-\d+)?\.txt")
"""What an older version of a slimmed site loses (``full_versions``): its search index and its pages in one
file, both made from its pages and twins, which it keeps."""


def slim_version(staging: Staging, label: str, pointer: Callable[[str], bytes]) -> int:
    """Keep the version *label* as :func:`keep_version` does, but without its search index, and with each
    ``L/llms-full*.txt`` replaced by *pointer* (given the file's site path within the version: a short
    text that sends a reader to ``llms.txt``, so no link of the version's ``llms.txt`` leads nowhere).
    Returns the files kept whole."""
    prefix = label + "/"
    kept = 0
    for path in sorted(p for p in staging.listed if p.startswith(prefix)):
        inner = path[len(prefix) :]
        if not EXTRAS.fullmatch(inner):
            kept += keep_file(staging, path)
        elif not inner.startswith("pagefind/"):
            staging.write(path, pointer(inner))  # a file already slimmed holds these bytes: left in place
    return kept


def _read(staging: Staging, path: str) -> bytes | None:
    """The previous site's copy of *path* (when it cannot be left in place or linked), read without a link."""
    return read_kept(staging.previous, path, MAX_KEPT_FILE_BYTES) if staging.previous is not None else None


def _bytes(data: bytes) -> bytes:
    return data
