"""Every other version of a versioned site kept byte for byte (generator/publish/versioned.py), in process.

The versioned build tests drive these through a subprocess, where mutation testing cannot see them; here
a real staging over a real previous site pins what is kept, carried over, slimmed or left gone.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import pytest

from generator.errors import PortalError
from generator.history.versions import VERSIONS
from generator.publish.staging import Staging
from generator.publish.versioned import check_layout, keep_version, slim_version

FILES = {
    "1.0.0/en/index.html": b"index",
    "1.0.0/en/edited.html": b"edited by hand",
    "1.0.0/en/llms-full.txt": b"every twin",
    "1.0.0/pagefind/index.pf": b"index data",
    "2.0.0/en/index.html": b"the version being built",
}


def _staging(tmp_path: Path, *, lazy: bool = False, previous: Path | None = None) -> tuple[Staging, Path]:
    """A staging over a previous versioned site (in *previous*, else beside it): its manifest lists FILES,
    one of them since edited, one gone."""
    previous, new = previous or tmp_path / "previous", tmp_path / "new"
    for path, data in FILES.items():
        (previous / path).parent.mkdir(parents=True, exist_ok=True)
        (previous / path).write_bytes(data)
    new.mkdir()
    listed = {path: hashlib.sha256(data).hexdigest() for path, data in FILES.items()}
    listed["1.0.0/en/edited.html"] = hashlib.sha256(b"as built").hexdigest()
    listed["1.0.0/en/gone.html"] = hashlib.sha256(b"gone").hexdigest()
    unchanged = {p: d for p, d in listed.items() if p in FILES and p != "1.0.0/en/edited.html"}
    return Staging(new, previous, unchanged, lazy=lazy, listed=listed), new


def _written(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_kept_version_is_every_file_it_holds_now_and_nothing_of_another_version(tmp_path: Path) -> None:
    staging, new = _staging(tmp_path)
    assert keep_version(staging, "1.0.0") == 4  # the gone file stays gone
    assert _written(new) == {p: d for p, d in FILES.items() if p.startswith("1.0.0/")}
    assert staging.hashes["1.0.0/en/edited.html"] == hashlib.sha256(b"edited by hand").hexdigest()
    assert (new / "1.0.0/en/index.html").stat().st_ino == (tmp_path / "previous/1.0.0/en/index.html").stat().st_ino


def test_a_lazy_staging_leaves_the_unchanged_files_of_a_kept_version_where_they_are(tmp_path: Path) -> None:
    staging, new = _staging(tmp_path, lazy=True)
    assert keep_version(staging, "1.0.0") == 4
    assert staging.same == {"1.0.0/en/index.html", "1.0.0/en/llms-full.txt", "1.0.0/pagefind/index.pf"}
    assert _written(new) == {"1.0.0/en/edited.html": b"edited by hand"}


def test_a_slimmed_version_loses_its_search_index_and_points_from_its_llms_full(tmp_path: Path) -> None:
    staging, new = _staging(tmp_path)
    assert slim_version(staging, "1.0.0", lambda inner: f"see llms.txt for {inner}".encode()) == 2
    assert _written(new) == {
        "1.0.0/en/index.html": b"index",
        "1.0.0/en/edited.html": b"edited by hand",
        "1.0.0/en/llms-full.txt": b"see llms.txt for en/llms-full.txt",
    }


def test_a_kept_file_behind_a_link_is_refused_never_read(tmp_path: Path) -> None:
    """An edited file the previous site now holds as a link to elsewhere is not followed to carry it over."""
    staging, new = _staging(tmp_path)
    (tmp_path / "secret.txt").write_bytes(b"not the site's")
    edited = tmp_path / "previous/1.0.0/en/edited.html"
    edited.unlink()
    edited.symlink_to(tmp_path / "secret.txt")
    with pytest.raises(PortalError, match="symbolic link"):
        keep_version(staging, "1.0.0")
    assert b"not the site's" not in b"".join(_written(new).values())


def test_a_kept_version_on_another_file_system_is_copied(tmp_path: Path) -> None:
    """Where a hard link cannot be made (here the previous site is on another device), each kept file is
    read from the previous site and written again, with the bytes it holds there."""
    with tempfile.TemporaryDirectory(dir="/dev/shm") as elsewhere:
        if os.stat(elsewhere).st_dev == os.stat(tmp_path).st_dev:
            pytest.skip("/dev/shm is on the same file system as the test's directory here")
        staging, new = _staging(tmp_path, previous=Path(elsewhere))
        assert keep_version(staging, "1.0.0") == 4
        assert _written(new) == {p: d for p, d in FILES.items() if p.startswith("1.0.0/")}
        assert staging.hashes["1.0.0/en/index.html"] == hashlib.sha256(b"index").hexdigest()
        assert (new / "1.0.0/en/index.html").stat().st_nlink == 1


@pytest.mark.parametrize(
    ("listed", "versioned", "refusal"),
    [
        ({}, True, None),  # an empty or new directory takes either
        ({}, False, None),
        ({VERSIONS: "0" * 64, "1.0.0/en/index.html": "0" * 64}, True, None),
        ({"en/index.html": "0" * 64}, False, None),
        ({"en/index.html": "0" * 64}, True, "holds a site built without --versioned"),
        ({VERSIONS: "0" * 64}, False, "holds a versioned site"),
    ],
)
def test_a_build_never_replaces_a_site_of_the_other_layout(
    tmp_path: Path, listed: dict[str, str], versioned: bool, refusal: str | None
) -> None:
    staging = Staging(tmp_path / "new", tmp_path / "site", {}, listed=listed)
    if refusal is None:
        check_layout(tmp_path / "site", staging, versioned=versioned)
        return
    with pytest.raises(PortalError) as refused:
        check_layout(tmp_path / "site", staging, versioned=versioned)
    assert str(refused.value).startswith(f"The output directory {tmp_path / 'site'} {refusal}")
