"""The composite GitHub Action (action.yml): its structure, and its one step run locally.

The step is ``scripts/action.sh``; these tests run that very script with the variables a runner
sets (``GITHUB_ACTION_PATH``, ``GITHUB_OUTPUT``, ``GITHUB_STEP_SUMMARY``, ``RUNNER_TEMP`` and the
``INPUT_*`` that action.yml passes) against the demo's snapshot.  Only the install is skipped
(``INPUT_INSTALL=false``): the package under test is already installed in this virtualenv.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
ACTION = REPO / "action.yml"
SCRIPT = REPO / "scripts" / "action.sh"
DEMO = REPO / "tests" / "golden" / "demo.snapshot.json"
EVERYTHING = REPO / "tests" / "golden" / "everything.snapshot.json"


def _action() -> dict[str, object]:
    data = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_action_yml_is_a_composite_action_that_runs_the_script() -> None:
    action = _action()
    for key in ("name", "description", "inputs", "outputs", "runs"):
        assert key in action, key
    runs = action["runs"]
    assert isinstance(runs, dict) and runs["using"] == "composite"
    (step,) = runs["steps"]
    assert step["shell"] == "bash"
    assert step["run"] == 'bash "${{ github.action_path }}/scripts/action.sh"'
    assert step["env"]["GITHUB_ACTION_PATH"] == "${{ github.action_path }}"
    for name, output in action["outputs"].items():  # type: ignore[attr-defined]
        assert output["value"] == f"${{{{ steps.run.outputs.{name} }}}}"


def test_every_input_is_passed_to_the_script_and_read_there() -> None:
    action = _action()
    inputs = action["inputs"]
    assert isinstance(inputs, dict)
    env = action["runs"]["steps"][0]["env"]  # type: ignore[index]
    script = SCRIPT.read_text(encoding="utf-8")
    for name, spec in inputs.items():
        var = "INPUT_" + name.upper().replace("-", "_")
        assert env[var] == f"${{{{ inputs.{name} }}}}", name
        assert re.search(rf"\$\{{{var}[:}}]", script), f"{var} is never read by scripts/action.sh"
        assert spec["description"] and "default" in spec
    passed = {k for k in env if k.startswith("INPUT_")}
    assert passed == {"INPUT_" + n.upper().replace("-", "_") for n in inputs}


def test_inputs_mirror_the_command_line() -> None:
    """Every option of build, check and diff has an input of the same name (and no input is invented),
    but those the action chooses itself and the watch."""
    declared = _action()["inputs"]
    assert isinstance(declared, dict)
    inputs = set(declared)
    options: set[str] = set()
    for command in ("build", "check", "diff"):
        helptext = subprocess.run(
            [sys.executable, "-m", "generator", command, "--help"], capture_output=True, text=True, check=True
        ).stdout
        options |= set(re.findall(r"^\s+--([a-z][a-z-]+)", helptext, re.M))
    options -= {"help", "format", "quiet"}  # the action chooses these: markdown for diff, quiet for build
    options -= {"watch", "watch-path"}  # a watch never ends by itself: a preview for people, not a CI step
    assert options <= inputs, options - inputs
    assert inputs - options == {"command", "install", "python", "old", "new", "pages-branch"}


def read_outputs(text: str) -> dict[str, str]:
    """The outputs a step wrote to $GITHUB_OUTPUT, each as ``NAME<<DELIMITER``, its lines, ``DELIMITER``."""
    found: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        name, heredoc, delimiter = line.partition("<<")
        assert heredoc and delimiter, f"not a heredoc output: {line!r}"
        found[name] = "\n".join(iter(lines.__next__, delimiter))
    return found


def run_action(tmp: Path, **inputs: str) -> tuple[subprocess.CompletedProcess[str], dict[str, str], str]:
    """Run scripts/action.sh in *tmp* as a runner would; the process, its outputs and its job summary."""
    output, summary = tmp / "github_output", tmp / "step_summary"
    output.write_text("", encoding="utf-8")
    summary.write_text("", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_"))}
    env |= {
        "GITHUB_ACTION_PATH": str(REPO),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(summary),
        "RUNNER_TEMP": str(tmp),
        "INPUT_INSTALL": "false",
        "INPUT_PYTHON": sys.executable,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",  # the console script
    }
    env |= {"INPUT_" + k.upper(): v for k, v in inputs.items()}
    run = subprocess.run(["bash", str(SCRIPT)], cwd=tmp, env=env, capture_output=True, text=True, timeout=300)
    return run, read_outputs(output.read_text(encoding="utf-8")), summary.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("action-build")
    run, outputs, summary = run_action(
        tmp, command="build", **{"from": str(DEMO)}, out="site", locales="en", no_search="true"
    )
    assert run.returncode == 0, run.stderr
    assert outputs == {"exit-code": "0", "site": "site"}
    assert summary == ""
    assert (tmp / "site" / "en" / "tools" / "search_chat" / "index.html").is_file()
    assert not (tmp / "site" / "ru").exists()
    return tmp / "site"


def test_build_then_check_finds_no_drift(built: Path, tmp_path: Path) -> None:
    run, outputs, _ = run_action(
        tmp_path, command="check", **{"from": str(DEMO)}, out=str(built), locales="en", no_search="true"
    )
    assert run.returncode == 0, run.stderr
    assert outputs["exit-code"] == "0"


def test_check_reports_drift_with_exit_3(built: Path, tmp_path: Path) -> None:
    run, outputs, _ = run_action(tmp_path, command="check", **{"from": str(DEMO)}, out=str(built), locales="en,ru")
    assert run.returncode == 3, run.stderr
    assert outputs["exit-code"] == "3"


def test_diff_writes_the_markdown_report_to_the_job_summary(built: Path, tmp_path: Path) -> None:
    run, outputs, summary = run_action(tmp_path, command="diff", old=str(DEMO), new=str(built))
    assert run.returncode == 0, run.stderr
    assert summary.strip() and summary == Path(outputs["report"]).read_text(encoding="utf-8")
    assert summary in run.stdout


def test_diff_fail_on_any_exits_4_and_still_writes_the_summary(tmp_path: Path) -> None:
    run, outputs, summary = run_action(tmp_path, command="diff", old=str(DEMO), new=str(EVERYTHING), fail_on="any")
    assert run.returncode == 4, run.stderr
    assert outputs["exit-code"] == "4"
    assert "search_chat" in summary  # a removed tool is named in the report
    assert summary.lstrip().startswith("#")


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"command": "publish"}, "must be build, check or diff"),
        ({"command": "diff"}, "diff needs the inputs 'old' and 'new'"),
        ({"command": "build", "strict": "yes"}, "input 'strict' must be true or false"),
    ],
)
def test_bad_inputs_are_usage_errors(tmp_path: Path, inputs: dict[str, str], message: str) -> None:
    run, _, summary = run_action(tmp_path, **inputs)
    assert run.returncode == 2
    assert message in run.stderr
    assert summary == ""


def test_the_guide_uses_only_inputs_the_action_has() -> None:
    # docs/ci.md shows the action in use: every `with:` key of its steps must be a real input.
    guide = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    blocks = [yaml.safe_load(b) for b in re.findall(r"^```yaml\n(.*?)^```$", guide, re.S | re.M)]
    steps = [s for b in blocks if isinstance(b, dict) for s in b.get("steps", []) if "mcp-portal@" in s.get("uses", "")]
    assert len(steps) == 3
    declared = _action()["inputs"]
    assert isinstance(declared, dict)
    inputs = set(declared)
    for step in steps:
        assert set(step["with"]) <= inputs, step
        assert step["with"]["command"] in ("build", "check", "diff")


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}  # fmt: skip
    run = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60, check=True)
    return run.stdout


def test_pages_branch_publishes_two_versions_into_a_git_branch_and_keeps_both(tmp_path: Path) -> None:
    """Two runs of the action, two versions: the branch gains a commit each, and the first version's files are
    the same blobs after the second run (never rewritten), both listed in versions.json."""
    from tests.history_fixture import write_versions

    snapshots = dict(write_versions(tmp_path / "snapshots"))
    origin = tmp_path / "origin.git"
    _git(tmp_path, "init", "--quiet", "--bare", str(origin))
    work = tmp_path / "work"
    _git(tmp_path, "clone", "--quiet", str(origin), str(work))
    _git(work, "commit", "--quiet", "--allow-empty", "-m", "the project")
    _git(work, "push", "--quiet", "origin", "HEAD")
    for version in ("1.0.0", "1.1.0"):
        shutil.rmtree(work / "site", ignore_errors=True)  # each CI run starts from a fresh checkout
        run, outputs, _ = run_action(
            work, command="build", **{"from": str(snapshots[version])}, out="site", locales="en", no_search="true",
            versioned="true", pages_branch="gh-pages",
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        assert outputs["exit-code"] == "0"
        assert "pushed" in run.stdout
    published = tmp_path / "published"
    _git(tmp_path, "clone", "--quiet", "--branch", "gh-pages", str(origin), str(published))
    assert _git(published, "rev-list", "--count", "HEAD").strip() == "2"
    versions = json.loads((published / "versions.json").read_text(encoding="utf-8"))
    assert [v["version"] for v in versions["versions"]] == ["1.1.0", "1.0.0"]
    assert (published / "1.0.0" / "en" / "tools" / "search_chat" / "index.html").is_file()
    assert (published / "1.1.0" / "en" / "tools" / "workspace_status" / "index.html").is_file()
    assert (published / ".nojekyll").is_file()
    first = _git(published, "ls-tree", "-r", "HEAD~1", "--", "1.0.0")
    assert first.count("\n") > 20  # the first version's files, as the first push left them
    assert _git(published, "ls-tree", "-r", "HEAD", "--", "1.0.0") == first  # the same blobs after the second
    assert not _git(published, "status", "--porcelain")
