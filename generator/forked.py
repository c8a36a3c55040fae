"""Work taken in a forked child while this process goes on, on a machine's other core.

A rebuild's serial path has pieces that depend only on what is already known: the survey of the
previous site (:mod:`generator.publish.survey`), the snapshot's tool digests
(:mod:`generator.snapshot.snapshot`). :func:`in_child` forks a child that computes one of them and
sends it back pickled through a pipe; :meth:`Forked.result` waits for it.

The result is the same whichever process computes it: where a child cannot be used (no ``fork``,
other threads running, whose locks a child could find held forever) or when it fails or sends
something else, :meth:`Forked.result` computes it here. A child leaves through ``os._exit``: it
runs no exit handlers, flushes none of the parent's buffers and prints nothing, not even a
traceback.

:func:`in_workers` runs many calls in a pool of forked workers (the render workers of
:mod:`generator.publish.assemble`). Every process a build starts dies with it
(:func:`die_with_parent`): a build killed by any signal, SIGKILL included, leaves no child, render
worker or server running on for nothing. :func:`usable_jobs` caps ``--jobs`` at the CPUs this
process may use.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Generic, TypeVar, cast

from generator.errors import PortalError

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

T = TypeVar("T")
A = TypeVar("A")


class Forked(Generic[T]):
    """A value being computed by :func:`in_child`; :meth:`result` waits, :meth:`close` gives up."""

    def __init__(self, compute: Callable[[], T], kind: type, child: int = 0, pipe: int = -1) -> None:
        self._compute = compute
        self._kind = kind
        self._child = child
        self._pipe = pipe
        self._done = False
        self._value: T | None = None

    @property
    def forked(self) -> bool:
        """Whether a child is computing it (or did, and has not been waited for)."""
        return bool(self._child)

    def result(self) -> T:
        """The child's value, or the one computed here when there is no child or it sent nothing usable."""
        if not self._done:
            found = self._collect()
            self._value = found if found is not None else self._compute()
            self._done = True
        return self._value  # type: ignore[return-value]

    def child_result(self) -> T | None:
        """The child's value, or None when there is no child or it sent nothing usable (never computed here)."""
        if not self._done:
            self._value = self._collect()
            self._done = self._value is not None
        return self._value

    def _collect(self) -> T | None:
        if not self._child:
            return None
        try:
            with os.fdopen(self._pipe, "rb") as pipe:
                self._pipe = -1
                data = pipe.read()
        finally:
            self.close()
        try:
            value = pickle.loads(data) if data else None  # our own child's pickle, through our own pipe
        except Exception:  # a child cut short: the value is computed here instead
            return None
        return cast("T", value) if isinstance(value, self._kind) else None

    def close(self) -> None:
        """Wait for the child, if any (it finishes its work and exits on its own)."""
        if self._pipe >= 0:
            os.close(self._pipe)
            self._pipe = -1
        if self._child:
            child, self._child = self._child, 0
            with contextlib.suppress(ChildProcessError):
                os.waitpid(child, 0)


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
    called first thing in a child (a render worker, a forked helper, the demo's HTTP server).

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


_allowed = True
"""Whether :func:`in_child` may fork (see :func:`one_process_when`)."""


@contextlib.contextmanager
def one_process_when(alone: bool) -> Iterator[None]:
    """Inside the block, when *alone* (``--jobs 1``: the user asked for one process), fork no child."""
    global _allowed
    before = _allowed
    _allowed = before and not alone
    try:
        yield
    finally:
        _allowed = before


def in_child(compute: Callable[[], T], kind: type) -> Forked[T]:
    """Start *compute* in a forked child; its value must be an instance of *kind* and picklable.

    No child is forked where ``fork`` is missing, while other threads run, or inside
    :func:`one_process_when`: :meth:`Forked.result` then computes the value in this process, as it
    does when the child fails.
    """
    if not _allowed or not hasattr(os, "fork") or threading.active_count() > 1:
        return Forked(compute, kind)
    read, write = os.pipe()
    parent = os.getpid()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child, which leaves through os._exit
        status = 1
        try:
            die_with_parent(parent)
            os.close(read)
            view = memoryview(pickle.dumps(compute(), protocol=pickle.HIGHEST_PROTOCOL))
            while view:
                view = view[os.write(write, view) :]
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    return Forked(compute, kind, child, read)


def in_workers(
    work: Callable[[A, int], T],
    chunks: Sequence[A],
    jobs: int,
    done: Callable[[T], None],
    meanwhile: Callable[[], None] | None = None,
) -> None:
    """Call ``work(chunk, i)`` for each of *chunks* in *jobs* forked worker processes, each of which dies
    with this one (:func:`die_with_parent`); *done* gets each value here as it comes, and *meanwhile* runs
    here while the workers work. *work* and the values cross a pipe pickled; what the workers need besides
    is inherited through the fork. A worker that dies meanwhile (killed by the out-of-memory killer, say)
    ends it with :func:`_lost_worker`'s paragraph."""
    import multiprocessing  # here: only a build with workers needs them, and the command line starts faster
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    workers: list[BaseProcess] = []
    context = multiprocessing.get_context("fork")
    try:
        pool = ProcessPoolExecutor(jobs, mp_context=context, initializer=die_with_parent, initargs=(os.getpid(),))
        with pool:
            futures = [pool.submit(work, chunk, i) for i, chunk in enumerate(chunks)]
            workers += multiprocessing.active_children()  # the workers, forked by the first submit
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
