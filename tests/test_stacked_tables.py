"""Every table of three or more columns stacks on a phone from the markup alone.

On a phone (the stylesheet's ``.stack`` rules) such a table becomes one card per row, each cell
introduced by its column's name from ``data-label``. The markup carries both, so nothing changes
when scripts run (no layout shift) and a reader without JavaScript gets the same cards. Checked on
every page of the demo, of server-everything's snapshot and of a versioned site with its history,
changes and versions pages; each label must be its column's heading, word for word.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

from generator.snapshot.snapshot import load_snapshot
from tests.conftest import TEMPLATES
from tests.golden_tool import EVERYTHING_SNAPSHOT, SNAPSHOT, golden_files
from tests.history_fixture import publish_all


@dataclass
class Table:
    classes: list[str]
    headings: list[str] = field(default_factory=list)
    rows: list[list[str | None]] = field(default_factory=list)
    """Each body row's data-label per column (None: the cell has none; the first column is never labelled)."""


class _Tables(HTMLParser):
    """The tables inside <main>, with their column headings and each cell's data-label."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[Table] = []
        self._main = self._head = self._th = False
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "main":
            self._main = True
        elif not self._main:
            return
        elif tag == "table":
            self.tables.append(Table((found.get("class") or "").split()))
        elif tag == "thead":
            self._head = True
        elif tag == "th" and self._head:
            self._th, self._text = True, []
        elif tag == "tr" and not self._head and self.tables:
            self.tables[-1].rows.append([])
        elif tag in ("td", "th") and self.tables and self.tables[-1].rows:
            self.tables[-1].rows[-1].append(found.get("data-label"))

    def handle_endtag(self, tag: str) -> None:
        if tag == "main":
            self._main = False
        elif tag == "thead":
            self._head = False
        elif tag == "th" and self._th:
            self._th = False
            self.tables[-1].headings.append(" ".join("".join(self._text).split()))

    def handle_data(self, data: str) -> None:
        if self._th:
            self._text.append(data)


def _pages(files: dict[str, bytes]) -> Iterator[tuple[str, bytes]]:
    return ((path, data) for path, data in sorted(files.items()) if path.endswith(".html"))


def _site_pages(root: Path) -> Iterator[tuple[str, bytes]]:
    for path in sorted(root.rglob("*.html")):
        yield str(path.relative_to(root)), path.read_bytes()


@pytest.fixture(scope="module")
def versioned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("stacked")
    out = tmp / "site"
    publish_all(out, tmp / "snapshots")
    return out


def _problems(pages: Iterator[tuple[str, bytes]]) -> tuple[list[str], list[str]]:
    """The pages whose wide tables were checked (one entry a table), and what is wrong with them."""
    checked, problems = [], []
    for path, data in pages:
        parser = _Tables()
        parser.feed(data.decode("utf-8"))
        for table in parser.tables:
            if len(table.headings) < 3:
                continue
            checked.append(path)
            if "stack" not in table.classes:
                problems.append(f"{path}: table {table.headings} has no class stack")
            for row in table.rows:
                for i, label in enumerate(row[1 : len(table.headings)], start=1):
                    # The tool list's summary reads as the line under the name: it has no label by design.
                    if label is None and "tools" in table.classes and i == 1:
                        continue
                    if label != table.headings[i]:
                        problems.append(f"{path}: {table.headings[0]!r} table, column {i}: label {label!r}")
    return checked, problems


def test_demo_and_everything_tables_stack_from_their_markup() -> None:
    pages = [
        *_pages(golden_files(load_snapshot(SNAPSHOT), TEMPLATES)),
        *_pages(golden_files(load_snapshot(EVERYTHING_SNAPSHOT), TEMPLATES)),
    ]
    checked, problems = _problems(iter(pages))
    assert len(checked) > 100, checked
    assert not problems, "\n".join(problems[:20])


def test_versioned_site_tables_stack_from_their_markup(versioned: Path) -> None:
    checked, problems = _problems(_site_pages(versioned))
    assert "index.html" in checked  # the versions page
    assert any(path.endswith("/history/index.html") for path in checked)
    assert len(checked) > 100, len(checked)
    assert not problems, "\n".join(problems[:20])
