"""``mcp-portal lint`` against live servers, and ``check --lint``: the deliberately smelly fixture server
(tests/servers/smelly_server.py, over stdio) scores low with the findings it was written to raise; the
bundled demo, started as ``build`` starts it, scores high; ``check --lint`` gates, with drift's exit 3
winning over the lint gate's 5.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import PYTHON, TESTS, Run
from tests.test_check import modified_snapshot

Cli = Callable[..., Run]
GOLDEN = TESTS / "golden" / "demo.snapshot.json"
SMELLY = f"{PYTHON} -m tests.servers.smelly_server"

EXPECTED = {
    # tool: the rules its definition was written to break (tests/servers/smelly_server.py)
    "search": {"purpose-missing", "name-generic", "params-undescribed", "behaviour-undeclared"},
    "get_weather": {"purpose-tautology", "params-no-unit", "params-no-format", "params-no-values"},
    "delete_records": {"behaviour-contradicts-annotations", "concise-shouting"},
    "format_text": {"concise-injection", "concise-hidden-text"},
    "fetchData": {"concise-wall-of-text"},
    "export.": {"name-edge-character"},
}


def test_the_smelly_server_scores_low_with_the_expected_findings(cli: Cli) -> None:
    run = cli("lint", "--stdio", SMELLY, "--format", "json")
    assert run.code == 0, run.err
    report = json.loads(run.out)
    assert report["server"] == "smelly-server"
    assert report["score"] <= 60
    found = {t["name"]: {f["rule"] for f in t["findings"]} for t in report["tools"]}
    for tool, rules in EXPECTED.items():
        assert rules <= found[tool], (tool, rules - found[tool])
    server = {f["rule"] for f in report["server_findings"]}
    assert server == {"server-similar-tools", "server-missing-annotations", "server-mixed-naming"}
    (similar,) = [f for f in report["server_findings"] if f["rule"] == "server-similar-tools"]
    assert "search_rows" in similar["message"] and "find_rows" in similar["message"]
    hidden = next(f for t in report["tools"] for f in t["findings"] if f["rule"] == "concise-hidden-text")
    assert hidden["field"] == "/inputSchema/properties/text/description"
    assert "[U+200B]" in hidden["text"]


def test_the_smelly_server_misses_a_ci_bar_with_exit_5(cli: Cli) -> None:
    run = cli("lint", "--stdio", SMELLY, "--min-score", "80", "--fail-on", "concise-injection")
    assert run.code == 5
    assert "the score" in run.err and "below --min-score 80" in run.err
    assert "finding(s) of --fail-on: concise-injection" in run.err


def test_the_bundled_demo_scores_high(cli: Cli) -> None:
    """No server option: the demo's three endpoints, started as ``build`` starts them."""
    run = cli("lint", "--format", "json")
    assert run.code == 0, run.err
    live = json.loads(run.out)
    golden = json.loads(cli("lint", "--from", str(GOLDEN), "--format", "json").out)
    assert live["score"] >= 85
    assert live == golden


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from generator.commands.cli import main

    out = tmp_path_factory.mktemp("pristine") / "site"
    assert main(["build", "--from", str(GOLDEN), "--out", str(out), "--locales", "en", "--no-search"]) == 0
    return out


def _check(cli: Cli, site: Path, snapshot: Path, *extra: str) -> Run:
    return cli("check", "--from", str(snapshot), "--out", str(site), "--locales", "en", "--no-search", *extra)


def test_check_lint_prints_both_reports_and_gates(cli: Cli, pristine: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(pristine, site)
    run = _check(cli, site, GOLDEN, "--lint")
    assert run.code == 0, run.err
    assert "is up to date" in run.out and "Agent readiness of teamspace-demo: " in run.out
    run = _check(cli, site, GOLDEN, "--lint", "--min-score", "95")
    assert run.code == 5
    assert "below --min-score 95" in run.err
    data = json.loads(_check(cli, site, GOLDEN, "--lint", "--format", "json").out)
    assert data["status"] == "ok" and data["lint"]["score"] >= 85


def test_check_lint_drift_wins_over_the_lint_gate(cli: Cli, pristine: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(pristine, site)
    changed = modified_snapshot(tmp_path, lambda tools: [{**tools[0], "description": ""}, *tools[1:]])
    run = _check(cli, site, changed, "--lint", "--fail-on", "purpose-missing")
    assert run.code == 3  # the site drifted: a rebuild comes first
    assert "Drift:" in run.out and "purpose-missing" in run.out
    assert "finding(s) of --fail-on: purpose-missing" in run.err  # the lint gate's miss is still said


def test_check_takes_the_gate_options_only_with_lint(cli: Cli, pristine: Path) -> None:
    run = _check(cli, pristine, GOLDEN, "--min-score", "80")
    assert run.code == 2
    assert "need --lint" in run.err
