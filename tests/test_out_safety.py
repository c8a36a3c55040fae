"""The ``--out`` contract: a build replaces only a site it wrote, and never deletes anything else.

Every case builds through the real CLI (``generator.commands.cli.main``) from the golden demo
snapshot into a temporary directory full of dummy files (nested directories, dotfiles,
binary bytes, symlinks), and asserts the exit code, the message and that every entry
survives byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from generator.errors import PortalError
from generator.publish.location import check_cache_apart, check_location
from generator.publish.survey import Foreign, unlisted
from tests.cache_db import dump
from tests.conftest import TESTS, Run, tree_bytes

Cli = Callable[..., Run]
GOLDEN = TESTS / "golden" / "demo.snapshot.json"
FAST = ("--no-search",)


def _build(cli: Cli, out: Path | str, *extra: str) -> Run:
    return cli("build", "--from", str(GOLDEN), "--out", str(out), *FAST, *extra)


def _state(root: Path) -> dict[str, tuple[str, bytes | str, int]]:
    """Every entry under *root* (symlinks not followed): kind, bytes or link target, and mode."""
    found: dict[str, tuple[str, bytes | str, int]] = {}
    for top, dirs, names in os.walk(root, followlinks=False):
        for name in [*dirs, *names]:
            path = Path(top) / name
            rel = path.relative_to(root).as_posix()
            info = path.lstat()
            if path.is_symlink():
                found[rel] = ("symlink", os.readlink(path), 0)
            elif path.is_dir():
                found[rel] = ("dir", b"", info.st_mode & 0o7777)
            elif name.startswith("cache.sqlite3-"):
                continue  # SQLite's log and shared memory: what they hold is in the dump below
            elif name == "cache.sqlite3":  # the render cache: what it holds, not where SQLite put it
                found[rel] = ("database", repr(dump(path.parent)).encode(), info.st_mode & 0o7777)
            else:
                found[rel] = ("file", path.read_bytes(), info.st_mode & 0o7777)
    return found


def _dummies(root: Path) -> Path:
    """A directory full of someone's files: nested, hidden, binary, executable, a symlink."""
    (root / "notes" / "deep" / "deeper").mkdir(parents=True, exist_ok=True)
    (root / ".git" / "objects").mkdir(parents=True, exist_ok=True)
    (root / "README.md").write_text("# My project\n", encoding="utf-8")
    (root / ".env").write_text("TOKEN=secret-value\n", encoding="utf-8")
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (root / ".git" / "objects" / "ab").write_bytes(bytes(range(256)))
    (root / "notes" / "deep" / "deeper" / "thesis.tex").write_bytes(b"\\documentclass{article}\n" * 50)
    script = root / "notes" / "run.sh"
    script.write_text("#!/bin/sh\necho hi\n", encoding="utf-8")
    script.chmod(0o755)
    (root / "empty-dir").mkdir(exist_ok=True)
    (root / "link-to-readme").symlink_to("README.md")
    return root


def _no_leftovers(parent: Path) -> list[str]:
    """Staging or old directories of any build beside *parent*'s entries (a finished build leaves none)."""
    return sorted(p.name for p in parent.iterdir() if re.search(r"\.(staging|old)-\d+$", p.name))


def _refused(run: Run, *phrases: str) -> None:
    assert run.code == 1, (run.out, run.err)
    assert run.err.startswith("mcp-portal: error: Refusing to use"), run.err
    assert "Traceback" not in run.err
    assert run.err.count("\n") == 1, "one paragraph"
    for phrase in phrases:
        assert phrase in run.err, run.err


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo built once per module (en and ru), copied per test and never touched."""
    from generator.commands.cli import main

    out = tmp_path_factory.mktemp("pristine") / "site"
    assert main(["build", "--from", str(GOLDEN), "--out", str(out), *FAST, "--locales", "en,ru"]) == 0
    return out


@pytest.fixture
def site(pristine: Path, tmp_path: Path) -> Path:
    out = tmp_path / "site"
    shutil.copytree(pristine, out, symlinks=True)
    return out


# ---------------------------------------------------------------- places that are never an output


def test_the_current_directory_is_refused(tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    work = _dummies(tmp_path / "project")
    before = _state(tmp_path)
    monkeypatch.chdir(work)
    _refused(_build(cli, "."), "the current directory", str(work), "such as ./site")
    assert _state(tmp_path) == before  # not even a lock file was written


def test_the_current_directory_is_refused_even_when_it_is_a_site(
    site: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _state(site.parent)
    monkeypatch.chdir(site)
    _refused(_build(cli, "."), "the current directory")
    assert _state(site.parent) == before


def test_an_ancestor_of_the_current_directory_is_refused(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = _dummies(tmp_path / "project")
    inner = work / "notes" / "deep"
    before = _state(tmp_path)
    monkeypatch.chdir(inner)
    _refused(_build(cli, ".."), "a parent of the current directory")
    _refused(_build(cli, str(work)), "a parent of the current directory", str(inner))
    assert _state(tmp_path) == before


def test_the_home_directory_and_its_parents_are_refused(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = _dummies(tmp_path / "users" / "me")
    monkeypatch.setenv("HOME", str(home))
    (tmp_path / "elsewhere").mkdir()  # the current directory: so that rule is not what refuses
    monkeypatch.chdir(tmp_path / "elsewhere")
    before = _state(tmp_path)
    _refused(_build(cli, str(home)), "your home directory")
    _refused(_build(cli, str(home.parent)), "a parent of your home directory")
    assert _state(tmp_path) == before


def test_the_root_is_refused(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    root = set(os.listdir("/"))
    _refused(_build(cli, "/"), "the root of the file system")
    assert set(os.listdir("/")) == root  # no lock file, no staging directory


def test_a_non_empty_directory_that_is_not_a_site_is_refused(tmp_path: Path, cli: Cli) -> None:
    docs = _dummies(tmp_path / "docs")
    before = _state(tmp_path)
    _refused(
        _build(cli, str(docs)),
        str(docs),
        "not empty and not a site built by mcp-portal (it has no manifest.json)",
        "empty it yourself",
    )
    assert _state(tmp_path) == before


def test_a_directory_holding_only_a_dotfile_is_not_empty(tmp_path: Path, cli: Cli) -> None:
    out = tmp_path / "site"
    out.mkdir()
    (out / ".nojekyll").write_bytes(b"")
    before = _state(tmp_path)
    _refused(_build(cli, str(out)), "not empty")
    assert _state(tmp_path) == before


def test_an_empty_or_new_directory_is_fine(tmp_path: Path, cli: Cli, pristine: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _build(cli, empty, "--locales", "en,ru").code == 0
    assert tree_bytes(empty) == tree_bytes(pristine)
    assert _build(cli, tmp_path / "new" / "nested" / "site", "--locales", "en,ru").code == 0
    assert _no_leftovers(tmp_path) == []


# ---------------------------------------------------------------- the build's own inputs


def _project(root: Path) -> Path:
    """A project directory: dummies plus the inputs a build reads."""
    _dummies(root)
    (root / "overlays").mkdir()
    (root / "overlays" / "search_chat.yaml").write_text("tool: search_chat\nnotes:\n  en: Hi.\n", encoding="utf-8")
    (root / "templates").mkdir()
    (root / "templates" / "README").write_text("my templates\n", encoding="utf-8")
    (root / "translations").mkdir()
    (root / "translations" / "ru.yaml").write_text("{}\n", encoding="utf-8")
    (root / "portal.yaml").write_text("title: Mine\n", encoding="utf-8")
    shutil.copy(GOLDEN, root / "snapshot.json")
    (root / "api.yaml").write_text("openapi: 3.1.0\n", encoding="utf-8")
    return root


@pytest.mark.parametrize(
    ("option", "relative", "label"),
    [
        ("--config", "portal.yaml", "the config file"),
        ("--overlays", "overlays", "the overlays directory"),
        ("--templates", "templates", "the template directory"),
        ("--translations", "translations", "the translations directory"),
        ("--openapi", "api.yaml", "the OpenAPI document"),
        ("--from", "snapshot.json", "the snapshot given with --from"),
    ],
)
def test_a_directory_holding_an_input_is_refused(
    tmp_path: Path, cli: Cli, option: str, relative: str, label: str
) -> None:
    project = _project(tmp_path / "project")
    before = _state(tmp_path)
    source = () if option == "--from" else ("--from", str(GOLDEN))
    run = cli("build", *source, option, str(project / relative), "--out", str(project), *FAST)
    _refused(run, f"a directory holding {label} {project / relative}", "Keep the site apart from its sources")
    assert _state(tmp_path) == before
    # A grandparent holds it too, at any depth.
    run = cli("build", *source, option, str(project / relative), "--out", str(tmp_path), *FAST)
    _refused(run, label)
    assert _state(tmp_path) == before


def test_a_previous_site_holding_the_config_file_is_refused(site: Path, cli: Cli) -> None:
    """An unlisted file would be kept, but a site that holds its own config is refused outright."""
    (site / "portal.yaml").write_text("title: Mine\nout: .\n", encoding="utf-8")
    before = _state(site.parent)
    run = cli("build", "--from", str(GOLDEN), "--config", str(site / "portal.yaml"), *FAST)
    _refused(run, "the config file", str(site / "portal.yaml"))
    assert _state(site.parent) == before


def test_an_out_inside_an_input_directory_is_refused(tmp_path: Path, cli: Cli) -> None:
    project = _project(tmp_path / "project")
    before = _state(tmp_path)
    for option, relative in (("--templates", "templates"), ("--overlays", "overlays")):
        out = project / relative / "site"
        run = cli("build", "--from", str(GOLDEN), option, str(project / relative), "--out", str(out), *FAST)
        _refused(run, f"inside the {'template' if relative == 'templates' else 'overlays'} directory")
        assert _state(tmp_path) == before


def test_a_site_may_be_rebuilt_from_its_own_snapshot(site: Path, cli: Cli, pristine: Path) -> None:
    """``--from site/snapshot.json`` and ``--previous site`` read the site's own files: that is allowed."""
    run = cli("build", "--from", str(site / "snapshot.json"), "--out", str(site), "--locales", "en,ru", *FAST)
    assert run.code == 0, run.err
    assert tree_bytes(site) == tree_bytes(pristine)
    run = cli("build", "--from", str(GOLDEN), "--previous", str(site), "--out", str(site), *FAST)
    assert run.code == 0, run.err
    assert _no_leftovers(site.parent) == []


# ---------------------------------------------------------------- symlinks


def test_a_symlink_to_a_site_is_followed_and_kept(site: Path, cli: Cli, tmp_path: Path) -> None:
    link = tmp_path / "published"
    link.symlink_to(site)
    run = _build(cli, link, "--locales", "en")
    assert run.code == 0, run.err
    assert link.is_symlink() and os.readlink(link) == str(site)
    assert not (site / "ru").exists()  # the target's content was replaced
    reference = tmp_path / "reference"
    assert _build(cli, reference, "--locales", "en").code == 0
    assert tree_bytes(site) == tree_bytes(reference)
    assert _no_leftovers(tmp_path) == []


def test_a_symlink_to_a_directory_that_is_not_a_site_is_refused(tmp_path: Path, cli: Cli) -> None:
    docs = _dummies(tmp_path / "docs")
    link = tmp_path / "site"
    link.symlink_to(docs)
    before = _state(tmp_path)
    _refused(_build(cli, link), f"{link} ({docs})", "not a site built by mcp-portal")
    assert _state(tmp_path) == before


def test_a_symlink_loop_is_refused(tmp_path: Path, cli: Cli) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    before = _state(tmp_path)
    _refused(_build(cli, tmp_path / "a"), "a symbolic link that loops")
    assert _state(tmp_path) == before


def test_a_dangling_symlink_is_followed_to_a_new_site(tmp_path: Path, cli: Cli) -> None:
    link = tmp_path / "site"
    link.symlink_to(tmp_path / "target")
    assert _build(cli, link).code == 0
    assert link.is_symlink() and (tmp_path / "target" / "manifest.json").is_file()
    assert _no_leftovers(tmp_path) == []


def test_a_lock_path_that_is_a_symlink_is_refused_and_its_target_untouched(site: Path, cli: Cli) -> None:
    victim = site.parent / "victim.txt"
    victim.write_bytes(b"precious\n" * 100)
    lock = site.parent / ".site.lock"
    lock.unlink(missing_ok=True)
    lock.symlink_to(victim)
    before = _state(site.parent)
    run = _build(cli, site)
    assert run.code == 1
    assert f"The lock file {lock} is a symbolic link" in run.err
    assert "Remove" in run.err and "Traceback" not in run.err
    assert _state(site.parent) == before
    # A dangling one is refused too, and its target is not created.
    lock.unlink()
    lock.symlink_to(site.parent / "created-through-the-link")
    assert _build(cli, site).code == 1
    assert not (site.parent / "created-through-the-link").exists()


def test_an_existing_lock_file_is_never_truncated(site: Path, cli: Cli) -> None:
    lock = site.parent / ".site.lock"
    lock.write_bytes(b"someone's bytes\n")
    assert _build(cli, site, "--locales", "en,ru").code == 0
    assert lock.read_bytes() == b"someone's bytes\n"


# ---------------------------------------------------------------- a previous site: replaced, user files kept


def test_files_the_manifest_does_not_list_are_kept(site: Path, cli: Cli, tmp_path: Path) -> None:
    victim = tmp_path / "outside.txt"
    victim.write_bytes(b"outside\n")
    mine = {
        "CNAME": b"docs.example.com\n",
        ".nojekyll": b"",
        ".well-known/security.txt": b"Contact: mailto:sec@example.com\n",
        "en/extra/notes.bin": bytes(range(256)),
    }
    for path, data in mine.items():
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_bytes(data)
    (site / "keep-empty").mkdir()
    (site / "to-outside").symlink_to(victim)
    (site / "en" / "llms.txt").write_bytes(b"edited by hand\n")  # ours: replaced, with a warning
    run = _build(cli, site, "--locales", "en")  # ru is no longer built: its pages are ours and go
    assert run.code == 0, run.err
    assert "kept 6 file(s)" in run.err
    for name in (".nojekyll", ".well-known/security.txt", "CNAME", "en/extra/notes.bin", "keep-empty", "to-outside"):
        assert name in run.err
    assert "edited after it was built: en/llms.txt" in run.err
    for path, data in mine.items():
        assert (site / path).read_bytes() == data
    assert (site / "keep-empty").is_dir() and os.readlink(site / "to-outside") == str(victim)
    assert victim.read_bytes() == b"outside\n"
    assert not (site / "ru").exists()
    reference = tmp_path / "reference"
    assert _build(cli, reference, "--locales", "en").code == 0
    ours = {p: d for p, d in tree_bytes(site).items() if p not in mine and not p.startswith("to-outside")}
    assert ours == tree_bytes(reference)  # the new manifest lists only what this build wrote
    assert "CNAME" not in json.loads((site / "manifest.json").read_bytes())["files"]
    assert _no_leftovers(tmp_path) == []
    # check agrees: kept files are not drift, and a second build keeps them again.
    run = cli("check", "--from", str(GOLDEN), "--out", str(site), "--locales", "en", *FAST)
    assert run.code == 0, run.out
    assert "up to date" in run.out and "Kept: 5 file(s)" in run.out and "CNAME" in run.out
    assert _build(cli, site, "--locales", "en").code == 0
    assert (site / "CNAME").read_bytes() == mine["CNAME"]


def _unlisted_by_os_walk(real: Path, listed: set[str]) -> list[Foreign]:
    """What unlisted() found when it walked with os.walk and an lstat per directory (before 1k-tool
    rebuilds made its speed matter): the reference it must agree with."""
    found: list[Foreign] = []
    root = os.fspath(real)
    for top, dirs, names in os.walk(root, followlinks=False):
        prefix = "" if top == root else top[len(root) + 1 :] + "/"
        found += [Foreign(prefix + d, "symlink") for d in dirs if os.path.islink(os.path.join(top, d))]
        if not dirs and not names and prefix:
            found.append(Foreign(prefix.rstrip("/"), "dir"))
        for name in names:
            if prefix + name in listed or prefix + name == "manifest.json":
                continue
            mode = os.lstat(os.path.join(top, name)).st_mode
            kind = "symlink" if stat.S_ISLNK(mode) else "file" if stat.S_ISREG(mode) else "other"
            found.append(Foreign(prefix + name, kind))
    return sorted(found, key=lambda e: e.path)


def test_unlisted_finds_what_a_walk_of_the_tree_finds(tmp_path: Path) -> None:
    """Every kind of entry a user may leave in a site, listed or not, at every depth."""
    real, outside = tmp_path / "site", tmp_path / "outside"
    (outside / "inner").mkdir(parents=True)
    (outside / "file.txt").write_bytes(b"x")
    listed = {"index.html", "en/index.html", "en/tools/a/index.html", "en/link-listed", "ru/gone.md"}
    for path in [*listed - {"en/link-listed", "ru/gone.md"}, "manifest.json", "CNAME", "en/tools/a/mine.bin"]:
        (real / path).parent.mkdir(parents=True, exist_ok=True)
        (real / path).write_bytes(b"")
    for empty in ("keep-empty", "en/deep/er/empty"):
        (real / empty).mkdir(parents=True)
    (real / "ru").mkdir()  # holds nothing: its listed file is gone
    (real / "to-dir").symlink_to(outside)  # never walked into
    (real / "en" / "to-file").symlink_to(outside / "file.txt")
    (real / "en" / "broken").symlink_to(tmp_path / "nowhere")
    (real / "en" / "link-listed").symlink_to(outside / "file.txt")  # listed: skipped, as before
    (real / "en" / "tools" / "dir-link").symlink_to(outside / "inner")
    os.mkfifo(real / "en" / "pipe")
    found = unlisted(real, dict.fromkeys(listed, ""))
    assert found == _unlisted_by_os_walk(real, listed)
    assert {e.kind for e in found} == {"file", "dir", "symlink", "other"}
    assert Foreign("to-dir", "symlink") in found and not any(e.path.startswith("to-dir/") for e in found)


def test_a_kept_file_where_the_new_site_writes_is_refused(site: Path, cli: Cli, tmp_path: Path) -> None:
    assert _build(cli, site, "--locales", "en").code == 0
    (site / "ru").mkdir()
    (site / "ru" / "index.html").write_text("<p>my own Russian page</p>\n", encoding="utf-8")
    before = _state(tmp_path)
    run = _build(cli, site, "--locales", "en,ru")
    assert run.code == 1
    assert "ru/index.html, which mcp-portal did not write" in run.err
    assert "the previous site is unchanged" in run.err.lower()
    assert _state(tmp_path) == before
    assert _no_leftovers(tmp_path) == []


# ---------------------------------------------------------------- manifests that do not prove a site


def _claim(site: Path, path: str, digest: str | None) -> None:
    """Make the site's manifest list *path* (or stop listing it, with None)."""
    manifest = site / "manifest.json"
    data = json.loads(manifest.read_bytes())
    if digest is None:
        del data["files"][path]
    else:
        data["files"][path] = digest
    manifest.write_text(json.dumps(data), encoding="utf-8")


def test_a_manifest_claiming_a_path_outside_is_refused_and_never_followed(site: Path, cli: Cli, tmp_path: Path) -> None:
    victim = tmp_path / "x"
    victim.write_bytes(b"victim\n")
    digest = hashlib.sha256(b"victim\n").hexdigest()
    for claim in ("../x", str(victim), "en/../../x", "./index.html"):
        _claim(site, claim, digest)
        before = _state(tmp_path)
        _refused(_build(cli, site), "not a site built by mcp-portal", repr(claim))
        assert _state(tmp_path) == before
        _claim(site, claim, None)
    assert _build(cli, site).code == 0  # the manifest is sound again
    assert victim.read_bytes() == b"victim\n"


def test_a_listed_file_that_is_a_symlink_is_dropped_not_followed(site: Path, cli: Cli, tmp_path: Path) -> None:
    victim = tmp_path / "victim.html"
    victim.write_bytes(b"<p>victim</p>\n")
    (site / "index.html").unlink()
    (site / "index.html").symlink_to(victim)
    assert _build(cli, site, "--locales", "en,ru").code == 0
    assert victim.read_bytes() == b"<p>victim</p>\n"
    assert not (site / "index.html").is_symlink()


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (lambda m: m.unlink(), "it has no manifest.json"),
        (lambda m: m.write_bytes(b"{ not json"), "its manifest.json is not valid JSON"),
        (lambda m: m.write_bytes(b"[]"), "is not a JSON object"),
        (lambda m: m.write_text('{"generator": "hugo 0.125", "files": {}}'), "does not name mcp-portal"),
        (lambda m: m.write_text('{"generator": "mcp-portal 1.0"}'), 'has no "files" list'),
        (lambda m: (m.unlink(), m.symlink_to(m.parent / "snapshot.json")), "is a symbolic link"),
    ],
)
def test_a_site_whose_manifest_is_missing_or_corrupt_is_refused(
    site: Path, cli: Cli, tmp_path: Path, damage: Callable[[Path], object], why: str
) -> None:
    damage(site / "manifest.json")
    before = _state(tmp_path)
    _refused(_build(cli, site), "not empty and not a site built by mcp-portal (", why)
    assert _state(tmp_path) == before


def test_a_failed_build_leaves_the_previous_site_byte_identical(site: Path, cli: Cli, tmp_path: Path) -> None:
    (site / "CNAME").write_bytes(b"docs.example.com\n")
    before = _state(tmp_path)
    run = cli("build", "--from", str(GOLDEN), "--out", str(site), "--templates", str(tmp_path / "missing"), *FAST)
    assert run.code == 1 and "template directory" in run.err
    assert _state(tmp_path) == before


def test_the_previous_manifest_is_parsed_once_per_build_unless_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The preflight and the publisher both read the previous manifest: the second read of the same,
    unchanged file (the publisher's, in the same build) reuses the first's verdict, once; a manifest
    written since is read again."""
    from generator.publish import location
    from tests.test_inplace import _publish, _site

    site = tmp_path / "site"
    _publish(site, _site())
    parsed: list[bytes] = []
    real = location._listed

    def counting(raw: bytes) -> tuple[dict[str, str] | None, str]:
        parsed.append(raw)
        return real(raw)

    monkeypatch.setattr(location, "_listed", counting)
    location._LAST_READ.clear()
    first = location.inspect(site, site.resolve())
    again = location.inspect(site, site.resolve())
    assert len(parsed) == 1 and first == again and "en/index.html" in first.listed
    assert location._LAST_READ == []  # taken once: nothing of one build's output is held until the next
    assert location.inspect(site, site.resolve()) == first and len(parsed) == 2
    _publish(site, _site(en__index_dot_html=b"<p>new index</p>"))  # a new manifest (a new inode)
    second = location.inspect(site, site.resolve())
    assert len(parsed) == 3 and second.listed["en/index.html"] != first.listed["en/index.html"]


def test_a_refusal_names_the_directory_as_given_and_where_it_really_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Reached through a link, the refused directory is named both ways, so the reader sees why; reached
    # directly, once.
    home = tmp_path / "users" / "me"
    home.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "site").symlink_to(home)
    with pytest.raises(PortalError) as linked:
        check_location(tmp_path / "site")
    assert str(linked.value).startswith(
        f"Refusing to use {tmp_path / 'site'} ({home}) as the output directory: it is your home directory. "
    )
    with pytest.raises(PortalError) as direct:
        check_location(home)
    assert str(direct.value).startswith(f"Refusing to use {home} as the output directory: it is your home directory. ")


def test_a_cache_inside_the_site_is_named_both_ways_when_a_link_leads_there(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "cache").mkdir(parents=True)
    (tmp_path / "cache-link").symlink_to(site / "cache")
    with pytest.raises(PortalError) as linked:
        check_cache_apart(tmp_path / "cache-link", site)
    shown = f"{tmp_path / 'cache-link'} ({site / 'cache'})"
    assert str(linked.value).startswith(f"The cache directory {shown} is inside the output directory {site}, ")
    with pytest.raises(PortalError) as direct:
        check_cache_apart(site / "cache", site)
    assert str(direct.value).startswith(f"The cache directory {site / 'cache'} is inside the output directory {site}, ")
    with pytest.raises(PortalError) as around:
        check_cache_apart(tmp_path, site)
    assert str(around.value).startswith(f"The output directory {site} is inside the cache directory {tmp_path}, ")
