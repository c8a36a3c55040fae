"""The rows a flattened JSON Schema becomes: one line of a parameters or returns table each.

:func:`generator.schema.flatten.flatten` produces them; the conventions for paths, ``required``
and union variants are described in that module's docstring.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.schema.constraints import Constraint


@dataclass(frozen=True)
class Row:
    """One line of a parameters/returns table."""

    path: str
    types: tuple[str, ...]
    item_types: tuple[str, ...]
    required: bool
    description: str | None
    title: str | None
    constraints: tuple[Constraint, ...]
    depth: int
    variant: str | None

    @property
    def type_label(self) -> str:
        """``string | null``, ``array of object``, ``array of (string | null)``; ``any``/``never``."""
        if not self.types:
            never = any(c.kind == "not" and c.value is True for c in self.constraints)
            return "never" if never else "any"
        parts = []
        for t in self.types:
            if t == "array" and self.item_types:
                inner = " | ".join(self.item_types)
                parts.append(f"array of ({inner})" if len(self.item_types) > 1 else f"array of {inner}")
            else:
                parts.append(t)
        return " | ".join(parts)


@dataclass(frozen=True)
class Flattened:
    """The rows of a schema plus what was noticed while producing them."""

    rows: tuple[Row, ...]
    dialect: str | None
    warnings: tuple[str, ...]
    truncated: bool
    root: Row | None = None  # the row of an object root, which is not part of ``rows``
