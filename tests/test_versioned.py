"""Versioned sites (``build --versioned``): four versions of the demo published one after the other.

The versions (tests/history_fixture.py) add a tool (1.1.0), make a parameter required (1.2.0) and
remove a tool (2.0.0). Each build runs the command line in this process, as a CI job would, with
``SOURCE_DATE_EPOCH`` dating its release. The switcher and the banner in a browser are
tests/test_versions_browser.py.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import urllib.request
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import feedparser
import pytest
import yaml
from llms_txt import parse_llms_file

from generator.commands.cli import main
from generator.model.discovery import SERVER_CARD, SERVER_JSON, problems
from generator.snapshot.snapshot import load_snapshot
from tests.conftest import TEMPLATES, TESTS, serving
from tests.history_fixture import (
    ADDED,
    DATES,
    DAY,
    EPOCH,
    REMOVED,
    REQUIRED,
    VERSIONS,
    at_version,
    publish,
    write_versions,
)
from tests.test_html_validity import VNU, _format, _java
from tests.test_install_links import INSTALL_LINK

GOLDEN = TESTS / "golden" / "demo.snapshot.json"


def tree(root: Path) -> dict[str, tuple[str, int]]:
    """Every file under *root*: its sha256 and inode (a file replaced by the same bytes gets another inode)."""
    found = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            found[path.relative_to(root).as_posix()] = (
                hashlib.sha256(path.read_bytes()).hexdigest(),
                path.stat().st_ino,
            )
    return found


class Built:
    """The site after each build: *after[v]* is the whole site's :func:`tree` right after version *v* was published."""

    def __init__(self, out: Path, snapshots: dict[str, Path]) -> None:
        self.out, self.snapshots = out, snapshots
        self.after: dict[str, dict[str, tuple[str, int]]] = {}

    def read(self, path: str) -> str:
        return (self.out / path).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    tmp = tmp_path_factory.mktemp("versioned")
    site = Built(tmp / "site", dict(write_versions(tmp / "snapshots")))
    for version in VERSIONS:
        assert publish(site.out, site.snapshots[version], epoch=EPOCH[version]) == 0
        site.after[version] = tree(site.out)
    return site


def test_versions_json_lists_every_version_newest_first(built: Built) -> None:
    data = json.loads(built.read("versions.json"))
    assert data["latest"] == "2.0.0"
    assert [(v["version"], v["path"], v["date"], v["breaking"], v["tools"]) for v in data["versions"]] == [
        ("2.0.0", "2.0.0/", DATES["2.0.0"], True, 5),
        ("1.2.0", "1.2.0/", DATES["1.2.0"], True, 6),
        ("1.1.0", "1.1.0/", DATES["1.1.0"], False, 6),
        ("1.0.0", "1.0.0/", DATES["1.0.0"], False, 5),
    ]
    assert {v["protocol"] for v in data["versions"]} == {"2026-07-28"}
    assert all(v["locales"] == ["en", "ru", "ar"] for v in data["versions"])


def test_earlier_versions_are_never_rewritten(built: Built) -> None:
    assert len(VERSIONS) >= 2
    for n, version in enumerate(VERSIONS):
        mine = {p: v for p, v in built.after[version].items() if p.startswith(version + "/")}
        assert len(mine) > 100
        for later in VERSIONS[n + 1 :]:
            now = {p: v for p, v in built.after[later].items() if p.startswith(version + "/")}
            assert now == mine, f"{version} changed when {later} was published"  # the same bytes, the same inode


def test_the_top_level_leads_to_the_newest_and_lists_every_version(built: Built) -> None:
    root = built.read("index.html")
    for version in VERSIONS:
        assert f'href="{version}/index.html"' in root
    assert 'href="2.0.0/en/index.html"' in root and 'href="latest/index.html"' in root
    stub = built.read("latest/en/tools/search_chat/index.html")
    assert 'http-equiv="refresh" content="0; url=../../../../2.0.0/en/tools/search_chat/index.html"' in stub
    newest_pages = {p[6:] for p in built.after["2.0.0"] if p.startswith("2.0.0/") and p.endswith(".html")}
    latest = {p[7:] for p in built.after["2.0.0"] if p.startswith("latest/")}
    assert latest == newest_pages - {"404.html", "en/404.html", "ru/404.html", "ar/404.html"}
    manifest = json.loads(built.read("manifest.json"))
    assert manifest["layout"] == "versioned" and manifest["latest"] == "2.0.0"
    assert set(manifest["files"]) == set(built.after["2.0.0"]) - {"manifest.json"}
    assert built.read("404.html") == built.read("2.0.0/404.html") and 'href="/2.0.0/en/index.html"' in built.read(
        "404.html"
    )


def test_root_llms_txt_lists_the_versions_and_each_version_has_its_own(built: Built) -> None:
    text = built.read("llms.txt")
    parsed = parse_llms_file(text)
    sections = parsed["sections"]
    assert [item["url"] for item in sections["Every version"]] == [f"{v}/llms.txt" for v in reversed(VERSIONS)]
    assert [item["url"] for item in sections["The newest version (2.0.0)"]] == [
        f"2.0.0/{code}/llms.txt" for code in ("en", "ru", "ar")
    ]
    for section in sections.values():
        for item in section:
            assert (built.out / item["url"]).is_file(), item["url"]
    for version in VERSIONS:
        own = built.read(f"{version}/en/llms.txt")
        assert parse_llms_file(own)["title"] and "history.md" in own


def _front(twin: str) -> dict[str, object]:
    head = twin.split("---\n", 2)[1]
    data = yaml.safe_load(head)
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize("locale", ["en", "ru", "ar"])
def test_tool_pages_and_twins_carry_their_timeline(built: Built, locale: str) -> None:
    tool, _ = REQUIRED
    page = built.read(f"2.0.0/{locale}/tools/{tool}/index.html")
    assert '<ol class="timeline">' in page and 'id="history"' in page
    assert page.count('href="../../history/index.html#v-1.2.0"') >= 2  # the line under the summary and the list
    assert "badge-breaking" in page
    front = _front(built.read(f"2.0.0/{locale}/tools/{tool}.md"))
    assert front["since"] == "1.0.0" and front["changed_in"] == ["1.2.0"] and "removed_in" not in front
    assert front["release"] == "2.0.0" and front["canonical"] == f"/2.0.0/{locale}/tools/{tool}/"
    added = _front(built.read(f"2.0.0/{locale}/tools/{ADDED}.md"))
    assert added["since"] == "1.1.0" and added["changed_in"] == []
    # A version's pages tell its history as it was then: 1.1.0 knew nothing of 1.2.0.
    assert _front(built.read(f"1.1.0/{locale}/tools/{tool}.md"))["changed_in"] == []
    assert "1.2.0" not in built.read(f"1.1.0/{locale}/tools/{tool}/index.html").split('id="history"')[1]


def test_english_timeline_in_words(built: Built) -> None:
    tool, _ = REQUIRED
    page = built.read(f"2.0.0/en/tools/{tool}/index.html")
    assert re.search(r"Changed in <a [^>]+><bdi dir=\"ltr\">1\.2\.0</bdi></a>, breaking: input schema", page)
    assert "Added in <a" in built.read(f"2.0.0/en/tools/{ADDED}/index.html")
    twin = built.read(f"2.0.0/en/tools/{tool}.md")
    assert "- Changed in [`1.2.0`](../history.md), breaking: input schema **breaking**" in twin


@pytest.mark.parametrize("locale", ["en", "ru", "ar"])
def test_a_removed_tool_keeps_a_page_that_says_when_and_links_its_last_page(built: Built, locale: str) -> None:
    page = built.read(f"2.0.0/{locale}/tools/{REMOVED}/index.html")
    last = f"../../../../1.2.0/{locale}/tools/{REMOVED}/index.html"
    assert f'href="{last}"' in page
    assert (built.out / "2.0.0" / locale / "tools" / REMOVED / last).resolve().is_file()
    assert 'href="../../history/index.html#v-2.0.0"' in page
    front = _front(built.read(f"2.0.0/{locale}/tools/{REMOVED}.md"))
    assert front["removed_in"] == "2.0.0" and front["since"] == "1.0.0"
    assert f"(../../../1.2.0/{locale}/tools/{REMOVED}.md)" in built.read(f"2.0.0/{locale}/tools/{REMOVED}.md")
    # It is not listed as a tool the version has.
    assert f"tools/{REMOVED}/" not in built.read(f"2.0.0/{locale}/nav.js")
    assert f"({REMOVED}" not in built.read(f"2.0.0/{locale}/llms.txt").split("##")[1]


@pytest.mark.parametrize("locale", ["en", "ru", "ar"])
def test_the_release_history_page_lists_every_release_newest_first(built: Built, locale: str) -> None:
    page = built.read(f"2.0.0/{locale}/history/index.html")
    order = [page.index(f'id="v-{v}"') for v in reversed(VERSIONS)]
    assert order == sorted(order)
    assert f'href="../tools/{REMOVED}/index.html"' in page  # the removed tool's page in this version
    assert f'href="../tools/{ADDED}/index.html"' in page
    assert "params.limit" in page
    twin = built.read(f"2.0.0/{locale}/history.md")
    assert twin.index("`2.0.0`") < twin.index("`1.0.0`") and "params.limit" in twin
    assert 'href="history/index.html"' in built.read(f"2.0.0/{locale}/index.html") or "history/index.html" in page


def test_the_atom_feed_parses_with_a_real_feed_parser(built: Built) -> None:
    feed = feedparser.parse(built.read("changes.xml"))
    assert not feed.bozo, feed.get("bozo_exception")
    assert feed.version == "atom10"
    assert feed.feed.title == "Teamspace (demo): Release history"
    assert [e.title for e in feed.entries] == [
        "Version 2.0.0 (breaking)", "Version 1.2.0 (breaking)", "Version 1.1.0", "Version 1.0.0"
    ]  # fmt: skip
    assert [e.updated for e in feed.entries] == [f"{DATES[v]}T00:00:00Z" for v in reversed(VERSIONS)]
    assert feed.entries[0].link == "2.0.0/en/history/#v-2.0.0"
    assert len({e.id for e in feed.entries}) == 4 and all(e.id.startswith("urn:uuid:") for e in feed.entries)
    first = feed.entries[0].content[0]
    assert first.type == "text/html" and f"<code>{REMOVED}</code>" in first.value and "Tool removed" in first.value
    assert "params.limit" in feed.entries[1].content[0].value


def test_the_same_version_published_again_replaces_only_itself(built: Built, tmp_path: Path) -> None:
    out = tmp_path / "site"
    shutil.copytree(built.out, out, symlinks=True, copy_function=os.link)  # the same inodes
    before = tree(out)
    edited = json.loads(built.snapshots["1.2.0"].read_text(encoding="utf-8"))
    edited["tools"][0]["description"] = "Search the archive again."
    snapshot = tmp_path / "1.2.0.json"
    from generator.snapshot.snapshot import load_snapshot, revised

    original = load_snapshot(built.snapshots["1.2.0"])
    tools = (dict(original.tools[0], description="Search the archive again."), *original.tools[1:])
    snapshot.write_text(revised(original, tools=tools).to_json(), encoding="utf-8")
    assert publish(out, snapshot, epoch=EPOCH["2.0.0"] + 99 * DAY) == 0
    after = tree(out)
    changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    assert any(p.startswith("1.2.0/en/tools/") for p in changed)
    outside = {p for p in changed if not p.startswith("1.2.0/")}
    assert outside <= {"manifest.json", "versions.json", "changes.xml", "index.html", "llms.txt"}, outside
    data = json.loads((out / "versions.json").read_text(encoding="utf-8"))
    assert next(v for v in data["versions"] if v["version"] == "1.2.0")["date"] == DATES["1.2.0"]  # kept


def test_versions_remove_drops_one_version_and_keeps_the_others(built: Built, tmp_path: Path) -> None:
    out = tmp_path / "site"
    shutil.copytree(built.out, out, symlinks=True, copy_function=os.link)
    before = tree(out)
    assert main(["versions", "remove", "2.0.0", "--out", str(out)], renderer=TEMPLATES) == 0
    after = tree(out)
    assert not (out / "2.0.0").exists()
    for version in ("1.0.0", "1.1.0", "1.2.0"):
        assert {p: v for p, v in after.items() if p.startswith(version + "/")} == {
            p: v for p, v in before.items() if p.startswith(version + "/")
        }
    data = json.loads((out / "versions.json").read_text(encoding="utf-8"))
    assert data["latest"] == "1.2.0" and [v["version"] for v in data["versions"]] == ["1.2.0", "1.1.0", "1.0.0"]
    assert "url=../../../../1.2.0/en/tools/search_chat/index.html" in (
        out / "latest" / "en" / "tools" / "search_chat" / "index.html"
    ).read_text(encoding="utf-8")
    for name in (SERVER_JSON, SERVER_CARD):  # the top's discovery files are the newest remaining version's
        assert (out / name).read_bytes() == (out / "1.2.0" / name).read_bytes()
    assert main(["versions", "remove", "9.9.9", "--out", str(out)], renderer=TEMPLATES) == 1


def test_a_one_tool_server_is_counted_in_the_singular(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A server with one tool is common (mcp-server-fetch). Before: "(1 tools)", "1 tools  en,ru,ar" and
    # "1 version remain" in what a CI log shows.
    base = load_snapshot(GOLDEN)
    out = tmp_path / "site"
    for version in ("1.0.0", "1.0.1"):
        snapshot = tmp_path / f"{version}.json"
        snapshot.write_text(at_version(base, version, [base.tools[0]]).to_json(), encoding="utf-8")
        capsys.readouterr()
        assert publish(out, snapshot) == 0
        said = capsys.readouterr().out
        assert f"Published version {version} (1 tool) into {out / version} in " in said, said
    assert main(["versions", "list", "--out", str(out)]) == 0
    assert "  1 tool  en,ru,ar  " in capsys.readouterr().out
    assert main(["versions", "remove", "1.0.1", "--out", str(out)], renderer=TEMPLATES) == 0
    assert f"Removed version 1.0.1 from {out}; 1 version remains, the newest 1.0.0." in capsys.readouterr().out


def test_versions_remove_on_a_site_that_is_not_versioned_says_so_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site"
    assert main(["build", "--from", str(GOLDEN), "--out", str(out), "--no-search"], renderer=TEMPLATES) == 0
    before = tree(out)
    capsys.readouterr()
    assert main(["versions", "remove", "2.4.0", "--out", str(out)], renderer=TEMPLATES) == 1
    err = capsys.readouterr().err
    # Before: "... holds a site built without --versioned ... or drop --versioned", advice for a build.
    assert f"There is no versioned site in {out}: it has no versions.json." in err and "drop" not in err, err
    assert tree(out) == before


def test_check_without_versioned_on_a_versioned_site_says_to_add_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site"
    build = ["--from", str(GOLDEN), "--out", str(out), "--no-search"]
    assert main(["build", "--versioned", *build], renderer=TEMPLATES) == 0
    capsys.readouterr()
    # Before: exit 3 and every file of the versioned site listed as drift.
    assert main(["check", *build], renderer=TEMPLATES) == 1
    err = capsys.readouterr().err
    assert f"The site in {out} is a versioned site (it has a versions.json)" in err and "Add --versioned" in err, err
    assert main(["check", "--versioned", *build], renderer=TEMPLATES) == 0


def test_discovery_files_are_each_versions_own_and_the_newests_at_the_top(built: Built) -> None:
    """Each version keeps the server.json and Server Card it was published with; the top holds a copy of the
    newest version's, linked from the versions page and the root llms.txt, and typed by the one _headers a host
    reads, for every version's files too."""
    for version in VERSIONS:
        for name in (SERVER_JSON, SERVER_CARD):
            document = json.loads(built.read(f"{version}/{name}"))
            assert document["version"] == version and problems(name, document) == [], (version, name)
        page = built.read(f"{version}/ar/tools/search_chat/index.html")
        assert '<link rel="service-desc" type="application/json" href="../../../server.json">' in page
    for name, media in ((SERVER_JSON, "application/json"), (SERVER_CARD, "application/mcp-server-card+json")):
        assert built.read(name) == built.read(f"2.0.0/{name}")
        assert f'<link rel="service-desc" type="{media}" href="{name}">' in built.read("index.html")
    optional = parse_llms_file(built.read("llms.txt"))["sections"]["Optional"]
    assert {item["url"] for item in optional} >= {SERVER_JSON, SERVER_CARD}
    assert "as of the newest version, 2.0.0" in built.read("llms.txt")
    headers = built.read("_headers")
    typed = re.findall(r"^(/\S+\.json)$", headers, re.M)
    assert {path for path in typed if path.count("/") == 1} == {f"/{SERVER_JSON}", f"/{SERVER_CARD}"}
    assert len(typed) == 2 + 3 * len(VERSIONS)  # the copies; each version's snapshot and discovery files
    assert all((built.out / path[1:]).is_file() for path in typed), typed
    assert f"/1.0.0/{SERVER_CARD}\n  Content-Type: application/mcp-server-card+json; charset=utf-8\n" in headers
    typed_json = "/1.0.0/server.json\n  Content-Type: application/json; charset=utf-8\n  Access-Control-Allow-Origin: *"
    assert typed_json in headers


def test_versions_list(built: Built, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["versions", "list", "--out", str(built.out)], renderer=TEMPLATES) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(reversed(VERSIONS))
    assert lines[0].endswith("(newest)") and "breaking" in lines[0] and "first version" in lines[-1]
    assert main(["versions", "list", "--out", str(built.out), "--format", "json"], renderer=TEMPLATES) == 0
    assert json.loads(capsys.readouterr().out)["latest"] == "2.0.0"


def test_check_and_diff_compare_with_the_newest_published_version(
    built: Built, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SOURCE_DATE_EPOCH", str(EPOCH["2.0.0"]))
        common = ["--out", str(built.out), "--versioned", "--no-search", "--jobs", "1"]
        assert main(["check", "--from", str(built.snapshots["2.0.0"]), *common], renderer=TEMPLATES) == 0
        assert (
            main(["check", "--from", str(built.snapshots["1.1.0"]), *common], renderer=TEMPLATES) == 0
        )  # an older version, as published
        capsys.readouterr()
        assert (
            main(
                ["check", "--from", str(built.snapshots["2.0.0"]), "--version-label", "2.1.0", *common],
                renderer=TEMPLATES,
            )
            == 3
        )
    out = capsys.readouterr().out
    assert "2.1.0 is not published" in out and "newest published version, 2.0.0" in out
    assert main(["diff", str(built.out), str(built.snapshots["1.0.0"]), "--format", "json"], renderer=TEMPLATES) == 0
    report = json.loads(capsys.readouterr().out)
    assert {(c["name"], c["kind"]) for c in report["changes"]} >= {(REMOVED, "tool-added"), (ADDED, "tool-removed")}


def test_check_versioned_validates_the_versions_discovery_files_and_bounds_its_snapshots(
    built: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site"
    shutil.copytree(built.out, out, symlinks=True)
    card = out / "1.1.0" / SERVER_CARD
    card.write_text(card.read_text(encoding="utf-8").replace('"name": "', '"name": "not a registry name ', 1))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SOURCE_DATE_EPOCH", str(EPOCH["1.1.0"]))
        common = ["--out", str(out), "--versioned", "--no-search", "--jobs", "1"]
        assert main(["check", "--from", str(built.snapshots["1.1.0"]), *common], renderer=TEMPLATES) == 3
        report = capsys.readouterr().out
        assert "server-card.json (edited by hand)" in report and "server-card.json: name:" in report
        # Each kept version's snapshot.json is read within --max-snapshot-bytes, as every snapshot file is: 1.0.0's
        # (padded with white space past the bound, still the same JSON) is refused, naming the option.
        kept = out / "1.0.0" / "snapshot.json"
        kept.write_bytes(kept.read_bytes() + b" " * 200_000)
        bound = ["--max-snapshot-bytes", "150000"]
        assert main(["check", "--from", str(built.snapshots["1.1.0"]), *common, *bound], renderer=TEMPLATES) == 1
        assert "larger than 150,000 bytes (the limit is --max-snapshot-bytes" in capsys.readouterr().err
        assert (
            main(["check", "--from", str(built.snapshots["1.1.0"]), *common], renderer=TEMPLATES) == 3
        )  # the default bound: read
        capsys.readouterr()
    before = tree(out)
    assert publish(out, built.snapshots["2.0.0"], *bound, epoch=EPOCH["2.0.0"]) == 1
    assert "1.0.0/snapshot.json: it is larger than 150,000 bytes" in capsys.readouterr().err and tree(out) == before


def test_layouts_are_never_mixed(built: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = tree(built.out)
    code = main(
        ["build", "--from", str(built.snapshots["1.0.0"]), "--out", str(built.out), "--no-search", "--quiet"],
        renderer=TEMPLATES,
    )
    assert code == 1 and "holds a versioned site" in capsys.readouterr().err
    assert tree(built.out) == before
    plain = tmp_path / "plain"
    assert (
        main(
            ["build", "--from", str(built.snapshots["1.0.0"]), "--out", str(plain), "--no-search", "--quiet"],
            renderer=TEMPLATES,
        )
        == 0
    )
    assert publish(plain, built.snapshots["1.1.0"]) == 1
    assert "built without --versioned" in capsys.readouterr().err
    assert not (plain / "1.1.0").exists()


def test_a_server_version_that_would_pick_a_path_is_refused(
    built: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from generator.snapshot.snapshot import load_snapshot, revised

    original = load_snapshot(built.snapshots["1.0.0"])
    for version in ("../../escape", "latest", "a b"):
        snapshot = tmp_path / "evil.json"
        snapshot.write_text(revised(original, capability_version=version).to_json(), encoding="utf-8")
        out = tmp_path / "site"
        assert publish(out, snapshot) == 1
        err = capsys.readouterr().err
        assert "cannot name the directory" in err and "--version-label" in err
        assert not out.exists() and not (tmp_path / "escape").exists()
    assert publish(out, snapshot, "--version-label", "1.0.0") == 0  # the user names it


def test_a_link_or_a_forged_versions_json_in_the_site_is_refused(
    built: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site"
    shutil.copytree(built.out, out, symlinks=True)
    outside = tmp_path / "outside.json"
    shutil.copyfile(built.snapshots["1.0.0"], outside)
    (out / "1.0.0" / "snapshot.json").unlink()
    os.symlink(outside, out / "1.0.0" / "snapshot.json")
    before = tree(out)
    assert publish(out, built.snapshots["2.0.0"], epoch=EPOCH["2.0.0"]) == 1
    assert "symbolic link" in capsys.readouterr().err
    assert tree(out) == before
    (out / "1.0.0" / "snapshot.json").unlink()
    shutil.copyfile(outside, out / "1.0.0" / "snapshot.json")
    data = json.loads((out / "versions.json").read_text(encoding="utf-8"))
    data["versions"][1]["version"] = "../../../tmp"
    (out / "versions.json").write_text(json.dumps(data), encoding="utf-8")
    assert publish(out, built.snapshots["2.0.0"], epoch=EPOCH["2.0.0"]) == 1
    assert "cannot name a directory" in capsys.readouterr().err


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if dict(attrs).get("class") == "install-link" and INSTALL_LINK.fullmatch(dict(attrs).get("href") or ""):
            return  # the connecting page's install links open an editor, percent-encoded
        for name, value in attrs:
            if name in ("href", "src") and value and not value.startswith(("#", "data:", "http", "mailto:")):
                self.links.append(value)


def test_every_link_of_every_version_resolves_in_the_site(built: Built) -> None:
    checked = 0
    for path in sorted(built.out.rglob("*.html")):
        parser = _Links()
        parser.feed(path.read_text(encoding="utf-8"))
        for link in parser.links:
            where = unquote(urlsplit(link).path)  # a 404 page links from the root of the host: the site's here
            target = (built.out / where.lstrip("/") if where.startswith("/") else path.parent / where).resolve()
            assert built.out.resolve() in (target, *target.parents), f"{path}: {link} leaves the site"
            assert target.exists(), f"{path.relative_to(built.out)}: {link} does not resolve"
            checked += 1
    assert checked > 5000


def test_new_pages_are_valid_html(built: Built) -> None:
    java = _java()
    pages = [built.out / p for p in (
        "index.html", "latest/en/tools/search_chat/index.html", "2.0.0/en/history/index.html",
        "2.0.0/ar/history/index.html", f"2.0.0/en/tools/{REMOVED}/index.html", f"2.0.0/ar/tools/{REMOVED}/index.html",
        f"2.0.0/ru/tools/{REQUIRED[0]}/index.html", f"1.1.0/ar/tools/{ADDED}/index.html",
    )]  # fmt: skip
    proc = subprocess.run([java, "-jar", str(VNU), "--errors-only", "--format", "json", *map(str, pages)],
                          capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    messages = json.loads(proc.stderr).get("messages", [])
    assert not messages and proc.returncode == 0, "\n".join(_format(m, built.out) for m in messages)


@pytest.fixture(scope="module")
def served(built: Built) -> Iterator[str]:
    with serving(built.out) as url:
        yield url


@pytest.mark.parametrize("version", VERSIONS)
def test_serve_answers_markdown_for_every_version(served: str, built: Built, version: str) -> None:
    request = urllib.request.Request(f"{served}{version}/en/tools/search_chat/", headers={"Accept": "text/markdown"})
    with urllib.request.urlopen(request, timeout=10) as reply:
        assert reply.headers["Content-Type"].startswith("text/markdown")
        assert reply.read() == (built.out / version / "en" / "tools" / "search_chat.md").read_bytes()


def test_full_versions_lightens_the_older_versions_and_keeps_the_rest(built: Built, tmp_path: Path) -> None:
    out = tmp_path / "site"
    shutil.copytree(built.out, out, symlinks=True, copy_function=os.link)
    before = tree(out)
    assert publish(out, built.snapshots["2.0.0"], "--full-versions", "2", epoch=EPOCH["2.0.0"]) == 0
    after = tree(out)
    data = json.loads((out / "versions.json").read_text(encoding="utf-8"))
    assert [(v["version"], v["search"]) for v in data["versions"]] == [
        ("2.0.0", False), ("1.2.0", False), ("1.1.0", False), ("1.0.0", False)  # built with --no-search
    ]  # fmt: skip
    for version in ("1.1.0", "1.0.0"):
        full = [p for p in before if p.startswith(f"{version}/") and "/llms-full" in p]
        assert full and all(after[p][0] != before[p][0] for p in full)
        pointer = (out / version / "ru" / "llms-full.txt").read_text(encoding="utf-8")
        assert pointer.startswith(f"# Teamspace (demo) {version}\n") and "(llms.txt)" in pointer
        kept = {p: v for p, v in before.items() if p.startswith(f"{version}/") and p not in full}
        assert kept == {p: v for p, v in after.items() if p in kept}  # every other file: same bytes, same inode
        assert "llms-full.txt" in (out / version / "en" / "llms.txt").read_text(encoding="utf-8")  # still resolves
    for version in ("2.0.0", "1.2.0"):
        assert {p: v for p, v in before.items() if p.startswith(f"{version}/")} == {
            p: v for p, v in after.items() if p.startswith(f"{version}/")
        }
    again = tree(out)
    assert publish(out, built.snapshots["2.0.0"], "--full-versions", "2", epoch=EPOCH["2.0.0"]) == 0
    assert tree(out) == again  # a version already lightened is left as it is


def test_hostile_server_text_stays_text_in_the_history_and_the_feed(built: Built, tmp_path: Path) -> None:
    from generator.snapshot.snapshot import load_snapshot, revised

    hostile = "<script>alert(1)</script>]]>\x1b[31m\u202e\" & '{{x}}"
    original = load_snapshot(built.snapshots["1.0.0"])
    evil = dict(original.tools[0], name=hostile, description=hostile)
    records = tuple(
        dataclasses.replace(r, tools=(*r.tools, hostile)) if r.name == "stdio" else r for r in original.endpoints
    )
    first = revised(original, tools=(*original.tools, evil), endpoints=records)
    second = revised(original, capability_version="1.0.1")  # the hostile tool removed
    out = tmp_path / "site"
    for n, snapshot in enumerate((first, second)):
        path = tmp_path / f"{n}.json"
        path.write_text(snapshot.to_json(), encoding="utf-8")
        assert publish(out, path, epoch=EPOCH["1.0.0"] + n * DAY) == 0
    feed = feedparser.parse((out / "changes.xml").read_bytes())
    assert not feed.bozo, feed.get("bozo_exception")
    assert "<script>" not in feed.entries[0].content[0].value.replace("&lt;script&gt;", "")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in feed.entries[0].content[0].value
    for path in (out / "1.0.1").rglob("*.html"):
        assert "<script>alert" not in path.read_text(encoding="utf-8"), path
    removed = next(p for p in (out / "1.0.1" / "en" / "tools").glob("*.md") if "script" in p.name)
    front = _front(removed.read_text(encoding="utf-8"))
    assert front["removed_in"] == "1.0.1" and "\x1b" not in str(front["title"])
