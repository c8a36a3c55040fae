"""Where ``--out`` may be, and whether what is there is a site we built: the checks before a swap.

Nothing here writes.  :func:`check_location` refuses a place that is never an output directory
(the file system root, the home directory, the current directory and its parents, inside an input
of the build); :func:`inspect` reads what is there and refuses anything that is not a new or empty
directory or a previous mcp-portal site (its ``manifest.json`` parses, names the generator and
lists only paths we write), or that holds an input; :func:`check_writable` refuses a place beside
it that cannot be written (a read-only file system).  :func:`preflight` runs all three before a
build spends time on the server.  The whole ``--out`` contract, and the swap that relies on these
checks, is in :mod:`generator.publish.write`.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.errors import PortalError
from generator.publish.signatures import signature

MANIFEST = "manifest.json"
GENERATOR = "mcp-portal"
"""The first word of a manifest's ``generator``: how we know a directory is a site we built."""
MAX_MANIFEST_BYTES = 64 * 1024 * 1024
"""A manifest larger than this is not one we wrote (ours is about 100 bytes a file)."""
_WHY = (
    "mcp-portal replaces the whole --out directory on every build, so it only writes into a new or empty "
    "directory or one holding a site it built before, and never deletes files it did not write."
)
_ADVICE = "Choose an empty or new directory such as ./site."

Protected = Sequence[tuple[str, Path]]
"""The inputs a build reads, each with how to name it in a message (``("the config file", path)``)."""


def is_safe_relative(path: str) -> bool:
    """Whether *path* is a file path inside a site, in the one form mcp-portal writes it.

    Relative, with no empty, ``.`` or ``..`` segment (so no ``a//b``, ``a/./b`` or ``a/``), no
    NUL and no backslash: what ``PurePosixPath(path).as_posix() == path`` with none of those parts
    would say, without building a path object for each of a site's thousands of files.
    """
    if not path or "\x00" in path or "\\" in path:
        return False
    return all(segment not in _NOT_SEGMENTS for segment in path.split("/"))


_NOT_SEGMENTS = frozenset(("", ".", ".."))


def directories_of(paths: Iterable[str]) -> set[str]:
    """Every directory that holds one of the site *paths*, at any depth (the site root excluded)."""
    found: set[str] = set()
    for path in paths:
        directory = path.rpartition("/")[0]
        while directory and directory not in found:
            found.add(directory)
            directory = directory.rpartition("/")[0]
    return found


# --------------------------------------------------------------------------- where --out may be


_ROOM = len(".staging-") + 10
"""What a publish adds to a site's name, at most, for a sibling of its own: the longest kind and a process id."""


def sibling(real: Path, suffix: str) -> Path:
    """``.NAME.<suffix>`` beside the site at *real*: its lock (``lock``) and a build's working copies
    (``staging-PID``, ``old-PID``, ``undo-PID``, ``done-PID``). A NAME too long to hold that within the 255
    bytes a file name may have is cut, and the hash of the whole name put after it, so two sites never
    share a sibling."""
    name = os.fsencode(real.name)
    room = 255 - 2 - _ROOM
    if len(name) > room:
        name = name[: room - 13] + b"~" + hashlib.sha256(name).hexdigest()[:12].encode()
    return real.parent / f".{os.fsdecode(name)}.{suffix}"


def _real(path: Path) -> Path:
    """*path* absolute with every symlink followed (a missing tail is kept as written)."""
    return Path(os.path.realpath(path))


def _refusal(out: Path, real: Path, why: str, advice: str = _ADVICE) -> PortalError:
    shown = str(out) if str(out) == str(real) else f"{out} ({real})"
    return PortalError(f"Refusing to use {shown} as the output directory: it is {why}. {_WHY} {advice}")


def _location_problem(real: Path) -> str | None:
    """Why *real* can never be an output directory (root, home, current directory), or None."""
    if real == Path(real.anchor):
        return "the root of the file system"
    with contextlib.suppress(RuntimeError, KeyError):
        home = _real(Path.home())
        if real == home:
            return "your home directory"
        if real in home.parents:
            return f"a parent of your home directory {home}"
    with contextlib.suppress(OSError):
        cwd = _real(Path.cwd())
        if real == cwd:
            return "the current directory (building there would delete the directory you are in)"
        if real in cwd.parents:
            return f"a parent of the current directory {cwd}"
    return None


def _input_around(real: Path, protected: Protected) -> tuple[str, Path] | None:
    """An input directory (templates, overlays...) that *real* lies inside, or None."""
    for label, path in protected:
        for form in {_real(path.absolute()), Path(os.path.abspath(path))}:
            if form.is_dir() and form in real.parents:
                return label, form
    return None


def _input_inside(real: Path, protected: Protected, ours: Mapping[str, str]) -> tuple[str, Path] | None:
    """An input that lies inside (or is) *real* and is not one of the site's own files, or None.

    A site's own file read back (``--from site/snapshot.json``, ``--previous site``) is
    in memory before the swap, so replacing it is what the user asked for.
    """
    for label, path in protected:
        for form in {_real(path.absolute()), Path(os.path.abspath(path))}:
            if form != real and real not in form.parents:
                continue
            relative = form.relative_to(real).as_posix() if form != real else ""
            if relative in ours and form.is_file() and not form.is_symlink():
                continue
            return label, form
    return None


def check_location(out: Path, protected: Protected = ()) -> Path:
    """The real output directory, or a refusal if it is never a place to build into.

    Pure path logic, run before anything is written (even the lock file or a parent directory).
    """
    real = _real(out.absolute())
    if real.is_symlink():  # realpath stops at a loop and hands back a link
        raise _refusal(out, real, "a symbolic link that loops", "Point --out at a real directory such as ./site.")
    problem = _location_problem(real)
    if problem is not None:
        raise _refusal(out, real, problem)
    around = _input_around(real, protected)
    if around is not None:
        label, where = around
        raise _refusal(
            out,
            real,
            f"inside {label} {where}, which this build reads",
            "Keep the site apart from its sources: choose a directory outside them, such as ./site.",
        )
    return real


def check_cache_apart(cache: Path, out: Path) -> None:
    """Refuse a render cache that is, lies inside, or holds the output directory, however reached.

    Each path is compared as written (made absolute) and with every symlink resolved, both ways
    round: a cache inside the site would be published as files the build did not write, and a site
    inside the cache would be in the reach of the cache's own tidying.
    """
    caches = {Path(os.path.abspath(cache)), _real(cache.absolute())}
    outs = {Path(os.path.abspath(out)), _real(out.absolute())}
    for place in caches:
        for site in outs:
            if place == site or site in place.parents:
                raise PortalError(
                    f"The cache directory {_shown(cache, place)} is inside the output directory {_shown(out, site)}, "
                    f"which every build replaces. Give --cache a directory outside it (the default is "
                    f".mcp-portal-cache/ beside --out)."
                )
            if place in site.parents:
                raise PortalError(
                    f"The output directory {_shown(out, site)} is inside the cache directory {_shown(cache, place)}, "
                    f"which mcp-portal tidies on every build. Give --out and --cache directories apart from each other."
                )


def _shown(path: Path, form: Path) -> str:
    """*path* as given, and the form a check found it in when that reads differently."""
    return str(path) if str(path) == str(form) else f"{path} ({form})"


# --------------------------------------------------------------------------- is it a site we built?


def manifest_of(hashes: Mapping[str, str], meta: Mapping[str, str]) -> bytes:
    """``manifest.json``: the sha256 (hex) of every file, as the build recorded them while writing."""
    body = dict(meta) | {"files": dict(sorted(hashes.items()))}
    return (json.dumps(body, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


@dataclass(frozen=True)
class OldSite:
    """What is at the output directory before the swap."""

    exists: bool
    listed: Mapping[str, str]
    """The previous manifest's files (path -> sha256): ours, replaced or dropped by the swap."""


def _read_manifest(real: Path) -> tuple[dict[str, str] | None, str]:
    """The files a site's manifest lists, or None and why the directory is not a site we built."""
    path = real / MANIFEST
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None, f"it has no {MANIFEST}"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return None, f"its {MANIFEST} is a symbolic link, which mcp-portal never writes"
        return None, f"its {MANIFEST} cannot be read ({exc.strerror})"
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            return None, f"its {MANIFEST} is not a regular file"
        if info.st_size > MAX_MANIFEST_BYTES:
            return None, f"its {MANIFEST} is far larger than any mcp-portal writes"
        taken = (os.fspath(path), *signature(info))
        if _LAST_READ and _LAST_READ[0] == taken:  # read by the preflight of this very build: taken once
            listed = _LAST_READ.pop()
            _LAST_READ.clear()
            return dict(listed), ""
        raw = handle.read(MAX_MANIFEST_BYTES + 1)
    listed, why = _listed(raw)
    _LAST_READ[:] = [taken, listed] if listed is not None else []
    return (dict(listed), why) if listed is not None else (None, why)


_LAST_READ: list[Any] = []
"""The last manifest read whole and found to be ours: its file's signature, and what it lists. A build
reads the previous manifest twice (the preflight, then the publisher under the lock; 685 KB at 1,000
tools): the second read of the same file, unchanged since (its inode change time says so), is skipped, and
empties this, so that nothing of one build's output is held until the next."""


def _listed(raw: bytes) -> tuple[dict[str, str] | None, str]:
    """The files a manifest's bytes list, or None and why they do not make one of ours."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None, f"its {MANIFEST} is not valid JSON"
    if not isinstance(data, dict):
        return None, f"its {MANIFEST} is not a JSON object"
    generator = data.get("generator")
    if not isinstance(generator, str) or generator.split(" ", 1)[0] != GENERATOR:
        return None, f'its {MANIFEST} does not name mcp-portal as its "generator"'
    files = data.get("files")
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        return None, f'its {MANIFEST} has no "files" list of hashes'
    for name in files:
        if not is_safe_relative(name) or name == MANIFEST:
            return None, f"its {MANIFEST} lists {name!r}, a path mcp-portal never writes (outside the directory?)"
    return dict(files), ""


def inspect(out: Path, real: Path, protected: Protected = ()) -> OldSite:
    """What is at *real*, or a refusal when it is not ours to replace.  Reads, never writes."""
    if not real.exists():
        return OldSite(exists=False, listed={})
    if not real.is_dir():
        raise PortalError(f"The output path {out} exists and is not a directory. Choose another --out.")
    listed, why = _read_manifest(real)
    inside = _input_inside(real, protected, listed or {})
    if inside is not None:
        label, where = inside
        raise _refusal(
            out,
            real,
            f"a directory holding {label} {where}, which this build reads",
            "Keep the site apart from its sources: choose a directory outside them, such as ./site.",
        )
    if listed is None:
        try:
            empty = not any(os.scandir(real))
        except OSError as exc:
            raise PortalError(f"Cannot read the output directory {out} ({exc.strerror}).") from None
        if not empty:
            raise _refusal(
                out,
                real,
                f"not empty and not a site built by mcp-portal ({why})",
                f"{_ADVICE} If everything in {out} may go, empty it yourself and build again.",
            )
    return OldSite(exists=True, listed=listed or {})


def preflight(out: Path, protected: Protected = ()) -> None:
    """Refuse a bad ``--out`` before a build spends time on the server: where it may not be, what it
    holds, and a place beside it that cannot be written (:func:`check_writable`).

    :func:`generator.publish.write.publish` checks again, under the lock.
    """
    real = check_location(out, protected)
    inspect(out, real, protected)
    check_writable(out, real)


def check_writable(out: Path, real: Path) -> None:
    """Refuse an output directory whose parent (or, when the parent is still to be made, the nearest
    directory above it that exists) cannot be written: a read-only file system, or no permission.

    The build writes there before anything else (the lock file, then the new site's staging
    directory), and the lock file's own error could only name the lock file, not why.
    """
    place = real.parent
    while not place.exists() and place != place.parent:
        place = place.parent
    if not place.is_dir():  # a file where a directory should be: making the parent says so
        return
    try:
        read_only = bool(os.statvfs(place).f_flag & os.ST_RDONLY)
    except OSError:  # the lock file's own error says what is wrong
        return
    if read_only:
        why, advice = "is on a read-only file system", "Build into a writable place (or remount it read-write)"
    elif not os.access(place, os.W_OK | os.X_OK):
        why, advice = "is a directory you may not write to", "Build into a directory you may write to"
    else:
        return
    raise PortalError(
        f"Cannot build into {out}: {place} {why}, and mcp-portal writes there first (the lock file "
        f"{sibling(real, 'lock').name} and the new site's staging directory, swapped in only once the build "
        f"succeeded). "
        f"{advice} and build again."
    )
