"""``build --watch``: build, then build again whenever an input changes, in the same process.

A one-tool rebuild started as a new command spends most of its time before it reads anything:
Python starts, imports the stages (Jinja, jsonschema, Markdown, YAML, Babel and ours) and checks
the snapshot again. A watching process pays that once. Each rebuild then runs the very same
:func:`~generator.commands.build.build` as a new command would, with the render cache, so its
output is byte for byte what a fresh ``build`` writes (``tests/test_watch.py`` compares them).

What is watched (:func:`watched_paths`): every file the build reads (the snapshot given with
``--from``, the config file, the template, overlays and translations directories, the OpenAPI
document, the previous snapshot) and every ``--watch-path``, such as a server's source directory.
The output directory and the render cache are never watched, nor are hidden entries
(``.git``, ``.venv``, the build's own ``.NAME.staging-PID`` beside ``--out``), ``__pycache__`` and
``node_modules``: the build's own writes must not start another build.

The operating system says what changed (inotify on Linux, through ``watchfiles``, the watcher
uvicorn uses): a watch costs next to no CPU while it waits, and a change is seen within
:data:`SETTLE_MS` of the last write, in a tree of thousands of files as in one file
(``bench/bench_watch.py`` measures it). A file is watched through its directory, since a file
replaced whole (``introspect -o``, most editors) is a new inode that a watch of the file itself
would miss; what else happens in that directory is filtered out (:func:`relevant`). A file named
through a symbolic link is watched at both ends: the file the link leads to, and the link's own name,
so a link pointed elsewhere, or replaced by a regular file, starts a build like any other change. Directories
are watched with their subdirectories only when a watched path is a directory: a watch of a
snapshot and a config file asks the OS for two directories, whatever lies below them. Changes
that come together (an editor still writing, a ``git checkout``) start one build, once none has
come for :data:`SETTLE_MS`.
A build that fails reports its one paragraph and the process goes on watching, with the previous
site untouched; Ctrl-C (or SIGTERM) while waiting ends the command with exit code 0.

A stop during a build (:func:`stopped_in_build`) says what is true: either the build had not
published yet and the previous site is unchanged (exit code 130), or it had, and ``--out`` holds the
new site (exit code 0); the digest of ``manifest.json`` taken when the build began tells which. Either
way, what the build had left to remove is removed first, with the signals held so that a second one
cannot cut that short.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import shutil
import signal
import stat
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from generator import heap
from generator.errors import PortalError, UsageError
from generator.publish.location import sibling

SETTLE_MS = 20
"""A build starts once the watched files have had no change for this long (an editor may still be writing)..."""

GROUP_MS = 1000
"""...or once changes have kept coming for this long (a large ``git checkout``): they start one build."""

READY_MS = 200
"""How often the wait hands back to Python while nothing changes: the first time says the watch is in place."""

SKIPPED_NAMES = frozenset({"__pycache__", "node_modules"})
"""Directory names never looked into, besides hidden ones."""


@dataclass(frozen=True)
class Watched:
    """The paths one watching build looks at, and what it must never look into."""

    paths: tuple[Path, ...]
    excluded: tuple[Path, ...]
    """The output directory and the render cache, resolved: the build writes there."""


def check_watch_paths(extra: Sequence[str]) -> None:
    """Refuse a ``--watch-path`` that does not exist: a typo would otherwise watch nothing, silently.
    (Checked once, at the start: a directory removed later is only a change like any other.)"""
    for raw in extra:
        if not Path(raw).exists():
            raise UsageError(
                f"--watch-path {raw} does not exist. Give a file or directory whose changes should start a "
                f"rebuild, e.g. --watch-path src/ (the server's source)."
            )


def watched_paths(inputs: Iterable[Path], extra: Sequence[str], excluded: Iterable[Path]) -> Watched:
    """The user's ``--watch-path`` values (*extra*) and the build's *inputs*, each once, in that order."""
    seen = dict.fromkeys([*map(Path, extra), *inputs])
    return Watched(tuple(seen), tuple(_resolved(p) for p in excluded))


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def _file_names(path: Path) -> tuple[Path, ...]:
    """Where a watched file can change: its name in its (resolved) directory, and, when that name is a
    symbolic link, the file it leads to now. The name itself is watched even when the link leads
    elsewhere, so the link pointed somewhere else or replaced by a file is a change too."""
    named = _resolved(path.parent) / path.name
    target = _resolved(path)
    return (named,) if target == named else (named, target)


def relevant(watched: Watched) -> Callable[[object, str], bool]:
    """Whether a change the OS reports at a path concerns the build: the path is a watched file, or
    lies under a watched directory, and not under the output, the cache, a hidden entry or one of
    :data:`SKIPPED_NAMES` (the build's own writes must not start another build)."""
    files = {str(name) for p in watched.paths if not p.is_dir() for name in _file_names(p)}
    folders = [str(_resolved(p)) for p in watched.paths if p.is_dir()]
    excluded = [str(p) for p in watched.excluded]

    def wanted(change: object, path: str) -> bool:
        if path in files:
            return True
        if any(path == e or path.startswith(e + os.sep) for e in excluded):
            return False
        for folder in folders:
            if path.startswith(folder + os.sep):
                parts = path[len(folder) + 1 :].split(os.sep)
                return not any(part.startswith(".") or part in SKIPPED_NAMES for part in parts)
        return False

    return wanted


def roots(watched: Watched) -> list[str]:
    """The directories to ask the OS about: each watched directory, and each watched file's directory
    (the nearest that exists: a file not made yet appears there)."""
    found: list[str] = []
    for path in (name for p in watched.paths for name in ((_resolved(p),) if p.is_dir() else _file_names(p))):
        folder = path if path.is_dir() else path.parent
        while not folder.is_dir() and folder != folder.parent:
            folder = folder.parent
        if str(folder) not in found:
            found.append(str(folder))
    return found


def watch(rebuild: Callable[[list[str]], None], watched: Callable[[], Watched], say: Callable[[str], None]) -> int:
    """After a first build: wait for a change to what *watched* names, then call *rebuild* with the
    changed paths, again and again. Ctrl-C while waiting ends it with exit code 0; during a build, it
    propagates (the command's usual "interrupted" and 130). *watched* is asked again after every build,
    since the config file may name other directories now. *rebuild* reports its own failures."""
    while True:
        heap.settle()  # while the process only waits
        current = watched()
        try:
            changed = next_change(current, ready=functools.partial(say, _watching(current)))
        except KeyboardInterrupt:
            say("mcp-portal: stopped watching.")
            return 0
        with heap.paused():  # what a build makes in cycles waits for heap.settle, when the process is idle
            rebuild(changed)


def next_change(watched: Watched, ready: Callable[[], None] = lambda: None) -> list[str]:
    """Wait until the OS reports a relevant change, and no other comes for :data:`SETTLE_MS`; the changed
    paths, sorted. *ready* is called once the OS watches them: a watched file that changed before
    that (while the last build ended) is reported at once."""
    import watchfiles  # here: only a watch needs it, and the command line starts faster

    before = _files_seen(watched)
    waiting = False
    try:
        for changes in watchfiles.watch(
            *roots(watched), watch_filter=relevant(watched), debounce=GROUP_MS, step=SETTLE_MS,
            rust_timeout=READY_MS, yield_on_timeout=True, ignore_permission_denied=True,
            recursive=any(p.is_dir() for p in watched.paths),
        ):  # fmt: skip
            if changes:
                return sorted({path for _, path in changes})
            if not waiting:
                waiting = True
                ready()
                missed = [path for path, seen in _files_seen(watched).items() if seen != before.get(path)]
                if missed:
                    return sorted(missed)
    except OSError as exc:  # no more inotify watches, say (fs.inotify.max_user_watches)
        raise PortalError(
            f"--watch: the system refused to watch {', '.join(map(str, watched.paths[:3]))} ({exc}). Watch a "
            f"smaller directory with --watch-path, or raise fs.inotify.max_user_watches."
        ) from None
    raise AssertionError("watchfiles.watch ended without a change")  # it only ends on a stop event


def _files_seen(watched: Watched) -> dict[str, tuple[int, ...]]:
    """(device, inode, size, modification time) of each watched path that is not a directory, and the
    inode of the name itself (a symbolic link replaced is a change even when it leads to the same file);
    zeros when absent."""
    seen: dict[str, tuple[int, ...]] = {}
    for path in watched.paths:
        try:
            info, name = path.stat(), path.lstat()
        except OSError:
            seen[str(_resolved(path))] = (0, 0, 0, 0, 0)
            continue
        if not stat.S_ISDIR(info.st_mode):
            seen[str(_resolved(path))] = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, name.st_ino)
    return seen


def _watching(watched: Watched) -> str:
    shown = ", ".join(str(p) for p in watched.paths[:5]) + (" ..." if len(watched.paths) > 5 else "")
    return f"Watching {shown or 'nothing but the defaults'} for changes (Ctrl-C to stop)."


def site_digest(out: Path) -> str | None:
    """The sha256 of the ``manifest.json`` published in *out*, or None when there is none. It lists the
    hash of every file, so it differs exactly when a build published a different site."""
    try:
        return hashlib.sha256((out / "manifest.json").read_bytes()).hexdigest()
    except OSError:
        return None


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Inside the block SIGINT and SIGTERM wait, and are delivered as it ends: for work that must not be
    cut halfway, such as removing what a published site no longer needs."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def finish(later: list[Callable[[], None]], failed: Callable[[Exception], object]) -> None:
    """Run each of *later* (what a build left for after it published: see
    :func:`generator.commands.build.build`) with the signals held, and empty it; *failed* reports an error,
    which only costs the next build time (the site is out)."""
    with signals_held():
        while later:
            try:
                later.pop(0)()
            except Exception as exc:
                failed(exc)


def stopped_in_build(
    out: Path,
    before: str | None,
    later: list[Callable[[], None]],
    failed: Callable[[Exception], object],
    say: Callable[[str], object],
) -> int:
    """After a stop (Ctrl-C, SIGTERM) cut a build short: finish what it left to do (*later*), remove the
    staging and ``done`` directories this process names beside *out* (a stop may come before the build
    removed them or handed them over), and *say* which site *out* holds now. *before* is
    :func:`site_digest` when the build began. Returns the exit code: 0 when the build had published."""
    with signals_held():
        finish(later, failed)
        real = Path(os.path.realpath(out))
        for kind in ("staging", "done"):  # as generator.publish.write names them
            path = sibling(real, f"{kind}-{os.getpid()}")
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
        if site_digest(real) == before:
            say("mcp-portal: interrupted; the previous site is unchanged.")
            return 130
        say(f"mcp-portal: stopped watching; the build had already published its site, so {out} holds the new site.")
        return 0
