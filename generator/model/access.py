"""What calling a tool may do: the four MCP annotation hints and the access level they add up to.

:class:`Access` reads a tool's ``annotations`` once, fills each undeclared hint with the
spec's default (which assumes the worst), and says the badge, the summary's traits and the
caveat a tool page shows.  :class:`Annotation` is one row of the page's annotations table.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from typing import Any

# name, spec default (MCP ToolAnnotations): the defaults assume the worst.
HINTS: tuple[tuple[str, bool], ...] = (
    ("readOnlyHint", False),
    ("destructiveHint", True),
    ("idempotentHint", False),
    ("openWorldHint", True),
)


@dataclass(frozen=True)
class Hint:
    """One annotation hint: its effective value and whether the server declared it."""

    name: str
    value: bool
    declared: bool


class AccessLevel(StrEnum):
    """What calling a tool may do; the values are the badge's CSS class and catalog key (``access.<value>``)."""

    READ_ONLY = "read-only"
    WRITES = "writes"
    DESTRUCTIVE = "destructive"


@dataclass(frozen=True)
class Access:
    """What calling a tool may do, derived from its annotations."""

    hints: tuple[Hint, ...]

    @classmethod
    def from_annotations(cls, annotations: Any) -> Access:
        """The access the four hints of *annotations* give. There are 81 ways to declare them (true, false
        or not at all), so one frozen instance per way serves every tool that declares them alike."""
        raw = annotations if isinstance(annotations, dict) else {}
        declared = tuple(value if isinstance(value := raw.get(name), bool) else None for name, _ in HINTS)
        found = _BY_HINTS.get(declared)
        if found is None:
            hints = tuple(
                Hint(name, default if value is None else value, value is not None)
                for (name, default), value in zip(HINTS, declared, strict=True)
            )
            found = _BY_HINTS[declared] = cls(hints)
        return found

    def hint(self, name: str) -> Hint:
        return next(h for h in self.hints if h.name == name)

    @property
    def declared_any(self) -> bool:
        return any(h.declared for h in self.hints)

    @cached_property
    def level(self) -> AccessLevel:
        """``read-only``, ``writes`` or ``destructive``: the badge and the first words of the summary."""
        if self.hint("readOnlyHint").value:
            return AccessLevel.READ_ONLY
        return AccessLevel.DESTRUCTIVE if self.hint("destructiveHint").value else AccessLevel.WRITES

    @property
    def assumed(self) -> bool:
        """True when the level rests on spec defaults rather than on hints the server declared."""
        if self.level == AccessLevel.READ_ONLY:
            return False  # only a declared readOnlyHint can make a tool read-only
        return not self.hint("readOnlyHint").declared or (
            self.level == AccessLevel.DESTRUCTIVE and not self.hint("destructiveHint").declared
        )

    @property
    def traits(self) -> tuple[str, ...]:
        """Further facts worth a phrase each: ``idempotent``/``not-idempotent``, ``open-world``/``closed-world``.

        Idempotence only matters for tools that write, per the spec.
        """
        traits = []
        if self.level != AccessLevel.READ_ONLY:
            traits.append("idempotent" if self.hint("idempotentHint").value else "not-idempotent")
        traits.append("open-world" if self.hint("openWorldHint").value else "closed-world")
        return tuple(traits)

    @property
    def caveat(self) -> str | None:
        """``undeclared`` (no hint declared: all are spec defaults), ``partly`` (some are), or None.

        The catalog key ``access.<caveat>`` says it under the access summary.
        """
        if not self.declared_any:
            return "undeclared"
        return "partly" if not all(h.declared for h in self.hints) else None


_BY_HINTS: dict[tuple[bool | None, ...], Access] = {}
"""Each :class:`Access` made, by the hints as declared (None: not declared)."""


@dataclass(frozen=True)
class Annotation:
    """One row of a tool's annotations table: a hint or another annotation, and whether it was declared."""

    name: str
    value: Any
    declared: bool
