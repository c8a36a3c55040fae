"""The one place mcp-portal starts worker processes: the render workers of a build.

:func:`in_workers` runs many calls in a pool of forked workers (the render workers of
:mod:`generator.site.assemble`); with one job, nothing is forked and the calls run in this
process. Every process a build starts dies with it (:func:`die_with_parent`): a build killed by
any signal, SIGKILL included, leaves no render worker or server running on for nothing.
:func:`usable_jobs` caps ``--jobs`` at the CPUs this process may use.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from generator.errors import PortalError

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

T = TypeVar("T")
A = TypeVar("A")


def usable_cpus() -> int:
    """The number of CPUs this process may use (the default ``--jobs``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


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
    here while the workers work. The chunks and the values cross a pipe pickled; *work*, and all it refers
    to, is inherited through the fork. A worker that dies meanwhile (killed by the out-of-memory killer, say)
    ends it with :func:`_lost_worker`'s paragraph."""
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    workers: list[BaseProcess] = []
    context = _recording_context(workers)
    token = id(work)
    _WORK[token] = work  # the workers, forked by the first submit, inherit it: only the chunks are pickled
    try:
        pool = ProcessPoolExecutor(jobs, mp_context=context, initializer=die_with_parent, initargs=(os.getpid(),))
        with pool:
            futures = [pool.submit(_run, token, chunk, i) for i, chunk in enumerate(chunks)]
            try:
                if meanwhile is not None:
                    meanwhile()  # on this process's core while the workers work
                for future in as_completed(futures):
                    done(future.result())
            except BaseException:
                pool.shutdown(cancel_futures=True)  # report the failure now, not after every chunk
                raise
    except BrokenProcessPool:  # the pool has joined its workers: their exit codes are known
        raise _lost_worker(workers) from None
    finally:
        del _WORK[token]


def _recording_context(started: list[BaseProcess]) -> Any:
    """The fork context of :func:`in_workers`' pool, which also puts each worker it starts in *started*.

    The pool's own list of workers is private, and asking ``multiprocessing.active_children()`` after
    the fact misses a worker that has already died: this keeps every worker, so that the paragraph of
    :func:`_lost_worker` can name the one that was killed, whenever it was."""
    from multiprocessing.context import ForkContext, ForkProcess  # here: only a build with workers needs them

    class Recorded(ForkProcess):
        def start(self) -> None:
            started.append(self)
            super().start()

    class Recording(ForkContext):
        Process = Recorded

    return Recording()


_WORK: dict[int, Callable[[Any, int], Any]] = {}
"""The work of each :func:`in_workers` call under way, by token: set before its workers are forked, so
that they inherit it (with all it refers to, such as a whole site's model) instead of receiving it pickled."""


def _run(token: int, chunk: Any, index: int) -> Any:
    """In a worker: the work of the pool *token* on one chunk."""
    return _WORK[token](chunk, index)


def _lost_worker(workers: Sequence[BaseProcess]) -> PortalError:
    """The paragraph for a render worker that died under the build: which signal or exit status ended it,
    and the likely cause. The pool ends the other workers with SIGTERM once one is gone, so another
    signal, when there is one, is what ended the first."""
    ended = [(p.pid, p.exitcode) for p in workers if p.exitcode]
    ended.sort(key=lambda pair: pair[1] == -signal.SIGTERM)
    if not ended:
        how, why = "ended unexpectedly", "Build again; if it keeps happening, build with --jobs 1 and report it."
    elif (code := ended[0][1] or 0) > 0:
        how, why = f"exited with status {code}", "Build again; if it keeps happening, build with --jobs 1."
    elif code == -signal.SIGKILL:
        how = "was killed by SIGKILL"
        why = (
            "That is most likely the kernel's out-of-memory killer: the machine or the container ran out of "
            "memory. Give the build more memory or build with fewer workers (--jobs 1 uses the least)."
        )
    else:
        how = f"was killed by {signal.Signals(-code).name}"
        why = (
            "Something outside mcp-portal stopped it (or it crashed). Build again; if it keeps happening, use --jobs 1."
        )
    pid = f" (process {ended[0][0]})" if ended else ""
    return PortalError(
        f"A render worker{pid} {how} while rendering pages, so the build stopped. {why} The previous site is unchanged."
    )
