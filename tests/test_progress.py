"""The stage lines a command prints on stderr (:class:`generator.commands.progress.Progress`)."""

from __future__ import annotations

import io

import pytest

from generator.commands.progress import Progress


@pytest.mark.parametrize(
    ("count", "shown"),
    [(0, "history: in "), (1, "history: 1 version in "), (2, "history: 2 versions in "),
     (1234, "history: 1,234 versions in ")],
)  # fmt: skip
def test_a_stage_line_counts_in_words_that_agree_with_the_count(count: int, shown: str) -> None:
    progress = Progress(io.StringIO(), bars=False)
    progress.report("history", count, "versions", 0.25)
    assert progress.lines == [f"{shown}0.25 s"]


def test_a_stage_counts_what_it_was_told_and_prints_nothing_before_the_command_ends() -> None:
    stream = io.StringIO()
    progress = Progress(stream, bars=False)
    with progress.stage("render", unit="pages") as advance:
        advance(1)
    with progress.stage("model", unit="tools") as advance:
        advance(2)
    assert [line.rsplit(" in ", 1)[0] for line in progress.lines] == ["render: 1 page", "model: 2 tools"]
    assert stream.getvalue() == ""
