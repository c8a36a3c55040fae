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

Polling, not an OS notification API: the standard library has none, and a poll of a few hundred
files costs well under a millisecond every :data:`POLL_SECONDS` (a larger tree is polled less
often, so that polling never takes more than :data:`POLL_SHARE` of a core). A change is built once the
files have stayed the same for one more poll (an editor may still be writing; ``introspect -o``
replaces its file whole).
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
import hashlib
import os
import shutil
import signal
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from generator import heap
from generator.errors import PortalError, UsageError

POLL_SECONDS = 0.01
"""How often the watched files are looked at, at least: a change is built some 0.01 to 0.02 s after
it is made (one poll to see it, one more to see that it stays). A poll of one file is one ``stat``
(some 20 µs: a watch of a snapshot file costs 0.2 % of a core while it waits).
(``introspect -o`` replaces its file whole, so a watch never sees half a snapshot of ours.)"""

POLL_SHARE = 0.05
"""The most of one core the polls may use: a poll that took *t* seconds waits ``t / POLL_SHARE`` for
the next, when that is longer than :data:`POLL_SECONDS` (a watched directory of thousands of files)."""

MAX_WATCHED_FILES = 20_000
"""More files than this under the watched paths is refused: each poll would cost too much, and
it is almost always a directory watched by mistake (a home directory, a virtual environment)."""

SKIPPED_NAMES = frozenset({"__pycache__", "node_modules"})
"""Directory names never descended into, besides hidden ones."""

State = tuple[tuple[str, int, int, int, int], ...]
"""What one poll saw: (path, device, inode, size, modification time in ns) of every watched file,
sorted; a missing path is listed with zeros, so that its appearance is a change too."""


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


def poll(watched: Watched) -> State:
    """What the watched files look like now (see :data:`State`); raises :class:`PortalError` past
    :data:`MAX_WATCHED_FILES` files."""
    found: list[tuple[str, int, int, int, int]] = []
    excluded = set(watched.excluded)
    for path in watched.paths:
        _look(path, found, excluded)
        if len(found) > MAX_WATCHED_FILES:
            raise PortalError(
                f"--watch: {path} holds more than {MAX_WATCHED_FILES:,} files, too many to keep looking at. "
                f"Watch a smaller directory with --watch-path (hidden directories, __pycache__ and "
                f"node_modules are skipped already)."
            )
    return tuple(sorted(found))


def _look(path: Path, found: list[tuple[str, int, int, int, int]], excluded: set[Path]) -> None:
    """Append *path* (a file, or every file under a directory, symlinks not followed below it)."""
    try:
        info = path.stat()
    except OSError:
        found.append((str(path), 0, 0, 0, 0))
        return
    if not stat.S_ISDIR(info.st_mode):
        found.append((str(path), info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns))
        return
    if _resolved(path) in excluded:
        return
    stack = [str(path)]
    while stack:
        directory = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue  # removed meanwhile, or unreadable: the next poll sees what is there
        for entry in entries:
            if entry.name.startswith(".") or entry.name in SKIPPED_NAMES:
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    if _resolved(Path(entry.path)) not in excluded:
                        stack.append(entry.path)
                    continue
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            found.append((entry.path, info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns))
        if len(found) > MAX_WATCHED_FILES:
            return


def changed_names(before: State, after: State) -> list[str]:
    """The paths whose entry differs between two polls (added, removed or changed), sorted."""
    old = {entry[0]: entry for entry in before}
    new = {entry[0]: entry for entry in after}
    return sorted(name for name in old.keys() | new.keys() if old.get(name) != new.get(name))


def watch(
    rebuild: Callable[[list[str]], None],
    watched: Callable[[], Watched],
    say: Callable[[str], None],
    *,
    interval: float = POLL_SECONDS,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """After a first build: wait for a change to what *watched* names, then call *rebuild* with the
    changed paths, again and again. Ctrl-C while waiting ends it with exit code 0; during a build, it
    propagates (the command's usual "interrupted" and 130). *watched* is asked again after every build,
    since the config file may name other directories now. *rebuild* reports its own failures."""
    while True:
        heap.settle()  # while the process only waits
        current = watched()
        say(_watching(current))
        try:
            changed = _next_change(current, interval, sleep)
        except KeyboardInterrupt:
            say("mcp-portal: stopped watching.")
            return 0
        with heap.paused():  # what a build makes in cycles waits for heap.settle, when the process is idle
            rebuild(changed)


def _next_change(watched: Watched, interval: float, sleep: Callable[[float], None]) -> list[str]:
    """Poll until something changes and then stays the same for one more poll; the changed paths."""
    before, cost = _timed_poll(watched)
    now = before
    while now == before:
        sleep(max(interval, cost / POLL_SHARE))
        now, cost = _timed_poll(watched)
    while True:  # an editor may still be writing
        sleep(max(interval, cost / POLL_SHARE))
        settled, cost = _timed_poll(watched)
        if settled == now:
            return changed_names(before, now)
        now = settled


def _timed_poll(watched: Watched) -> tuple[State, float]:
    started = time.perf_counter()
    return poll(watched), time.perf_counter() - started


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
            path = real.parent / f".{real.name}.{kind}-{os.getpid()}"
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
        if site_digest(real) == before:
            say("mcp-portal: interrupted; the previous site is unchanged.")
            return 130
        say(f"mcp-portal: stopped watching; the build had already published its site, so {out} holds the new site.")
        return 0
