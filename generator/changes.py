"""One classified change between two snapshots, shared by ``diff`` and the changes page.

A change is about a *subject*: a tool (the common case), a prompt, a resource (named by
its URI) or a resource template (named by its URI template).  :mod:`generator.diff`
compares tools; :mod:`generator.diff_items` compares prompts, resources and templates.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from generator.schema import jsonable
from generator.snapshot import Snapshot

BREAKING = "breaking"
NON_BREAKING = "non-breaking"
COSMETIC = "cosmetic"
CLASSES: tuple[str, ...] = (BREAKING, NON_BREAKING, COSMETIC)
DIFF_EXIT = 4
"""Exit code of ``mcp-portal diff --fail-on ...`` when the threshold is met."""

SUBJECTS: tuple[str, ...] = ("tool", "prompt", "resource", "resource-template")
"""What a change can be about, in report order."""


@dataclass(frozen=True)
class Change:
    """One classified difference between the old and the new listing."""

    name: str
    """The tool's or prompt's name, the resource's URI or the template's URI template."""
    cls: str
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
        return self.name if self.subject == "tool" else f"{self.subject.replace('-', ' ')} {self.name}"

    @property
    def what(self) -> str:
        """The change without its wording or place: two equal ``what`` describe the same edit."""
        return json.dumps([self.kind, self.path, jsonable(self.old), jsonable(self.new)], sort_keys=True)

    def to_dict(self) -> dict[str, Any]:
        return {
            "subject": self.subject,
            "name": self.name,
            "tool": self.tool,
            "class": self.cls,
            "kind": self.kind,
            "path": self.path,
            "old": jsonable(self.old),
            "new": jsonable(self.new),
            "message": self.message,
            "endpoint": self.endpoint,
        }


def endpoint_pairs(old: Snapshot, new: Snapshot) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """Both sides' endpoint records by name, or None when they cannot be compared.

    A version-1 snapshot has only a stand-in ``default`` endpoint, which says nothing
    about profiles, so it is not compared with a snapshot of named endpoints.
    """
    old_eps = {str(e["name"]): e for e in old.endpoints}
    new_eps = {str(e["name"]): e for e in new.endpoints}
    if "default" in old_eps and len(old_eps) == 1 and "default" not in new_eps:
        return None
    if "default" in new_eps and len(new_eps) == 1 and "default" not in old_eps:
        return None
    return old_eps, new_eps
