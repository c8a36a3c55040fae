"""``generator.publish.confined.Confined``: the publisher's only way to touch the live site, never through a link.

These tests act on real directories and real symbolic links; each checks the file system afterwards, in and
outside the site, so a step that followed a link would show there.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

import pytest

from generator.publish.confined import Confined, ThroughLink


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A site with a real directory, a link to a directory outside it and a dangling link."""
    root = tmp_path / "site"
    (root / "en").mkdir(parents=True)
    (root / "en" / "page.html").write_bytes(b"page")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_bytes(b"secret")
    (root / "linked").symlink_to(outside)
    (root / "dangling").symlink_to(tmp_path / "nowhere")
    return root


def outside_files(site: Path) -> list[str]:
    return sorted(p.name for p in (site.parent / "outside").iterdir())


@pytest.mark.parametrize("path", ["linked/new/page.html", "linked/deeper/new/page.html"])
def test_making_a_directory_through_a_link_is_refused(site: Path, path: str, tmp_path: Path) -> None:
    source = tmp_path / "new.html"
    source.write_bytes(b"new")
    with Confined(site) as tree, pytest.raises(ThroughLink) as refused:
        tree.move_in(source, path)
    assert refused.value.errno == errno.ELOOP
    assert str(refused.value).startswith(f"[Errno {errno.ELOOP}] {site / 'linked'} is a symbolic link")
    assert outside_files(site) == ["secret.txt"]


def test_moving_a_file_in_through_a_link_is_refused(site: Path, tmp_path: Path) -> None:
    source = tmp_path / "new.html"
    source.write_bytes(b"new")
    with Confined(site) as tree, pytest.raises(ThroughLink):
        tree.move_in(source, "linked/secret.txt")
    assert (site.parent / "outside" / "secret.txt").read_bytes() == b"secret"
    assert source.read_bytes() == b"new"


def test_removing_through_a_link_is_refused_and_a_link_itself_is_removed(site: Path) -> None:
    with Confined(site) as tree:
        with pytest.raises(ThroughLink):
            tree.unlink("linked/secret.txt")
        tree.unlink("linked")  # the link itself, not what it points to
        tree.unlink("en/gone.html")  # nothing there: nothing to do
    assert not os.path.lexists(site / "linked")
    assert outside_files(site) == ["secret.txt"]


def test_looking_reads_the_entry_itself_and_makes_nothing(site: Path) -> None:
    with Confined(site) as tree:
        assert tree.is_dir("en") and not tree.is_dir("en/page.html")
        assert not tree.is_dir("linked")  # a link to a directory is not a directory of the site
        assert tree.lexists("dangling") and tree.lexists("linked")
        assert not tree.lexists("missing/page.html") and not tree.is_dir("missing/deeper")
        with pytest.raises(ThroughLink):
            tree.lexists("linked/secret.txt")
    assert sorted(p.name for p in site.iterdir()) == ["dangling", "en", "linked"]


def test_move_in_makes_directories_and_replaces_a_link_not_its_target(site: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.write_bytes(b"a")
    second.write_bytes(b"b")
    with Confined(site) as tree:
        tree.move_in(first, "ru/deep/page.html")
        tree.move_in(second, "dangling")
    assert (site / "ru" / "deep" / "page.html").read_bytes() == b"a"
    assert not (site / "dangling").is_symlink() and (site / "dangling").read_bytes() == b"b"
    assert not (tmp_path / "nowhere").exists()


def test_a_directory_removed_and_made_again_is_reached_afresh(site: Path, tmp_path: Path) -> None:
    # rmdir forgets the descriptors of the directory and of those under it: a kept one would point at the
    # removed directory, and the next file placed there would vanish with it.
    first, source = tmp_path / "first.html", tmp_path / "again.html"
    first.write_bytes(b"first")
    source.write_bytes(b"again")
    with Confined(site) as tree:
        tree.move_in(first, "v1/en/first.html")
        tree.unlink("v1/en/first.html")
        tree.rmdir("v1/en")
        tree.rmdir("v1")
        assert not tree.lexists("v1")
        tree.move_in(source, "v1/en/again.html")
    assert (site / "v1" / "en" / "again.html").read_bytes() == b"again"
    with Confined(site) as tree, pytest.raises(OSError):
        tree.rmdir("v1")  # not empty


def test_copy_out_links_a_file_and_keeps_a_link_a_link(site: Path, tmp_path: Path) -> None:
    (site / "alias.html").symlink_to("en/page.html")
    saved = tmp_path / "saved"
    with Confined(site) as tree:
        tree.copy_out("en/page.html", saved / "en" / "page.html")
        tree.copy_out("linked", saved / "linked")
        tree.copy_out("alias.html", saved / "alias.html")
    assert (saved / "en" / "page.html").stat().st_ino == (site / "en" / "page.html").stat().st_ino
    for name in ("linked", "alias.html"):
        assert (saved / name).is_symlink()
        assert os.readlink(saved / name) == os.readlink(site / name)


def test_copy_out_to_another_file_system_copies_bytes_mode_and_times(site: Path) -> None:
    # A hard link cannot cross file systems (EXDEV): the file is copied, a link copied as a link.
    shm = Path("/dev/shm")
    if not shm.is_dir() or os.stat(shm).st_dev == os.stat(site).st_dev:
        pytest.skip("needs /dev/shm on a file system of its own")
    page = site / "en" / "page.html"
    page.chmod(0o640)
    os.utime(page, ns=(1_000_000_000, 2_000_000_000))
    (site / "alias.html").symlink_to("en/page.html")
    with tempfile.TemporaryDirectory(dir=shm) as elsewhere:
        saved = Path(elsewhere)
        with Confined(site) as tree:
            tree.copy_out("en/page.html", saved / "en" / "page.html")
            tree.copy_out("alias.html", saved / "alias.html")
        copy = saved / "en" / "page.html"
        assert copy.stat().st_mtime_ns == 2_000_000_000 and copy.stat().st_atime_ns == 1_000_000_000
        assert stat.S_IMODE(copy.stat().st_mode) == 0o640
        assert copy.read_bytes() == b"page" and not copy.is_symlink()
        assert os.readlink(saved / "alias.html") == "en/page.html"
