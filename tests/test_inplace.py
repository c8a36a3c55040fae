"""Publishing a small change in place (generator/publish/inplace.py), and undoing it.

A rebuild that changes a few files of a site moves just those files into the live directory,
with an undo directory beside it. These tests publish file maps straight through
:func:`generator.publish.write.publish` (the same path ``build`` takes) and check the site's
bytes, which inodes survive, what a failure or a kill midway leaves, and when a whole new
directory is swapped in instead.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import tempfile
from pathlib import Path

import pytest

from generator.errors import PortalError
from generator.publish import inplace
from generator.publish.confined import Confined
from generator.publish.staging import Staging
from generator.publish.write import publish
from generator.site.assemble import write_manifest
from tests.conftest import tree_bytes


def _publish(site: Path, files: dict[str, bytes]) -> list[str]:
    """Publish *files* with a manifest, as a build does (a directory without one is not our site)."""

    def produce(staging: Staging) -> None:
        for path, data in sorted(files.items()):
            staging.write(path, data)
        write_manifest(staging, {"capability_version": "1", "fingerprint": "sha256:0"})

    return publish(site, produce)


def _site(n: int = 30, **changed: bytes) -> dict[str, bytes]:
    """A small site: n pages in their own directories, with *changed* (path -> bytes) on top."""
    files = {f"en/tools/t{i:02d}/index.html": f"<p>tool {i}</p>".encode() for i in range(n)}
    files |= {"en/index.html": b"<p>index</p>", "assets/portal.css": b"body{}"}
    return files | {path.replace("__", "/").replace("_dot_", "."): data for path, data in changed.items()}


def _content(site: Path) -> dict[str, bytes]:
    """The site's bytes without its manifest (which is checked on its own)."""
    return {p: b for p, b in tree_bytes(site).items() if p != "manifest.json"}


def _listed(site: Path) -> set[str]:
    return set(json.loads((site / "manifest.json").read_text(encoding="utf-8"))["files"])


def _directories(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_dir())


def _inode(path: Path) -> int:
    return os.lstat(path).st_ino


def _beside(site: Path) -> list[str]:
    return sorted(p.name for p in site.parent.iterdir() if p.name.startswith(f".{site.name}.") and "lock" not in p.name)


def _dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_a_small_change_is_placed_in_the_live_directory(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _publish(site, _site())
    root, kept_page = _inode(site), _inode(site / "en/tools/t01/index.html")
    new = _site()
    new["en/tools/t00/index.html"] = b"<p>tool 0, changed</p>"
    del new["en/tools/t02/index.html"]  # dropped: its directory goes with it
    new["en/prompts/p/index.html"] = b"<p>a new page in a new directory</p>"
    _publish(site, new)
    assert _content(site) == new
    assert _listed(site) == set(new)
    assert _inode(site) == root, "the directory itself was kept, not swapped"
    assert _inode(site / "en/tools/t01/index.html") == kept_page, "an unchanged page was not touched"
    assert not (site / "en/tools/t02").exists()
    assert _beside(site) == []


def test_rebuilding_the_same_site_touches_no_file(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _publish(site, _site())
    before = tree_bytes(site)
    inodes = {p: _inode(site / p) for p in before}
    _publish(site, _site())
    assert tree_bytes(site) == before
    assert {p: _inode(site / p) for p in before} == inodes


def test_files_we_did_not_write_stay_where_they_are(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _publish(site, _site())
    (site / "CNAME").write_text("docs.example.com\n", encoding="utf-8")
    cname = _inode(site / "CNAME")
    warnings = _publish(site, _site(en__tools__t00__index_dot_html=b"<p>new</p>"))
    assert _inode(site / "CNAME") == cname and (site / "CNAME").read_text(encoding="utf-8") == "docs.example.com\n"
    assert any("CNAME" in w and "did not write" in w for w in warnings)
    assert "CNAME" not in _listed(site)


def test_a_hand_edited_removed_or_symlinked_page_is_written_afresh(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _publish(site, _site())
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"not the site's")
    (site / "en/tools/t00/index.html").write_bytes(b"edited by hand")
    (site / "en/tools/t01/index.html").unlink()
    (site / "en/tools/t02/index.html").unlink()
    (site / "en/tools/t02/index.html").symlink_to(outside)
    warnings = _publish(site, _site())
    assert _content(site) == _site()
    assert not (site / "en/tools/t02/index.html").is_symlink()
    assert outside.read_bytes() == b"not the site's", "a symlink in the site is replaced, never written through"
    assert any("en/tools/t00/index.html" in w and "edited" in w for w in warnings)


def test_a_failure_while_placing_puts_the_site_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    _publish(site, _site())
    before = tree_bytes(site)
    real_replace = os.replace
    calls = {"n": 0}

    def failing(source: str | Path, target: str | Path, **where: int) -> None:
        calls["n"] += 1
        if calls["n"] == 3:  # after two of the new files are in place
            raise OSError(28, "No space left on device")
        real_replace(source, target, **where)

    monkeypatch.setattr(os, "replace", failing)
    new = _site()
    for i in range(4):
        new[f"en/tools/t{i:02d}/index.html"] = b"changed"
    new["en/new/deep/index.html"] = b"a new page, in two new directories"
    del new["en/tools/t05/index.html"]
    directories = _directories(site)
    with pytest.raises(PortalError, match="previous site is unchanged"):
        _publish(site, new)
    monkeypatch.undo()
    assert tree_bytes(site) == before
    assert _directories(site) == directories  # the new ones removed, each of them
    assert _beside(site) == []


def test_a_build_killed_while_placing_is_undone_by_the_next_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kill cannot be caught: stop a placement midway without its rollback, as SIGKILL would leave it."""
    site = tmp_path / "site"
    _publish(site, _site())
    before = tree_bytes(site)
    real_replace = os.replace
    calls = {"n": 0}

    class Killed(BaseException):
        pass

    def dying(source: str | Path, target: str | Path, **where: int) -> None:
        calls["n"] += 1
        if calls["n"] == 4:
            raise Killed
        real_replace(source, target, **where)

    monkeypatch.setattr(os, "replace", dying)
    monkeypatch.setattr(inplace, "roll_back", lambda real, undo: None)  # the kill leaves no time to undo
    new = _site()
    for i in range(5):
        new[f"en/tools/t{i:02d}/index.html"] = b"half placed"
    new["en/new/deep/index.html"] = b"new"
    del new["en/tools/t07/index.html"]
    with pytest.raises(Killed):
        _publish(site, new)
    monkeypatch.undo()
    assert tree_bytes(site) != before, "the kill came after part of the change was placed"
    undo = [p for p in site.parent.iterdir() if p.name.startswith(".site.undo-")]
    assert len(undo) == 1
    undo[0].rename(site.parent / f".site.undo-{_dead_pid()}")  # the killed build's pid is gone
    # The next build takes the lock and puts the site back before anything else: shown by a publish
    # that then fails, which must leave exactly the site before the killed build.
    with pytest.raises(PortalError, match="outside the output directory"):
        publish(site, {"../escape.txt": b"no"})
    assert tree_bytes(site) == before
    assert _beside(site) == []
    _publish(site, new)
    assert _content(site) == new


def test_a_large_change_swaps_in_a_whole_new_directory(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _publish(site, _site())
    (site / "CNAME").write_text("docs.example.com\n", encoding="utf-8")
    root = _inode(site)
    new = {path: data + b" (every page changed)" for path, data in _site().items()}
    _publish(site, new)
    assert _content(site) == new | {"CNAME": b"docs.example.com\n"}
    assert _inode(site) != root, "most of the site changed: a new directory was swapped in"
    assert _beside(site) == []


def test_the_undo_journal_is_written_before_the_site_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    _publish(site, _site())
    seen: list[bool] = []
    real_copy = Confined.copy_out

    def watching(tree: Confined, path: str, target: Path) -> None:
        undo = next(p for p in site.parent.iterdir() if p.name.startswith(".site.undo-"))
        seen.append((undo / inplace.JOURNAL).is_file())
        real_copy(tree, path, target)

    monkeypatch.setattr(Confined, "copy_out", watching)
    _publish(site, _site(en__index_dot_html=b"<p>changed index</p>"))
    assert seen and all(seen)


def _publish_later(site: Path, files: dict[str, bytes]) -> list[Path]:
    """:func:`_publish` for a caller with time after the build (``build --watch``): what it must remove."""
    later: list[Path] = []

    def produce(staging: Staging) -> None:
        for path, data in sorted(files.items()):
            staging.write(path, data)
        write_manifest(staging, {"capability_version": "1", "fingerprint": "sha256:0"})

    publish(site, produce, later=later)
    return later


@pytest.mark.parametrize("how", ["in place", "swap"])
def test_a_caller_with_time_removes_what_the_site_no_longer_needs_itself(tmp_path: Path, how: str) -> None:
    site = tmp_path / "site"
    _publish(site, _site())
    old_page = (site / "en/tools/t00/index.html").read_bytes()
    if how == "in place":
        new = _site(en__tools__t00__index_dot_html=b"<p>tool 0, changed</p>")
    else:
        new = {path: data + b" (every page changed)" for path, data in _site().items()}
    later = _publish_later(site, new)
    assert _content(site) == new  # the site is out, whole
    assert [p.name for p in later] == [f".site.done-{os.getpid()}"] == _beside(site)
    kept = later[0] / ("files/en/tools/t00/index.html" if how == "in place" else "en/tools/t00/index.html")
    assert kept.read_bytes() == old_page  # the old copy, for the caller to remove
    # Left behind (the watch was killed before it removed it): the next build removes it and undoes nothing.
    later[0].rename(site.parent / f".site.done-{_dead_pid()}")
    with pytest.raises(PortalError, match="outside the output directory"):
        publish(site, {"../escape.txt": b"no"})
    assert _content(site) == new
    assert _beside(site) == []


def test_nothing_changed_leaves_nothing_to_remove_later(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _publish(site, _site())
    assert _publish_later(site, _site()) == []
    assert _beside(site) == []


def test_a_site_given_as_files_in_memory_is_published_as_given(tmp_path: Path) -> None:
    site = tmp_path / "site"
    files = {"en/index.html": b"<p>index</p>", "llms.txt": b"# Site\n", "en/tools/a/index.md": b"# a\n"}
    publish(site, files)
    assert tree_bytes(site) == files
    # Every path is checked before the first is written: nothing of a refused site lands anywhere.
    other = tmp_path / "other"
    with pytest.raises(PortalError, match=re.escape("Refusing to write '../escape.txt'")):
        publish(other, {"a.html": b"a", "../escape.txt": b"no"})
    assert not other.exists() and not (tmp_path / "escape.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock")) == ["site"]


def test_leftovers_of_a_running_build_are_left_to_it(tmp_path: Path) -> None:
    # A build's .NAME.staging-PID beside the site is removed only when that process is gone; the check
    # sends no signal to a live one. A pid no process can have (beyond the kernel's range) is gone too.
    site = tmp_path / "site"
    _publish(site, _site())
    live = subprocess.Popen(["sleep", "60"])
    try:
        for pid in (live.pid, _dead_pid(), 2**70):
            (site.parent / f".site.staging-{pid}").mkdir()
        (site.parent / ".site.staging-notapid").mkdir()
        _publish(site, _site(en__index_dot_html=b"<p>changed</p>"))
        assert _beside(site) == sorted([f".site.staging-{live.pid}", ".site.staging-notapid"])
    finally:
        live.terminate()
        live.wait()
    assert live.returncode == -signal.SIGTERM  # ours was the first signal it got


# --------------------------------------------------------------------------- the staging a build writes into


def _previous(tmp_path: Path, files: dict[str, bytes]) -> tuple[Path, dict[str, str]]:
    """A previous site on disk and its unchanged files (path -> sha256), as the publisher hands them over."""
    previous = tmp_path / "previous"
    for path, data in files.items():
        (previous / path).parent.mkdir(parents=True, exist_ok=True)
        (previous / path).write_bytes(data)
    return previous, {path: hashlib.sha256(data).hexdigest() for path, data in files.items()}


def test_a_version_staged_inside_the_site_is_counted_as_the_sites(tmp_path: Path) -> None:
    # A versioned site builds each version in a nested staging and absorbs it: the files it left in the
    # previous site, and those it wrote, are the outer site's under the version's directory.
    previous, unchanged = _previous(tmp_path, {"v1/en/a.html": b"a", "v1x/en/b.html": b"other", "en/a.html": b"a"})
    root = tmp_path / "new"
    outer = Staging(root, previous, unchanged, lazy=True)
    inner = outer.nested("v1")
    assert inner.root == root / "v1" and inner.root.is_dir()
    inner.write("en/a.html", b"a")  # unchanged: left where it is
    inner.write("en/b.html", b"other")  # v1x/en/b.html holds these bytes, but it is another directory
    assert inner.same == {"en/a.html"} and not (root / "v1" / "en" / "a.html").exists()
    assert (root / "v1" / "en" / "b.html").read_bytes() == b"other"
    outer.absorb(inner, "v1")
    assert outer.hashes == {
        "v1/en/a.html": hashlib.sha256(b"a").hexdigest(),
        "v1/en/b.html": hashlib.sha256(b"other").hexdigest(),
    }
    assert outer.same == {"v1/en/a.html"}
    assert outer.location("v1/en/a.html") == previous / "v1" / "en" / "a.html"
    assert outer.read("v1/en/a.html") == b"a" and outer.read("v1/en/b.html") == b"other"
    with pytest.raises(PortalError, match="twice"):
        outer.absorb(inner, "v1")
    with pytest.raises(PortalError, match="outside the output directory"):
        outer.nested("../v2")


def test_a_nested_staging_that_is_not_lazy_links_the_unchanged_files(tmp_path: Path) -> None:
    previous, unchanged = _previous(tmp_path, {"v1/en/a.html": b"a"})
    inner = Staging(tmp_path / "new", previous, unchanged).nested("v1/en")
    inner.write("a.html", b"a")
    assert inner.same == set()
    assert _inode(tmp_path / "new" / "v1" / "en" / "a.html") == _inode(previous / "v1" / "en" / "a.html")


def test_each_worker_gets_a_staging_of_its_own_into_the_same_site(tmp_path: Path) -> None:
    previous, unchanged = _previous(tmp_path, {"en/a.html": b"a"})
    staging = Staging(tmp_path / "new", previous, unchanged, lazy=True)
    worker = staging.fresh()
    worker.write("en/a.html", b"a")
    worker.write("en/b.html", b"b")
    assert worker.same == {"en/a.html"} and set(worker.hashes) == {"en/a.html", "en/b.html"}
    assert staging.hashes == {} and staging.same == set()
    assert (tmp_path / "new" / "en" / "b.html").read_bytes() == b"b"
    assert not (tmp_path / "new" / "en" / "a.html").exists()


def test_files_another_program_wrote_are_recorded_but_not_links(tmp_path: Path) -> None:
    root = tmp_path / "new"
    (root / "pagefind" / "index").mkdir(parents=True)
    (root / "pagefind" / "pagefind.js").write_bytes(b"js")
    (root / "pagefind" / "index" / "en_1.pf_index").write_bytes(b"index")
    (root / "pagefind" / "outside.js").symlink_to(tmp_path)
    (root / "other.html").write_bytes(b"not under the directory")
    staging = Staging(root)
    staging.adopt("pagefind")
    assert staging.hashes == {
        "pagefind/index/en_1.pf_index": hashlib.sha256(b"index").hexdigest(),
        "pagefind/pagefind.js": hashlib.sha256(b"js").hexdigest(),
    }


def test_a_file_written_in_parts_has_its_size_digest_and_separators(tmp_path: Path) -> None:
    previous, unchanged = _previous(tmp_path, {"llms-full.txt": b"a\n\nb\n\nc"})
    (tmp_path / "new").mkdir()
    staging = Staging(tmp_path / "new", previous, unchanged, lazy=True)
    assert staging.write_parts("en/llms-full.txt", [b"a", b"b", b"c"], b"\n\n") == 7
    assert (tmp_path / "new" / "en" / "llms-full.txt").read_bytes() == b"a\n\nb\n\nc"
    assert staging.hashes["en/llms-full.txt"] == hashlib.sha256(b"a\n\nb\n\nc").hexdigest()
    # The previous site holds these very bytes: the new copy goes, the old one stays.
    assert staging.write_parts("llms-full.txt", iter([b"a", b"b", b"c"]), b"\n\n") == 7
    assert staging.same == {"llms-full.txt"} and not (tmp_path / "new" / "llms-full.txt").exists()


def test_an_unchanged_file_is_linked_only_when_the_previous_copy_is_a_regular_file(tmp_path: Path) -> None:
    previous, unchanged = _previous(tmp_path, {"a.html": b"a", "target.html": b"b"})
    (previous / "b.html").symlink_to("target.html")
    unchanged = unchanged | {"b.html": hashlib.sha256(b"b").hexdigest()}
    root = tmp_path / "new"
    root.mkdir()
    staging = Staging(root, previous, unchanged)
    staging.write("a.html", b"a")
    staging.write("b.html", b"b")
    staging.write("c.html", b"c")
    assert _inode(root / "a.html") == _inode(previous / "a.html")
    assert not (root / "b.html").is_symlink() and _inode(root / "b.html") != _inode(previous / "target.html")
    assert (root / "b.html").read_bytes() == b"b" and (root / "c.html").read_bytes() == b"c"
    (tmp_path / "alone").mkdir()
    alone = Staging(tmp_path / "alone", None, unchanged)  # no previous site: every file is written
    alone.write("a.html", b"a")
    assert (tmp_path / "alone" / "a.html").read_bytes() == b"a"


def test_complete_puts_the_files_left_in_place_into_the_new_directory(tmp_path: Path) -> None:
    files = {"en/a.html": b"a", "en/b.html": b"b"}
    with tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as other:
        for where in (tmp_path / "here", Path(other)):  # the same file system (links), another one (copies)
            previous, unchanged = _previous(where, files)
            root = tmp_path / f"new-{where.name}"
            staging = Staging(root, previous, unchanged, lazy=True)
            staging.write("en/a.html", b"a")
            staging.complete()
            assert staging.same == set() and (root / "en" / "a.html").read_bytes() == b"a"
            assert staging.location("en/a.html") == root / "en" / "a.html"
            staging.write("en/b.html", b"b")  # no longer lazy: written (or linked) into the new directory
            assert (root / "en" / "b.html").read_bytes() == b"b"


def _roll_back(tmp_path: Path, journal: object) -> tuple[Path, Path]:
    """A site, a file beside it, and an undo directory holding *journal* (JSON, or text as it is); rolled back."""
    real, undo = tmp_path / "site", tmp_path / "undo"
    (real / "x" / "y").mkdir(parents=True)
    (real / "kept.html").write_bytes(b"kept")
    (real / "x" / "y" / "new.html").write_bytes(b"new")
    (tmp_path / "outside.txt").write_bytes(b"not ours")
    (undo / inplace.FILES / "z").mkdir(parents=True)
    (undo / inplace.FILES / "z" / "old.html").write_bytes(b"old")
    text = journal if isinstance(journal, str) else json.dumps(journal)
    (undo / inplace.JOURNAL).write_text(text, encoding="utf-8")
    inplace.roll_back(real, undo)
    return real, undo


def test_a_roll_back_removes_what_it_made_deepest_directory_first_and_puts_the_old_copies_back(
    tmp_path: Path,
) -> None:
    journal = {"created": ["x/y/new.html"], "directories": ["x", "x/y"]}  # listed shallowest first
    real, undo = _roll_back(tmp_path, journal)
    assert _content(real) == {"kept.html": b"kept", "z/old.html": b"old"}
    assert not (real / "x").exists() and not undo.exists()


@pytest.mark.parametrize("journal", ["{not json", {"created": 3}, {"created": [], "directories": None}])
def test_a_roll_back_with_a_broken_journal_removes_nothing_and_still_puts_the_old_copies_back(
    tmp_path: Path, journal: object
) -> None:
    real, undo = _roll_back(tmp_path, journal)
    assert _content(real) == {"kept.html": b"kept", "z/old.html": b"old", "x/y/new.html": b"new"}
    assert not undo.exists()


def test_a_roll_back_never_acts_outside_the_site_whatever_its_journal_names(tmp_path: Path) -> None:
    """A journal is data read back from disk: a path in it that leaves the site, or is no string, is ignored."""
    outside = str(tmp_path / "outside.txt")
    journal = {"created": ["../outside.txt", outside, 7, "x/y/new.html"], "directories": ["..", "../site", 3]}
    real, _ = _roll_back(tmp_path, journal)
    assert (tmp_path / "outside.txt").read_bytes() == b"not ours"
    assert _content(real) == {"kept.html": b"kept", "z/old.html": b"old"} and real.is_dir()


def test_the_manifest_is_placed_after_every_other_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader of the live site never finds a manifest listing a file that is not there yet."""
    site = tmp_path / "site"
    _publish(site, _site(zz_dot_html=b"old"))
    placed: list[str] = []
    move_in = Confined.move_in

    def recording(tree: Confined, source: Path, path: str) -> None:
        placed.append(path)
        move_in(tree, source, path)

    monkeypatch.setattr(Confined, "move_in", recording)
    _publish(site, _site(en__index_dot_html=b"new", zz_dot_html=b"new"))  # one path sorts after manifest.json
    assert placed == ["en/index.html", "zz.html", "manifest.json"]


def test_a_dropped_page_s_directory_stays_while_it_holds_a_file_we_did_not_write(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _publish(site, _site())
    (site / "en/tools/t05/notes.txt").write_text("mine", encoding="utf-8")
    new = _site()
    del new["en/tools/t05/index.html"]
    del new["en/tools/t06/index.html"]
    _publish(site, new)
    assert _content(site) == new | {"en/tools/t05/notes.txt": b"mine"}
    assert not (site / "en/tools/t06").exists()


def test_a_roll_back_acts_through_no_link_and_keeps_a_directory_that_holds_others_files(tmp_path: Path) -> None:
    """What the journal and the old copies name beneath a symlink (one put there since) is left alone, and
    a directory it made that now holds a file of someone else's stays."""
    real, undo, elsewhere = tmp_path / "site", tmp_path / "undo", tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.html").write_bytes(b"not ours")
    (real / "made").mkdir(parents=True)
    (real / "made" / "notes.txt").write_bytes(b"someone else's")
    (real / "link").symlink_to(elsewhere)
    (undo / inplace.FILES / "link").mkdir(parents=True)
    (undo / inplace.FILES / "link" / "y.html").write_bytes(b"old")
    journal = {"created": ["link/x.html"], "directories": ["made", "link"]}
    (undo / inplace.JOURNAL).write_text(json.dumps(journal), encoding="utf-8")
    inplace.roll_back(real, undo)
    assert sorted(p.name for p in elsewhere.iterdir()) == ["x.html"]
    assert (real / "made" / "notes.txt").read_bytes() == b"someone else's"
    assert (real / "link").is_symlink() and not undo.exists()
    inplace.roll_back(real, undo)  # again, as after an interrupted roll back: nothing left to do
    assert (real / "made" / "notes.txt").read_bytes() == b"someone else's"
