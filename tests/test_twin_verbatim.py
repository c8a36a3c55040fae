"""Verbatim in twins' tables means what the server sent (issue 37, item 9): a cell whose text an
escape would change is a code span instead, so an agent reading the raw Markdown sees the server's
bytes (GFM tables still need a pipe escaped, inside code spans too), and a Markdown renderer still
shows it as inert text."""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from generator.commands.build import site_files
from generator.config.portal import PortalConfig
from generator.render.filters import md_cell
from generator.snapshot.snapshot import new_snapshot
from tests.conftest import TEMPLATES

GFM = MarkdownIt("commonmark").enable("table")


@pytest.mark.parametrize(
    ("server", "cell"),
    [
        ("Connection string, for example <sr-connection>.", "`Connection string, for example <sr-connection>.`"),
        ('One of ["Amazon S3", "Azure Blob"]', '`One of ["Amazon S3", "Azure Blob"]`'),
        ("Matches a|b", "Matches a\\|b"),  # a pipe is escaped in a table whatever else: no code span for it
        ("A plain sentence, with snake_case names.", "A plain sentence, with snake_case names."),
        ("Uses `` ` `` backticks <x>", "```Uses `` ` `` backticks <x>```"),  # its own code spans inside one
        # mongodb-mcp-server's aggregate: "\\[`$match`, `$sort`\\]" hid the server's brackets
        ("or [`$match`, `$sort`] **first**", "``or [`$match`, `$sort`] **first**``"),
        ("Use `find` for plain reads.", "Use `find` for plain reads."),  # nothing to escape: left as it is
    ],
)
def test_a_cell_holds_the_server_text_as_it_was_sent(server: str, cell: str) -> None:
    assert md_cell(server) == cell


@pytest.mark.parametrize(
    "payload",
    [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "[click](javascript:alert(1))",
        "**bold** | x",
        "a`b",
    ],
)
def test_a_hostile_cell_renders_as_text_only(payload: str) -> None:
    html = GFM.render(f"| a | b |\n| --- | --- |\n| x | {md_cell(payload)} |\n")
    assert "<script" not in html and "<img" not in html and "<a " not in html and "<strong>" not in html
    assert html.count("<td>") == 2  # the pipe did not split the cell


def test_the_twin_table_shows_the_description_byte_for_byte() -> None:
    description = 'Where to store it: ["Amazon S3", "Azure Blob"], as <sr-connection>.'
    snapshot = new_snapshot(
        protocol_version="2026-07-28",
        server={"name": "store", "version": "1.0.0"},
        tools=(
            {
                "name": "put",
                "inputSchema": {
                    "type": "object",
                    "properties": {"target": {"type": "string", "description": description}},
                    "required": ["target"],
                },
            },
        ),
        capability_version="1.0.0",
        transport="stdio",
        endpoint="npx -y store",
    )
    files, _ = site_files(snapshot, PortalConfig(search=False), renderer=TEMPLATES)
    twin = files["en/tools/put.md"].decode("utf-8")
    row = next(line for line in twin.splitlines() if line.startswith("| `target` |"))
    assert f"`{description}`" in row
    assert "&lt;" not in row and "\\[" not in row
    rendered = GFM.render(twin)
    assert re.search(r"<code>Where to store it: \[&quot;Amazon S3&quot;", rendered)
