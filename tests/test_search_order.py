"""The search index does not depend on the order pages were written in, nor on the file system's.

Pagefind numbers pages in the order it finds them, which is the order a directory lists its entries.
tmpfs (a common /tmp), btrfs and XFS list them in the order they were made, and render workers write
pages in whatever order they finish: two builds of one snapshot used to give two indexes there, and
``check`` reported drift whenever its temporary directory sat on another kind of file system than the
site. These tests write on /dev/shm, a tmpfs on every Linux machine this suite runs on.
"""

from __future__ import annotations

import gzip
import json
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from generator.commands.build import site_files
from generator.commands.check import REORDERED
from generator.publish.staging import Staging
from generator.site import search
from generator.snapshot.snapshot import load_snapshot
from tests.conftest import ROOT, TEMPLATES
from tests.golden_tool import SNAPSHOT, demo_config

SHM = Path("/dev/shm")


@pytest.fixture
def shm() -> Iterator[Path]:
    """A new directory on the tmpfs at /dev/shm, removed after the test."""
    if not SHM.is_dir():
        pytest.fail("these tests need the tmpfs at /dev/shm, which every Linux machine mounts")
    with tempfile.TemporaryDirectory(prefix="mcp-portal-order-", dir=SHM) as tmp:
        yield Path(tmp)


@pytest.fixture(scope="module")
def pages() -> dict[str, bytes]:
    """The demo's pages that Pagefind reads, as a build writes them."""
    files, _ = site_files(load_snapshot(SNAPSHOT), replace(demo_config(), search=False), renderer=TEMPLATES)
    return {path: data for path, data in files.items() if search.indexed(path) and "/" in path}


def _index(root: Path, pages: dict[str, bytes], order: list[str]) -> dict[str, bytes]:
    """The search bundle of *pages*, written into a staging directory at *root* in *order*."""
    staging = Staging(root)
    for path in order:
        staging.write(path, pages[path])
    search.index_site(staging)
    return {path: staging.read(path) for path in sorted(staging.hashes) if path.startswith("pagefind/")}


def test_pages_written_in_any_order_give_one_index(shm: Path, pages: dict[str, bytes]) -> None:
    order = sorted(pages)
    first = _index(shm / "sorted", pages, order)
    assert len(pages) >= 30 and sum(path.endswith(".pf_meta") for path in first) == 3
    # Backwards, and every other page first: tmpfs lists each directory in the order it was written.
    for number, other in enumerate((order[::-1], order[1::2] + order[::2])):
        assert _index(shm / f"other-{number}", pages, other) == first


def _files_of(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def test_check_finds_no_drift_in_an_index_another_file_system_ordered(
    shm: Path, tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A site built on tmpfs, checked with a temporary directory on the suite's own file system."""
    site = shm / "site"
    assert cli("build", "--from", str(SNAPSHOT), "--out", str(site), "--quiet").code == 0
    on_disk = _files_of(site)
    # The case this test is for: the same pages, Pagefind's files numbered in another order. The suite's
    # temporary directory is on another kind of file system than tmpfs, or else the checkout is (.venv is
    # git's to ignore and scripts/test's to make).
    with tempfile.TemporaryDirectory(prefix="order-", dir=ROOT / ".venv") as checkout:
        for scratch in (tmp_path, Path(checkout)):
            elsewhere = scratch / "site"
            assert cli("build", "--from", str(SNAPSHOT), "--out", str(elsewhere), "--quiet").code == 0
            if (fresh := _files_of(elsewhere)) != on_disk:
                break
        else:
            pytest.fail(f"{tmp_path} and {ROOT} are both on file systems that list a directory as tmpfs does")
        assert search.same_index(on_disk, fresh)
        assert {p: d for p, d in on_disk.items() if not p.startswith(("pagefind/", "manifest.json"))} == {
            p: d for p, d in fresh.items() if not p.startswith(("pagefind/", "manifest.json"))
        }
        monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # where check's fresh build goes
        checked = cli("check", "--from", str(SNAPSHOT), "--out", str(site), "--format", "json")
        assert checked.code == 0, checked.out + checked.err
        assert json.loads(checked.out)["status"] == "ok" and json.loads(checked.out)["notes"] == [REORDERED]
        # On the file system it was built on, the index is the fresh one byte for byte: no note.
        same = cli("check", "--from", str(SNAPSHOT), "--out", str(elsewhere), "--format", "json")
        assert same.code == 0 and json.loads(same.out)["notes"] == [], same.out + same.err

        # A search file edited after the build is still drift, and a hand edit.
        meta = next(p for p in sorted(site.glob("pagefind/*.pf_meta")))
        meta.write_bytes(gzip.compress(gzip.decompress(meta.read_bytes()) + b"\0"))
        edited = cli("check", "--from", str(SNAPSHOT), "--out", str(site), "--format", "json")
        assert edited.code == 3, edited.out + edited.err
        assert f"pagefind/{meta.name}" in json.loads(edited.out)["hand_edited"]


def test_another_index_is_not_the_same_index(pages: dict[str, bytes], shm: Path) -> None:
    bundle = _index(shm / "a", pages, sorted(pages))
    assert search.same_index(bundle, dict(bundle))
    fragment = next(p for p in bundle if p.endswith(".pf_fragment"))
    index = next(p for p in bundle if p.endswith(".pf_index"))
    entry = json.loads(bundle[search.ENTRY])
    entry["languages"]["en"]["page_count"] += 1
    for changed in (
        bundle | {fragment: gzip.compress(gzip.decompress(bundle[fragment]) + b" ")},  # a page's text
        {p: d for p, d in bundle.items() if p != index},  # an index file fewer
        bundle | {index.replace(".pf_index", "0.pf_index"): bundle[index]},  # one more
        bundle | {search.ENTRY: json.dumps(entry).encode()},  # another page count
        bundle | {search.ENTRY: b"not json"},
        {p: d for p, d in bundle.items() if p != search.ENTRY},
    ):
        assert not search.same_index(changed, bundle) and not search.same_index(bundle, changed)
