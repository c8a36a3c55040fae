"""The one place mcp-portal tunes Python's garbage collector and heap, and why each setting is there.

A build holds a large heap that lives to its end (the snapshot, the site model, the compiled
templates) and makes much garbage that reference counting frees by itself. Python's collector is
tuned for the opposite case, so four settings are changed, each measured on ``bench/bench_scale.py``
at 1,000 tools (docs/performance.md):

* :func:`tune_for` raises the collector's thresholds while a command builds a site, so that the
  collector does not walk the long-lived heap again and again;
* :func:`paused` runs a block that makes millions of kept, acyclic objects (parsing a snapshot,
  listing a server) without the collector;
* :func:`end_now` ends a command whose heap lives to its end without freeing it object by object;
* :func:`settle` runs between the builds of a watch, while the process only waits: it collects the
  last build's cycles and hands the freed memory back to the system.

Nothing here changes what a command writes: only how fast, and how much memory it holds.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import gc
import logging
import os
import sys
import threading
from collections.abc import Iterator

BUILD_THRESHOLDS = (10_000, 50, 100)
"""The collector's thresholds while a command builds a site (Python's are 700, 10, 10)."""

BUILDING = frozenset({"build", "check"})
"""The commands that build a site (``check`` builds one to compare)."""

KEEPING = BUILDING | {"introspect"}
"""The commands whose heap lives to their end (``introspect`` keeps every tool until it has written them)."""


def tune_for(command: str) -> None:
    """Set the collector's thresholds for *command*: :data:`BUILD_THRESHOLDS` for the commands of
    :data:`BUILDING`, whose young cycles are still collected, less often; Python's for the rest."""
    if command in BUILDING:
        gc.set_threshold(*BUILD_THRESHOLDS)


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """Run the block without the cyclic garbage collector, restored after as it was.

    Reading a snapshot, or listing a large server, makes millions of small objects that are kept and
    form no cycles; every collection in the block would walk all of them again. Reference counting
    still frees everything as usual; only cycles made in the block wait for the next collection.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def end_now(code: int) -> None:
    """End the process with *code* without freeing its heap object by object, once the output is
    flushed and logging is shut down; return instead (for the usual exit) when another thread runs or
    the output cannot be flushed.

    For the commands of :data:`KEEPING` only, after they returned: every file is written and closed,
    worker processes are joined, and what is left in memory the system takes back at once. The usual
    exit would run the ``atexit`` handlers, of which only :func:`logging.shutdown` has anything to do
    after such a command, and it is called here.
    """
    if threading.active_count() > 1:
        return
    logging.shutdown()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe or stream: let the usual exit report it
        return
    os._exit(code)


def settle() -> None:
    """Between the builds of a watch: collect what the last build left in cycles, then give the memory
    it freed back to the system (glibc's ``malloc_trim``; elsewhere nothing), so that a long watch does
    not keep each build's high-water mark of free heap."""
    gc.collect()
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):
        pass
