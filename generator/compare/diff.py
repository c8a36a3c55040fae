"""The diff command: what changed between two snapshots, and does it break callers?

Each side is a snapshot file or a built site directory (its ``snapshot.json``).
Tools are matched by name; their input and output schemas are flattened with
:func:`generator.schema.flatten.flatten` and compared row by row, by path (nested
properties, array items, union alternatives).  Every change gets a class:

* ``breaking``: a client that worked before may fail now;
* ``non-breaking``: new things, or looser rules;
* ``cosmetic``: titles, descriptions and examples only.

Inputs and outputs are judged from the client's side, so the direction flips:
a tighter *parameter* rejects calls that used to work (breaking), while a
tighter *output* only promises more (non-breaking); a wider output (a new enum
value, ``null`` allowed, a field made optional) can surprise a client
(breaking).  Changed rules whose direction cannot be told (a new ``pattern``,
``string`` becoming ``integer``) count as breaking.  Prompts, resources and resource
templates are compared too, by :mod:`generator.compare.items`, and schemas row by row by
:mod:`generator.compare.schemas`; this module loads the two sides and compares the tools.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.compare.changes import (
    BREAKING,
    CLASSES,
    COSMETIC,
    NON_BREAKING,
    SUBJECTS,
    Change,
    ChangeClass,
    confined_changes,
    endpoint_pairs,
    keyed,
)
from generator.compare.items import item_changes
from generator.compare.schemas import INPUT, OUTPUT, adder, schema_changes
from generator.config.portal import Limits
from generator.errors import PortalError
from generator.jsonutil import json_equal
from generator.snapshot.records import EndpointRecord
from generator.snapshot.snapshot import Snapshot, load_snapshot
from generator.text import code_span, counted

_TOOL_KEYS = frozenset({"name", "title", "description", "inputSchema", "outputSchema", "annotations"})


@dataclass(frozen=True)
class DiffResult:
    """Every change between two snapshots, breaking ones first."""

    old_label: str
    new_label: str
    changes: tuple[Change, ...]

    def counts(self) -> dict[ChangeClass, int]:
        return {cls: sum(1 for c in self.changes if c.cls == cls) for cls in CLASSES}

    def fails(self, fail_on: str | None) -> bool:
        """Whether ``--fail-on`` *fail_on* should turn this result into exit code 4."""
        if fail_on == "any":
            return bool(self.changes)
        if fail_on == "breaking":
            return any(c.cls == BREAKING for c in self.changes)
        return False


# --------------------------------------------------------------------------- loading


def load_side(path: Path, max_bytes: int = Limits.max_snapshot_bytes) -> Snapshot:
    """A snapshot from a snapshot file, or from a built site directory's ``snapshot.json``, of at most
    *max_bytes* (``limits.max_snapshot_bytes``)."""
    if path.is_dir():
        inner = path / "snapshot.json"
        if not inner.is_file():
            raise PortalError(
                f"{path} is a directory without a snapshot.json, so it is not a site built by mcp-portal. "
                f"Give a snapshot file or the directory a `mcp-portal build` wrote."
            )
        return load_snapshot(inner, max_bytes=max_bytes)
    if not path.exists():
        raise PortalError(f"{path} does not exist. Give a snapshot file or a built site directory.")
    return load_snapshot(path, max_bytes=max_bytes)


def _label(path: Path, snap: Snapshot) -> str:
    name = snap.server.get("name") or "server"
    return f"{path} ({name} {snap.capability_version}, {counted(len(snap.tools), 'tool')})"


def diff(old_path: Path, new_path: Path, max_bytes: int = Limits.max_snapshot_bytes) -> DiffResult:
    """Load both sides (each of at most *max_bytes*) and classify every change."""
    old, new = load_side(old_path, max_bytes), load_side(new_path, max_bytes)
    return DiffResult(_label(old_path, old), _label(new_path, new), tuple(diff_snapshots(old, new)))


# --------------------------------------------------------------------------- comparing


def diff_snapshots(old: Snapshot, new: Snapshot) -> list[Change]:
    """Classified changes of the tool lists, sorted by class, then tool, then discovery order."""
    old_tools = keyed(old.tools, "name")
    new_tools = keyed(new.tools, "name")
    changes: list[Change] = []
    for name, tool in new_tools.items():
        if name not in old_tools:
            message = f"tool {code_span(name)} was added"
            changes.append(Change(name, NON_BREAKING, "tool-added", "", None, name, message))
        elif not json_equal(old_tools[name], tool):  # an unchanged tool has no change: no schema is flattened
            changes.extend(diff_tool(old_tools[name], tool))
    for name in old_tools:
        if name not in new_tools:
            message = f"tool {code_span(name)} was removed"
            changes.append(Change(name, BREAKING, "tool-removed", "", name, None, message))
    kept = set(old_tools) & set(new_tools)
    changes.extend(_offering_changes(old, new, kept))
    changes.extend(confined_changes(old, new, "tools", _tool_variants, old_tools, new_tools, diff_tool))
    order = {cls: i for i, cls in enumerate(CLASSES)}
    changes.extend(item_changes(old, new))
    subjects = {subject: i for i, subject in enumerate(SUBJECTS)}
    indexed = sorted(enumerate(changes), key=lambda ic: (order[ic[1].cls], subjects[ic[1].subject], ic[1].name, ic[0]))
    return [c for _, c in indexed]


def _offering_changes(old: Snapshot, new: Snapshot, kept: set[str]) -> list[Change]:
    """Tools (present on both sides) that an endpoint stopped or started offering; endpoints match by name."""
    pairs = endpoint_pairs(old, new)
    if pairs is None:
        return []
    old_eps, new_eps = pairs
    changes = []
    for name in [*old_eps, *(n for n in new_eps if n not in old_eps)]:
        before = set(old_eps[name].tools) if name in old_eps else set()
        after = set(new_eps[name].tools) if name in new_eps else set()
        where = (new_eps.get(name) or old_eps[name]).address
        for tool in sorted((before - after) & kept):
            message = f"tool {code_span(tool)} is no longer offered on the endpoint {code_span(name)} ({where})"
            changes.append(Change(tool, BREAKING, "offered-removed", where, where, None, message, name))
        for tool in sorted((after - before) & kept):
            message = f"tool {code_span(tool)} is now offered on the endpoint {code_span(name)} ({where})"
            changes.append(Change(tool, NON_BREAKING, "offered-added", where, None, where, message, name))
    return changes


def _tool_variants(record: EndpointRecord) -> dict[str, Any]:
    return record.variants


def diff_tool(old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    """Every change of one tool (present on both sides)."""
    name = str(new.get("name"))
    out: list[Change] = []
    add = adder(out, name)
    for key in ("title", "description"):
        if old.get(key) != new.get(key):
            add(COSMETIC, f"{key}-changed", "", old.get(key), new.get(key), f"the tool's {key} changed")
    out.extend(_annotation_changes(name, old.get("annotations"), new.get("annotations")))
    for key in sorted((set(old) | set(new)) - _TOOL_KEYS):
        if not json_equal(old.get(key), new.get(key)):
            message = f"the tool's {code_span(key)} changed"
            add(NON_BREAKING, "metadata-changed", key, old.get(key), new.get(key), message)
    before = len(out)
    out.extend(schema_changes(name, INPUT, old.get("inputSchema"), new.get("inputSchema")))
    if len(out) == before and not json_equal(old.get("inputSchema"), new.get("inputSchema")):
        add(NON_BREAKING, "schema-changed", INPUT, None, None,
            "the input schema changed in a way the parameter table does not show")  # fmt: skip
    had, has = "outputSchema" in old, "outputSchema" in new
    if had and not has:
        add(BREAKING, "output-schema-removed", OUTPUT, old["outputSchema"], None,
            "the output schema was removed: structured results are no longer promised")  # fmt: skip
    elif has and not had:
        add(NON_BREAKING, "output-schema-added", OUTPUT, None, new["outputSchema"], "an output schema was added")
    elif had and has:
        before = len(out)
        out.extend(schema_changes(name, OUTPUT, old["outputSchema"], new["outputSchema"]))
        if len(out) == before and not json_equal(old["outputSchema"], new["outputSchema"]):
            add(NON_BREAKING, "schema-changed", OUTPUT, None, None,
                "the output schema changed in a way the returns table does not show")  # fmt: skip
    return out


def _annotation_changes(tool: str, old_raw: object, new_raw: object) -> list[Change]:
    """Changes of the title and the four hints, judged by whether the tool became less safe to call."""
    old = old_raw if isinstance(old_raw, dict) else {}
    new = new_raw if isinstance(new_raw, dict) else {}
    out: list[Change] = []
    add = adder(out, tool)
    if old.get("title") != new.get("title"):
        add(COSMETIC, "title-changed", "annotations.title", old.get("title"), new.get("title"),
            "the tool's annotation title changed")  # fmt: skip
    read_old, read_new = old.get("readOnlyHint") is True, new.get("readOnlyHint") is True
    path = "annotations.readOnlyHint"
    if read_old and not read_new:
        add(BREAKING, "annotation-less-safe", path, old.get("readOnlyHint"), new.get("readOnlyHint"),
            "the tool is no longer declared read-only: it may now change things")  # fmt: skip
    elif read_new and not read_old:
        add(NON_BREAKING, "annotation-safer", path, old.get("readOnlyHint"), new.get("readOnlyHint"),
            "the tool is now declared read-only")  # fmt: skip
    # destructiveHint defaults to true and only counts for tools that are not read-only.
    dest_old = not read_old and old.get("destructiveHint") is not False
    dest_new = not read_new and new.get("destructiveHint") is not False
    path = "annotations.destructiveHint"
    if dest_new and not dest_old:
        add(BREAKING, "annotation-less-safe", path, old.get("destructiveHint"), new.get("destructiveHint"),
            "the tool may now be destructive (destructiveHint is true or no longer declared false)")  # fmt: skip
    elif dest_old and not dest_new:
        add(NON_BREAKING, "annotation-safer", path, old.get("destructiveHint"), new.get("destructiveHint"),
            "the tool is no longer declared destructive")  # fmt: skip
    for key in ("idempotentHint", "openWorldHint"):
        if old.get(key) != new.get(key):
            add(NON_BREAKING, "annotation-changed", f"annotations.{key}", old.get(key), new.get(key),
                f"{key} changed")  # fmt: skip
    return out
