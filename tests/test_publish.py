"""Publishing: a site is replaced whole or not at all, whatever happens to the build.

Builds run as real subprocesses (``python -m generator build``) where the point is a
crash, a SIGKILL or two builds racing; the rest uses the in-process CLI.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import signal
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from generator import __version__
from generator.errors import PortalError
from generator.publish.location import sibling
from generator.publish.write import publish
from generator.snapshot.snapshot import load_snapshot
from tests.conftest import PYTHON, ROOT, tree_bytes, wait_until

GOLDEN = ROOT / "tests" / "golden" / "demo.snapshot.json"
FIXTURE = ROOT / "tests" / "servers" / "fixture_server.py"
BASE = "https://docs.example.com/developers/"


def _generator(*args: str) -> list[str]:
    return [PYTHON, "-m", "generator", *args]


def _run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(_generator(*args), cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False)


def _leftovers(parent: Path, name: str = "site") -> list[str]:
    """Staging, old and undo directories of *name* beside it (a finished build leaves none)."""
    return sorted(p.name for p in parent.iterdir() if re.match(rf"\.{re.escape(name)}\.(staging|old|undo)-", p.name))


def _dead_pid() -> int:
    """The pid of a process that has exited and been reaped."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


@contextlib.contextmanager
def _own_group(argv: list[str]) -> Iterator[subprocess.Popen[bytes]]:
    """Start *argv* in a new process group; afterwards kill whatever is left of that group."""
    proc = subprocess.Popen(
        argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)


def _children(pid: int) -> list[int]:
    """Pids whose parent is *pid* (Linux /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(stat.parent.name))
    return found


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _wait_for(condition, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
    wait_until(condition, timeout, f"waiting for {what}", every=0.005)


@pytest.fixture
def built(tmp_path: Path, cli) -> tuple[Path, dict[str, bytes]]:  # type: ignore[no-untyped-def]
    """The demo built from the golden snapshot into tmp/site, and its bytes."""
    site = tmp_path / "site"
    assert cli("build", "--from", str(GOLDEN), "--out", str(site)).code == 0
    return site, tree_bytes(site)


# ---------------------------------------------------------------- (a) builds that die midway


def test_a_server_crash_midway_leaves_the_previous_site_byte_identical(built: tuple[Path, dict[str, bytes]]) -> None:
    site, before = built
    result = _run("build", "--stdio", f"{PYTHON} {FIXTURE} --mode crash", "--out", str(site))
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("mcp-portal: error:")
    assert "page 2" in result.stderr
    assert "Traceback" not in result.stderr
    assert tree_bytes(site) == before
    assert _leftovers(site.parent) == []


def test_a_build_killed_while_waiting_for_the_server_changes_nothing(
    built: tuple[Path, dict[str, bytes]], tmp_path: Path
) -> None:
    site, before = built
    asked = tmp_path / "asked"  # the hanging server creates it when tools/list arrives
    argv = _generator(
        "build",
        "--stdio",
        f"{PYTHON} {FIXTURE} --mode hang --announce {asked}",
        "--out",
        str(site),
        "--request-timeout",
        "300",
        "--total-timeout",
        "600",
    )
    servers: list[int] = []
    with _own_group(argv) as proc:
        try:

            def server_started() -> bool:
                # The SDK starts the server in a session of its own, so look for it by parent.
                servers[:] = [pid for pid in _children(proc.pid) if b"fixture_server" in _cmdline(pid)]
                return bool(servers)

            _wait_for(server_started, 60, "the build to start the hanging server")
            _wait_for(asked.exists, 60, "tools/list to reach the server")  # the build now waits for an answer
            assert proc.poll() is None, "the build ended although the server never answers"
            os.kill(proc.pid, signal.SIGKILL)
            assert proc.wait(timeout=30) == -signal.SIGKILL
        finally:
            for pid in servers:  # orphaned by the kill: end it (by its own pid)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
    assert tree_bytes(site) == before
    assert _leftovers(site.parent) == []
    # The next build works: the lock of the killed build died with it.
    result = _run("build", "--from", str(GOLDEN), "--out", str(site))
    assert result.returncode == 0, result.stderr
    assert tree_bytes(site) == before
    assert _leftovers(site.parent) == []


_SLOW_PUBLISH = """
import sys
from pathlib import Path
from generator.publish.location import sibling
from generator.publish.write import publish
publish(Path(sys.argv[1]), {f"bulk/{i:05d}.txt": b"x" * 64 for i in range(40000)})
"""


def test_a_build_killed_while_writing_leaves_the_site_and_the_next_build_cleans_up(
    built: tuple[Path, dict[str, bytes]],
) -> None:
    site, before = built
    with _own_group([PYTHON, "-c", _SLOW_PUBLISH, str(site)]) as proc:
        staging = site.parent / f".site.staging-{proc.pid}"
        _wait_for(lambda: staging.is_dir() and any(staging.iterdir()), 60, "the publish to start writing")
        os.kill(proc.pid, signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL
    assert staging.is_dir(), "the kill came too late to leave a staging directory"
    assert tree_bytes(site) == before
    result = _run("build", "--from", str(GOLDEN), "--out", str(site))
    assert result.returncode == 0, result.stderr
    assert tree_bytes(site) == before
    assert _leftovers(site.parent) == [], "the next build must remove what the killed one left"


def test_a_kill_between_the_two_renames_is_repaired_under_the_next_lock(built: tuple[Path, dict[str, bytes]]) -> None:
    """Killed after ``site -> .site.old-PID`` and before ``staging -> site``: the old site comes back."""
    site, before = built
    dead = _dead_pid()
    os.rename(site, site.parent / f".site.old-{dead}")
    staging = site.parent / f".site.staging-{dead}"
    (staging / "en").mkdir(parents=True)
    (staging / "en" / "index.html").write_text("half a site", encoding="utf-8")
    # A publish that fails after taking the lock must still leave the previous site in place.
    with pytest.raises(PortalError, match="outside the output directory"):
        publish(site, {"../escape.txt": b"no"})
    assert tree_bytes(site) == before
    assert _leftovers(site.parent) == []


@contextlib.contextmanager
def _immutable(path: Path) -> Iterator[None]:
    """*path* with the file system's immutable flag (``chattr +i``), which refuses even root: no entry of the
    directory can be made, removed or renamed, nor the directory itself renamed."""
    subprocess.run(["chattr", "+i", str(path)], check=True)
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


@pytest.mark.parametrize("share", [0.01, 0.9], ids=["in place", "swapped"])
def test_a_site_that_cannot_be_written_is_named_with_what_to_do(
    built: tuple[Path, dict[str, bytes]], share: float
) -> None:
    """A write the file system refuses (EPERM) fails with the file it refused and what to do, and leaves the
    previous site as it was, whether the build changes a few files in place or swaps in a new site."""
    site, before = built
    edited = sorted(before)[: max(1, int(len(before) * share))]
    with _immutable(site), pytest.raises(PortalError) as caught:
        publish(site, before | {path: before[path] + b"\n" for path in edited})
    # The site's own file is named (in place) or the site (swapped), never a staged copy nor a bare name.
    refused = re.escape(str(site)) + (r"/404\.html" if share < 0.5 else "")
    assert re.fullmatch(
        f"Writing the site to {re.escape(str(site))} failed, and the previous site is unchanged "
        f"\\(Operation not permitted: {refused}\\)\\. Check the permissions of {refused} and of the directory "
        f"that holds it, or choose another --out\\.",
        caught.value.message,
    ), caught.value.message
    assert tree_bytes(site) == before
    assert _leftovers(site.parent) == []


def test_a_copy_of_the_site_that_cannot_be_removed_is_named_in_a_warning(built: tuple[Path, dict[str, bytes]]) -> None:
    """A copy a build left beside the site that cannot be removed (here an immutable folder in it; for a user, a
    site an earlier CI step built as root) is named in a warning with how to remove it, once per build, never
    kept silently."""
    site, before = built
    left = site.parent / f".site.old-{_dead_pid()}"
    (left / "en").mkdir(parents=True)
    (left / "en" / "index.html").write_text("an old page", encoding="utf-8")
    with _immutable(left / "en"):
        for _ in range(2):
            warnings = publish(site, before)
            assert warnings == [
                f"could not remove {left}, a copy of the site whose permissions refuse it; the site itself is "
                f"complete. Remove the copy yourself, e.g. rm -rf {left}"
            ]
            assert tree_bytes(site) == before
    assert publish(site, before) == [] and not left.exists()


# ---------------------------------------------------------------- (b) concurrent builds


def _assert_manifest_matches(site: Path) -> None:
    files = tree_bytes(site)
    manifest = json.loads(files.pop("manifest.json"))
    assert manifest["files"] == {path: hashlib.sha256(data).hexdigest() for path, data in files.items()}


def test_two_concurrent_builds_into_one_out_leave_one_complete_site(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    references = {}
    for locales in ("en", "en,ru"):
        ref = tmp_path / f"ref-{locales.replace(',', '-')}"
        assert cli("build", "--from", str(GOLDEN), "--locales", locales, "--out", str(ref)).code == 0
        references[locales] = tree_bytes(ref)
    assert references["en"] != references["en,ru"]
    site = tmp_path / "site"
    for _ in range(2):  # the second round replaces an existing site
        procs = [
            subprocess.Popen(
                _generator("build", "--from", str(GOLDEN), "--locales", locales, "--out", str(site)),
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for locales in ("en", "en,ru")
        ]
        outcomes = [p.communicate(timeout=120) for p in procs]
        assert [p.returncode for p in procs] == [0, 0], outcomes
        final = tree_bytes(site)
        assert final in (references["en"], references["en,ru"]), "the site mixes the two builds"
        _assert_manifest_matches(site)
        assert _leftovers(tmp_path) == []


# ---------------------------------------------------------------- (c) a site under a base path


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        for key in ("href", "src"):
            if key in found:
                self.links.append((tag, found | {"_url": found[key]}))


def _links(page: Path) -> list[tuple[str, dict[str, str]]]:
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.links


def _site_path(url: str, mount: str) -> str:
    """The site file a URL under *mount* names (``.../`` is the directory's index.html)."""
    assert url.startswith(mount), f"{url} leaves the site mounted at {mount}"
    path = urlsplit(url).path[len(urlsplit(mount).path) :]
    return path + "index.html" if path == "" or path.endswith("/") else path


@pytest.fixture(scope="module")
def based(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from generator.commands.cli import main

    site = tmp_path_factory.mktemp("based") / "site"
    assert main(["build", "--from", str(GOLDEN), "--out", str(site), "--base-url", BASE]) == 0
    return site


# The install links on the Connecting page open an MCP client (generator/model/clients.py).
INSTALL_SCHEMES = ("vscode", "vscode-insiders", "cursor")


def _pages(site: Path) -> list[str]:
    """Every HTML page except the 404s (which hosts serve at any URL)."""
    return [p for p in tree_bytes(site) if p.endswith(".html") and not p.endswith("404.html")]


def test_relative_links_work_at_the_base_path_at_the_root_and_from_disk(based: Path) -> None:
    files = set(tree_bytes(based))
    mounts = (BASE, "https://docs.example.com/", based.as_uri() + "/")
    checked = 0
    for page in _pages(based):
        # A page is reached as .../index.html or by its pretty URL .../ (same directory either way).
        locations = [page, page.removesuffix("index.html")]
        for tag, attrs in _links(based / page):
            href = attrs["_url"]
            if href.startswith(("#", "data:")):
                continue  # in-page anchors, inline data (an empty favicon)
            absolute_by_design = attrs.get("rel") == "canonical" or (
                attrs.get("rel") == "alternate" and "hreflang" in attrs
            )
            if absolute_by_design and urlsplit(href).scheme:  # checked below; it must name a page of the site
                assert _site_path(href, BASE) in files, f"{page}: {href}"
                continue
            if urlsplit(href).scheme in INSTALL_SCHEMES:  # an MCP client's install link leaves the site on purpose
                assert page.endswith("connecting/index.html"), f"{page}: install link {href} outside Connecting"
                continue
            assert not urlsplit(href).scheme and not href.startswith("/"), f"{page}: {tag} {href} is not relative"
            for mount in mounts:
                for location in locations:
                    target = _site_path(urljoin(mount + location, href), mount)
                    assert target in files, f"{page}: {href} -> {target} (mounted at {mount})"
                    checked += 1
    assert checked > 1000


def test_canonical_links_and_the_sitemap_use_the_base_url(based: Path) -> None:
    files = set(tree_bytes(based))
    for page in _pages(based):
        canonical = [a["_url"] for _, a in _links(based / page) if a.get("rel") == "canonical"]
        if page == "index.html":  # the language chooser
            continue
        assert canonical == [BASE + page.removesuffix("index.html")], page
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
    root = ET.fromstring((based / "sitemap.xml").read_bytes())
    locs = [e.text or "" for e in root.iterfind("s:url/s:loc", ns)]
    assert sorted(_site_path(u, BASE) for u in locs) == sorted(p for p in _pages(based) if p != "index.html")
    alternates = root.findall("s:url/x:link", ns)
    assert len(alternates) == len(locs) * 4  # en, ru, ar and x-default
    for link in alternates:
        assert _site_path(link.get("href", ""), BASE) in files
    assert f"Sitemap: {BASE}sitemap.xml" in (based / "robots.txt").read_text(encoding="utf-8")
    for line in (based / "_headers").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith(" "):
            assert line.startswith("/developers/"), line


def test_hreflang_alternates_are_absolute_with_a_base_url(based: Path) -> None:
    """Search engines want fully qualified hreflang URLs; with a base URL they are known."""
    bad = []
    for page in _pages(based):
        for _, attrs in _links(based / page):
            if attrs.get("rel") == "alternate" and "hreflang" in attrs and not attrs["_url"].startswith(BASE):
                bad.append(f"{page}: hreflang={attrs['hreflang']} href={attrs['_url']}")
    assert not bad, f"{len(bad)} relative hreflang links, e.g. {bad[:3]}"


def test_404_pages_link_from_the_base_path(based: Path) -> None:
    files = set(tree_bytes(based))
    pages = [p for p in files if p.endswith("404.html")]
    assert sorted(pages) == ["404.html", "ar/404.html", "en/404.html", "ru/404.html"]
    for page in pages:
        links = _links(based / page)
        assert links, page
        for tag, attrs in links:
            href = attrs["_url"]
            if href.startswith("data:"):
                continue  # inline data, e.g. an empty favicon
            assert href.startswith("/developers/"), f"{page}: {tag} {href}"
            assert _site_path("https://docs.example.com" + href, BASE) in files, f"{page}: {href}"


# ---------------------------------------------------------------- (d) the manifest


def test_the_manifest_lists_every_file_with_its_hash_and_the_build_facts(built: tuple[Path, dict[str, bytes]]) -> None:
    _, files = built
    manifest = json.loads(files.pop("manifest.json"))
    assert manifest["files"] == {path: hashlib.sha256(data).hexdigest() for path, data in files.items()}
    snapshot = load_snapshot(GOLDEN)
    assert manifest["capability_version"] == snapshot.capability_version == "2.4.0"
    assert manifest["fingerprint"] == snapshot.fingerprint
    assert manifest["generator"] == f"mcp-portal {__version__}"
    assert set(manifest) == {"capability_version", "fingerprint", "generator", "files"}


# ---------------------------------------------------------------- (e) an --out that is not a directory


def test_an_out_that_is_a_file_is_a_clear_error(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "site"
    out.write_text("not a site", encoding="utf-8")
    result = cli("build", "--from", str(GOLDEN), "--out", str(out))
    assert result.code == 1
    assert result.err.startswith("mcp-portal: error:")
    assert "exists and is not a directory" in result.err
    assert "--out" in result.err
    assert "Traceback" not in result.err
    assert out.read_text(encoding="utf-8") == "not a site"
    assert _leftovers(tmp_path) == []
    # Below a file, the parent cannot be made: the same kind of message.
    result = cli("build", "--from", str(GOLDEN), "--out", str(out / "inner"))
    assert result.code == 1
    assert "Cannot create the output's parent directory" in result.err


@pytest.mark.parametrize("length", [234, 245, 255])
def test_an_output_name_as_long_as_a_file_name_may_be_builds_and_is_checked(tmp_path: Path, length: int) -> None:
    """A publish names its lock and working copies after the site (``.NAME.staging-PID``). A NAME of up to 255
    bytes, as long as Linux allows, still builds, is rebuilt and checked, and a
    killed build's copy beside it is removed by the next build. Two long names that differ only at the end
    never share a sibling."""
    name = ("ё" * length)[: length // 2] + "x" * (length % 2)  # two bytes a letter: a cut may split one
    out = tmp_path / name
    assert len(os.fsencode(out.name)) == length
    first = _run("build", "--from", str(GOLDEN), "--out", str(out), "--no-search")
    assert first.returncode == 0, first.stderr
    site = tree_bytes(out)
    killed = sibling(out, "staging-999999999")  # a pid no process has (above the kernel's pid_max)
    killed.mkdir()
    again = _run("build", "--from", str(GOLDEN), "--out", str(out), "--no-search", "--base-url", BASE)
    assert again.returncode == 0, again.stderr
    assert not killed.exists()
    assert tree_bytes(out) != site
    checked = _run("check", "--from", str(GOLDEN), "--out", str(out), "--no-search", "--base-url", BASE)
    assert checked.returncode == 0, checked.stderr + checked.stdout
    beside = sorted(p.name for p in tmp_path.iterdir() if p.name != out.name)
    assert all(len(os.fsencode(n)) <= 255 for n in beside) and sibling(out, "lock").name in beside, beside
    other = out.with_name(name[:-1] + ("y" if name[-1] != "y" else "z"))
    assert sibling(other, "lock") != sibling(out, "lock")
