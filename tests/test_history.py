"""The history stage (generator/history/): version labels, versions.json, confined reads, and timelines.

Pure logic over real snapshots (the demo's, in four versions: tests/history_fixture.py); the builds
of versioned sites are tests/test_versioned.py.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from generator.commands.cli import main
from generator.commands.versioned import today
from generator.errors import PortalError
from generator.history.kept import kept_snapshot, read_kept
from generator.history.labels import newest_first
from generator.history.timeline import ASPECTS, aspect, deprecated, history_of, releases_of
from generator.history.versions import Version, VersionsError, dump, parse
from generator.labels import label_problem
from generator.snapshot.snapshot import load_snapshot
from tests.conftest import TEMPLATES
from tests.golden_tool import SNAPSHOT
from tests.history_fixture import ADDED, REMOVED, REQUIRED, demo_versions


@pytest.mark.parametrize("label", ["1.4.0", "v2", "2026-05-01", "1.0.0-rc.1", "1.0.0+build.7", "a1b2c3d4e5f6", "Z"])
def test_plain_version_labels_name_a_directory(label: str) -> None:
    assert label_problem(label) is None


@pytest.mark.parametrize(
    ("label", "why"),
    [
        ("", "empty"),
        ("..", "one path segment"),
        ("../etc", "one path segment"),
        ("1.0/2", "one path segment"),
        (".hidden", "one path segment"),
        ("-rc", "one path segment"),
        ("1.0 beta", "one path segment"),
        ("1.0\n", "one path segment"),
        ("1.0.", "ends with a dot"),
        ("latest", "uses that name itself"),
        ("LATEST", "uses that name itself"),
        ("versions.json", "uses that name itself"),
        ("server.json", "uses that name itself"),  # the newest version's discovery files are copied to the top
        ("Server-Card.json", "uses that name itself"),
        ("con", "Windows device"),
        ("nul.1", "Windows device"),
        ("x" * 65, "longer than 64"),
        ("ｖ1", "one path segment"),
    ],
)
def test_labels_that_could_pick_another_path_are_refused(label: str, why: str) -> None:
    problem = label_problem(label)
    assert problem is not None and why in problem


def test_versions_sort_by_version_when_every_label_is_one() -> None:
    labels = ["1.10.0", "1.9.0", "2.0.0-rc.1", "2.0.0", "1.2", "1.2.1", "v0.9"]
    assert newest_first(labels, []) == ["2.0.0", "2.0.0-rc.1", "1.10.0", "1.9.0", "1.2.1", "1.2", "v0.9"]
    # A 1.2.1 published after 1.3.0 still comes after it.
    assert newest_first(["1.3.0", "1.2.1", "1.2.0"], ["1.3.0", "1.2.0"]) == ["1.3.0", "1.2.1", "1.2.0"]


def test_other_labels_keep_the_order_published_a_new_one_first() -> None:
    assert newest_first(["beta", "alpha", "1.0.0"], ["alpha", "1.0.0"]) == ["beta", "alpha", "1.0.0"]
    assert newest_first(["alpha", "beta"], ["alpha", "beta"]) == ["alpha", "beta"]  # published again: its place


def _version(label: str, **fields: object) -> Version:
    base: dict[str, object] = {"date": "2026-05-01", "protocol": "2026-07-28", "breaking": False, "tools": 3,
                               "locales": ("en",)}  # fmt: skip
    return Version(label, **(base | fields))  # type: ignore[arg-type]


def test_versions_json_reads_back_what_it_wrote() -> None:
    versions = [_version("2.0.0", breaking=True), _version("1.0.0", locales=("en", "ar"), search=False)]
    raw = dump(versions, "mcp-portal 1")
    assert json.loads(raw)["latest"] == "2.0.0"
    assert parse(raw, "versions.json") == versions


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ({"version": "../../etc"}, "cannot name a directory"),
        ({"version": "latest"}, "cannot name a directory"),
        ({"version": 1}, "has no version"),
        ({"date": "May 1"}, "YYYY-MM-DD"),
        ({"protocol": "<script>"}, "protocol"),
        ({"breaking": "yes"}, "true or false"),
        ({"tools": -1}, "tool count"),
        ({"locales": ["en/../x"]}, "locale codes"),
        ({"locales": []}, "locale codes"),
    ],
)
def test_a_versions_json_nobody_should_trust_is_refused(entry: dict[str, object], problem: str) -> None:
    good = json.loads(dump([_version("1.0.0")], "mcp-portal 1"))["versions"][0]
    raw = json.dumps({"versions": [good | entry]}).encode()
    with pytest.raises(VersionsError, match=problem) as caught:
        parse(raw, "site/versions.json")
    assert "site/versions.json" in caught.value.message and "restore the file" in caught.value.message


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b"not json", "not valid JSON"),
        (b"[]", 'no "versions" list'),
        (b"{" * 100_000, "not valid JSON"),
        (json.dumps({"versions": [json.loads(dump([_version("1.0.0")], "x"))["versions"][0]] * 2}).encode(), "repeats"),
        (b" " * (4 * 1024 * 1024 + 1), "larger than"),
        # A key twice: Python would keep the second "version", another reader the first.
        (b'{"versions": [{"version": "1.0.0", "version": "../x"}]}', 'key "version" appears twice'),
    ],
)
def test_a_damaged_versions_json_says_what_is_wrong(raw: bytes, problem: str) -> None:
    with pytest.raises(VersionsError, match=problem):
        parse(raw, "versions.json")


def test_confined_reads_refuse_symlinks_and_large_files(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "1.0.0").mkdir(parents=True)
    (site / "1.0.0" / "snapshot.json").write_text("{}", encoding="utf-8")
    assert read_kept(site, "1.0.0/snapshot.json", 10) == b"{}"
    assert read_kept(site, "2.0.0/snapshot.json", 10) is None
    with pytest.raises(PortalError, match="larger than 1 bytes"):
        read_kept(site, "1.0.0/snapshot.json", 1)
    secret = tmp_path / "secret.json"
    secret.write_text('{"token": "x"}', encoding="utf-8")
    (site / "2.0.0").mkdir()
    os.symlink(secret, site / "2.0.0" / "snapshot.json")
    with pytest.raises(PortalError, match="symbolic link"):
        read_kept(site, "2.0.0/snapshot.json", 1000)
    os.symlink(tmp_path, site / "3.0.0")  # a link on the way, to a directory that holds a snapshot.json
    (tmp_path / "snapshot.json").write_text("{}", encoding="utf-8")
    with pytest.raises(PortalError, match="symbolic link"):
        read_kept(site, "3.0.0/snapshot.json", 1000)
    os.mkfifo(site / "1.0.0" / "fifo")
    with pytest.raises(PortalError, match="not a regular file"):
        read_kept(site, "1.0.0/fifo", 1000)
    with pytest.raises(ValueError):
        read_kept(site, "../secret.json", 1000)


def test_a_kept_snapshot_is_checked_as_any_snapshot(tmp_path: Path) -> None:
    (tmp_path / "1.0.0").mkdir()
    kept = tmp_path / "1.0.0" / "snapshot.json"
    kept.write_text('{"tools": "nope"}', encoding="utf-8")
    with pytest.raises(PortalError, match="not usable"):
        kept_snapshot(tmp_path, "1.0.0", limit=1000)
    with pytest.raises(PortalError, match="missing"):
        kept_snapshot(tmp_path, "2.0.0", limit=1000)
    # Bounded by limits.max_snapshot_bytes, as every snapshot file read is, and the refusal names the option.
    with pytest.raises(PortalError, match=r"larger than 10 bytes.*--max-snapshot-bytes"):
        kept_snapshot(tmp_path, "1.0.0", limit=10)
    # A key twice in one object is refused, as in any snapshot file: two readers could read two documents.
    kept.write_text(load_snapshot(SNAPSHOT).to_json().replace("{\n", '{\n  "tools": [],\n', 1), encoding="utf-8")
    with pytest.raises(PortalError, match="twice"):
        kept_snapshot(tmp_path, "1.0.0", limit=10_000_000)


@pytest.fixture(scope="module")
def chain() -> list[tuple[Version, object]]:
    return [(_version(label, tools=len(s.tools)), (lambda s=s: s)) for label, s in demo_versions()]


def test_each_tool_has_its_timeline(chain: list[tuple[Version, object]]) -> None:
    history = history_of(chain)  # type: ignore[arg-type]
    assert history.current == "2.0.0" and history.first == "1.0.0"
    assert [r.label for r in history.releases] == ["2.0.0", "1.2.0", "1.1.0", "1.0.0"]
    added = history.timeline(ADDED)
    assert added is not None and added.since == "1.1.0" and not added.since_first and added.changed_in == ()
    tool, param = REQUIRED
    required = history.timeline(tool)
    assert required is not None and required.since == "1.0.0" and required.since_first
    assert required.changed_in == ("1.2.0",)
    (event,) = [e for e in required.events if e.kind == "changed"]
    assert event.aspects == ("input",) and event.breaking
    gone = history.timeline(REMOVED)
    assert gone is not None and gone.removed_in == "2.0.0"
    (removed,) = history.removed
    assert (removed.name, removed.removed_in, removed.last_version, removed.last_slug) == (
        REMOVED, "2.0.0", "1.2.0", REMOVED
    )  # fmt: skip
    assert param in str(next(c for c in history.release("1.2.0").changes if c.tool == tool).path)  # type: ignore[union-attr]


def test_a_release_breaks_by_compare_rules(chain: list[tuple[Version, object]]) -> None:
    releases = releases_of(chain)  # type: ignore[arg-type]
    assert [(r.label, r.breaking, r.previous) for r in releases] == [
        ("2.0.0", True, "1.2.0"), ("1.2.0", True, "1.1.0"), ("1.1.0", False, "1.0.0"), ("1.0.0", False, None)
    ]  # fmt: skip
    assert [c.kind for c in releases[0].changes] == ["tool-removed"]
    assert [c.kind for c in releases[2].changes] == ["tool-added"]


def test_a_tool_removed_and_added_again_is_not_removed(chain: list[tuple[Version, object]]) -> None:
    versions = [v for v, _ in chain]
    loads = [load for _, load in chain]
    again = [*chain, (_version("3.0.0"), loads[2])]  # 3.0.0 has delete_document again
    history = history_of(again)  # type: ignore[arg-type]
    assert history.removed == ()
    timeline = history.timeline(REMOVED)
    assert timeline is not None and [e.kind for e in timeline.events] == ["added", "removed", "added"]
    assert timeline.since == "3.0.0" and timeline.removed_in is None and not timeline.since_first
    assert versions[0].label == "1.0.0"


@pytest.mark.parametrize(
    ("tool", "expected"),
    [
        ({"name": "a", "annotations": {"deprecated": True}}, True),
        ({"name": "a", "_meta": {"deprecated": True}}, True),
        ({"name": "a", "inputSchema": {"type": "object", "deprecated": True}}, True),
        ({"name": "a", "description": "Deprecated: use b instead."}, True),
        ({"name": "a", "description": "[DEPRECATED] use b"}, True),
        ({"name": "a", "description": "Lists items that are not deprecated."}, False),
        ({"name": "a", "annotations": {"deprecated": "yes"}}, False),
        ({"name": "a", "description": "x" * 1_000_000 + " deprecated"}, False),
    ],
)
def test_deprecated_is_what_the_server_says(tool: dict[str, object], expected: bool) -> None:
    assert deprecated(tool) is expected


def test_every_aspect_is_named_by_some_change(chain: list[tuple[Version, object]]) -> None:
    releases = releases_of(chain)  # type: ignore[arg-type]
    found = {aspect(c) for r in releases for c in r.changes}
    assert "input" in found and found <= {*ASPECTS, None}


@pytest.mark.parametrize("label", ["../x", "a/b", "latest", "1.0."])
def test_a_bad_version_label_is_a_usage_error(label: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["build", "--versioned", "--version-label", label, "--out", str(tmp_path / "site")], renderer=TEMPLATES)
    assert code == 2
    assert "--version-label" in capsys.readouterr().err
    assert not (tmp_path / "site").exists()


def test_version_label_needs_versioned(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["build", "--version-label", "1.0.0", "--out", str(tmp_path / "site")], renderer=TEMPLATES)
    assert code == 2
    assert "only applies to a versioned build" in capsys.readouterr().err
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize(
    ("epoch", "date"), [("0", "1970-01-01"), (" 1767225600 ", "2026-01-01"), ("253402300799", "9999-12-31")]
)
def test_source_date_epoch_dates_a_release(monkeypatch: pytest.MonkeyPatch, epoch: str, date: str) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
    assert today() == date


@pytest.mark.parametrize(
    ("epoch", "hint"),
    [
        ("1767225600000", "in milliseconds"),  # date +%s%3N, Date.now(): once an internal error (year out of range)
        ("253402300800", ""),
        ("9" * 5000, ""),  # more digits than int() converts
        ("١٧٦٧٢٢٥٦٠٠", ""),  # digits, but not ASCII ones
        ("²", ""),  # isdigit() yet no int()
        ("-1", ""),
        ("1.5e9", ""),
        ("\x1b[31mnow", ""),
    ],
)
def test_a_source_date_epoch_that_names_no_day_is_explained(
    monkeypatch: pytest.MonkeyPatch, epoch: str, hint: str
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
    with pytest.raises(PortalError) as caught:
        today()
    message = caught.value.message
    assert message.startswith("SOURCE_DATE_EPOCH is ") and "git log -1 --format=%ct" in message
    assert hint in message and (hint or "milliseconds" not in message)
    assert "\x1b" not in message and len(message) < 300
