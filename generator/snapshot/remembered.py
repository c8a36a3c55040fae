"""The tools of the last snapshot a long-lived process read, so that reading the next one does not
check them again (``build --watch``, :mod:`generator.commands.watch`).

Reading a snapshot checks every tool: the depth walk, the shape, and the canonical JSON of each
for the fingerprint. At 1,000 tools that is about 0.3 s on one core, most of a watching build's
read, although a one-tool change leaves 999 tools exactly as they were. A process that asked
for it holds a :class:`ToolMemory` and remembers in it, after each snapshot that passed every check, each tool by its
:func:`~generator.snapshot.snapshot.raw_digest` (the sha256 of its exact JSON), with its
canonical JSON. The next read then checks only the tools it has not seen:

- a tool's checks depend on nothing but the tool (tools sit at the same depth in every
  snapshot, and the schema says nothing across tools; names are compared apart, every time);
- so a text whose new tools all plainly conform (:func:`~generator.snapshot.quick.conforming_tool`),
  whose new tools and other parts are not too deep, and whose other parts have no shape error,
  passes :func:`~generator.snapshot.shape.check_shape`, as the full check would say;
- anything else (a text with values only the full scan can place, a new tool that does not plainly
  conform, a depth or shape problem) is checked in full, so every problem is reported in the
  usual words.

Only the last snapshot's tools are kept: the memory is one canonical copy of its tools (about
5 MB at 1,000 tools). A one-shot command holds no memory and pays nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from generator.snapshot.jsonread import MAX_DEPTH
from generator.snapshot.quick import conforming_tool, nests_too_deeply
from generator.snapshot.shape import shape_errors


class ToolMemory:
    """Each tool of the last snapshot read, by raw digest, with its canonical JSON (UTF-8)."""

    def __init__(self) -> None:
        self._kept: dict[bytes, bytes] = {}

    def canonical(self, key: bytes) -> bytes | None:
        """The canonical JSON of the remembered tool *key*, or None."""
        return self._kept.get(key)

    def passes(self, data: dict[str, Any], keys: Sequence[bytes], plain: bool) -> bool:
        """Whether *data* (parsed from text, with its tools' raw digests *keys*) passes every check of
        :func:`~generator.snapshot.shape.check_shape`, proven by checking only the tools not remembered.
        False means "not proven": the caller checks in full, which finds any problem."""
        if not plain or not self._kept:
            return False
        new = [tool for tool, key in zip(data["tools"], keys, strict=True) if key not in self._kept]
        if not all(map(conforming_tool, new)):
            return False
        if nests_too_deeply({**data, "tools": new}, MAX_DEPTH):
            return False
        return not shape_errors({**data, "tools": []})

    def remember(self, keys: Sequence[bytes], canonical: Sequence[bytes]) -> None:
        """Keep the tools of the snapshot just read (it passed every check), forgetting the ones before."""
        self._kept = dict(zip(keys, canonical, strict=True))
