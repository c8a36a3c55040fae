"""One classified change between two snapshots, shared by ``diff`` and the changes page.

A change is about a *subject*: a tool (the common case), a prompt, a resource (named by
its URI) or a resource template (named by its URI template).  :mod:`generator.diff`
compares tools; :mod:`generator.diff_items` compares prompts, resources and templates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.schema import jsonable

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
