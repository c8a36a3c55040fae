"""The composite GitHub Action (action.yml): its structure, and its one step run locally.

The step is ``scripts/action.sh``; these tests run that very script with the variables a runner
sets (``GITHUB_ACTION_PATH``, ``GITHUB_OUTPUT``, ``GITHUB_STEP_SUMMARY``, ``RUNNER_TEMP`` and the
``INPUT_*`` that action.yml passes) against the demo's snapshot.  Only the install is skipped
(``INPUT_INSTALL=false``): the package under test is already installed in this virtualenv.
"""

from __future__ import annotations

import contextlib
import http.server
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
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
    assert inputs - options == {"command", "install", "python", "old", "new", "allow-pr-config"}


def read_outputs(text: str) -> dict[str, str]:
    """The outputs a step wrote to $GITHUB_OUTPUT, each as ``NAME<<DELIMITER``, its lines, ``DELIMITER``."""
    found: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        name, heredoc, delimiter = line.partition("<<")
        assert heredoc and delimiter, f"not a heredoc output: {line!r}"
        found[name] = "\n".join(iter(lines.__next__, delimiter))
    return found


def run_action(
    tmp: Path, runner: dict[str, str] | None = None, /, **inputs: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, str], str]:
    """Run scripts/action.sh in *tmp* as a runner would; the process, its outputs and its job summary.
    *runner*: further variables the runner sets (``GITHUB_EVENT_NAME``, ``GITHUB_TOKEN``)."""
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
    env |= {"INPUT_" + k.upper(): v for k, v in inputs.items()} | (runner or {})
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


# ---------------------------------------------------------------- a pull request's checkout (issue 47)

TOKEN = "ghs_the_jobs_token_0123456789"
LEAK = "import os, sys\nopen(sys.argv[1], 'w').write(os.environ.get('GITHUB_TOKEN', '(none)'))\n"
"""The stdio "server" a pull request's portal.yaml names: it writes down the token it was given."""


@contextlib.contextmanager
def _listener() -> Iterator[tuple[str, list[str]]]:
    """A real HTTP server on 127.0.0.1 that keeps the Authorization header of every request it gets."""
    heard: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            heard.append(self.headers.get("Authorization", ""))
            self.send_error(404)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp", heard
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _checkout(tmp: Path, kind: str, url: str) -> None:
    """A pull request's files in *tmp*: a portal.yaml whose server is a program of its own, or a URL of its
    choice that gets the job's token in a header."""
    (tmp / "leak.py").write_text(LEAK, encoding="utf-8")
    if kind == "stdio":
        server = f"  stdio: {sys.executable} leak.py {tmp / 'leaked'}\n  env: [GITHUB_TOKEN]\n"
    else:
        server = f"  url: {url}\n  headers:\n    Authorization: Bearer ${{GITHUB_TOKEN}}\n"
    (tmp / "portal.yaml").write_text("server:\n" + server, encoding="utf-8")


@pytest.mark.parametrize("event", ["pull_request", "pull_request_target"])
@pytest.mark.parametrize("kind", ["stdio", "url"])
def test_a_pull_requests_config_is_refused_unless_the_workflow_opts_in(tmp_path: Path, kind: str, event: str) -> None:
    with _listener() as (url, heard):
        _checkout(tmp_path, kind, url)
        runner = {"GITHUB_EVENT_NAME": event, "GITHUB_TOKEN": TOKEN}
        inputs = {"command": "build", "config": "portal.yaml", "out": "site", "no_search": "true", "env": ""}
        run, _, _ = run_action(tmp_path, runner, **inputs)
        assert run.returncode == 2, run.stderr
        assert f"on a {event} event the input(s) 'config' are refused" in run.stderr
        assert "allow-pr-config: true" in run.stderr and TOKEN not in run.stderr + run.stdout
        assert not (tmp_path / "leaked").exists() and heard == []
        # The same inputs, with the workflow saying they come from the base branch: they are used.
        run, _, _ = run_action(tmp_path, runner, **inputs, allow_pr_config="true")
        assert run.returncode == 1, run.stderr  # no MCP server answers, but the config was acted on
        if kind == "stdio":
            assert (tmp_path / "leaked").read_text(encoding="utf-8") == TOKEN
        else:
            assert heard and heard[0] == f"Bearer {TOKEN}"


@pytest.mark.parametrize("names", [("stdio",), ("stdio", "env"), ("url",), ("url", "header")])
def test_server_inputs_are_refused_on_a_pull_request_and_taken_on_a_push(
    tmp_path: Path, names: tuple[str, ...]
) -> None:
    (tmp_path / "leak.py").write_text(LEAK, encoding="utf-8")
    with _listener() as (url, heard):
        given = {
            "stdio": f"{sys.executable} leak.py {tmp_path / 'leaked'}",
            "env": "GITHUB_TOKEN",
            "url": url,
            "header": "Authorization: Bearer ${GITHUB_TOKEN}",
        }
        inputs = {name: given[name] for name in names}
        run, _, _ = run_action(tmp_path, {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_TOKEN": TOKEN}, **inputs)
        assert run.returncode == 2, run.stderr
        assert "the input(s) " + " ".join(f"'{name}'" for name in names) + " are refused" in run.stderr
        assert not (tmp_path / "leaked").exists() and heard == []
        run, _, _ = run_action(tmp_path, {"GITHUB_EVENT_NAME": "push", "GITHUB_TOKEN": TOKEN}, **inputs)
        assert run.returncode == 1, run.stderr  # acted on: no MCP server answers
        assert (tmp_path / "leaked").exists() or heard


def test_a_pull_request_may_build_from_a_snapshot(tmp_path: Path) -> None:
    runner = {"GITHUB_EVENT_NAME": "pull_request_target", "GITHUB_TOKEN": TOKEN}
    run, outputs, _ = run_action(
        tmp_path, runner, command="build", **{"from": str(DEMO)}, out="site", locales="en", no_search="true"
    )
    assert run.returncode == 0, run.stderr
    assert outputs["exit-code"] == "0" and (tmp_path / "site" / "en" / "index.html").is_file()
