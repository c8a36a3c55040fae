"""The one place mcp-portal starts worker processes: the render workers of a build.

:func:`in_workers` runs many calls in a pool of forked workers (the render workers of
:mod:`generator.site.assemble`); with one job, nothing is forked and the calls run in this
process. Every process a build starts dies with it (:func:`die_with_parent`): a build killed by
any signal, SIGKILL included, leaves no render worker or server running on for nothing.
:func:`usable_jobs` caps ``--jobs`` at the CPUs this process may use, its control group's CPU quota included.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from generator.errors import PortalError

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

T = TypeVar("T")
A = TypeVar("A")


CGROUP = Path("/sys/fs/cgroup")
"""Where a container sees its own control group (Docker, Podman and Kubernetes mount it there)."""


def usable_cpus() -> int:
    """The number of CPUs this process may use (the default ``--jobs``): the cores it may run on, and no more
    than its control group's CPU quota allows (:func:`quota_cpus`)."""
    try:
        cores = max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        cores = max(1, os.cpu_count() or 1)
    return min(cores, quota_cpus() or cores)


def quota_cpus(root: Path = CGROUP) -> int | None:
    """The CPUs' worth of time the control group at *root* may use, rounded up; None when it sets no quota.

    A container started with ``--cpus 2``, or a Kubernetes pod limited to 2 CPUs, may run on every core of a
    64-core host, but for only 2 cores' worth of time: 64 workers would take turns on it, each holding its
    own memory. Read as joblib's loky reads it: cgroup v2's ``cpu.max`` (``200000 100000``, or ``max``),
    else cgroup v1's ``cpu/cpu.cfs_quota_us`` (-1 for none) over ``cpu/cpu.cfs_period_us``.
    """
    try:
        quota, period = (root / "cpu.max").read_text(encoding="ascii").split()[:2]
    except (OSError, ValueError, UnicodeDecodeError):
        try:
            quota = (root / "cpu" / "cpu.cfs_quota_us").read_text(encoding="ascii").strip()
            period = (root / "cpu" / "cpu.cfs_period_us").read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            return None
    if not (quota.isdigit() and period.isdigit() and int(period) > 0):  # "max", "-1": no quota
        return None
    return max(1, -(-int(quota) // int(period)))


def usable_jobs(asked: int | None) -> tuple[int, str]:
    """How many render workers to start for ``--jobs`` *asked* (None: one per usable CPU), and the line
    that says so when *asked* was more than the CPUs (else ""). More workers than CPUs render no faster:
    they only take turns on the same cores, each holding its own copy of what it changes in memory."""
    cpus = usable_cpus()
    if asked is None or asked <= cpus:
        return asked or cpus, ""
    return cpus, f"--jobs {asked} is more than the {cpus} CPU(s) this process may use; rendering with {cpus} worker(s)."


_PR_SET_PDEATHSIG = 1
"""Linux's ``prctl`` option: the signal the kernel sends this process when its parent dies."""


def die_with_parent(parent: int) -> None:
    """Have the kernel send this process SIGKILL the moment *parent* (the process that started it) dies;
    called first thing in a child (a render worker, the demo's HTTP server).

    A child a killed build leaves behind would run on for nothing and keep what it inherited (the
    output directory's lock, a listening port); a parent killed by SIGKILL cleans nothing up, so only
    the kernel can end them. ``PR_SET_PDEATHSIG`` is Linux's ``prctl``, called through libc because
    Python has no binding for it; elsewhere this does nothing. A parent already gone before the call
    (the child's parent is then another process) ends the child at once.
    """
    import ctypes  # here, not at the top: only children need it, and the command line starts faster

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux
        return
    prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


def in_workers(
    work: Callable[[A, int], T],
    chunks: Sequence[A],
    jobs: int,
    done: Callable[[T], None],
    meanwhile: Callable[[], None] | None = None,
) -> None:
    """Call ``work(chunk, i)`` for each of *chunks* in *jobs* forked worker processes, each of which dies
    with this one (:func:`die_with_parent`); *done* gets each value here as it comes, and *meanwhile* runs
    here while the workers work. Each worker is handed its next chunk when it returns a value, so they stay
    balanced. The chunks and the values cross a pipe pickled; *work*, and all it refers to, is inherited
    through the fork. A worker that dies meanwhile (killed by the out-of-memory killer, say) ends it with
    :func:`_lost_worker`'s paragraph, which names the worker and its signal.

    Only multiprocessing's documented API: a fork context's ``Process`` and ``Pipe``, each process's
    ``sentinel`` and ``exitcode``, and ``multiprocessing.connection.wait``."""
    import multiprocessing  # here: only a build with workers needs it
    from multiprocessing.connection import wait

    context = multiprocessing.get_context("fork")
    tasks = iter(enumerate(chunks))
    busy: dict[Any, BaseProcess] = {}  # the pipe to each worker with a chunk in hand, and the worker
    started: list[BaseProcess] = []
    try:
        for _ in range(min(jobs, len(chunks))):
            mine, theirs = context.Pipe()
            worker = context.Process(target=_serve, args=(work, theirs, os.getpid()), daemon=True)
            worker.start()
            theirs.close()
            started.append(worker)
            try:
                handed = _hand(mine, tasks)
            except ConnectionError:  # it died before its first chunk
                raise _lost_worker(worker) from None
            if handed:
                busy[mine] = worker
        if meanwhile is not None:
            meanwhile()  # on this process's core while the workers work
        while busy:
            _collect(busy, wait([*busy, *(w.sentinel for w in busy.values())]), tasks, done)
    finally:
        for each in started:
            if each.exitcode is None and each.is_alive():
                each.terminate()
            each.join()


def _hand(pipe: Any, tasks: Iterator[tuple[int, Any]]) -> bool:
    """Send the worker at *pipe* its next chunk, or None (stop) when there is none; whether one was sent."""
    task = next(tasks, None)
    pipe.send(task)
    return task is not None


def _collect(busy: dict[Any, BaseProcess], ready: list[Any], tasks: Iterator[tuple[int, Any]], done: Any) -> None:
    """Take the values the *ready* pipes bring (handing out the next chunks), and stop at a worker that died."""
    for pipe in [r for r in ready if r in busy]:
        try:
            kind, value = pipe.recv()
        except (EOFError, ConnectionError):  # it died with its chunk in hand: the pipe closed or was reset
            raise _lost_worker(busy[pipe]) from None
        if kind == "raised":
            raise value
        done(value)
        try:
            more = _hand(pipe, tasks)
        except ConnectionError:  # it died just after sending its value
            raise _lost_worker(busy[pipe]) from None
        if not more:
            busy.pop(pipe).join()
    for pipe, worker in list(busy.items()):
        if worker.sentinel in ready and not pipe.poll():
            raise _lost_worker(worker)


def _serve(work: Callable[[Any, int], Any], pipe: Any, parent: int) -> None:
    """In a worker: do the chunks this process's parent hands out, one at a time, until it sends None.
    Ctrl-C is the parent's to report: a worker ignores SIGINT and is ended by its parent or with it. The
    parent's SIGTERM (``terminate``) ends it at once, whatever handler the fork copied from the parent
    (``build --watch`` turns SIGTERM into a stop, which in a worker would print a traceback)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent(parent)
    while (task := pipe.recv()) is not None:
        index, chunk = task
        try:
            pipe.send(("value", work(chunk, index)))
        except Exception as exc:  # the parent raises it, as the call would have in one process
            pipe.send(("raised", exc))


def _lost_worker(worker: BaseProcess) -> PortalError:
    """The paragraph for a render worker that died under the build: which signal or exit status ended it,
    and the likely cause."""
    worker.join()
    code = worker.exitcode or 0
    if code > 0:
        how, why = f"exited with status {code}", "Build again; if it keeps happening, build with --jobs 1."
    elif code == -signal.SIGKILL:
        how = "was killed by SIGKILL"
        why = (
            "That is most likely the kernel's out-of-memory killer: the machine or the container ran out of "
            "memory. Give the build more memory or build with fewer workers (--jobs 1 uses the least)."
        )
    elif code < 0:
        how = f"was killed by {signal.Signals(-code).name}"
        why = (
            "Something outside mcp-portal stopped it (or it crashed). Build again; if it keeps happening, use --jobs 1."
        )
    else:
        how, why = "ended unexpectedly", "Build again; if it keeps happening, build with --jobs 1 and report it."
    return PortalError(
        f"A render worker (process {worker.pid}) {how} while rendering pages, so the build stopped. {why} "
        "The previous site is unchanged."
    )
