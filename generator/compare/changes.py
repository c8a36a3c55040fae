"""One classified change between two snapshots, shared by ``diff`` and the changes page.

A change is about a *subject*: a tool (the common case), a prompt, a resource (named by
its URI) or a resource template (named by its URI template).  :mod:`generator.compare.diff`
compares tools; :mod:`generator.compare.items` compares prompts, resources and templates.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from generator.jsonutil import jsonable
from generator.snapshot.records import EndpointRecord
from generator.snapshot.snapshot import Snapshot
from generator.text import code_span


class ChangeClass(StrEnum):
    """How a change affects a client; the values are what JSON reports and templates show."""

    BREAKING = "breaking"
    NON_BREAKING = "non-breaking"
    COSMETIC = "cosmetic"


BREAKING = ChangeClass.BREAKING
NON_BREAKING = ChangeClass.NON_BREAKING
COSMETIC = ChangeClass.COSMETIC
CLASSES: tuple[ChangeClass, ...] = tuple(ChangeClass)
"""Every class, in report order (breaking first)."""
DIFF_EXIT = 4
"""Exit code of ``mcp-portal diff --fail-on ...`` when the threshold is met."""

SUBJECTS: tuple[str, ...] = ("tool", "prompt", "resource", "resource-template")
"""What a change can be about, in report order."""

ITEM_SUBJECTS: dict[str, str] = {
    "prompts": "prompt",
    "resources": "resource",
    "resource_templates": "resource-template",
}
"""The subject of each snapshot list besides tools (``shape.ITEM_KEYS`` says what keys them)."""


@dataclass(frozen=True)
class Change:
    """One classified difference between the old and the new listing."""

    name: str
    """The tool's or prompt's name, the resource's URI or the template's URI template."""
    cls: ChangeClass
    kind: str
    path: str
    old: Any
    new: Any
    message: str
    endpoint: str | None = None
    """The endpoint (by name) the change is confined to; None when it is the documented listing."""
    subject: str = "tool"
    """What changed: ``tool``, ``prompt``, ``resource`` or ``resource-template``."""

    @property
    def tool(self) -> str | None:
        """The tool's name when the change is about a tool, else None."""
        return self.name if self.subject == "tool" else None

    @property
    def label(self) -> str:
        """How plain-text reports head the change: a tool by its name, anything else by kind and name."""
        return self.name if self.subject == "tool" else f"{noun(self.subject)} {self.name}"

    @property
    def what(self) -> str:
        """The change without its wording or place: two equal ``what`` describe the same edit."""
        return json.dumps([self.kind, self.path, jsonable(self.old), jsonable(self.new)], sort_keys=True)

    def to_dict(self) -> dict[str, Any]:
        return {
            "subject": self.subject,
            "name": self.name,
            "tool": self.tool,
            "class": str(self.cls),
            "kind": self.kind,
            "path": self.path,
            "old": jsonable(self.old),
            "new": jsonable(self.new),
            "message": self.message,
            "endpoint": self.endpoint,
        }


def endpoint_pairs(old: Snapshot, new: Snapshot) -> tuple[dict[str, EndpointRecord], dict[str, EndpointRecord]] | None:
    """Both sides' endpoint records by name, or None when they cannot be compared.

    A version-1 snapshot has only a stand-in ``default`` endpoint, which says nothing
    about profiles, so it is not compared with a snapshot of named endpoints.
    """
    old_eps = {e.name: e for e in old.endpoints}
    new_eps = {e.name: e for e in new.endpoints}
    if "default" in old_eps and len(old_eps) == 1 and "default" not in new_eps:
        return None
    if "default" in new_eps and len(new_eps) == 1 and "default" not in old_eps:
        return None
    return old_eps, new_eps


def noun(subject: str) -> str:
    """How a report names a subject in prose: ``resource-template`` -> ``resource template``."""
    return subject.replace("-", " ")


def keyed(items: Iterable[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    """Items by the string of their *key* field; the first of a repeated key wins."""
    found: dict[str, dict[str, Any]] = {}
    for item in items:
        found.setdefault(str(item.get(key)), item)
    return found


def confined_changes(
    old: Snapshot,
    new: Snapshot,
    section: str,
    variants_of: Callable[[EndpointRecord], dict[str, Any]],
    before: dict[str, dict[str, Any]],
    after: dict[str, dict[str, Any]],
    compare: Callable[[dict[str, Any], dict[str, Any]], list[Change]],
) -> list[Change]:
    """Changes an endpoint made alone to what it lists differently from the documented listing.

    For an endpoint present on both sides and an item of *section* it offers on both, the
    endpoint's own listing (its variant, from *variants_of* its record, else the documented one
    in *before*/*after*) is compared old against new with *compare*. Changes the documented
    listing made too are already reported, so they are left out; what remains happened on that
    endpoint alone (the read-only profile lowering a limit) and is marked with the endpoint.
    """
    pairs = endpoint_pairs(old, new)
    if pairs is None:
        return []
    old_eps, new_eps = pairs
    changes: list[Change] = []
    for endpoint, record in new_eps.items():
        earlier = old_eps.get(endpoint)
        if earlier is None:
            continue
        old_own, new_own = variants_of(earlier), variants_of(record)
        offered = set(earlier.offered(section)) & set(record.offered(section)) & set(before) & set(after)
        where = record.address
        for name in sorted(offered & (set(old_own) | set(new_own))):
            shared = {c.what for c in compare(before[name], after[name])}
            for change in compare(old_own.get(name, before[name]), new_own.get(name, after[name])):
                if change.what not in shared:
                    message = f"{change.message} on the endpoint {code_span(endpoint)} ({where})"
                    changes.append(replace(change, message=message, endpoint=endpoint))
    return changes
