"""The render cache is trusted only as far as its owner: it can change how fast a build is, never a byte of the site.

- a cache directory someone else owns or can write, or that is a symbolic link, is not used: one warning
  says why, the site is the same, and nothing in that directory (or where the link leads) is read or changed;
- a cache directory replaced by a symbolic link during a build is not cleaned up through the link;
- a FIFO (or any file but a regular one) at a record's name is a miss, found without waiting;
- the directories a build creates for its cache are its user's alone (0700);
- nothing the cache holds is code or a pickle (compiled templates stay in memory);
- the key covers every template and catalog a build loads, however it was reached (a theme folder
  or file that is a symbolic link), and the installed mcp-portal code;
- a build that fails leaves the cache exactly as it found it (or absent, if there was none).
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import pickle
import shutil
import sqlite3
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from jinja2.bccache import bc_magic

from generator.cache.keys import code_digest, site_key, theme_digest
from generator.cache.reuse import Reuse
from generator.cache.trust import usable_cache
from generator.commands.demo_portal import demo_config
from generator.config.portal import PortalConfig
from generator.errors import PortalError
from generator.snapshot.snapshot import load_snapshot
from tests.cache_db import dump
from tests.conftest import PYTHON, ROOT, TESTS, Run, tree_bytes

Cli = Callable[..., Run]
SNAPSHOT = TESTS / "golden" / "demo.snapshot.json"
NOBODY = 65534
"""Another user's uid (the tests run as root, which may give a directory away)."""


def _build(cli: Cli, out: Path, *extra: str) -> Run:
    """A small build of the demo snapshot (English, no search index, one process)."""
    argv = ["build", "--from", str(SNAPSHOT), "--out", str(out), "--no-search", "--locales", "en", "--jobs", "1"]
    return cli(*argv, *extra)


def _state(root: Path) -> dict[str, tuple[int, int, int, str]] | None:
    """Everything under *root* (itself included, links not followed): type and mode, owner, and the
    sha256 of a file or the target of a link. None when *root* does not exist."""
    if not os.path.lexists(root):
        return None
    found: dict[str, tuple[int, int, int, str]] = {}
    for path in [root, *sorted(root.rglob("*"))]:
        info = os.lstat(path)
        if stat.S_ISREG(info.st_mode):
            what = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            what = os.readlink(path) if stat.S_ISLNK(info.st_mode) else ""
        found[path.relative_to(root).as_posix()] = (info.st_mode, info.st_uid, info.st_nlink, what)
    return found


def _cache_warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if "render cache" in line]


def _foreign_cache(tmp_path: Path, case: str) -> tuple[Path, str]:
    """A default cache location (beside ``tmp_path/site``) set up as *case*; the directory and the words
    the warning must use."""
    parent = tmp_path / ".mcp-portal-cache"
    cache = parent / "site"
    parent.mkdir(mode=0o700)
    if case.startswith("symlink"):
        mine = tmp_path / "mine"
        mine.mkdir(mode=0o700)
        (mine / f"{'ab' * 32}.pages").write_bytes(b"planted")
        cache.symlink_to(mine)
        if case == "symlink owned by another user":
            os.lchown(cache, NOBODY, NOBODY)
        return cache, "is a symbolic link"
    cache.mkdir(mode=0o700)
    (cache / f"{'ab' * 32}.pages").write_bytes(b"planted")  # named like a record: a used cache would prune it
    if case == "cache owned by another user":
        os.chown(cache, NOBODY, NOBODY)
        return cache, f"belongs to uid {NOBODY}"
    if case == "parent owned by another user":
        os.chown(parent, NOBODY, NOBODY)
        return parent, f"belongs to uid {NOBODY}"
    if case == "cache writable by its group":
        os.chmod(cache, 0o770)
        return cache, "mode 0770"
    os.chmod(parent, 0o1777)  # like /tmp: anyone may add a directory here
    return parent, "mode 1777"


@pytest.mark.parametrize(
    "case",
    [
        "cache owned by another user",
        "parent owned by another user",
        "cache writable by its group",
        "parent writable by others",
        "symlink owned by another user",
        "symlink of your own",  # its clean-up would delete records wherever the link leads (issue 47)
    ],
)
def test_a_cache_someone_else_could_write_is_not_used(tmp_path: Path, cli: Cli, case: str) -> None:
    cache, words = _foreign_cache(tmp_path, case)
    before = _state(tmp_path / ".mcp-portal-cache"), _state(tmp_path / "mine")
    run = _build(cli, tmp_path / "site")
    assert run.code == 0, run.err
    warnings = _cache_warnings(run.err)
    assert len(warnings) == 1, run.err
    assert warnings[0].startswith("warning: not using the render cache")
    assert str(cache) in warnings[0] and words in warnings[0]
    assert "--cache" in warnings[0]  # what to do about it
    assert (_state(tmp_path / ".mcp-portal-cache"), _state(tmp_path / "mine")) == before  # never read, never changed
    plain = _build(cli, tmp_path / "plain", "--no-cache")
    assert plain.code == 0, plain.err
    assert tree_bytes(tmp_path / "site") == tree_bytes(tmp_path / "plain")


def test_the_directories_a_build_makes_for_its_cache_are_its_users_alone(tmp_path: Path, cli: Cli) -> None:
    before = os.umask(0o022)  # the usual umask, which would leave them readable by everyone
    try:
        run = _build(cli, tmp_path / "site")
        run_elsewhere = _build(cli, tmp_path / "other", "--cache", str(tmp_path / "caches" / "deep" / "other"))
    finally:
        os.umask(before)
    assert run.code == 0 and run_elsewhere.code == 0, run.err + run_elsewhere.err
    assert not _cache_warnings(run.err + run_elsewhere.err)
    made = [tmp_path / ".mcp-portal-cache", tmp_path / ".mcp-portal-cache" / "site"]
    made += [tmp_path / "caches", tmp_path / "caches" / "deep", tmp_path / "caches" / "deep" / "other"]
    for directory in made:
        info = directory.stat()
        assert (stat.S_IMODE(info.st_mode), info.st_uid) == (0o700, os.geteuid()), directory
    database = made[1] / "cache.sqlite3"  # and the cache is used, its file the user's alone too
    assert (stat.S_IMODE(database.stat().st_mode), database.stat().st_uid) == (0o600, os.geteuid())


def test_a_cache_directory_slipped_in_after_the_check_fails_the_build(tmp_path: Path) -> None:
    """Between the check at the start of a build and the cache's opening, another user makes the directory."""
    cache = tmp_path / "outer" / ".mcp-portal-cache" / "site"
    assert usable_cache(cache) == (cache, [])  # nothing there yet: fine
    cache.parent.mkdir(parents=True)
    os.chown(cache.parent, NOBODY, NOBODY)
    with pytest.raises(PortalError, match=f"appeared while this build started and belongs to uid {NOBODY}"):
        Reuse(cache, "0" * 64)
    assert cache.parent.is_dir() and not cache.exists()  # theirs is left alone; nothing of ours stays in it


def test_nothing_in_the_cache_is_code_or_a_pickle(tmp_path: Path, cli: Cli) -> None:
    for _ in range(2):  # a cold build, then a warm one
        run = _build(cli, tmp_path / "site", "--jobs", "2")
        assert run.code == 0, run.err
    cache = tmp_path / ".mcp-portal-cache" / "site"
    assert sorted(p.name for p in cache.rglob("*")) == ["cache.sqlite3"]  # one file: published signatures too
    with sqlite3.connect(cache / "cache.sqlite3") as db:
        # Two tables and their unique indexes: no trigger, no view, nothing SQLite would run on our behalf.
        assert sorted(db.execute("SELECT type, name FROM sqlite_schema").fetchall()) == [
            ("index", "sqlite_autoindex_blob_1"), ("index", "sqlite_autoindex_record_1"),
            ("table", "blob"), ("table", "record"),
        ]  # fmt: skip
        headers = [header for (header,) in db.execute("SELECT header FROM record")]
        blobs = [bytes(data) for (data,) in db.execute("SELECT data FROM blob")]
    assert len(headers) > 6 and len(blobs) > 6
    for header in headers:
        json.loads(header)  # every header is JSON
    assert bc_magic not in (cache / "cache.sqlite3").read_bytes()  # no compiled template
    for data in blobs:
        for loads in (pickle.loads, marshal.loads):
            with pytest.raises(Exception):  # noqa: B017 - any failure to load will do
                loads(data)


THEME_BLOCK = '{% extends "shipped/html/tool.html.j2" %}{% block title %}MARK · {{ tool.name }}{% endblock %}'


@pytest.mark.parametrize("linked", ["theme folder", "template folder", "catalog folder", "template file"])
def test_a_theme_reached_through_a_symlink_reaches_the_cached_site(tmp_path: Path, cli: Cli, linked: str) -> None:
    """Edits behind a symbolic link in the theme reach a build with the cache, byte for byte as without it."""
    shared, theme = tmp_path / "shared", tmp_path / "theme"
    (shared / "html").mkdir(parents=True)
    (shared / "locales").mkdir()
    template, catalog = shared / "html" / "tool.html.j2", shared / "locales" / "en.yaml"
    template.write_text(THEME_BLOCK.replace("MARK", "First"), encoding="utf-8")
    catalog.write_text("meta:\n  view_markdown: Twin first\n", encoding="utf-8")
    if linked == "theme folder":
        theme.symlink_to(shared)
    else:
        theme.mkdir()
        if linked == "template file":
            (theme / "html").mkdir()
            (theme / "html" / "tool.html.j2").symlink_to(template)
        else:
            name = "html" if linked == "template folder" else "locales"
            (theme / name).symlink_to(Path("..") / "shared" / name)
    assert _build(cli, tmp_path / "site", "--templates", str(theme)).code == 0
    template.write_text(THEME_BLOCK.replace("MARK", "Second"), encoding="utf-8")
    catalog.write_text("meta:\n  view_markdown: Twin second\n", encoding="utf-8")
    warm = _build(cli, tmp_path / "site", "--templates", str(theme))
    cold = _build(cli, tmp_path / "cold", "--templates", str(theme), "--no-cache")
    assert warm.code == cold.code == 0, warm.err + cold.err
    assert tree_bytes(tmp_path / "site") == tree_bytes(tmp_path / "cold")
    page = (tmp_path / "site" / "en" / "tools" / "search_chat" / "index.html").read_text(encoding="utf-8")
    assert ("<title>Second" in page) == (linked != "catalog folder")
    assert ("Twin second" in page) == (linked in ("theme folder", "catalog folder"))


def test_a_theme_is_hashed_through_its_links_and_a_loop_ends_the_walk(tmp_path: Path) -> None:
    """Every file a loader could read changes the theme's hash: behind a link to a folder (reached twice,
    or back up to the theme itself) and where a link that leads nowhere points."""
    theme, shared = tmp_path / "theme", tmp_path / "shared"
    (theme / "html").mkdir(parents=True)
    shared.mkdir()
    (shared / "tool.html.j2").write_text("one", encoding="utf-8")
    (theme / "html" / "a").symlink_to(shared)
    (theme / "html" / "b").symlink_to(shared)
    (theme / "html" / "up").symlink_to("..")
    (theme / "dangling").symlink_to(tmp_path / "nowhere")
    hashes = [theme_digest(theme)]
    (shared / "tool.html.j2").write_text("two", encoding="utf-8")
    hashes.append(theme_digest(theme))
    (theme / "dangling").unlink()
    (theme / "dangling").symlink_to(tmp_path / "elsewhere")
    hashes.append(theme_digest(theme))
    (theme / "html" / "new.html.j2").write_text("", encoding="utf-8")
    hashes.append(theme_digest(theme))
    assert len(set(hashes)) == 4 and theme_digest(theme) == hashes[-1] and theme_digest(None) == ""


def test_the_key_covers_the_installed_code() -> None:
    """Through the public key function: another code hash, another key; the default is the installed code's."""
    snapshot = load_snapshot(SNAPSHOT)
    config = demo_config(PortalConfig(search=False))
    assert site_key(snapshot, config) == site_key(snapshot, config, code=code_digest())
    assert site_key(snapshot, config, code="a") != site_key(snapshot, config, code="b")


def _installed_copy(where: Path) -> Path:
    """A copy of mcp-portal's package and shipped files, to be imported in place of the real one."""
    shutil.copytree(ROOT / "generator", where / "generator", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("templates", "locales"):
        shutil.copytree(ROOT / name, where / name)
    return where


def test_an_upgrade_that_changes_output_is_not_served_from_the_cache(tmp_path: Path) -> None:
    """One line of the installed code changes what every page says: a rebuild with the old cache shows
    it on every page, exactly as a build without the cache does."""
    package = _installed_copy(tmp_path / "installed")

    def build(out: str, *extra: str) -> dict[str, bytes]:
        argv = [PYTHON, "-m", "generator", "build", "--from", str(SNAPSHOT), "--out", str(tmp_path / out)]
        argv += ["--no-search", "--locales", "en", "--jobs", "1", "--cache", str(tmp_path / "cache"), *extra]
        env = {**os.environ, "PYTHONPATH": str(package)}
        done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        return tree_bytes(tmp_path / out)

    build("site")
    extras = package / "generator" / "render" / "extras.py"
    source = extras.read_text(encoding="utf-8")
    assert "\"img-src 'self' data:; " in source
    extras.write_text(source.replace("\"img-src 'self' data:; ", "\"img-src 'self'; "), encoding="utf-8")
    warm, cold = build("site"), build("cold", "--no-cache")
    assert warm == cold
    tool_page = warm["en/tools/search_chat/index.html"]
    assert b"img-src &#39;self&#39;; font-src" in tool_page  # the policy in every page's <meta>


@pytest.mark.parametrize("before", ["no cache yet", "a cache from an earlier build"])
def test_a_failed_build_leaves_the_cache_as_it_found_it(tmp_path: Path, cli: Cli, before: str) -> None:
    theme = tmp_path / "theme" / "html"
    theme.mkdir(parents=True)
    (theme / "tool.html.j2").write_text(
        '{% extends "shipped/html/tool.html.j2" %}{% block title %}{{ no_such_name.field }}{% endblock %}',
        encoding="utf-8",
    )
    jobs = "1"
    if before != "no cache yet":
        assert _build(cli, tmp_path / "site").code == 0
        jobs = "2"  # the parent compiles every template before the workers start
    found = _cache_state(tmp_path / ".mcp-portal-cache")
    run = _build(cli, tmp_path / "site", "--templates", str(tmp_path / "theme"), "--jobs", jobs)
    assert run.code == 1 and "no_such_name" in run.err, run.err
    assert _cache_state(tmp_path / ".mcp-portal-cache") == found


def _cache_state(root: Path) -> tuple[object, ...]:
    """:func:`_state` of *root*, the database's files apart (SQLite may move its pages), with every record
    and blob the database holds."""
    files = _state(root)
    if files is None:
        return (None,)
    database = root / "site" / "cache.sqlite3"
    kept = {path: what for path, what in files.items() if "cache.sqlite3" not in path}
    return kept, dump(root / "site") if database.exists() else None


def _build_process(tmp_path: Path, out: str, *extra: str) -> subprocess.CompletedProcess[str]:
    """:func:`_build` as a process of its own, stopped after 120 s (a build that waits for ever must fail the test)."""
    argv = [PYTHON, "-m", "generator", "build", "--from", str(SNAPSHOT), "--out", str(tmp_path / out), "--no-search"]
    argv += ["--locales", "en", "--jobs", "1", "--quiet", *extra]
    return subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("record", ["cache.sqlite3"])
def test_a_fifo_at_a_cache_files_name_is_a_miss_not_a_wait(tmp_path: Path, record: str) -> None:
    """A FIFO has no writer, so opening it to read waits for ever, past --max-render-seconds (issue 47):
    the cache takes only regular files, and says why it did not use its database."""
    assert _build_process(tmp_path, "site").returncode == 0
    cache = tmp_path / ".mcp-portal-cache" / "site"
    planted = cache / record
    assert planted.is_file(), sorted(p.name for p in cache.iterdir())
    planted.unlink()
    os.mkfifo(planted)
    shutil.rmtree(tmp_path / "site")  # no previous page to link: each one is looked for in the cache
    done = _build_process(tmp_path, "site", "--max-render-seconds", "30")
    assert done.returncode == 0, done.stderr
    assert ("is not a regular file that only you can read and write" in done.stderr) == (record == "cache.sqlite3")
    if record == "cache.sqlite3":
        assert stat.S_ISFIFO(os.lstat(planted).st_mode)  # not ours to remove
    assert _build_process(tmp_path, "plain", "--no-cache").returncode == 0
    assert tree_bytes(tmp_path / "site") == tree_bytes(tmp_path / "plain")


def test_a_cache_directory_swapped_for_a_symlink_is_not_cleaned_up_through_it(tmp_path: Path) -> None:
    """Between the check and the clean-up the cache directory becomes a link to another directory: the
    records there that this build did not use are not removed, and nothing is moved there."""
    root, elsewhere = tmp_path / "cache", tmp_path / "elsewhere"
    elsewhere.mkdir()
    planted = elsewhere / f"{'ab' * 32}.pages"
    planted.write_bytes(b"someone's file, named like a record")
    cache = Reuse(root, "0" * 64)
    cache.write_search_files("cd" * 32, {"en/index.html": "0" * 64})  # a new record, pending
    root.rename(tmp_path / "moved")
    root.symlink_to(elsewhere)
    cache.commit()
    assert sorted(p.name for p in elsewhere.iterdir()) == [planted.name]
    assert planted.read_bytes() == b"someone's file, named like a record"
    cache.discard()
    assert sorted(p.name for p in elsewhere.iterdir()) == [planted.name]
