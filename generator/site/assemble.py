"""Assembling a site: every page rendered (in worker processes), written as it is made, indexed, listed.

A build never holds the whole site in memory. Pages are grouped by what they document (a
tool's pages in every locale form one group, so its examples are found once), the groups are
dealt round-robin to ``jobs`` worker processes, and each worker writes its files straight into
the staging directory and sends back only their hashes and the twins' copies for
``llms-full.txt``. The parent then writes the files made from the whole site, runs Pagefind over
the staging directory itself, and writes ``manifest.json`` from the hashes. Every page is a
pure function of the model, so the output is byte-identical whatever ``jobs`` is.

Workers are forked (Linux): they inherit the model, the catalogs and the templates, so nothing
large is pickled. Where ``fork`` is not available, or with ``jobs=1``, the pages are rendered in
this process. There are never more workers than CPUs this process may use, and each dies with
the build (:func:`~generator.forked.die_with_parent`): a build killed by any signal leaves none
behind. A worker killed meanwhile (the kernel's out-of-memory killer) fails the build with one
paragraph that names the signal (:func:`~generator.forked.in_workers`).
"""

from __future__ import annotations

import functools
import multiprocessing
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from generator import __version__
from generator.cache.pages import Pages
from generator.errors import PortalError
from generator.forked import in_workers
from generator.model.gather import schema_warnings
from generator.publish.location import MANIFEST, manifest_of
from generator.publish.staging import Staging
from generator.render.names import names_script, parameter_names
from generator.render.rendered import RenderedGroup
from generator.render.renderer import find_examples, render_page, site_wide_files
from generator.site.job import PART_TOKENS, Advance, Chunk, Job
from generator.site.llms_full import Fragments, write_full


def _render_group(job: Job, group: int) -> RenderedGroup:
    """Render one documented thing's pages in every locale (its examples are found once)."""
    indexes = job.plan.groups[group]
    first = job.plan.pages[indexes[0]]
    warnings = find_examples(job.inputs.site, job.inputs.deadline, tools=[first.tool]) if first.tool is not None else []
    notes = schema_warnings(first.tool) if first.tool is not None else []
    pages = []
    for index in indexes:
        page = job.plan.pages[index]
        job.inputs.deadline.check(f"rendering {page.html_path}")
        pages.append(render_page(job.inputs.site, page, job.inputs.catalogs, job.inputs.renderer))
    parameters = parameter_names(first.tool) if first.tool is not None else ()
    return RenderedGroup(tuple(pages), tuple(warnings), tuple(notes), parameters)


def _deal(groups: int, jobs: int) -> list[list[int]]:
    """Chunks of group indexes: about four per worker (at most 16 groups each), so the workers stay
    balanced and the progress bar moves."""
    order = list(range(groups))
    if jobs <= 1:
        return [order]
    size = max(1, min(16, groups // (jobs * 4)))
    return [order[i : i + size] for i in range(0, groups, size)]


@dataclass(frozen=True)
class Rendered:
    """What rendering the pages found besides the pages: warnings in the site's page order, and each tool's
    parameter names (by the tool's slug) for the name index (:func:`write_names`)."""

    notes: list[str]
    """The warnings of the tools' input schemas."""
    warnings: list[str]
    """The warnings of their examples."""
    parameters: dict[str, tuple[str, ...]]


def render_pages(
    job: Job, staging: Staging, jobs: int, advance: Advance, meanwhile: Callable[[], None] | None = None
) -> Rendered:
    """Render every page into *staging*, and each locale's ``llms-full.txt``.

    *meanwhile* writes what needs nothing the pages make (into *staging*, never a page's path): it
    runs in this process while the workers render, or after the pages when they are rendered here.
    """
    shared = {code: text.encode("utf-8") for code, text in job.shared.items()}
    # Scratch in the staging directory, not the system's: a build killed midway leaves it there, for the next
    # build to clear with the rest; a build that goes on removes it before the site is placed.
    with tempfile.TemporaryDirectory(prefix=".llms-full-", dir=staging.root) as tmp:
        fragments = Fragments(Path(tmp), shared)
        try:
            chunks = _render_all(job, staging, fragments, jobs, advance, meanwhile)
        finally:
            fragments.close()
        job.parts = write_full(staging, job.plan.pages, fragments, [c.copies for c in chunks], PART_TOKENS)
    warnings: dict[int, tuple[str, ...]] = {}
    notes: dict[int, tuple[str, ...]] = {}
    parameters: dict[str, tuple[str, ...]] = {}
    for chunk in chunks:
        if twice := sorted(staging.hashes.keys() & chunk.hashes.keys()):  # meanwhile's, and a worker's
            raise PortalError(f"Refusing to write {twice[0]!r} twice in one build (two pages claim the same path).")
        staging.hashes.update(chunk.hashes)
        staging.same |= chunk.same
        warnings.update(chunk.warnings)
        notes.update(chunk.notes)
        for group, names in chunk.parameters.items():
            if (tool := job.plan.pages[job.plan.groups[group][0]].tool) is not None:
                parameters[tool.slug] = names
    return Rendered(
        [n for g in sorted(notes) for n in notes[g]], [w for g in sorted(warnings) for w in warnings[g]], parameters
    )


def _chunk(job: Job, pages: Pages, staging: Staging, fragments: Fragments, groups: Sequence[int], n: int) -> Chunk:
    """Write the pages of some consecutive *groups* (chunk *n*), in a worker or in this process."""
    site = staging.fresh()
    result = Chunk(n, site.hashes, site.same)
    copies: list[tuple[int, str, bytes]] = []
    for group in groups:
        indexes = job.plan.groups[group]
        written = pages.write(site, group, [job.plan.pages[i] for i in indexes])
        result.warnings[group], result.notes[group] = written.warnings, written.notes
        result.parameters[group] = written.parameters
        copies += [(i, job.plan.pages[i].locale, copy) for i, copy in zip(indexes, written.copies, strict=True)]
    result.pages = len(copies)
    result.copies = fragments.add(copies)
    return result


def _render_all(
    job: Job,
    staging: Staging,
    fragments: Fragments,
    jobs: int,
    advance: Advance,
    meanwhile: Callable[[], None] | None,
) -> list[Chunk]:
    """Every group's pages, in *jobs* worker processes (:func:`generator.forked.in_workers`) or in this one,
    in the order of the groups. *jobs* is taken as given: the commands cap ``--jobs`` at the CPUs."""
    results: list[Chunk] = []
    fork = "fork" in multiprocessing.get_all_start_methods()
    chunks = _deal(len(job.plan.groups), jobs if fork else 1)
    pages = Pages(job.reuse, job.plan.keys, functools.partial(_render_group, job))
    chunk = functools.partial(_chunk, job, pages, staging, fragments)

    def took(result: Chunk) -> None:
        results.append(result)
        advance(result.pages)

    if jobs <= 1 or not fork or len(chunks) <= 1:
        took(chunk(list(range(len(job.plan.groups))), 0))
        if meanwhile is not None:
            meanwhile()
    else:
        job.inputs.renderer.preload(job.plan.pages)  # compiled once here, not once per worker
        for catalog in job.inputs.catalogs.values():
            catalog.preload()  # CLDR data loaded once here too: the site-wide pages need it anyway
        in_workers(chunk, chunks, jobs, took, meanwhile)
    return sorted(results, key=lambda result: result.chunk)


def write_site_wide(job: Job, staging: Staging) -> None:
    """The files made from the whole site rather than one page, except ``llms.txt`` (:func:`write_llms`)
    and ``names.js`` (:func:`write_names`): the entry page, the 404 pages, ``nav.js``, the sitemap and the
    hosting files. They need nothing the workers make, so :func:`render_pages` can write them while the
    workers render."""
    job.inputs.deadline.check("rendering the entry page and the 404 pages")
    inputs = job.inputs
    for path, text in site_wide_files(inputs.site, inputs.catalogs, inputs.renderer, llms=False, names=False).items():
        staging.write(path, text.encode("utf-8"))


def write_names(job: Job, staging: Staging, parameters: Mapping[str, tuple[str, ...]]) -> None:
    """Every ``names.js``, once the pages are rendered: the tools' parameter names come with their pages
    (*parameters*), so a rebuild that copies pages does not flatten every schema again for them."""
    for code in job.inputs.site.locales:
        text = names_script(job.inputs.site, job.inputs.catalogs[code], parameters)
        staging.write(f"{code}/names.js", text.encode("utf-8"))


def write_llms(job: Job, staging: Staging) -> None:
    """Every ``llms.txt``, once the pages are rendered: a split ``llms-full.txt``'s parts are listed."""
    job.inputs.deadline.check("rendering llms.txt")
    site, catalogs, renderer = job.inputs.site, job.inputs.catalogs, job.inputs.renderer
    parts = job.parts if any(job.parts.values()) else None
    files = {"llms.txt": renderer.llms(site, catalogs, None, parts, PART_TOKENS)}
    for code in site.locales:
        files[f"{code}/llms.txt"] = renderer.llms(site, catalogs, code, parts, PART_TOKENS)
    for path, text in files.items():
        staging.write(path, text.encode("utf-8"))


def write_manifest(staging: Staging, meta: Mapping[str, str]) -> None:
    """``manifest.json`` from the hashes taken as every file was written."""
    staging.write(MANIFEST, manifest_of(staging.hashes, {**meta, "generator": f"mcp-portal {__version__}"}))


def staged_files(root: Path) -> dict[str, bytes]:
    """Every file under *root*, by site path (for ``check`` and the tests, which compare bytes)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
