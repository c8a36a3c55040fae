"""The build command: snapshot in, site out.

Wires the stages together and nothing else: obtain a snapshot (from a server or
a file), build the model, render every page, and publish.  Every stage runs to
completion before anything is written.
"""

from __future__ import annotations

import functools
import io
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from generator.commands.obtain import obtain_snapshot
from generator.commands.progress import Progress
from generator.config.portal import PortalConfig
from generator.errors import PortalError
from generator.forked import one_process_when
from generator.model.gather import gather
from generator.publish.assemble import (
    new_job,
    render_pages,
    staged_files,
    write_llms,
    write_manifest,
    write_site_wide,
)
from generator.publish.cache import PUBLISHED, RenderCache, cache_dir
from generator.publish.keys import site_key
from generator.publish.location import Protected, check_cache_apart, check_location, preflight
from generator.publish.staging import Staging
from generator.publish.trust import usable_cache
from generator.publish.write import publish
from generator.render.i18n import Catalog, catalog_warnings, load_catalog
from generator.render.renderer import Deadline, Renderer
from generator.resources import data_dir
from generator.snapshot.remembered import ToolMemory
from generator.snapshot.snapshot import Snapshot


@dataclass(frozen=True)
class BuildResult:
    out: Path
    files: int
    seconds: float
    snapshot: Snapshot
    warnings: tuple[str, ...]


def catalogs_for(config: PortalConfig) -> dict[str, Catalog]:
    extra = Path(config.template_dir) / "locales" if config.template_dir else None
    return {code: load_catalog(code, extra if extra and extra.is_dir() else None) for code in config.locales}


def template_dir_of(config: PortalConfig) -> Path | None:
    """The theme directory (``--templates``), which must exist when it is given."""
    if config.template_dir is None:
        return None
    template_dir = Path(config.template_dir)
    if not template_dir.is_dir():
        raise PortalError(f"The template directory {template_dir} does not exist. Fix `templates` or --templates.")
    return template_dir


def produce_site(
    snapshot: Snapshot,
    config: PortalConfig,
    staging: Staging,
    *,
    jobs: int = 1,
    progress: Progress | None = None,
    cache: RenderCache | None = None,
) -> list[str]:
    """Write every file of the site into *staging* as it is made; return the warnings.

    Pages are rendered by *jobs* worker processes (see :mod:`generator.publish.assemble`), and
    with a *cache* directory the pages of what did not change are reused
    (:mod:`generator.publish.cache`); the output is the same either way.
    """
    progress = progress or Progress(quiet=True, bars=False, stream=io.StringIO())
    deadline = Deadline(config.limits.max_render_seconds)
    with progress.stage("model", unit="tools") as advance:
        catalogs = catalogs_for(config)
        warnings = [
            f"locale {code}: {len(c.missing_keys)} UI string(s) missing, shown in English "
            f"({', '.join(c.missing_keys[:5])})"
            for code, c in catalogs.items()
            if c.missing_keys
        ]
        warnings += catalog_warnings(catalogs)  # theme catalog keys nobody knows (typos)
        gathered = gather(snapshot, config)
        warnings += gathered.warnings
        template_dir = template_dir_of(config)
        renderer = Renderer(template_dir)
        job = new_job(gathered.model, catalogs, renderer, deadline, cache)
        advance(len(gathered.model.tools))

    def meanwhile() -> None:  # what needs nothing the pages make: written while the workers render
        write_site_wide(job, staging)
        pieces = cache.snapshot_pieces() if cache is not None else None  # unchanged tools' text is copied
        staging.write_stream("snapshot.json", snapshot.json_pieces(pieces))
        if pieces is not None:
            pieces.close()
        if gathered.api is not None:
            staging.write(gathered.api.published_name, gathered.api.content)
        for asset in ("portal.css", "highlight.css", "portal.js"):
            # A template directory may override the shipped assets too, file by file.
            source = data_dir("templates") / "static" / asset
            if template_dir and (template_dir / "static" / asset).is_file():
                source = template_dir / "static" / asset
            staging.write(f"assets/{asset}", source.read_bytes())

    with progress.stage("render", total=len(job.pages), unit="pages") as advance:
        schema_notes, example_warnings = render_pages(job, staging, jobs, advance, meanwhile)
        write_llms(job, staging)
    warnings += schema_notes + example_warnings
    if config.search:
        from generator.publish.search import index_site

        with progress.stage("index", unit="pages") as advance:
            deadline.check("building the search index")
            reused = index_site(staging, cache)
            advance(len(job.pages))
        if reused:
            progress.note("index: no indexed page changed, so the previous site's search index was reused")
    write_manifest(staging, {"capability_version": snapshot.capability_version, "fingerprint": snapshot.fingerprint})
    return warnings


def site_files(
    snapshot: Snapshot, config: PortalConfig, *, jobs: int = 1, cache: Path | None = None
) -> tuple[dict[str, bytes], list[str]]:
    """Every file of the site as bytes, plus warnings: the build's own pipeline, read back from a temporary
    directory (for ``check`` and the tests, which compare bytes)."""
    cache, refused = usable_cache(cache)
    with tempfile.TemporaryDirectory(prefix="mcp-portal-site-") as tmp:
        staging = Staging(Path(tmp))
        renders = RenderCache(cache, site_key(snapshot, config)) if cache is not None else None
        try:
            warnings = produce_site(snapshot, config, staging, jobs=jobs, cache=renders)
        except BaseException:
            if renders is not None:
                renders.discard()
            raise
        if renders is not None:
            renders.commit()
        return staged_files(Path(tmp)), warnings + refused


def build(
    config: PortalConfig,
    *,
    from_file: Path | None = None,
    strict: bool = False,
    lenient: bool = False,
    introspect_warnings: list[str] | None = None,
    jobs: int = 1,
    progress: Progress | None = None,
    later: list[Callable[[], None]] | None = None,
    memory: ToolMemory | None = None,
) -> BuildResult:
    """Run the whole pipeline; the previous site stays untouched unless everything succeeds.

    *lenient* and *introspect_warnings* are passed to :func:`obtain_snapshot`; *jobs* is the
    number of render workers; *progress* reports each stage (on stderr). Given *later*, the work the
    published site does not wait for is appended to it, for the caller to run once it has reported the
    build (``build --watch``): removing what the site no longer needs (see :func:`publish`) and the
    render cache's bookkeeping (:meth:`RenderCache.commit`). Without it, that is done before returning.
    *memory* keeps the tools of the snapshot file read, for the next build of a watch.
    """
    started = time.perf_counter()
    progress = progress or Progress(quiet=True, bars=False, stream=io.StringIO())
    out = Path(config.out)
    preflight(out, build_inputs(config, from_file))  # a bad --out fails before the server is asked anything
    template_dir_of(config)  # a missing theme fails before the server is asked and the output is locked
    cache = cache_dir(config)
    if cache is not None:
        check_cache_apart(cache, out)
    cache, refused = usable_cache(cache)  # a cache someone else can write is not used: a warning says why
    with one_process_when(jobs <= 1):  # --jobs 1: one process, so no child either (generator.forked)
        snapshot: Snapshot | None = None
        renders: RenderCache | None = None

        def obtain() -> None:
            nonlocal snapshot, config, renders
            with progress.stage("connect" if from_file is None else "read", unit="tools") as advance:
                snapshot, config = obtain_snapshot(
                    config, from_file, lenient=lenient, introspect_warnings=introspect_warnings, memory=memory
                )
                advance(len(snapshot.tools))
            renders = RenderCache(cache, site_key(snapshot, config)) if cache is not None else None

        produced: dict[str, object] = {}

        def produce(staging: Staging) -> None:
            if snapshot is None:  # a snapshot file is read here, under the lock, while the old site is surveyed
                obtain()
                check_location(out, build_inputs(config, from_file))  # the demo's OpenAPI document is one too
            assert snapshot is not None
            warnings = produce_site(snapshot, config, staging, jobs=jobs, progress=progress, cache=renders)
            if strict and warnings:
                raise PortalError(
                    "The build has warnings and --strict turns them into failures: " + "; ".join(warnings) + "."
                )
            produced.update(warnings=warnings, files=len(staging.hashes), written=time.perf_counter())

        if from_file is None:
            obtain()  # a server is asked before the output is locked (its errors are not the output's)
        # Warnings about the output directory (files kept or replaced) come after the swap, so --strict ignores them.
        removed: list[Path] | None = [] if later is not None else None
        try:
            record = cache / PUBLISHED if cache is not None else None
            kept = publish(out, produce, protected=build_inputs(config, from_file), record=record, later=removed)
        except BaseException:
            if renders is not None:
                renders.discard()  # a failed build leaves the cache as it found it
            raise
        finally:
            if later is not None and removed:  # a failed swap may leave one too
                later.extend(functools.partial(shutil.rmtree, path, ignore_errors=True) for path in removed)
        assert snapshot is not None
        if renders is not None:
            if later is not None:
                later.append(renders.commit)
            else:
                renders.commit()
        files = int(str(produced["files"]))
        progress.report("publish", files, "files", time.perf_counter() - float(str(produced["written"])))
        warnings = [*list(produced["warnings"]), *kept, *refused]  # type: ignore[call-overload]
        return BuildResult(out, files, time.perf_counter() - started, snapshot, tuple(warnings))


def build_inputs(config: PortalConfig, from_file: Path | None) -> Protected:
    """The files and directories a build reads: ``--out`` may neither hold them nor lie inside them."""
    config_file = Path(config.source) if config.source != "defaults" else None
    previous = Path(config.previous) if config.previous else None
    if previous is not None and previous.is_dir():
        previous = previous / "snapshot.json"  # a built site: only its snapshot is read
    named = (
        ("the config file", config_file),
        ("the snapshot given with --from", from_file),
        ("the template directory", Path(config.template_dir) if config.template_dir else None),
        ("the overlays directory", Path(config.overlays_dir) if config.overlays_dir else None),
        ("the translations directory", Path(config.translations_dir) if config.translations_dir else None),
        ("the OpenAPI document", Path(config.openapi) if config.openapi else None),
        ("the previous snapshot", previous),
    )
    return [(label, path) for label, path in named if path is not None]
