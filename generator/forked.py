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
"""

from __future__ import annotations

import contextlib
import os
import pickle
import threading
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar, cast

T = TypeVar("T")


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
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child, which leaves through os._exit
        status = 1
        try:
            os.close(read)
            view = memoryview(pickle.dumps(compute(), protocol=pickle.HIGHEST_PROTOCOL))
            while view:
                view = view[os.write(write, view) :]
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    return Forked(compute, kind, child, read)
