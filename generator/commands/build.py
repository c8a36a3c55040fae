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

from generator.cache.keys import site_key
from generator.cache.reuse import Published, Reuse, ThemeRenderer, Warm
from generator.cache.trust import usable_cache
from generator.commands.obtain import obtain_snapshot
from generator.commands.progress import Progress
from generator.config.portal import PortalConfig
from generator.errors import PortalError, UsageError
from generator.history.timeline import History
from generator.model.gather import gather
from generator.model.site import SiteModel
from generator.publish.location import Protected, check_cache_apart, check_location, preflight
from generator.publish.staging import Staging
from generator.publish.versioned import check_layout
from generator.publish.write import publish
from generator.render.i18n import Catalog, catalog_warnings, load_catalog
from generator.render.renderer import Deadline, Renderer
from generator.resources import data_dir
from generator.site.assemble import (
    render_pages,
    staged_files,
    write_llms,
    write_manifest,
    write_names,
    write_site_wide,
)
from generator.site.job import new_job
from generator.snapshot.snapshot import Snapshot


@dataclass(frozen=True)
class BuildResult:
    out: Path
    files: int
    seconds: float
    snapshot: Snapshot
    warnings: tuple[str, ...]
    version: str | None = None
    """The version a versioned build published (``OUT/<version>/``); None for any other build."""


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
    cache: Reuse | None = None,
    renderer: ThemeRenderer | None = None,
) -> list[str]:
    """Write every file of the site into *staging* as it is made; return the warnings.

    Pages are rendered by *jobs* worker processes (see :mod:`generator.site.assemble`), and
    with a *cache* directory the pages of what did not change are reused
    (:mod:`generator.cache.reuse`); the output is the same either way. A *renderer* kept from an earlier
    build (a watch's, a test suite's) has its templates compiled already; else each build compiles its own.
    """
    return produce(snapshot, config, staging, jobs=jobs, progress=progress, cache=cache, renderer=renderer).warnings


@dataclass(frozen=True)
class Produced:
    """What :func:`produce` wrote a site with: its warnings, its model, the UI catalogs and the renderer."""

    warnings: list[str]
    model: SiteModel
    catalogs: dict[str, Catalog]
    renderer: Renderer


def produce(
    snapshot: Snapshot,
    config: PortalConfig,
    staging: Staging,
    *,
    jobs: int = 1,
    progress: Progress | None = None,
    cache: Reuse | None = None,
    renderer: ThemeRenderer | None = None,
    history: History | None = None,
) -> Produced:
    """:func:`produce_site`, also returning what the site was made with; with *history*, the site is one
    version of a versioned site (:mod:`generator.history`): its switcher, timelines and release history."""
    progress = progress or Progress(quiet=True, bars=False, stream=io.StringIO())
    deadline = Deadline(config.limits.max_render_seconds)
    with progress.stage("model", unit="tools") as advance:
        catalogs = catalogs_for(config)
        warnings = _catalog_problems(catalogs)
        gathered = gather(snapshot, config, history)
        warnings += [*gathered.warnings, *gathered.model.try_it_warnings()]
        template_dir = template_dir_of(config)
        job = new_job(gathered.model, catalogs, (renderer or ThemeRenderer()).for_theme(template_dir), deadline, cache)
        advance(len(gathered.model.tools))

    def meanwhile() -> None:  # what needs nothing the pages make: written while the workers render
        write_site_wide(job, staging)
        staging.write_stream("snapshot.json", snapshot.json_pieces())
        if gathered.api is not None:
            staging.write(gathered.api.published_name, gathered.api.content)
        panels = bool(gathered.model.try_it_panels)
        _write_assets(staging, template_dir, try_it=panels, search=config.search, versions=history is not None)

    with progress.stage("render", total=len(job.plan.pages), unit="pages") as advance:
        rendered = render_pages(job, staging, jobs, advance, meanwhile)
        write_llms(job, staging)
        write_names(job, staging, rendered.parameters)
    warnings += rendered.notes + rendered.warnings
    if config.search:
        from generator.site.search import index_site

        with progress.stage("index", unit="pages") as advance:
            deadline.check("building the search index")
            reused = index_site(staging, cache)
            advance(len(job.plan.pages))
        if reused:
            progress.note("index: no indexed page changed, so the previous site's search index was reused")
    write_manifest(staging, {"capability_version": snapshot.capability_version, "fingerprint": snapshot.fingerprint})
    return Produced(warnings, gathered.model, catalogs, job.inputs.renderer)


def _catalog_problems(catalogs: dict[str, Catalog]) -> list[str]:
    """Warnings about the UI catalogs: strings a locale lacks, and theme keys nobody knows (typos)."""
    missing = [
        f"locale {code}: {len(c.missing_keys)} UI string(s) missing, shown in English ({', '.join(c.missing_keys[:5])})"
        for code, c in catalogs.items()
        if c.missing_keys
    ]
    return missing + catalog_warnings(catalogs)


def _write_assets(
    staging: Staging, template_dir: Path | None, *, try_it: bool, search: bool, versions: bool = False
) -> None:
    """The shipped CSS and JavaScript, each overridden by a file of the same name in the theme's ``static``:
    every page's and the tool pages' call column; the search dialog's only for a site with search, the
    Try it panel's only for a site with a panel, and the version switcher's for a version of a versioned site."""
    shared = ("portal.css", "highlight.css", "portal.js", "call.css", "call.js")
    extra = (
        (("search.js",) if search else ())
        + (("try-it.css", "try-it.js") if try_it else ())
        + (("versions.css", "versions.js") if versions else ())
    )
    for asset in shared + extra:
        source = data_dir("templates") / "static" / asset
        if template_dir and (template_dir / "static" / asset).is_file():
            source = template_dir / "static" / asset
        staging.write(f"assets/{asset}", source.read_bytes())


def site_files(
    snapshot: Snapshot,
    config: PortalConfig,
    *,
    jobs: int = 1,
    cache: Path | None = None,
    renderer: ThemeRenderer | None = None,
) -> tuple[dict[str, bytes], list[str]]:
    """Every file of the site as bytes, plus warnings: the build's own pipeline, read back from a temporary
    directory (for ``check`` and the tests, which compare bytes); *renderer* as for :func:`produce_site`."""
    cache, refused = usable_cache(cache)
    with tempfile.TemporaryDirectory(prefix="mcp-portal-site-") as tmp:
        staging = Staging(Path(tmp))
        renders = Reuse(cache, site_key(snapshot, config)) if cache is not None else None
        try:
            warnings = produce_site(snapshot, config, staging, jobs=jobs, cache=renders, renderer=renderer)
        except BaseException:
            if renders is not None:
                renders.discard()
            raise
        if renders is not None:
            renders.commit()
        return staged_files(Path(tmp)), warnings + refused + (renders.warnings() if renders is not None else [])


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
    warm: Warm | None = None,
) -> BuildResult:
    """Run the whole pipeline; the previous site stays untouched unless everything succeeds.

    *lenient* and *introspect_warnings* are passed to :func:`obtain_snapshot`; *jobs* is the
    number of render workers; *progress* reports each stage (on stderr). Given *later*, the work the
    published site does not wait for is appended to it, for the caller to run once it has reported the
    build (``build --watch``): removing what the site no longer needs (see :func:`publish`) and the
    render cache's bookkeeping (:meth:`Reuse.commit`). Without it, that is done before returning.
    *warm* is what a watch keeps between its builds (:class:`Warm`).
    """
    check_versioned_options(config)
    run = _Run(config, from_file, lenient, introspect_warnings, progress, warm)
    out = Path(config.out)
    preflight(out, build_inputs(config, from_file))  # a bad --out fails before the server is asked anything
    template_dir_of(config)  # a missing theme fails before the server is asked and the output is locked
    cache = config.cache_dir
    if cache is not None:
        check_cache_apart(cache, out)
    run.cache, refused = usable_cache(cache)  # a cache someone else can write is not used: a warning says why
    if from_file is None:
        run.obtain()  # a server is asked before the output is locked (its errors are not the output's)
    # Warnings about the output directory (files kept or replaced) come after the swap, so --strict ignores them.
    removed: list[Path] | None = [] if later is not None else None
    try:
        record = Published(run.cache) if run.cache is not None else None
        produce = functools.partial(run.produce, jobs=jobs, strict=strict)
        kept = publish(out, produce, protected=build_inputs(config, from_file), record=record, later=removed)
    except BaseException:
        if run.renders is not None:
            run.renders.discard()  # a failed build leaves the cache as it found it
        raise
    finally:
        if later is not None and removed:  # a failed swap may leave one too
            later.extend(functools.partial(shutil.rmtree, path, ignore_errors=True) for path in removed)
    if run.renders is not None:
        (later.append if later is not None else _now)(run.renders.commit)
    run.progress.report("publish", run.files, "files", time.perf_counter() - run.written)
    assert run.snapshot is not None
    warnings = (*run.warnings, *kept, *refused, *(run.renders.warnings() if run.renders is not None else []))
    return BuildResult(out, run.files, time.perf_counter() - run.started, run.snapshot, warnings, run.version)


def check_versioned_options(config: PortalConfig) -> None:
    """Refuse the options a versioned build does not take, or that need one."""
    if config.version_label is not None and not config.versioned:
        raise UsageError(
            f"--version-label {config.version_label} only applies to a versioned build: add --versioned "
            f"(or `versioned: true` in portal.yaml), e.g. --versioned --version-label {config.version_label}."
        )
    if config.full_versions is not None and not config.versioned:
        raise UsageError(
            f"--full-versions {config.full_versions} only applies to a versioned build: add --versioned (or "
            f"`versioned: true` in portal.yaml)."
        )
    if config.versioned and config.previous:
        raise UsageError(
            "--previous does not apply to a versioned build: each version is compared with the version before "
            "it in the output directory, and its release history lists every change. Drop --previous."
        )


def _now(task: Callable[[], None]) -> None:
    task()


class _Run:
    """One build under way: what it has obtained and produced so far (see :func:`build`)."""

    def __init__(
        self,
        config: PortalConfig,
        from_file: Path | None,
        lenient: bool,
        introspect_warnings: list[str] | None,
        progress: Progress | None,
        warm: Warm | None,
    ) -> None:
        self.started = time.perf_counter()
        self.config, self.from_file, self.lenient, self.warm = config, from_file, lenient, warm
        self.introspect_warnings = introspect_warnings
        self.progress = progress or Progress(quiet=True, bars=False, stream=io.StringIO())
        self.cache: Path | None = None
        self.snapshot: Snapshot | None = None
        self.renders: Reuse | None = None
        self.warnings: list[str] = []
        self.files = 0
        self.written = 0.0
        self.version: str | None = None

    def obtain(self) -> None:
        """Take the snapshot (from the server or the file), and open the render cache for it."""
        with self.progress.stage("connect" if self.from_file is None else "read", unit="tools") as advance:
            self.snapshot, self.config = obtain_snapshot(
                self.config,
                self.from_file,
                lenient=self.lenient,
                introspect_warnings=self.introspect_warnings,
                memory=self.warm.tools if self.warm is not None else None,
            )
            advance(len(self.snapshot.tools))
        if self.cache is not None and not self.config.versioned:  # a versioned build's key needs its history
            self.renders = Reuse(self.cache, site_key(self.snapshot, self.config))

    def produce(self, staging: Staging, *, jobs: int, strict: bool) -> None:
        """Write the site into *staging* (under the output's lock); a snapshot file is read here."""
        if self.snapshot is None:
            self.obtain()
            check_location(Path(self.config.out), build_inputs(self.config, self.from_file))  # the demo's OpenAPI
        assert self.snapshot is not None
        renderer = self.warm.renderer if self.warm is not None else None
        if self.config.versioned:
            warnings = self._versioned(staging, jobs, renderer)
        else:
            check_layout(Path(self.config.out), staging, versioned=False)
            warnings = produce_site(
                self.snapshot, self.config, staging, jobs=jobs, progress=self.progress, cache=self.renders,
                renderer=renderer,
            )  # fmt: skip
        if strict and warnings:
            raise PortalError(
                "The build has warnings and --strict turns them into failures: " + "; ".join(warnings) + "."
            )
        self.warnings, self.files, self.written = warnings, len(staging.hashes), time.perf_counter()

    def _versioned(self, staging: Staging, jobs: int, renderer: ThemeRenderer | None) -> list[str]:
        """Publish the snapshot as one version of a versioned site (:mod:`generator.commands.versioned`)."""
        from generator.commands.versioned import Versioned, produce_versioned

        assert self.snapshot is not None
        done = Versioned()
        try:
            produce_versioned(self.snapshot, self.config, staging, jobs=jobs, progress=self.progress,
                              cache=self.cache, renderer=renderer, done=done)  # fmt: skip
        finally:
            self.renders = done.renders  # committed or discarded by build(), as any build's
        self.version = done.label
        return list(done.warnings or ())


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
