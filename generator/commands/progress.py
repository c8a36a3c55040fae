"""Progress of long work on stderr: the stages of a build, with a bar on a terminal.

A 1,000-tool build runs for seconds to minutes. On a terminal each stage (connect, render,
index, publish) shows a ``rich`` progress bar with its count and an estimate of the time left,
and is replaced by one summary line when it ends. With no terminal (a CI log) or with
``--quiet``, only the summary lines are printed, one per stage with its time. Progress never
goes to stdout, where ``check --format json`` and ``diff --format json`` write their results.

The pipeline stages know nothing of this module: they take a plain ``advance(n)`` callback.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from typing import TextIO

from generator.text import for_terminal

Advance = Callable[[int], None]
"""Called with the number of units done since the last call (pages rendered, files written)."""


def _nothing(_: int) -> None:
    return None


class Progress:
    """Reports the stages of one command on *stream* (stderr)."""

    def __init__(self, stream: TextIO | None = None, *, quiet: bool = False, bars: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.quiet = quiet
        interactive = bool(getattr(self.stream, "isatty", lambda: False)())
        self.bars = (interactive and not quiet) if bars is None else bars
        self.lines: list[str] = []
        """The summary lines so far. Without bars they are printed by :meth:`flush`, when the command
        succeeded: a failure stays one paragraph on stderr, with no stage lines before it."""

    @contextlib.contextmanager
    def stage(self, name: str, total: int | None = None, unit: str = "files") -> Iterator[Advance]:
        """Run one stage: yields ``advance(n)``; prints ``name: N unit in S s`` when it ends."""
        started = time.perf_counter()
        done = 0

        def count(n: int) -> None:
            nonlocal done
            done += n

        if not self.bars:
            yield count
        else:
            with self._bar(name, total) as advance:

                def both(n: int) -> None:
                    count(n)
                    advance(n)

                yield both
        self.report(name, done, unit, time.perf_counter() - started)

    def report(self, name: str, count: int, unit: str, seconds: float) -> None:
        """The summary line of a stage timed elsewhere: ``name: N unit in S s`` (*unit* is plural: one of it is
        ``1 version``)."""
        amount = f"{count:,} {unit[:-1] if count == 1 and unit.endswith('s') else unit} " if count else ""
        self._line(f"{name}: {amount}in {seconds:.2f} s")

    def note(self, text: str) -> None:
        """A line of its own among the summary lines (how a stage did its work)."""
        self._line(text)

    @contextlib.contextmanager
    def _bar(self, name: str, total: int | None) -> Iterator[Advance]:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
        from rich.progress import Progress as Bars

        console = Console(file=self.stream, stderr=True)
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
        with Bars(*columns, console=console, transient=True) as bars:
            task = bars.add_task(name, total=total)
            yield lambda n: bars.advance(task, n)

    def _line(self, text: str) -> None:
        self.lines.append(text)
        if self.bars:
            self.stream.write(for_terminal(text) + "\n")
            self.stream.flush()

    def flush(self) -> None:
        """Print the summary lines (without bars, they wait until the command has succeeded)."""
        if not self.bars:
            for text in self.lines:
                self.stream.write(for_terminal(text) + "\n")
            self.stream.flush()


SILENT: Advance = _nothing
"""The callback for callers that do not report progress."""
