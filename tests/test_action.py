"""The composite GitHub Action (action.yml): its structure, and its one step run locally.

The step is ``scripts/action.sh``; these tests run that very script with the variables a runner
sets (``GITHUB_ACTION_PATH``, ``GITHUB_OUTPUT``, ``GITHUB_STEP_SUMMARY``, ``RUNNER_TEMP`` and the
``INPUT_*`` that action.yml passes) against the demo's snapshot.  Only the install is skipped
(``INPUT_INSTALL=false``): the package under test is already installed in this virtualenv.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import re
import shutil
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
    for command in ("build", "check", "diff", "lint"):
        helptext = subprocess.run(
            [sys.executable, "-m", "generator", command, "--help"], capture_output=True, text=True, check=True
        ).stdout
        options |= set(re.findall(r"^\s+--([a-z][a-z-]+)", helptext, re.M))
    options -= {"help", "format", "quiet"}  # the action chooses these: markdown for diff, quiet for build
    options -= {"watch", "watch-path"}  # a watch never ends by itself: a preview for people, not a CI step
    assert options <= inputs, options - inputs
    chosen = {"command", "install", "python", "old", "new", "allow-pr-config", "comment", "github-token"}
    chosen |= {"pages-branch"}  # a versioned build's Pages branch: no command-line option
    assert inputs - options == chosen


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
    return run_action_in(tmp, runner or {}, inputs)


def run_action_in(
    tmp: Path, extra_env: dict[str, str], inputs: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], dict[str, str], str]:
    """:func:`run_action` with more runner variables (``GITHUB_EVENT_PATH``, ``GITHUB_API_URL``...)."""
    tmp.mkdir(parents=True, exist_ok=True)
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
    env |= {"INPUT_" + k.upper(): v for k, v in inputs.items()} | extra_env
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
        ({"command": "publish"}, "must be build, check, diff or lint"),
        ({"command": "lint", "comment": "yes"}, "input 'comment' must be true or false"),
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
    assert len(steps) == 4
    declared = _action()["inputs"]
    assert isinstance(declared, dict)
    inputs = set(declared)
    for step in steps:
        assert set(step["with"]) <= inputs, step
        assert step["with"]["command"] in ("build", "check", "diff", "lint")


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


def test_lint_writes_its_report_to_the_summary_and_exits_5_when_the_bar_is_missed(tmp_path: Path) -> None:
    run, outputs, summary = run_action(tmp_path, command="lint", **{"from": str(DEMO)}, min_score="95")
    assert run.returncode == 5, run.stderr
    assert outputs["exit-code"] == "5"
    assert summary.startswith("<!-- mcp-portal lint -->\n## Agent readiness: 91/100")
    assert summary == Path(outputs["report"]).read_text(encoding="utf-8")
    assert "below --min-score 95" in run.stderr
    ok, _, _ = run_action(tmp_path / "again", command="lint", **{"from": str(DEMO)}, fail_on="error")
    assert ok.returncode == 0, ok.stderr


class FakeGitHub:
    """GitHub's issue-comment API as far as scripts/pr_comment.py uses it, on 127.0.0.1: nothing real can
    play GitHub here. It keeps the comments it is sent and every request's method, path and headers."""

    def __init__(self) -> None:
        import http.server
        import threading

        self.comments: list[dict[str, object]] = []
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _reply(self, value: object, status: int = 200) -> None:
                data = json.dumps(value).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _body(self) -> dict[str, object]:
                loaded = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                assert isinstance(loaded, dict)
                return loaded

            def do_GET(self) -> None:
                fake.requests.append(("GET", self.path, dict(self.headers)))
                self._reply(fake.comments if "page=1" in self.path else [])

            def do_POST(self) -> None:
                fake.requests.append(("POST", self.path, dict(self.headers)))
                comment = {"id": len(fake.comments) + 1, **self._body()}
                fake.comments.append(comment)
                self._reply(comment, 201)

            def do_PATCH(self) -> None:
                fake.requests.append(("PATCH", self.path, dict(self.headers)))
                number = int(self.path.rsplit("/", 1)[1])
                comment = next(c for c in fake.comments if c["id"] == number)
                comment.update(self._body())
                self._reply(comment)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_lint_comments_its_report_on_the_pull_request_and_updates_it(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 42}}), encoding="utf-8")
    github = FakeGitHub()
    try:
        runner = {"GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": "acme/tools", "GITHUB_API_URL": github.url}
        inputs = {"command": "lint", "from": str(DEMO), "comment": "true", "github_token": "s3cret-token"}
        run, outputs, summary = run_action_in(tmp_path / "first", runner, {**inputs, "min_score": "95"})
        assert run.returncode == 5, run.stderr  # the bar is missed, and the report is commented all the same
        assert "commented the report on pull request #42" in run.stdout
        (comment,) = github.comments
        assert comment["body"] == summary == Path(outputs["report"]).read_text(encoding="utf-8")
        posts = [r for r in github.requests if r[0] == "POST"]
        assert [p[1] for p in posts] == ["/repos/acme/tools/issues/42/comments"]
        assert posts[0][2]["Authorization"] == "Bearer s3cret-token"
        assert "s3cret-token" not in run.stdout + run.stderr

        again, _, _ = run_action_in(tmp_path / "second", runner, inputs)
        assert again.returncode == 0, again.stderr
        assert "updated the report comment on pull request #42" in again.stdout
        assert len(github.comments) == 1  # one comment, rewritten
        assert [r[1] for r in github.requests if r[0] == "PATCH"] == ["/repos/acme/tools/issues/comments/1"]
    finally:
        github.close()


def test_lint_comments_nothing_outside_a_pull_request(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"ref": "refs/heads/main"}), encoding="utf-8")
    github = FakeGitHub()
    try:
        runner = {"GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": "acme/tools", "GITHUB_API_URL": github.url}
        inputs = {"command": "lint", "comment": "true", "github_token": "t", "from": str(DEMO)}
        run, _, _ = run_action_in(tmp_path / "push", runner, inputs)
        assert run.returncode == 0, run.stderr
        assert "not a pull request" in run.stdout
        assert github.requests == []
    finally:
        github.close()


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
