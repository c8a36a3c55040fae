"""The render job: what every worker needs (the site, its pages in groups, the cache).

A :class:`Job` is made once per build, before the workers are forked, so that they inherit it; what a
worker sends back for a chunk of groups is a :class:`Chunk`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from generator.cache.keys import page_key
from generator.cache.reuse import Reuse
from generator.model.pages import Page, pages_for
from generator.model.product import Doc
from generator.model.site import SiteModel
from generator.render.i18n import Catalog
from generator.render.renderer import Deadline, Renderer
from generator.site.llms_full import Copies, FullPart

Advance = Callable[[int], None]
"""Reports pages done to the progress bar."""

PART_TOKENS = 100_000
"""The most tokens one part of a split ``llms-full.txt`` holds (estimated: :data:`BYTES_PER_TOKEN`).

A locale's ``llms-full.txt`` over this budget is also written as ``L/llms-full-01.txt``,
``-02``... : consecutive whole pages, each part under the budget (a single page larger than the
budget is a part of its own), each starting with the shared notice; ``llms.txt`` lists them."""


@dataclass(frozen=True)
class Inputs:
    """What every page is made from: the model, the UI catalogs, the renderer and the time bound."""

    site: SiteModel
    catalogs: Mapping[str, Catalog]
    renderer: Renderer
    deadline: Deadline


@dataclass(frozen=True)
class Plan:
    """Which pages there are, grouped by what they document, and each group's cache key."""

    pages: list[Page]
    groups: list[list[int]]
    """Indexes into :attr:`pages`, one list per documented thing (a tool in every locale)."""
    keys: list[str | None]
    """Each group's cache key; None for the pages made from the whole site (never cached), or with no cache."""


@dataclass
class Job:
    """What every worker needs, in named parts; made before the workers are forked, so they inherit it."""

    inputs: Inputs
    plan: Plan
    reuse: Reuse | None
    """What this build takes from the last one; None: a build without the cache."""
    shared: dict[str, str]
    """Locale -> the text every twin repeats (the pointer to llms.txt and the generated notice), as it
    reads inside ``llms-full.txt``: stated once at the top of that file and cut from each copy."""
    parts: dict[str, list[FullPart]] = field(default_factory=dict)
    """Locale -> the parts its ``llms-full.txt`` was split into (none when it fits :data:`PART_TOKENS`)."""


@dataclass
class Chunk:
    """What a worker sends back for a chunk of groups: no page text, only the pages' hashes and where the
    twins' copies are."""

    chunk: int
    hashes: dict[str, str]
    same: set[str]
    """The pages left where the previous site holds them (:attr:`generator.publish.staging.Staging.same`)."""
    warnings: dict[int, tuple[str, ...]] = field(default_factory=dict)
    """Group -> the warnings of its examples."""
    notes: dict[int, tuple[str, ...]] = field(default_factory=dict)
    """Group -> the warnings of its input schema."""
    parameters: dict[int, tuple[str, ...]] = field(default_factory=dict)
    """Group -> a tool's parameter names, for the name index."""
    pages: int = 0
    copies: Copies = field(default_factory=Copies)


def _groups(pages: Sequence[Page]) -> list[list[int]]:
    """Pages grouped by what they document: the same path below the locale."""
    groups: dict[str, list[int]] = {}
    for index, page in enumerate(pages):
        groups.setdefault(page.directory.partition("/")[2], []).append(index)
    return list(groups.values())


def new_job(
    site: SiteModel,
    catalogs: Mapping[str, Catalog],
    renderer: Renderer,
    deadline: Deadline,
    cache: Reuse | None = None,
) -> Job:
    """The render job for *site*; with *cache*, each documented thing's pages get their cache key."""
    pages = pages_for(site)
    groups = _groups(pages)
    keys: list[str | None] = []
    for group in groups:
        doc, tool = pages[group[0]].doc, pages[group[0]].tool
        linked = [] if doc is None or tool is None else _linked(site, pages[group[0]])
        known = site.snapshot.tool_key
        keys.append(None if cache is None or doc is None else page_key(cache.site, doc, linked, known))
    shared = {code: renderer.twin_pointer(site, catalogs, code) for code in site.locales}
    return Job(Inputs(site, catalogs, renderer, deadline), Plan(pages, groups, keys), cache, shared)


def _linked(site: SiteModel, page: Page) -> list[Doc]:
    """The docs a tool page shows something of besides its own: the related tools of its overlay, and
    the tool its troubleshooting rows name for seeing the caller's grants."""
    tool = page.tool
    if tool is None:
        return []
    linked: list[Doc] = [other for _, other in site.related_to(tool) if other is not None]
    # The troubleshooting rows name the tool that reports the caller's grants (SiteModel.grants_tool).
    grants = site.tool_named(name) if (name := site.grants_tool) else None
    return linked + ([grants] if grants is not None and grants is not tool else [])
