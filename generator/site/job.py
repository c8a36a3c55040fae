"""The render job: what every worker needs (the site, its pages in groups, the cache), and what each sends back.

A :class:`Job` is made once per build, before the workers are forked, so that they inherit it;
a :class:`Rendered` is what one worker sends back for a chunk of groups.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from generator.cache.keys import page_key
from generator.cache.reuse import ListRows, Reuse, SiteIndex
from generator.model.pages import Page, pages_for
from generator.model.product import Doc
from generator.model.site import SiteModel
from generator.publish.staging import Staging
from generator.render.i18n import Catalog
from generator.render.listings import RowMemo
from generator.render.renderer import Deadline, Renderer
from generator.site.llms_full import FullPart

Advance = Callable[[int], None]
"""Reports pages done to the progress bar."""

PART_TOKENS = 100_000
"""The most tokens one part of a split ``llms-full.txt`` holds (estimated: :data:`BYTES_PER_TOKEN`).

A locale's ``llms-full.txt`` over this budget is also written as ``L/llms-full-01.txt``,
``-02``... : consecutive whole pages, each part under the budget (a single page larger than the
budget is a part of its own), each starting with the shared notice; ``llms.txt`` lists them."""


@dataclass(frozen=True)
class Fragment:
    """Where a chunk's fragment of one locale is: the file's name in :attr:`FullText.fragments`, offset, size."""

    name: str
    start: int
    size: int


@dataclass(frozen=True)
class Placed:
    """A twin's copy for ``llms-full.txt`` as a chunk placed it: its page, its size, the twin's sha256, and
    its offset in the previous site's ``llms-full.txt`` of the locale (None: it is in the chunk's fragment)."""

    page: int
    size: int
    twin: str
    previous: int | None


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
class Reused:
    """What this build takes from the last one (:class:`~generator.cache.reuse.Reuse`), and what it took."""

    cache: Reuse
    index: SiteIndex | None
    """What each ``pages`` record's pages were when the site was last published (:class:`SiteIndex`)."""
    last_rows: ListRows | None
    """The rows of the site-wide lists the last build recorded."""
    memo: RowMemo
    """:attr:`last_rows` as the row writers use it."""
    row_hits: dict[str, set[str]] = field(default_factory=dict)
    """List -> the keys of the last build's rows this build used (the rows it made go to the cache as made)."""
    hits: int = 0
    """Groups whose pages came from the cache (for the progress line and the benchmark)."""


@dataclass
class FullText:
    """Each locale's ``llms-full.txt`` being assembled from the chunks' copies of the twins."""

    fragments: Path | None = None
    """A private directory for the twins' copies: one file per process and locale, to which each chunk's
    copies are appended (:func:`~generator.site.assemble._append`)."""
    chunks: int = 0
    shared: dict[str, str] = field(default_factory=dict)
    """Locale -> the text every twin repeats (the pointer to llms.txt and the generated notice), as it
    reads inside ``llms-full.txt``: stated once at the top of that file and cut from each copy."""
    parts: dict[str, list[FullPart]] = field(default_factory=dict)
    """Locale -> the parts its ``llms-full.txt`` was split into (none when it fits :data:`PART_TOKENS`)."""
    appending: dict[str, io.FileIO] = field(default_factory=dict)
    """This process's open fragment files, by name (unbuffered: what is written is in the file at once).
    A forked worker has its own copy of the job, so each process holds only its own files."""


@dataclass
class Job:
    """What every worker needs, in named parts; set before the workers are forked, so they inherit it."""

    inputs: Inputs
    plan: Plan
    reused: Reused | None
    """None: a build without the cache."""
    full: FullText = field(default_factory=FullText)
    staging: Staging | None = None
    """Where the pages go; set by :func:`render_pages` (each worker writes through :meth:`Staging.fresh`)."""


@dataclass
class Rendered:
    """What a worker sends back: no page text except the twins' copies for ``llms-full.txt``."""

    hashes: dict[str, str] = field(default_factory=dict)
    same: set[str] = field(default_factory=set)
    """The pages left where the previous site holds them (see :attr:`Staging.same`)."""
    warnings: dict[int, list[str]] = field(default_factory=dict)
    """Group index -> the warnings of its examples."""
    notes: dict[int, list[str]] = field(default_factory=dict)
    """Group index -> the warnings of its input schema."""
    pages: int = 0
    row_hits: dict[str, set[str]] = field(default_factory=dict)
    """The keys of the kept rows of the site-wide lists used (:attr:`Reused.row_hits`)."""
    used: set[str] = field(default_factory=set)
    """The cache keys this build needs (found or written)."""
    hits: int = 0
    chunk: int = 0
    sizes: dict[str, list[Placed]] = field(default_factory=dict)
    """Locale -> each twin copy of this chunk, in order."""
    fragments: dict[str, Fragment] = field(default_factory=dict)
    """Locale -> where this chunk's fragment is (:func:`_append`)."""


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
    tools: dict[str, str] = {}
    for group in groups:
        doc, tool = pages[group[0]].doc, pages[group[0]].tool
        linked = [] if doc is None or tool is None else _linked(site, pages[group[0]])
        known = site.snapshot.tool_key
        keys.append(None if cache is None or doc is None else page_key(cache.site, doc, linked, known))
        if tool is not None and keys[-1] is not None:
            tools[tool.name] = str(keys[-1])
    reused = None
    if cache is not None:
        last_rows = cache.rows()
        reused = Reused(cache, cache.index(), last_rows, RowMemo(tools, last_rows or {}))
    renderer.use_rows(reused.memo if reused is not None else None)
    return Job(Inputs(site, catalogs, renderer, deadline), Plan(pages, groups, keys), reused)


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
