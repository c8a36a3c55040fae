"""``llms-full.txt`` of a 235-tool server is at most half of what it was (issue 37, item 8).

Each tool's copy there keeps what an agent needs to call it (description, access, parameters, one
complete call, the result) and links to the tool's twin for the rest: the raw schemas, the call's
shape, where the tool is available (when that is everywhere), its annotations and the sequences.
The twins themselves are unchanged and complete.
"""

from __future__ import annotations

import re

import pytest

from bench.scale_server import workload
from generator.commands.build import site_files
from generator.config.portal import PortalConfig
from generator.snapshot.snapshot import new_snapshot
from tests.conftest import TEMPLATES

pytestmark = pytest.mark.slow

TOOLS = 235
BEFORE = {"en": 2_633_262, "ru": 3_323_221, "ar": 3_070_281}
"""Bytes of each locale's llms-full.txt for this snapshot at ce322b1, when every copy was the whole twin."""


@pytest.fixture(scope="module")
def files() -> dict[str, bytes]:
    snapshot = new_snapshot(
        protocol_version="2026-07-28",
        server={"name": "scale-bench", "version": "1.0.0"},
        tools=tuple(workload(TOOLS)),
        capability_version="1.0.0",
        transport="stdio",
        endpoint="npx -y scale-bench",
    )
    built, _ = site_files(snapshot, PortalConfig(search=False), renderer=TEMPLATES)
    return built


@pytest.mark.parametrize("locale", ["en", "ru", "ar"])
def test_llms_full_is_at_most_half_its_former_size(files: dict[str, bytes], locale: str) -> None:
    size = len(files[f"{locale}/llms-full.txt"])
    assert size <= BEFORE[locale] // 2, f"{locale}: {size:,} bytes, was {BEFORE[locale]:,}"


def test_every_tool_parameter_and_call_is_still_in_it(files: dict[str, bytes]) -> None:
    full = files["en/llms-full.txt"].decode("utf-8")
    tools = workload(TOOLS)
    assert len(tools) == TOOLS
    for tool in tools:
        name = tool["name"]
        at = full.index(f"\n# {name}\n")
        copy = full[at : full.find("\n# ", at + 1)]
        assert f"[{name}.md](tools/{name}.md)" in copy  # the link to the complete twin
        for param in tool["inputSchema"].get("properties", {}):
            assert f"| `{param}` |" in copy, (name, param)
        assert copy.count('"method": "tools/call"') == 1, name


def test_the_twins_keep_everything_and_no_marker_is_left(files: dict[str, bytes]) -> None:
    twin = files["en/tools/" + workload(1)[0]["name"] + ".md"].decode("utf-8")
    for section in ("## Raw schemas", "## Annotations", "## Available on", "## Call it", "The shape of the call"):
        assert section in twin
    assert twin.startswith("---\n")
    markers = re.compile("[\x03-\x06]")
    for path, data in files.items():
        if path.endswith((".md", ".txt", ".html")):
            assert not markers.search(data.decode("utf-8")), path
