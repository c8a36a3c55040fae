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
import hashlib
import io
import multiprocessing
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import BinaryIO

from generator import __version__
from generator.cache.reuse import (
    CachedGroup,
    Copies,
    Made,
    PageHashes,
    PagesRecord,
    PreviousCopies,
    RenderedPage,
    SiteIndex,
    Span,
    layout,
)
from generator.errors import PortalError
from generator.forked import in_workers
from generator.model.gather import schema_warnings
from generator.model.pages import Page
from generator.publish.location import MANIFEST, manifest_of
from generator.publish.staging import Ranges, Staging
from generator.render.renderer import find_examples, render_page, site_wide_files
from generator.site.job import PART_TOKENS, Advance, Fragment, Job, Placed, Rendered
from generator.site.llms_full import FullPart, estimate_tokens, split_full, without_shared


def _render_groups(job: Job, group_indexes: list[int], chunk: int) -> Rendered:
    """Render and write the pages of some consecutive groups (in a worker, or in this process).

    The copies for ``llms-full.txt`` of the twins it rendered or found in the cache are appended to this
    process's file of each locale in :attr:`Job.fragments`, so neither the worker nor the parent holds them
    all in memory; a copy the previous site's ``llms-full.txt`` holds is only named by where it sits there.
    """
    if job.staging is None:
        raise RuntimeError("the render job has no staging directory")
    staging = job.staging.fresh()
    result = Rendered(hashes=staging.hashes, same=staging.same, chunk=chunk)
    copies: dict[str, list[bytes]] = {code: [] for code in job.inputs.site.locales}
    result.sizes = {code: [] for code in job.inputs.site.locales}
    reused = job.reused
    index = reused.index if reused is not None and staging.lazy else None
    previous = PreviousCopies(staging.previous, staging.unchanged, index.copies if index else {})
    for group in group_indexes:
        cut = _one_group(job, staging, previous, index, group, result)
        for i, (copy, twin) in zip(job.plan.groups[group], cut, strict=True):
            locale = job.plan.pages[i].locale
            if isinstance(copy, Span):  # where the previous llms-full.txt holds it: the parent copies it
                result.sizes[locale].append(Placed(i, copy.size, twin, copy.offset))
            else:
                copies[locale].append(copy)
                result.sizes[locale].append(Placed(i, len(copy), twin, None))
            result.pages += 1
    for code, parts in copies.items():
        result.fragments[code] = _append(job, code, b"\n".join(parts))
    if reused is not None:
        made, hits = reused.memo.drain()
        if made:
            reused.cache.write_rows_part(made, chunk)  # to the store: a worker's rows never cross the pipe
        result.row_hits = hits
    return result


def _one_group(
    job: Job, staging: Staging, previous: PreviousCopies, index: SiteIndex | None, group: int, result: Rendered
) -> list[tuple[bytes | Span, str]]:
    """Write one group's pages: left in place, taken from the cache, or rendered (and cached); record its
    warnings in *result*, and return each twin's copy for ``llms-full.txt`` (or where the previous one
    holds it) with the twin's sha256."""
    key, cache = job.plan.keys[group], job.reused.cache if job.reused is not None else None
    indexes = job.plan.groups[group]
    summary = index.groups.get(key) if index is not None and key is not None else None
    in_place = _left_in_place(job, staging, previous, summary, indexes) if summary is not None else None
    paths = [job.plan.pages[i].html_path for i in indexes]
    recorded = cache.pages(key, paths) if cache is not None and key and in_place is None else None
    if key is not None:
        result.used.add(key)
    if in_place is not None and summary is not None:
        result.hits += 1
        result.warnings[group], result.notes[group] = list(summary.warnings), list(summary.notes)
        return in_place
    if recorded is not None and _write_recorded(staging, recorded):
        result.hits += 1
        result.warnings[group], result.notes[group] = list(recorded.warnings), list(recorded.notes)
        fulls = [(page.full, page.full_sha256) for page in recorded.pages]
    else:
        rendered = _render_group(job, indexes)
        if cache is not None and key is not None:
            cache.write_pages(key, rendered)
        for page in rendered.pages:
            # A damaged record may have written some pages before a blob failed its hash: those
            # came from checked bytes, and rendering gives the same ones.
            for path, text in ((page.html_path, page.html), (page.md_path, page.md)):
                if path not in staging.hashes:
                    staging.write(path, text.encode("utf-8"))
        result.warnings[group], result.notes[group] = list(rendered.warnings), list(rendered.notes)
        encoded = [page.full.encode("utf-8") for page in rendered.pages]
        fulls = [(full, hashlib.sha256(full).hexdigest()) for full in encoded]
    shared = {code: text.encode("utf-8") for code, text in job.full.shared.items()}
    return [
        (without_shared(full, shared.get(job.plan.pages[i].locale)), twin)
        for i, (full, twin) in zip(indexes, fulls, strict=True)
    ]


def _write_recorded(staging: Staging, recorded: PagesRecord) -> bool:
    """Write a ``pages`` record's pages (hard links where the previous site has them); False when a blob
    it had to read failed its hash, so the pages must be rendered after all."""
    for page in recorded.pages:
        for path, blob in ((page.html_path, page.html), (page.md_path, page.md)):
            if not staging.write_known(path, blob.sha256, functools.partial(recorded.read, blob)):
                return False
    return True


def _left_in_place(
    job: Job, staging: Staging, previous: PreviousCopies, made: Made, indexes: Sequence[int]
) -> list[tuple[bytes | Span, str]] | None:
    """A cache hit that needs no ``pages`` record: when the previous site holds every page and twin of the group
    with the hashes the index gives, and its ``llms-full.txt`` files every copy, the pages are left
    where they are and where each copy sits in those files is returned (offset, size: the parent copies
    the bytes from there), each with its twin's sha256. None, and nothing noted, when any of it is not so."""
    pages = [job.plan.pages[i] for i in indexes]
    if list(made.paths) != [page.html_path for page in pages]:
        return None
    unchanged = staging.unchanged
    if not all(
        unchanged.get(page.html_path) == hashes.html and unchanged.get(page.md_path) == hashes.md
        for page, hashes in zip(pages, made.pages, strict=True)
    ):
        return None
    found = [previous.where(page.locale, hashes.twin) for page, hashes in zip(pages, made.pages, strict=True)]
    copies = [where for where in found if where is not None]
    if len(copies) != len(found):
        return None
    for page, hashes in zip(pages, made.pages, strict=True):
        staging.write_known(page.html_path, hashes.html, _unread)
        staging.write_known(page.md_path, hashes.md, _unread)
    return [(where, hashes.twin) for where, hashes in zip(copies, made.pages, strict=True)]


def _unread() -> bytes | None:
    """The loader of a page left in the previous site: never called (a lazy staging notes it as the same)."""
    return None


def _append(job: Job, locale: str, data: bytes) -> Fragment:
    """Append one chunk's copies of *locale* to this process's fragment file of that locale.

    One file per process and locale, kept open: creating a file costs about 0.9 ms on the disks
    measured (docs/performance.md), and a 5,000-tool build has 313 chunks in three locales.
    """
    if job.full.fragments is None:
        raise RuntimeError("the render job has no directory for the llms-full.txt copies")
    name = f"{os.getpid()}.{locale}"
    handle = job.full.appending.get(name)
    if handle is None:
        handle = job.full.appending[name] = io.FileIO(job.full.fragments / name, "ab")
    start = handle.tell()
    view = memoryview(data)
    while view:
        view = view[handle.write(view) or 0 :]
    return Fragment(name, start, len(data))


def _close_appending(job: Job) -> None:
    """Close this process's fragment files (the workers' close as they exit)."""
    for handle in job.full.appending.values():
        handle.close()
    job.full.appending.clear()


def _fragment(ranges: Ranges, root: Path, span: Fragment) -> bytes:
    """A chunk's fragment of one locale, read back from the process's file it was appended to."""
    data = ranges.read(root / span.name, span.start, span.size)
    if data is None:
        raise RuntimeError(
            f"a fragment of llms-full.txt ({span.size} bytes at {span.start} in {span.name}) cannot be read back"
        )
    return data


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
    job.staging = staging
    job.full.shared = {
        code: job.inputs.renderer.twin_pointer(job.inputs.site, job.inputs.catalogs, code)
        for code in job.inputs.site.locales
    }
    with tempfile.TemporaryDirectory(prefix="mcp-portal-llms-") as tmp:
        job.full.fragments = Path(tmp)
        try:
            results = _render_all(job, jobs, advance, meanwhile)
        finally:
            _close_appending(job)
        sizes = {result.chunk: result.sizes for result in results}
        located = _write_full(job, staging, sizes, {result.chunk: result.fragments for result in results})
        job.full.fragments = None
    warnings, notes = _gather(job, staging, results)
    if job.reused is not None:
        index = functools.partial(_index, job, staging, sizes, warnings, notes, located)
        job.reused.cache.write_index(job.reused.index, index)
    return [n for group in sorted(notes) for n in notes[group]], [
        w for group in sorted(warnings) for w in warnings[group]
    ]


def _render_all(job: Job, jobs: int, advance: Advance, meanwhile: Callable[[], None] | None) -> list[Rendered]:
    """Every group's pages, in *jobs* worker processes (:func:`generator.forked.in_workers`) or in this one.
    *jobs* is taken as given: the commands cap ``--jobs`` at the CPUs (:func:`generator.forked.usable_jobs`)."""
    results: list[Rendered] = []
    fork = "fork" in multiprocessing.get_all_start_methods()
    chunks = _deal(len(job.plan.groups), jobs if fork else 1)
    job.full.chunks = len(chunks)
    if jobs <= 1 or not fork or len(chunks) <= 1:
        job.full.chunks = 1
        results.append(_render_groups(job, list(range(len(job.plan.groups))), 0))
        advance(results[-1].pages)
        if meanwhile is not None:
            meanwhile()
        return results
    job.inputs.renderer.preload(job.plan.pages)  # compiled once here, not once per worker
    for catalog in job.inputs.catalogs.values():
        catalog.preload()  # CLDR data loaded once here too: the site-wide pages need it anyway

    def took(result: Rendered) -> None:
        results.append(result)
        advance(result.pages)

    in_workers(functools.partial(_render_groups, job), chunks, jobs, took, meanwhile)
    return results


def _write_full(job: Job, staging: Staging, sizes: Sizes, spans: dict[int, dict[str, Fragment]]) -> dict[str, Copies]:
    """Each locale's ``llms-full.txt`` from the chunks' fragments (split in parts when large); return where
    each copy sits in each file, for the next build (:class:`generator.cache.reuse.SiteIndex`)."""
    assert job.full.fragments is not None
    root, fragments = job.full.fragments, Ranges()

    def fragments_of(code: str) -> Iterator[bytes]:  # each chunk's fragment of the locale, in order
        return (_fragment(fragments, root, spans[i][code]) for i in range(job.full.chunks))

    located: dict[str, Copies] = {}
    for code in job.inputs.site.locales:
        # Every twin of the locale in the site's page order: the chunks hold consecutive groups.
        path = f"{code}/llms-full.txt"
        head = job.full.shared[code].encode("utf-8") + b"\n" if job.full.shared.get(code) else b""
        source = staging.previous / code / "llms-full.txt" if staging.previous is not None else None
        size = staging.write_ranges(path, _full_pieces(code, sizes, head, fragments_of(code)), source)
        at, end = layout(head, ([(p.size, p.twin) for p in sizes[i][code]] for i in range(job.full.chunks)))
        if end == size:
            located[code] = Copies(staging.hashes[path], at)
        job.full.parts[code] = _split_full(job, staging, code, sizes)
    fragments.close()
    return located


def _gather(job: Job, staging: Staging, results: list[Rendered]) -> tuple[dict[int, list[str]], dict[int, list[str]]]:
    """Fold what each chunk sent back into *staging* and *job*; the warnings and the notes, by group."""
    warnings: dict[int, list[str]] = {}
    notes: dict[int, list[str]] = {}
    used: set[str] = set()
    row_hits: dict[str, set[str]] = job.reused.row_hits if job.reused is not None else {}
    hits = 0
    for result in results:
        if twice := sorted(staging.hashes.keys() & result.hashes.keys()):  # what meanwhile wrote, and a worker
            raise PortalError(f"Refusing to write {twice[0]!r} twice in one build (two pages claim the same path).")
        staging.hashes.update(result.hashes)
        staging.same |= result.same
        warnings.update(result.warnings)
        notes.update(result.notes)
        used |= result.used
        hits += result.hits
        for where, keys in result.row_hits.items():  # the kept rows a worker used
            row_hits.setdefault(where, set()).update(keys)
    if job.reused is not None:
        job.reused.cache.used |= used
        job.reused.hits += hits
    return warnings, notes


def _index(
    job: Job,
    staging: Staging,
    sizes: Sizes,
    warnings: Mapping[int, list[str]],
    notes: Mapping[int, list[str]],
    located: dict[str, Copies],
) -> SiteIndex:
    """The ``index`` record of this build: what each ``pages`` record's pages are, and where the copies sit."""
    twins = {p.page: p.twin for chunk in sizes.values() for located in chunk.values() for p in located}
    groups: dict[str, Made] = {}
    for group, key in enumerate(job.plan.keys):
        pages = [job.plan.pages[i] for i in job.plan.groups[group]]
        if key is None or any(p.html_path not in staging.hashes or p.md_path not in staging.hashes for p in pages):
            continue
        three = tuple(
            PageHashes(staging.hashes[p.html_path], staging.hashes[p.md_path], twins[i])
            for p, i in zip(pages, job.plan.groups[group], strict=True)
        )
        made = Made(tuple(p.html_path for p in pages), three, tuple(warnings[group]), tuple(notes[group]))
        groups[key] = made
    return SiteIndex(groups, located)


Sizes = Mapping[int, Mapping[str, list[Placed]]]
"""Chunk -> :attr:`Rendered.sizes`."""


def _full_pieces(code: str, sizes: Sizes, head: bytes, fragments: Iterable[bytes]) -> Iterator[bytes | tuple[int, int]]:
    """*code*'s ``llms-full.txt`` in pieces, as :func:`~generator.cache.reuse.layout` lays it out:
    *head*, then each chunk's copies joined by newlines, all joined by newlines. A copy a worker rendered
    is its bytes from the chunk's fragment (*fragments*, one per chunk, in order); a copy the previous
    file holds is where it sits there, (offset, size), for :meth:`Staging.write_ranges` to copy."""
    items = 0
    if head:
        yield head
        items = 1
    for chunk, data in enumerate(fragments):
        if items:
            yield b"\n"
        items += 1
        at = 0
        for n, placed in enumerate(sizes.get(chunk, {}).get(code, [])):
            if n:
                yield b"\n"
            if placed.previous is None:
                yield data[at : at + placed.size]
                at += placed.size + 1  # the "\n" between the fragment's copies
            else:
                yield placed.previous, placed.size


def _copies(job: Job, code: str, sizes: Sizes, handle: BinaryIO, head: int) -> Iterator[tuple[Page, bytes, str]]:
    """Each twin copy of *code* as (page, its bytes, the twin's sha256), in page order, read in turn from the
    locale's ``llms-full.txt`` as written (*handle*), whose first *head* bytes are the head: only the copies
    of the part being joined are in memory."""
    handle.seek(head)
    items = 1 if head else 0
    for chunk in range(job.full.chunks):
        handle.seek(1 if items else 0, os.SEEK_CUR)  # the newline before every chunk's fragment but the first
        items += 1
        for n, placed in enumerate(sizes.get(chunk, {}).get(code, [])):
            handle.seek(1 if n else 0, os.SEEK_CUR)
            yield job.plan.pages[placed.page], handle.read(placed.size), placed.twin


def _split_full(job: Job, staging: Staging, code: str, sizes: Sizes) -> list[FullPart]:
    """Write *code*'s ``llms-full.txt`` again as parts under :data:`PART_TOKENS`, when it is over it; the
    copies are read from the file just written."""
    head = job.full.shared[code].encode("utf-8") + b"\n" if job.full.shared.get(code) else b""
    total = len(head) + sum(p.size + 1 for chunk in sizes.values() for p in chunk.get(code, []))
    if estimate_tokens(total) <= PART_TOKENS:
        return []
    with open(staging.location(f"{code}/llms-full.txt"), "rb") as handle:
        return split_full(staging, code, head, _copies(job, code, sizes, handle, len(head)), PART_TOKENS)


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
    parts = job.full.parts if any(job.full.parts.values()) else None
    files = {"llms.txt": renderer.llms(site, catalogs, None, parts, PART_TOKENS)}
    for code in site.locales:
        files[f"{code}/llms.txt"] = renderer.llms(site, catalogs, code, parts, PART_TOKENS)
    for path, text in files.items():
        staging.write(path, text.encode("utf-8"))
    reused = job.reused
    if reused is not None:
        made, hits = reused.memo.drain()  # the rows of llms.txt: this process's own
        for where, keys in hits.items():
            reused.row_hits.setdefault(where, set()).update(keys)
        reused.cache.write_rows(reused.last_rows, made, reused.row_hits)


def write_manifest(staging: Staging, meta: Mapping[str, str]) -> None:
    """``manifest.json`` from the hashes taken as every file was written."""
    staging.write(MANIFEST, manifest_of(staging.hashes, {**meta, "generator": f"mcp-portal {__version__}"}))


def staged_files(root: Path) -> dict[str, bytes]:
    """Every file under *root*, by site path (for ``check`` and the tests, which compare bytes)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
