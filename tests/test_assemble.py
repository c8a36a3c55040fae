"""Pages rendered by worker processes and streamed to disk: the same bytes for any --jobs, progress on stderr only."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from generator.commands.build import site_files
from generator.commands.demo_portal import demo_config
from generator.config.portal import PortalConfig
from generator.snapshot.snapshot import load_snapshot, revised
from tests.conftest import TEMPLATES

GOLDEN = Path(__file__).parent / "golden"


def test_the_site_is_byte_identical_for_any_number_of_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker counts are forced, whatever the CPUs of the machine running the test (on one CPU, a cap
    would make every build here a one-worker build, compared with itself)."""
    from generator import forked
    from generator.site import assemble

    started: list[tuple[int, int]] = []

    def counted(work: Any, chunks: Sequence[Any], jobs: int, *rest: Any) -> None:
        started.append((jobs, len(chunks)))
        real(work, chunks, jobs, *rest)

    real = forked.in_workers
    monkeypatch.setattr(assemble, "in_workers", counted)
    snapshot = load_snapshot(GOLDEN / "everything.snapshot.json")
    config = PortalConfig(search=False)
    one, warnings_one = site_files(snapshot, config, jobs=1, renderer=TEMPLATES)
    assert started == []  # one job: rendered here, no worker started
    for jobs in (2, 3):
        many, warnings_many = site_files(snapshot, config, jobs=jobs, renderer=TEMPLATES)
        (workers, chunks) = started[-1]
        assert workers == jobs and chunks >= jobs, f"{jobs} workers asked for: {started}"
        assert many == one
        assert warnings_many == warnings_one


def test_workers_write_every_page_once_and_the_manifest_lists_exactly_what_was_written() -> None:
    files, _ = site_files(
        load_snapshot(GOLDEN / "demo.snapshot.json"), demo_config(PortalConfig()), jobs=2, renderer=TEMPLATES
    )
    listed = json.loads(files["manifest.json"])["files"]
    assert set(listed) == set(files) - {"manifest.json"}
    assert any(path.startswith("pagefind/") for path in listed)  # Pagefind's own files are hashed too


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "generator", *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )


def test_progress_goes_to_stderr_one_line_per_stage_and_never_into_a_json_report(tmp_path: Path) -> None:
    snapshot = str(GOLDEN / "everything.snapshot.json")
    built = _cli("build", "--from", snapshot, "--out", "site", "--no-search", "--quiet", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    stages = [line.split(":")[0] for line in built.stderr.splitlines()]
    assert stages == ["read", "model", "render", "publish"], built.stderr
    assert built.stdout.startswith("Built ")
    checked = _cli("check", "--from", snapshot, "--out", "site", "--no-search", "--format", "json", cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr
    assert json.loads(checked.stdout)["status"] == "ok"


def test_a_twin_rendered_once_has_the_links_of_both_places_it_lives() -> None:
    """The twin is rendered once with marked links; each copy must equal a full rendering for its place,
    even when server text holds what looks like a marked link (then both are rendered in full)."""

    from generator.commands.build import catalogs_for
    from generator.model.gather import gather
    from generator.model.pages import pages_for
    from generator.render.renderer import Renderer, for_full, for_twin, render_page

    demo = load_snapshot(GOLDEN / "demo.snapshot.json")
    tools = [dict(t) for t in demo.tools]
    tools[0] = tools[0] | {"description": "Looks like a marker: `%01en/tools/x/index.md%02` and %01../x%02 too."}
    for snapshot in (demo, revised(demo, tools=tuple(tools))):
        config = demo_config(PortalConfig(search=False))
        site, catalogs, renderer = gather(snapshot, config).model, catalogs_for(config), Renderer()
        pages = list(pages_for(site))
        assert len(pages) > 20
        for page in pages:
            rendered = render_page(site, page, catalogs, renderer)
            twin, full = rendered.md, rendered.full
            # Each copy is what rendering it for its place gives, with the sections only the other holds cut.
            assert twin == for_twin(renderer.page_md(site, page, catalogs)), page.md_path
            assert full == for_full(renderer.page_md(site, page, catalogs, from_path=f"{page.locale}/llms-full.txt"))


def test_a_rebuild_links_unchanged_files_and_writes_the_rest(tmp_path: Path) -> None:
    """Unchanged files become hard links to the previous site's (cheap); edited or changed ones are written."""
    from generator.publish.write import publish

    files, _ = site_files(
        load_snapshot(GOLDEN / "demo.snapshot.json"), demo_config(PortalConfig(search=False)), renderer=TEMPLATES
    )
    out = tmp_path / "site"
    publish(out, files)
    before = {p: (out / p).stat().st_ino for p in files}
    (out / "en/index.md").write_bytes(b"edited by hand\n")  # not what the manifest says: never linked
    changed = dict(files) | {"en/llms.txt": files["en/llms.txt"] + b"\nmore\n"}
    publish(out, changed)
    assert {p: (out / p).read_bytes() for p in changed} == changed
    assert (out / "en/index.md").stat().st_ino != before["en/index.md"]
    assert (out / "en/llms.txt").stat().st_ino != before["en/llms.txt"]
    same = [p for p in files if p not in ("en/index.md", "en/llms.txt", "manifest.json")]
    assert all((out / p).stat().st_ino == before[p] for p in same)
    assert all((out / p).stat().st_nlink == 1 for p in same)  # the previous site is gone: no shared copies


def test_the_connecting_pages_pick_their_tool_once_for_every_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    """Picking the tool a connecting page demonstrates looks at every tool's annotations (and works out
    examples until a call works): it is done once per endpoint, not once per page and twin in each locale."""
    from generator.commands.build import catalogs_for
    from generator.model.calls import EndpointCall, ToolFinder
    from generator.model.gather import gather
    from generator.model.kinds import PageKind
    from generator.model.pages import pages_for
    from generator.render.renderer import Renderer, render_page

    picked: list[EndpointCall] = []
    real = EndpointCall.pick

    def counting(self: EndpointCall, site: ToolFinder) -> object:
        picked.append(self)
        return real(self, site)

    monkeypatch.setattr(EndpointCall, "pick", counting)
    config = demo_config(PortalConfig(search=False, locales=("en", "ru", "ar")))
    site = gather(load_snapshot(GOLDEN / "demo.snapshot.json"), config).model
    catalogs, renderer = catalogs_for(config), Renderer()
    connecting = [page for page in pages_for(site) if page.kind == PageKind.CONNECTING]
    assert len(connecting) == 3
    shown = {page.locale: render_page(site, page, catalogs, renderer) for page in connecting}
    endpoints = {endpoint.call for endpoint in site.endpoints}
    assert sorted(map(repr, picked)) == sorted(map(repr, endpoints))  # each endpoint once, for six pages
    demonstrated = [site.demonstrated(call) for call in endpoints]
    assert demonstrated == [real(call, site) for call in endpoints]
    assert all(tool is not None and tool.name in shown["en"].html for tool in demonstrated)


@pytest.mark.parametrize("jobs", [1, 2])
def test_what_is_written_meanwhile_may_not_take_a_pages_path(jobs: int, tmp_path: Path) -> None:
    """The site-wide files are written while the workers render; a path written both there and by a worker
    is refused as a path written twice in one process is."""
    from generator.commands.build import catalogs_for
    from generator.errors import PortalError
    from generator.model.gather import gather
    from generator.publish.staging import Staging
    from generator.render.renderer import Deadline, Renderer
    from generator.site.assemble import render_pages
    from generator.site.job import new_job

    config = demo_config(PortalConfig(search=False))
    site = gather(load_snapshot(GOLDEN / "demo.snapshot.json"), config).model
    job = new_job(site, catalogs_for(config), Renderer(), Deadline(600))
    staging = Staging(tmp_path)
    taken = job.plan.pages[-1].html_path

    def meanwhile() -> None:
        staging.write(taken, b"<p>not the page</p>")

    with pytest.raises(PortalError, match="twice"):
        render_pages(job, staging, jobs, lambda _: None, meanwhile)

    def fails() -> None:
        raise PortalError("the entry page could not be rendered")

    (tmp_path / "b").mkdir()  # a staging directory exists before anything is written into it
    with pytest.raises(PortalError, match="entry page"):  # reported as it happens, the workers' queue dropped
        render_pages(new_job(site, catalogs_for(config), Renderer(), Deadline(600)), Staging(tmp_path / "b"), jobs,
                     lambda _: None, fails)  # fmt: skip
