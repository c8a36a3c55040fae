"""A rebuild never deletes, replaces or creates anything through a symlink in the previous site.

A previous site can hold symlinks (git stores them: a ``gh-pages`` checkout or a downloaded
artifact), and its ``manifest.json`` is read from that site, so it may list files beneath one.
Every case builds through the real CLI from the golden demo snapshot over a copy of a site built
once, with a directory ``outside`` beside it that a link points into, and asserts that
``outside`` is byte for byte what it was, that the link is still there, and the exit code and
message. Both ways of publishing are covered: in place (``--no-search`` over the same build,
the usual CI rebuild) and the swap of the whole directory (a build that adds a locale).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from generator.errors import PortalError
from generator.publish.staging import Staging
from generator.publish.write import publish
from generator.site.assemble import write_manifest
from tests.conftest import TESTS, Run, tree_bytes

Cli = Callable[..., Run]
GOLDEN = TESTS / "golden" / "demo.snapshot.json"
WAYS = {"in place": ("--locales", "en"), "swap": ("--locales", "en,ru")}
"""The publish each build takes over the English-only site: nothing changed, or a whole new locale."""


def _build(cli: Cli, out: Path, *extra: str) -> Run:
    return cli("build", "--from", str(GOLDEN), "--out", str(out), "--no-search", *extra)


def _state(root: Path) -> dict[str, tuple[str, bytes | str]]:
    """Every entry under *root*, symlinks not followed: kind, and bytes or link target."""
    found: dict[str, tuple[str, bytes | str]] = {}
    for top, dirs, names in os.walk(root, followlinks=False):
        for name in [*dirs, *names]:
            path = Path(top) / name
            key = path.relative_to(root).as_posix()
            if path.is_symlink():
                found[key] = ("symlink", os.readlink(path))
            elif path.is_dir():
                found[key] = ("dir", b"")
            else:
                found[key] = ("file", path.read_bytes())
    return found


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo in English, built once per module and copied per test."""
    from generator.commands.cli import main

    out = tmp_path_factory.mktemp("pristine") / "site"
    assert main(["build", "--from", str(GOLDEN), "--out", str(out), "--no-search", "--locales", "en"]) == 0
    return out


@pytest.fixture
def site(pristine: Path, tmp_path: Path) -> Path:
    out = tmp_path / "site"
    shutil.copytree(pristine, out, symlinks=True)
    return out


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """Someone's files beside the site: what a link in the site points into."""
    root = tmp_path / "outside"
    (root / "sub" / "deeper").mkdir(parents=True)
    (root / "a.html").write_bytes(b"<p>not the site's</p>\n")
    (root / "sub" / "b.html").write_bytes(b"<p>nor this</p>\n")
    (root / "sub" / "deeper" / "c.txt").write_bytes(b"keep me\n")
    return root


def _list(site: Path, claims: dict[str, bytes | None]) -> None:
    """Make the site's manifest list each path, with the sha256 of the bytes given (None: a hash matching nothing)."""
    manifest = site / "manifest.json"
    data = json.loads(manifest.read_bytes())
    for path, content in claims.items():
        data["files"][path] = hashlib.sha256(content).hexdigest() if content is not None else "0" * 64
    manifest.write_text(json.dumps(data), encoding="utf-8")


def _publishes(way: str, site: Path, run: Callable[[], Run]) -> Run:
    """Run the build and check it took *way* (a swap puts a new directory at the site's path)."""
    before = site.stat().st_ino
    result = run()
    assert result.code == 0, result.err
    assert (site.stat().st_ino != before) == (way == "swap"), "the build did not take the way the test is about"
    return result


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("absolute", [False, True], ids=["relative", "absolute"])
def test_listed_files_beneath_a_linked_directory_are_left_alone(
    cli: Cli, site: Path, outside: Path, tmp_path: Path, way: str, absolute: bool
) -> None:
    """``site/gone -> ../outside`` and a manifest listing files beneath it (one hash right, one wrong):
    nothing in ``outside`` is removed (no file, no emptied directory), the link stays, a warning names them."""
    (site / "gone").symlink_to(outside if absolute else Path("..") / "outside")
    _list(site, {"gone/a.html": None, "gone/sub/b.html": b"<p>nor this</p>\n", "gone/sub/deeper/c.txt": None})
    before = _state(outside)
    result = _publishes(way, site, lambda: _build(cli, site, *WAYS[way]))
    assert _state(outside) == before
    assert os.readlink(site / "gone") == (str(outside) if absolute else "../outside")
    assert "beneath a symbolic link" in result.err and "gone/a.html" in result.err and "gone/sub/b.html" in result.err
    assert not any(p.startswith("gone/") for p in json.loads((site / "manifest.json").read_bytes())["files"])
    assert _build(cli, site, *WAYS[way]).code == 0  # and again, now that the manifest no longer lists them
    assert _state(outside) == before


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("absolute", [False, True], ids=["relative", "absolute"])
def test_a_link_to_a_file_is_kept_and_its_target_untouched(
    cli: Cli, site: Path, outside: Path, way: str, absolute: bool
) -> None:
    """A link to a file, unlisted or on the way to a listed path (``note/x.html``), is kept and never followed."""
    target = outside / "a.html" if absolute else Path("..") / "outside" / "a.html"
    (site / "note").symlink_to(target)
    (site / "en" / "note.html").symlink_to(outside / "sub" / "b.html" if absolute else "../../outside/sub/b.html")
    _list(site, {"note/x.html": None})
    before = _state(outside)
    _publishes(way, site, lambda: _build(cli, site, *WAYS[way]))
    assert _state(outside) == before
    assert (site / "note").is_symlink() and (site / "en" / "note.html").is_symlink()


@pytest.mark.parametrize("way", WAYS)
def test_a_linked_directory_where_the_new_site_writes_is_refused(cli: Cli, site: Path, outside: Path, way: str) -> None:
    """The site's own ``en/tools`` replaced by a link to a directory outside: the build would create and
    replace its pages through it, so it is refused with one clear paragraph, and nothing outside changes."""
    shutil.rmtree(site / "en" / "tools")
    (site / "en" / "tools").symlink_to(Path("..") / ".." / "outside")
    before = _state(outside)
    result = _build(cli, site, *WAYS[way])
    assert result.code == 1, result.err
    assert result.err.startswith("mcp-portal: error: The site in") and "en/tools" in result.err
    assert result.err.count("\n") == 1 and "Traceback" not in result.err
    assert _state(outside) == before and (site / "en" / "tools").is_symlink()


def test_a_killed_builds_journal_is_never_replayed_through_a_link(cli: Cli, site: Path, outside: Path) -> None:
    """The undo directory a killed build leaves is replayed by the next build; paths it names beneath a
    link in the site are neither removed nor created through it."""
    (site / "gone").symlink_to(Path("..") / "outside")
    undo = site.parent / ".site.undo-99999999"  # no such process: a leftover of a killed build
    (undo / "files" / "gone").mkdir(parents=True)
    (undo / "files" / "gone" / "planted.html").write_bytes(b"<p>planted</p>\n")
    journal = {"created": ["gone/a.html", "gone/sub/b.html"], "directories": ["gone/sub/deeper"]}
    (undo / "journal.json").write_text(json.dumps(journal), encoding="utf-8")
    before = _state(outside)
    assert _build(cli, site, "--locales", "en").code == 0
    assert _state(outside) == before
    assert not undo.exists()


def test_a_link_swapped_in_while_the_build_runs_stops_the_publish(tmp_path: Path, outside: Path) -> None:
    """The survey saw a directory; by the time the change is placed it is a link to ``outside``: the
    publish fails with one message naming the link, and writes nothing through it."""
    site = tmp_path / "site"
    pages = {f"en/tools/t{i}/index.html": f"<p>tool {i}</p>".encode() for i in range(10)} | {"index.html": b"<p>i</p>"}

    def producer(files: dict[str, bytes], after: Callable[[], None] = lambda: None) -> Callable[[Staging], None]:
        def produce(staging: Staging) -> None:
            for path, data in sorted(files.items()):
                staging.write(path, data)
            write_manifest(staging, {"capability_version": "1", "fingerprint": "sha256:0"})
            after()

        return produce

    def swap_in_a_link() -> None:
        (site / "en").rename(outside / "en")
        (site / "en").symlink_to(outside / "en")

    publish(site, producer(pages))
    before = _state(outside)
    changed = pages | {"en/tools/t3/index.html": b"<p>changed</p>", "en/tools/t3/new.html": b"<p>new</p>"}
    with pytest.raises(PortalError, match="is a symbolic link, and mcp-portal never deletes") as caught:
        publish(site, producer(changed, swap_in_a_link))
    assert str(site / "en") in str(caught.value) and "previous site is unchanged" in str(caught.value)
    assert {k: v for k, v in _state(outside).items() if k != "en" and not k.startswith("en/")} == before
    assert tree_bytes(outside / "en") == {p[3:]: d for p, d in pages.items() if p.startswith("en/")}


def test_a_listed_file_that_is_gone_is_no_obstacle(cli: Cli, site: Path) -> None:
    """A manifest listing a file that is not there (nor its directory): nothing to remove, the rebuild succeeds."""
    _list(site, {"gone-dir/x.html": None, "en/gone.html": None})
    run = _build(cli, site, "--locales", "en")
    assert run.code == 0, run.err
    assert "gone" not in json.dumps(json.loads((site / "manifest.json").read_bytes())["files"])


# ---------------------------------------------------------------- --cache and --out apart, however reached


def _apart(run: Run, *phrases: str) -> None:
    assert run.code == 1, (run.out, run.err)
    assert run.err.startswith("mcp-portal: error:") and run.err.count("\n") == 1, run.err
    for phrase in phrases:
        assert phrase in run.err, run.err


def test_a_cache_reached_through_a_link_into_the_output_is_refused(cli: Cli, site: Path, tmp_path: Path) -> None:
    """``--cache into-site/cache`` with ``into-site -> site``: the cache would be published as kept files."""
    (tmp_path / "into-site").symlink_to("site")
    before = _state(site)
    run = _build(cli, site, "--locales", "en", "--cache", str(tmp_path / "into-site" / "cache"))
    _apart(run, "is inside the output directory", str(site))
    assert _state(site) == before


def test_a_cache_that_is_a_link_to_the_output_is_refused(cli: Cli, site: Path, tmp_path: Path) -> None:
    (tmp_path / "cache").symlink_to(site / "en")
    before = _state(site)
    _apart(_build(cli, site, "--locales", "en", "--cache", str(tmp_path / "cache")), "is inside the output directory")
    assert _state(site) == before


def test_an_output_inside_the_cache_is_refused(cli: Cli, site: Path, tmp_path: Path) -> None:
    """The other way round: ``--out`` inside ``--cache``, written as it is or through a link."""
    (tmp_path / "via").symlink_to(tmp_path)
    for cache in (tmp_path, tmp_path / "via"):
        before = _state(site)
        run = _build(cli, site, "--locales", "en", "--cache", str(cache))
        _apart(run, "is inside the cache directory")
        assert _state(site) == before
