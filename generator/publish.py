"""Writing the site: staged, hashed, then swapped in.

Files are written to a staging directory beside the output and swapped in
only when everything succeeded, so a failed build leaves the previous site
untouched.  A lock file serialises concurrent builds into the same output.
A build killed midway (SIGKILL, a cancelled CI job) can leave its staging or
old directory behind; the next build removes them under the lock, and puts
the old site back first if the kill fell between the two renames.
Every path is checked to stay inside the output directory.
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import hashlib
import json
import os
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path, PurePosixPath

from generator.errors import PortalError

MANIFEST = "manifest.json"


def _safe_relative(path: str) -> PurePosixPath:
    """Reject any path that could leave the output directory (defence in depth: slugs already avoid it)."""
    pure = PurePosixPath(path)
    if pure.is_absolute() or ".." in pure.parts or any(p in ("", ".") for p in pure.parts) or "\x00" in path:
        raise PortalError(f"Refusing to write {path!r}: it would land outside the output directory.")
    return pure


def manifest(files: Mapping[str, bytes], meta: Mapping[str, str]) -> bytes:
    """``manifest.json``: the sha256 of every file plus what the site was built from."""
    hashes = {path: hashlib.sha256(data).hexdigest() for path, data in sorted(files.items())}
    body = dict(meta) | {"files": hashes}
    return (json.dumps(body, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


@contextlib.contextmanager
def _locked(out: Path) -> Iterator[None]:
    lock_path = out.parent / f".{out.name}.lock"
    with open(lock_path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


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
        if pid.isdigit() and (int(pid) == os.getpid() or not _alive(int(pid))) and path.is_dir():
            found.append(path)
    return sorted(found, key=lambda p: p.stat().st_mtime)


def _clean_leftovers(out: Path) -> None:
    """Tidy up after killed builds; call only while holding the lock."""
    olds = _leftovers(out, "old")
    if olds and not out.exists():
        # Killed between ``out -> old`` and ``staging -> out``: the newest old is the published site.
        os.rename(olds.pop(), out)
    for path in [*olds, *_leftovers(out, "staging")]:
        shutil.rmtree(path, ignore_errors=True)


def publish(out: Path, files: Mapping[str, bytes]) -> None:
    """Write *files* (paths relative to the site root) as the new content of *out*."""
    out = out.absolute()
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PortalError(f"Cannot create the output's parent directory {out.parent} ({exc.strerror}).") from None
    if out.exists() and not out.is_dir():
        raise PortalError(f"The output path {out} exists and is not a directory. Choose another --out.")
    staging = out.parent / f".{out.name}.staging-{os.getpid()}"
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    with _locked(out):
        try:
            _clean_leftovers(out)
            shutil.rmtree(staging, ignore_errors=True)
            for path, data in sorted(files.items()):
                target = staging.joinpath(*_safe_relative(path).parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            if out.exists():
                os.rename(out, old)
            os.rename(staging, out)
        except OSError as exc:
            if old.exists() and not out.exists():
                os.rename(old, out)
            raise PortalError(
                f"Writing the site to {out} failed ({exc.strerror or exc}); the previous site is unchanged."
            ) from None
        finally:
            shutil.rmtree(staging, ignore_errors=True)
            shutil.rmtree(old, ignore_errors=True)
