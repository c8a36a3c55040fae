"""Servers that declare a capability but lack one of its list methods.

``prompts/list``, ``resources/list`` and ``resources/templates/list`` refused on their first
page with -32601 (Method not found) or -32602 (Invalid params) mean "none": the list is
recorded empty and ``build``/``introspect`` print a warning naming the endpoint and the
method.  ``tools/list`` refused, or a later page refused, stays an error.

Real servers that do this are tested as they are: ``mcp-server-kubernetes`` (npm) and
``mcp-server-sqlite`` (PyPI, written for the 1.x SDK, so it runs from a venv of its own).
The behaviour itself is pinned with ``tests/servers/partial_server.py`` (the SDK's low-level
``Server`` over real stdio and Streamable HTTP).
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import PYTHON, ROOT, TESTS, Run, free_port, http_server, node_bin

Cli = Callable[..., Run]

PARTIAL = TESTS / "servers" / "partial_server.py"
MCP1_REQUIREMENTS = TESTS / "requirements-servers-mcp1.txt"
MCP1_VENV = ROOT / ".venv" / "mcp1-servers"
QUICK = ("--request-timeout", "20", "--total-timeout", "60")


def partial(mode: str) -> str:
    """A --stdio command line for the partial server (run as a script: needs no PYTHONPATH)."""
    return shlex.join([PYTHON, str(PARTIAL), "--mode", mode])


def warnings_of(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("warning: ")]


def error_of(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("mcp-portal: error:")]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def introspect(cli: Cli, tmp_path: Path, *server: str) -> tuple[Run, dict[str, object]]:
    out = tmp_path / "snapshot.json"
    run = cli("introspect", *server, "-o", str(out), *QUICK)
    data = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    return run, data


@pytest.mark.parametrize(
    ("mode", "code", "name"), [("missing", -32601, "Method not found"), ("invalid-params", -32602, "Invalid params")]
)
def test_missing_optional_lists_are_empty_with_a_warning(
    cli: Cli, tmp_path: Path, mode: str, code: int, name: str
) -> None:
    run, snapshot = introspect(cli, tmp_path, "--stdio", partial(mode))
    assert run.code == 0, run.err
    assert snapshot["prompts"] == []
    assert snapshot["resource_templates"] == []
    assert [r["uri"] for r in snapshot["resources"]] == ["memo://insights"]  # type: ignore[attr-defined]
    warned = warnings_of(run.err)
    assert len(warned) == 2, run.err
    prompts, templates = warned
    for line, method in ((prompts, "prompts/list"), (templates, "resources/templates/list")):
        assert f"answered {method} with {code} ({name})" in line
        assert f"--mode {mode}" in line  # names the endpoint
    assert "no prompts" in prompts
    assert "no resource templates" in templates


def test_build_over_http_shows_the_warning_and_builds(cli: Cli, tmp_path: Path) -> None:
    port = free_port()
    argv = [PYTHON, str(PARTIAL), "--http", "--port", str(port), "--mode", "missing"]
    with http_server(argv, port):
        out = tmp_path / "site"
        run = cli("build", "--url", f"http://127.0.0.1:{port}/mcp", "--out", str(out), "--locales", "en", "--no-search")
    assert run.code == 0, run.err
    assert (out / "en" / "tools" / "read_query" / "index.html").is_file()
    warned = warnings_of(run.err)
    assert any(f"127.0.0.1:{port}/mcp" in w and "resources/templates/list" in w for w in warned), run.err
    assert any("prompts/list" in w for w in warned), run.err


def test_tools_list_refused_stays_an_error(cli: Cli, tmp_path: Path) -> None:
    for lenient in ((), ("--lenient",)):
        run, snapshot = introspect(cli, tmp_path, "--stdio", partial("no-tools"), *lenient)
        assert run.code == 1
        assert not snapshot
        message = error_of(run.err)
        assert "tools/list" in message and "-32601 (Method not found)" in message
        assert "credentials" not in message and "--lenient" not in message


def test_a_later_page_refused_stays_an_error(cli: Cli, tmp_path: Path) -> None:
    run, snapshot = introspect(cli, tmp_path, "--stdio", partial("later-page"))
    assert run.code == 1
    assert not snapshot
    message = error_of(run.err)
    assert "resources/list (page 2)" in message and "-32601" in message
    assert "credentials" not in message


@pytest.fixture(scope="module")
def kubeconfig(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A kubeconfig naming a cluster that is never contacted: listing needs none, starting needs one."""
    path = tmp_path_factory.mktemp("kube") / "config"
    path.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: offline\n"
        "clusters: [{name: offline, cluster: {server: 'https://127.0.0.1:9'}}]\n"
        "contexts: [{name: offline, context: {cluster: offline, user: nobody}}]\n"
        "users: [{name: nobody, user: {token: not-a-real-token}}]\n",
        encoding="utf-8",
    )
    return path


@pytest.mark.npm
def test_real_kubernetes_server_without_templates(
    cli: Cli, tmp_path: Path, kubeconfig: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig))  # never the user's own cluster
    server = ("--stdio", node_bin("mcp-server-kubernetes"), "--env", "KUBECONFIG")
    out = tmp_path / "site"
    run = cli("build", *server, "--out", str(out), "--locales", "en", "--no-search", *QUICK)
    assert run.code == 0, run.err
    assert (out / "en" / "tools" / "kubectl_get" / "index.html").is_file()
    warned = [w for w in warnings_of(run.err) if "resources/templates/list" in w]
    assert len(warned) == 1, run.err
    assert "mcp-server-kubernetes" in warned[0] and "-32601 (Method not found)" in warned[0]
    snapshot = json.loads((out / "snapshot.json").read_text(encoding="utf-8"))
    assert snapshot["resource_templates"] == []
    assert snapshot["resources"], "the server lists resources; only its templates are missing"


@pytest.fixture(scope="module")
def mcp1_python() -> Path:
    """The Python of the 1.x SDK's venv (its servers installed), made from the pinned requirements if missing."""
    program = MCP1_VENV / "bin" / "mcp-server-sqlite"
    stamp = MCP1_VENV / "requirements.txt"
    wanted = MCP1_REQUIREMENTS.read_text(encoding="utf-8")
    if not program.exists() or not stamp.exists() or stamp.read_text(encoding="utf-8") != wanted:
        commands = [
            [sys.executable, "-m", "venv", "--clear", str(MCP1_VENV)],
            [str(MCP1_VENV / "bin" / "python"), "-m", "pip", "install", "-q", "-r", str(MCP1_REQUIREMENTS)],
        ]
        for command in commands:
            done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
            if done.returncode != 0:
                pytest.fail(f"could not install {MCP1_REQUIREMENTS.name}: {done.stderr[-2000:]}")
        stamp.write_text(wanted, encoding="utf-8")
    return MCP1_VENV / "bin" / "python"


@pytest.fixture(scope="module")
def sqlite_server(mcp1_python: Path) -> str:
    """``mcp-server-sqlite`` from the 1.x SDK's venv."""
    return str(mcp1_python.parent / "mcp-server-sqlite")


def test_real_sqlite_server_without_templates(cli: Cli, tmp_path: Path, sqlite_server: str) -> None:
    command = shlex.join([sqlite_server, "--db-path", str(tmp_path / "test.db")])
    run, snapshot = introspect(cli, tmp_path, "--stdio", command)
    assert run.code == 0, run.err
    assert "read_query" in [t["name"] for t in snapshot["tools"]]  # type: ignore[attr-defined]
    assert snapshot["resource_templates"] == []
    assert [r["uri"] for r in snapshot["resources"]] == ["memo://insights"]  # type: ignore[attr-defined]
    warned = warnings_of(run.err)
    assert len(warned) == 1, run.err
    assert "mcp-server-sqlite" in warned[0] and "resources/templates/list with -32601" in warned[0]


def test_optional_warnings_are_not_printed_for_a_complete_server(cli: Cli, tmp_path: Path) -> None:
    """The demo serves every list it declares: no warning (the warning is not noise on every run)."""
    run, _ = introspect(cli, tmp_path)
    assert run.code == 0, run.err
    assert warnings_of(run.err) == []


def test_a_legacy_sse_endpoint_is_named_as_such(cli: Cli, tmp_path: Path, mcp1_python: Path) -> None:
    # Before: "answered ... with HTTP 405. Check the URL and the server's logs.", nothing on why.
    port = free_port()
    argv = [str(mcp1_python), str(TESTS / "servers" / "legacy_sse_server.py"), str(port)]
    with http_server(argv, port):
        run, snapshot = introspect(cli, tmp_path, "--url", f"http://127.0.0.1:{port}/sse")
    assert run.code == 1 and not snapshot
    error = error_of(run.err)
    assert "answered the connection handshake (server/discover or initialize) with HTTP 405." in error
    assert "legacy HTTP+SSE transport" in error and "Streamable HTTP endpoint (often /mcp)" in error
