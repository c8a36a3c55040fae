"""Only the server's own words are attributed to it: hint advice appears where the server declared the hint.

Per the MCP specification, ``destructiveHint`` and ``idempotentHint`` mean something only when
``readOnlyHint`` is false, and a hint the server does not declare takes the specification's
default. A page must not say "the server marks this tool destructive" of a tool whose server said
nothing, nor list the destructive default of a tool the server declared read-only.
"""

from __future__ import annotations

from typing import Any

import pytest

from generator.commands.build import site_files
from generator.config.portal import PortalConfig
from generator.model.gather import gather
from generator.model.tool import ToolDoc
from generator.snapshot.snapshot import new_snapshot
from tests.conftest import TEMPLATES

SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}}


def _tool(annotations: dict[str, Any] | None) -> ToolDoc:
    tool: dict[str, Any] = {"name": "t", "description": "Does a thing.", "inputSchema": SCHEMA}
    if annotations is not None:
        tool["annotations"] = annotations
    snapshot = new_snapshot(
        protocol_version="2025-11-25",
        server={"name": "s", "version": "1.0"},
        tools=(tool,),
        capability_version="1.0",
        transport="stdio",
        endpoint="s",
    )
    (doc,) = gather(snapshot, PortalConfig(locales=("en",), search=False)).model.tools
    return doc


def _troubles(doc: ToolDoc) -> list[str]:
    return [row.key for row in doc.trouble_rows()]


def _hints(doc: ToolDoc) -> dict[str, tuple[object, bool]]:
    return {a.name: (a.value, a.declared) for a in doc.annotation_rows}


@pytest.mark.parametrize("annotations", [None, {}, {"title": "T"}], ids=["none", "empty", "title only"])
def test_no_declared_hint_no_destructive_warning(annotations: dict[str, Any] | None) -> None:
    doc = _tool(annotations)
    assert doc.access.level == "destructive"  # the specification's defaults: not read-only, destructive
    assert "destructive" not in _troubles(doc)
    assert _hints(doc)["destructiveHint"] == (True, False)  # shown as the default it is


def test_a_declared_destructive_hint_gets_its_warning() -> None:
    doc = _tool({"readOnlyHint": False, "destructiveHint": True})
    assert "destructive" in _troubles(doc)
    assert _hints(doc)["destructiveHint"] == (True, True)


def test_a_read_only_tool_shows_no_destructive_or_idempotent_default() -> None:
    doc = _tool({"readOnlyHint": True})
    hints = _hints(doc)
    assert hints["readOnlyHint"] == (True, True)
    assert "destructiveHint" not in hints and "idempotentHint" not in hints
    assert "openWorldHint" in hints and "destructive" not in _troubles(doc)


def test_a_read_only_tool_keeps_what_its_server_declared() -> None:
    hints = _hints(_tool({"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True}))
    assert hints["destructiveHint"] == (False, True) and hints["idempotentHint"] == (True, True)


def test_the_pages_say_it_too() -> None:
    """The twin of an undeclared tool carries no destructive warning, in words or in the hint table."""
    tool: dict[str, Any] = {"name": "lookup", "description": "Looks up.", "inputSchema": SCHEMA,
                            "annotations": {"readOnlyHint": True}}  # fmt: skip
    snapshot = new_snapshot(
        protocol_version="2025-11-25", server={"name": "s", "version": "1.0"}, tools=(tool,),
        capability_version="1.0", transport="stdio", endpoint="s",
    )  # fmt: skip
    files, _ = site_files(snapshot, PortalConfig(locales=("en",), search=False), renderer=TEMPLATES)
    twin = files["en/tools/lookup.md"].decode("utf-8")
    assert "destructiveHint" not in twin and "idempotentHint" not in twin
    assert "readOnlyHint" in twin
