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
from pathlib import Path

from generator import __version__
from generator.cache.pages import CachedGroup, Chunk, Pages, RenderedPage
from generator.forked import in_workers
from generator.model.gather import schema_warnings
from generator.publish.location import MANIFEST, manifest_of
from generator.publish.staging import Staging
from generator.render.renderer import find_examples, render_page, site_wide_files
from generator.site.job import PART_TOKENS, Advance, Job
from generator.site.llms_full import write_full


def _render_group(job: Job, indexes: Sequence[int]) -> CachedGroup:
    """Render one documented thing's pages in every locale (its examples are found once)."""
    first = job.plan.pages[indexes[0]]
    warnings = find_examples(job.inputs.site, job.inputs.deadline, tools=[first.tool]) if first.tool is not None else []
    notes = schema_warnings(first.tool) if first.tool is not None else []
    pages = []
    for index in indexes:
        page = job.plan.pages[index]
        job.inputs.deadline.check(f"rendering {page.html_path}")
        html, md, full = render_page(job.inputs.site, page, job.inputs.catalogs, job.inputs.renderer)
        pages.append(RenderedPage(page.html_path, html, page.md_path, md, full))
    return CachedGroup(tuple(pages), tuple(warnings), tuple(notes))


def _deal(groups: int, jobs: int) -> list[list[int]]:
    """Chunks of group indexes: about four per worker (at most 16 groups each), so the workers stay
    balanced and the progress bar moves."""
    order = list(range(groups))
    if jobs <= 1:
        return [order]
    size = max(1, min(16, groups // (jobs * 4)))
    return [order[i : i + size] for i in range(0, groups, size)]


def render_pages(
    job: Job, staging: Staging, jobs: int, advance: Advance, meanwhile: Callable[[], None] | None = None
) -> tuple[list[str], list[str]]:
    """Render every page into *staging*, and each locale's ``llms-full.txt``; return the warnings of
    the tools' input schemas, then those of their examples (each in the site's page order).

    *meanwhile* writes what needs nothing the pages make (into *staging*, never a page's path): it
    runs in this process while the workers render, or after the pages when they are rendered here.
    """
    with tempfile.TemporaryDirectory(prefix="mcp-portal-llms-") as tmp:
        pages, chunks = _render_all(job, staging, Path(tmp), jobs, advance, meanwhile)
        job.parts, files = write_full(staging, pages, chunks, pages.shared, PART_TOKENS)
    return pages.finish(chunks, files)


def _render_all(
    job: Job, staging: Staging, tmp: Path, jobs: int, advance: Advance, meanwhile: Callable[[], None] | None
) -> tuple[Pages, list[Chunk]]:
    """Every group's pages, in *jobs* worker processes (:func:`generator.forked.in_workers`) or in this one,
    in the order of the groups. *jobs* is taken as given: the commands cap ``--jobs`` at the CPUs."""
    results: list[Chunk] = []
    fork = "fork" in multiprocessing.get_all_start_methods()
    chunks = _deal(len(job.plan.groups), jobs if fork else 1)
    shared = {code: text.encode("utf-8") for code, text in job.shared.items()}
    plan = (job.plan.pages, job.plan.groups, job.plan.keys)
    pages = Pages(job.reuse, staging, plan, shared, functools.partial(_render_group, job), tmp)

    def took(result: Chunk) -> None:
        results.append(result)
        advance(result.pages)

    try:
        if jobs <= 1 or not fork or len(chunks) <= 1:
            took(pages.chunk(list(range(len(job.plan.groups))), 0))
            if meanwhile is not None:
                meanwhile()
        else:
            job.inputs.renderer.preload(job.plan.pages)  # compiled once here, not once per worker
            for catalog in job.inputs.catalogs.values():
                catalog.preload()  # CLDR data loaded once here too: the site-wide pages need it anyway
            in_workers(pages.chunk, chunks, jobs, took, meanwhile)
    finally:
        pages.close()
    return pages, sorted(results, key=lambda result: result.chunk)


def write_site_wide(job: Job, staging: Staging) -> None:
    """The files made from the whole site rather than one page, except ``llms.txt`` (:func:`write_llms`):
    the entry page, the 404 pages, ``nav.js``, the sitemap and the hosting files. They need nothing
    the workers make, so :func:`render_pages` can write them while the workers render."""
    job.inputs.deadline.check("rendering the entry page and the 404 pages")
    for path, text in site_wide_files(job.inputs.site, job.inputs.catalogs, job.inputs.renderer, llms=False).items():
        staging.write(path, text.encode("utf-8"))


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
