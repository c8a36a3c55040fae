"""The kinds of page a portal has, as a type instead of strings.

A module of its own because both the item docs (:mod:`generator.model.product`) and the
page structure (:mod:`generator.model.pages`) name kinds, and ``pages`` already imports
``product``.  The values are the strings templates compare (``page.kind == "tool"``) and
the names of the templates, so a ``StrEnum`` changes no output.
"""

from __future__ import annotations

from enum import StrEnum


class PageKind(StrEnum):
    """One kind of page; in the order :func:`generator.model.pages.pages_for` lists them."""

    INDEX = "index"
    TOOL = "tool"
    CONNECTING = "connecting"
    CHANGES = "changes"
    INSTRUCTIONS = "instructions"
    API = "api"
    READINESS = "readiness"
    PROMPT = "prompt"
    RESOURCE = "resource"
    RESOURCE_TEMPLATE = "resource_template"
    HISTORY = "history"
    """A versioned site's release history: every release's changes (:mod:`generator.history`)."""
    REMOVED = "removed"
    """A versioned site's page for a tool an earlier version had (:mod:`generator.model.removed`)."""
