"""What rendering gives: a page's three texts, and a documented thing's pages with what they warned of.

These are the values the render cache records and gives back (:mod:`generator.cache.pages`); rendering
itself never looks at the cache.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RenderedPage:
    """One page as rendered: its HTML, its Markdown twin, and the twin's copy for ``llms-full.txt``."""

    html_path: str
    html: str
    md_path: str
    md: str
    full: str


@dataclass(frozen=True)
class RenderedGroup:
    """A documented thing's pages in every locale, what its examples (*warnings*) and input schema (*notes*)
    warned of, and a tool's parameter names for the name index (:func:`generator.render.names.parameter_names`)."""

    pages: tuple[RenderedPage, ...]
    warnings: tuple[str, ...]
    notes: tuple[str, ...] = ()
    parameters: tuple[str, ...] = ()
