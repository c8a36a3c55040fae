"""The CI guide (docs/ci.md) runs as written.

The GitHub workflow and the GitLab job are taken from the guide's ```yaml blocks,
checked for structure, and then their shell steps are executed in order, in a
temporary directory, with the same shell the CI services use. The substitutions are
the smallest that make a CI run local, and all are listed here:

* ``mcp-portal`` is a shim on PATH that runs ``python -m generator`` from this checkout
  (the package is not necessarily installed in the test venv); the install step
  (``pip install mcp-portal``, GitHub) and ``before_script`` (GitLab) are not run.
* ``MCP_URL`` is the bundled demo server over Streamable HTTP (the ``demo_url`` fixture)
  and ``MCP_TOKEN`` a dummy token. The demo ignores the Authorization header, but the
  header is still built from the environment and sent.
* The Pages host is a local HTTP server: the GitHub ``base_url`` output of
  configure-pages and GitLab's ``CI_PAGES_URL`` point at it, so the ``curl`` of the
  published snapshot really happens (a 404 on the first publish, the site of the
  previous run afterwards).
* The ``${{ ... }}`` expressions in step ``env:`` blocks are replaced by the values
  above; any other expression fails the test, so the guide cannot drift from it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.snapshot.snapshot import fingerprint
from tests.conftest import PYTHON, ROOT

GUIDE = ROOT / "docs" / "ci.md"
TOKEN = "test-token-not-a-secret"
BASH = ["bash", "--noprofile", "--norc", "-eo", "pipefail"]
STEP_TIMEOUT = 180


# ---------------------------------------------------------------- reading the guide


def _yaml_blocks() -> list[dict[Any, Any]]:
    text = GUIDE.read_text(encoding="utf-8")
    return [yaml.safe_load(block) for block in re.findall(r"^```yaml\n(.*?)^```$", text, re.S | re.M)]


def github_workflow() -> dict[Any, Any]:
    # The guide also shows short pull-request workflows (`on: pull_request...`); the one that
    # publishes is the workflow that runs on push. PyYAML reads the key `on` as True.
    workflows = [b for b in _yaml_blocks() if isinstance(b, dict) and "jobs" in b]
    found = [b for b in workflows if isinstance(b.get(True), dict) and "push" in b[True]]
    assert len(found) == 1, "docs/ci.md must hold exactly one publishing GitHub workflow (```yaml with `jobs`, on push)"
    assert len(workflows) - 1 == sum(str(b.get(True, "")).startswith("pull_request") for b in workflows), (
        "every other workflow in docs/ci.md must be a pull-request workflow"
    )
    return found[0]


def gitlab_job() -> dict[Any, Any]:
    found = [b for b in _yaml_blocks() if isinstance(b, dict) and "pages" in b and "jobs" not in b]
    assert len(found) == 1, "docs/ci.md must hold exactly one .gitlab-ci.yml (a ```yaml block with a `pages` job)"
    job = found[0]["pages"]
    assert isinstance(job, dict)
    return job


def _index(steps: list[dict[str, Any]], predicate: Any, what: str) -> int:
    hits = [i for i, step in enumerate(steps) if predicate(step)]
    assert len(hits) == 1, f"expected exactly one step that {what}, found {len(hits)}"
    return hits[0]


def _runs(step: dict[str, Any], command: str) -> bool:
    return bool(re.search(rf"^\s*(?:(?:if|elif)\s.*?;\s*then\s+)?mcp-portal {command}\b", step.get("run", ""), re.M))


# ---------------------------------------------------------------- structure


def test_github_workflow_structure() -> None:
    wf = github_workflow()
    triggers: dict[str, Any] = wf.get("on", wf.get(True)) or {}  # YAML 1.1 reads a bare `on` as true
    assert {"push", "workflow_dispatch"} <= set(triggers)
    assert wf["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    assert wf["defaults"]["run"]["shell"] == "bash"
    build, deploy = wf["jobs"]["build"], wf["jobs"]["deploy"]
    steps = build["steps"]

    install = _index(steps, lambda s: "pip install" in s.get("run", ""), "installs mcp-portal")
    assert re.search(r"pip install (mcp-portal|\S*git\+\S+mcp-portal)", steps[install]["run"])
    introspect = _index(steps, lambda s: _runs(s, "introspect"), "introspects")
    build_step = _index(steps, lambda s: _runs(s, "build"), "builds")
    check = _index(steps, lambda s: _runs(s, "check"), "checks")
    fetch = _index(steps, lambda s: "curl" in s.get("run", ""), "downloads the published snapshot")
    diff = _index(steps, lambda s: _runs(s, "diff"), "diffs")
    upload = _index(steps, lambda s: s.get("uses", "").startswith("actions/upload-pages-artifact@"), "uploads")
    assert install < introspect < build_step < check < fetch < diff < upload

    token_env = steps[introspect]["env"]
    assert token_env["MCP_TOKEN"] == "${{ secrets.MCP_TOKEN }}"
    assert "--header 'Authorization: Bearer ${MCP_TOKEN}'" in steps[introspect]["run"]
    assert "--fail-on breaking" in steps[diff]["run"]
    out = re.search(r"--out (\S+)", steps[build_step]["run"])
    assert out and steps[upload]["with"]["path"] == out.group(1)
    for step in steps:  # values reach the shell as variables, never pasted into the script
        assert "${{" not in step.get("run", ""), step

    assert deploy["needs"] == "build"
    assert deploy["environment"]["name"] == "github-pages"
    assert [s["uses"].split("@")[0] for s in deploy["steps"]] == ["actions/deploy-pages"]


def test_gitlab_job_structure() -> None:
    job = gitlab_job()
    assert job["artifacts"]["paths"] == ["public"]
    assert any("pip install mcp-portal" in line for line in job["before_script"])
    assert job["rules"] == [{"if": "$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH"}]
    script = job["script"]
    order = [
        next(i for i, line in enumerate(script) if re.search(pattern, line))
        for pattern in (
            r"mcp-portal introspect\b",
            r"mcp-portal build\b",
            r"mcp-portal check\b",
            r"\bcurl\b",
            r"mcp-portal diff\b",
        )
    ]
    assert order == sorted(order)
    assert "--out public" in script[order[1]]
    assert "--fail-on breaking" in script[order[4]]


# ---------------------------------------------------------------- running it


class _Pages:
    """A local stand-in for the Pages host, serving whatever ``root`` holds."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(root)))
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def publish(self, site: Path | None) -> None:
        """What the host serves from now on: a copy of *site*, or nothing."""
        shutil.rmtree(self.root)
        if site is None:
            self.root.mkdir()
        else:
            shutil.copytree(site, self.root)


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def pages(tmp_path: Path) -> Iterator[_Pages]:
    root = tmp_path / "pages-host"
    root.mkdir()
    host = _Pages(root)
    host.thread.start()
    try:
        yield host
    finally:
        host.server.shutdown()
        host.server.server_close()


@pytest.fixture
def shim(tmp_path: Path) -> Path:
    """A directory holding an ``mcp-portal`` that runs this checkout's generator."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "mcp-portal"
    script.write_text(f'#!/bin/sh\nexec "{PYTHON}" -m generator "$@"\n', encoding="utf-8")
    script.chmod(0o755)
    return bin_dir


def _base_env(shim: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env["PATH"] = f"{shim}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(ROOT)
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    return env


def _expand(value: str, expressions: dict[str, str]) -> str:
    def sub(match: re.Match[str]) -> str:
        expr = match.group(1).strip()
        assert expr in expressions, f"the test does not know the expression ${{{{ {expr} }}}}"
        return expressions[expr]

    return re.sub(r"\$\{\{(.*?)\}\}", sub, value)


def _run(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*BASH, "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=STEP_TIMEOUT, check=False
    )


def _run_github(
    workdir: Path, env: dict[str, str], expressions: dict[str, str], *, start: str | None = None
) -> list[tuple[str, subprocess.CompletedProcess[str]]]:
    """Run the build job's shell steps in order (not the install), stopping at the first failure."""
    steps = [s for s in github_workflow()["jobs"]["build"]["steps"] if "run" in s and "pip install" not in s["run"]]
    if start is not None:
        steps = steps[next(i for i, s in enumerate(steps) if start in s["run"]) :]
    done = []
    for step in steps:
        step_env = env | {k: _expand(str(v), expressions) for k, v in step.get("env", {}).items()}
        result = _run(step["run"], workdir, step_env)
        done.append((step.get("name", step["run"]), result))
        if result.returncode != 0:
            break
    return done


def _codes(done: list[tuple[str, subprocess.CompletedProcess[str]]]) -> list[int]:
    return [r.returncode for _, r in done]


def _report(done: list[tuple[str, subprocess.CompletedProcess[str]]]) -> str:
    return "\n".join(f"--- {name}: {r.returncode}\n{r.stdout}\n{r.stderr}" for name, r in done)


def _snapshot_with_extra_tool(source: Path, target: Path) -> None:
    """*source* plus one more tool: against it, the real snapshot has removed a tool (breaking)."""
    data = json.loads(source.read_text(encoding="utf-8"))
    data["tools"].append({"name": "retired_tool", "inputSchema": {"type": "object"}})
    data["fingerprint"] = fingerprint(data["tools"])
    target.write_text(json.dumps(data), encoding="utf-8")


def test_github_workflow_runs_as_written(demo_url: str, pages: _Pages, shim: Path, tmp_path: Path) -> None:
    env = _base_env(shim)
    expressions = {
        "vars.MCP_URL": f"{demo_url}/mcp/",
        "secrets.MCP_TOKEN": TOKEN,
        "steps.pages.outputs.base_url": pages.url,  # configure-pages gives it without a trailing slash
        "inputs.accept_breaking": "",  # a push or scheduled run has no inputs
    }

    # First publish: nothing at <Pages URL>/snapshot.json yet, so the diff is skipped.
    first = tmp_path / "run1"
    first.mkdir()
    done = _run_github(first, env, expressions)
    assert _codes(done) == [0] * 5, _report(done)
    assert "first publish" in done[-1][1].stdout.lower()
    assert not (first / "published-snapshot.json").exists()
    site = first / "site"
    assert (site / "snapshot.json").read_bytes() == (first / "snapshot.json").read_bytes()
    manifest = json.loads((site / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["capability_version"] == "2.4.0"
    assert (site / "sitemap.xml").read_text(encoding="utf-8").count(f"<loc>{pages.url}/") > 0

    # Second run: the host serves the first run's site; same server, so diff finds nothing.
    pages.publish(site)
    second = tmp_path / "run2"
    second.mkdir()
    done = _run_github(second, env, expressions)
    assert _codes(done) == [0] * 5, _report(done)
    published = second / "published-snapshot.json"
    assert published.read_bytes() == (site / "snapshot.json").read_bytes()
    assert "No changes" in done[-1][1].stdout

    # The published snapshot had a tool the server no longer has: the diff stops the run (4)...
    _snapshot_with_extra_tool(site / "snapshot.json", pages.root / "snapshot.json")
    done = _run_github(second, env, expressions, start="curl")
    assert _codes(done) == [0, 4], _report(done)
    assert "retired_tool" in done[-1][1].stdout
    # ...unless a manual run accepts it.
    done = _run_github(second, env, expressions | {"inputs.accept_breaking": "true"}, start="curl")
    assert _codes(done) == [0, 0], _report(done)

    # Anything but 200 or 404 from the host fails the fetch, instead of skipping the diff.
    (pages.root / "snapshot.json").unlink()
    (pages.root / "snapshot.json").mkdir()  # a directory: the host answers with a redirect
    done = _run_github(second, env, expressions, start="curl")
    assert _codes(done) == [1], _report(done)


def test_gitlab_job_runs_as_written(demo_url: str, pages: _Pages, shim: Path, tmp_path: Path) -> None:
    job = gitlab_job()
    script = "\n".join(job["script"])  # the runner runs the lines in one shell with -eo pipefail
    env = _base_env(shim) | {str(k): str(v) for k, v in job.get("variables", {}).items()}
    # Project CI/CD variables override the job's placeholders; CI_PAGES_URL is predefined.
    env |= {"MCP_URL": f"{demo_url}/mcp/", "MCP_TOKEN": TOKEN, "CI_PAGES_URL": pages.url}

    first = tmp_path / "run1"
    first.mkdir()
    result = _run(script, first, env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "first publish" in result.stdout.lower()
    assert (first / "public" / "index.html").is_file()
    assert (first / "public" / "snapshot.json").read_bytes() == (first / "snapshot.json").read_bytes()

    pages.publish(first / "public")
    second = tmp_path / "run2"
    second.mkdir()
    result = _run(script, second, env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "No changes" in result.stdout

    _snapshot_with_extra_tool(first / "public" / "snapshot.json", pages.root / "snapshot.json")
    third = tmp_path / "run3"
    third.mkdir()
    result = _run(script, third, env)
    assert result.returncode == 4, result.stdout + result.stderr
    assert "retired_tool" in result.stdout
    result = _run(script, third, env | {"ACCEPT_BREAKING": "true"})
    assert result.returncode == 0, result.stdout + result.stderr
