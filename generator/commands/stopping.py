"""How a command ends when it is stopped: Ctrl-C (SIGINT) or a process manager's or CI runner's SIGTERM.

``build --watch`` and ``serve`` take SIGTERM as Ctrl-C (:func:`stop`) and end with 0. A one-shot build
(:func:`stoppable`) cleans up on either as it unwinds (its staging directory, scratch files and cache
records), says in one line which site ``--out`` holds, and after SIGTERM ends by that signal. A command whose
reader went away (``mcp-portal lint | head -1``) ends quietly with :data:`READER_GONE` (:func:`reader_gone`).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path

TERMINATED = 128 + signal.SIGTERM
"""What a build stopped by SIGTERM returns; :func:`generator.commands.cli.run` then ends by the signal."""
READER_GONE = 128 + signal.SIGPIPE
"""What a command returns when the pipe it writes to has no reader: what a shell shows for a death by SIGPIPE."""


class Terminated(KeyboardInterrupt):
    """SIGTERM during a one-shot build: raised where the build is, so every clean-up a Ctrl-C runs runs."""


def stop(signum: int, frame: object) -> None:
    """SIGTERM handler of ``build --watch`` and ``serve``: a stop, as Ctrl-C is."""
    raise KeyboardInterrupt


def stoppable(build: Callable[[], int], out: Path, say: Callable[..., None]) -> int:
    """Run *build* (one build into *out*) so that Ctrl-C or SIGTERM ends it cleanly; its exit code, or 130
    after Ctrl-C and :data:`TERMINATED` after SIGTERM, once one line on stderr has said which site *out*
    holds: the previous one, or the new one when the stop came after the build placed it."""
    from generator.commands.watch import site_digest

    was = site_digest(out)
    # Only the main thread may set a handler, and signals reach only it: a build run on another thread (a
    # program that embeds mcp-portal) keeps the program's own handling.
    here = threading.current_thread() is threading.main_thread()
    before = signal.signal(signal.SIGTERM, _terminated) if here else None
    try:
        return build()
    except KeyboardInterrupt as stopped:
        how = "stopped by SIGTERM" if isinstance(stopped, Terminated) else "interrupted"
        if site_digest(out) == was:
            say(f"mcp-portal: {how}; the previous site is unchanged.", err=True)
        else:
            say(f"mcp-portal: {how} once the build had published its site; {out} holds the new site.", err=True)
        return TERMINATED if isinstance(stopped, Terminated) else 130
    finally:
        if here:
            signal.signal(signal.SIGTERM, before)


def end_by_sigterm() -> None:
    """End this process by SIGTERM's default action (after a build stopped by it has cleaned up)."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)


def _terminated(signum: int, frame: object) -> None:
    """SIGTERM in a one-shot build: :class:`Terminated`, except while the build talks to a server (an event
    loop runs). Then nothing of the site is written yet, and an exception raised inside the loop would reach
    the user as the loop's traceback: the process ends at once, as SIGTERM ends it by default."""
    if _in_event_loop():
        end_by_sigterm()
    raise Terminated


def _in_event_loop() -> bool:
    """Whether this thread is running an asyncio event loop (asyncio is imported only by a connection)."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return False
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def reader_gone() -> bool:
    """Whether standard output or error is a pipe whose reader has ended (``| head -1`` read its line): then
    what the command writes there cannot be read, and it ends quietly, as commands killed by SIGPIPE do. The
    streams are given the null device, so nothing left in their buffers fails again as Python exits."""
    poll = select.poll()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, OSError, ValueError):  # no stream, or not a file
            poll.register(stream.fileno(), select.POLLOUT)
    if not any(events & select.POLLERR for _, events in poll.poll(0)):
        return False
    null = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, OSError, ValueError):
            os.dup2(null, stream.fileno())
    os.close(null)
    return True
