"""Secrets never leave the process: not in snapshots, sites, manifests, output or error messages.

A unique token is planted as an ``--env`` value for a stdio server (one that works and one that
crashes and prints the value on stderr, so the error path quotes it) and as a ``${VAR}`` header
value for the HTTP fixture in ``auth`` mode (accepted, and refused).  ``introspect``, ``build``
and ``check`` run as real subprocesses; then every byte they wrote or printed is searched.
(The fixture's ``env-echo`` mode, which puts its secret in a tool description on purpose, is
not used: what a server chooses to publish is the server's business.)
"""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import PYTHON, ROOT, free_port, http_server

TOKEN = f"tok-{uuid.uuid4().hex}"
FIXTURE = f"{PYTHON} -m tests.servers.fixture_server"
QUICK = ("--request-timeout", "10", "--total-timeout", "30")
SITE = ("--locales", "en", "--no-search")


@pytest.fixture(scope="module")
def env() -> dict[str, str]:
    return {**os.environ, "FIXTURE_SECRET": TOKEN, "FIXTURE_TOKEN": TOKEN, "PYTHONPATH": str(ROOT)}


@pytest.fixture(scope="module")
def auth_url() -> Iterator[str]:
    port = free_port()
    argv = [PYTHON, "-m", "tests.servers.fixture_server", "--http", "--port", str(port), "--mode", "auth"]
    with http_server(argv, port, {"FIXTURE_TOKEN": TOKEN, "PYTHONPATH": str(ROOT)}):
        yield f"http://127.0.0.1:{port}/mcp"


class Outputs:
    """Every stdout and stderr of the runs, to be searched with the files at the end."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.texts: list[tuple[str, bytes]] = []

    def run(self, *argv: str) -> subprocess.CompletedProcess[bytes]:
        done = subprocess.run(
            [PYTHON, "-m", "generator", *argv], cwd=ROOT, env=self.env, capture_output=True, timeout=120, check=False
        )
        label = " ".join(argv[:3])
        self.texts += [(f"stdout of {label}", done.stdout), (f"stderr of {label}", done.stderr)]
        return done


def assert_nowhere(outputs: Outputs, root: Path) -> int:
    needle = TOKEN.encode()
    searched = 0
    for label, data in outputs.texts:
        assert needle not in data, f"the token leaked into the {label}"
        searched += 1
    for path in sorted(root.rglob("*")):
        if path.is_file():
            assert needle not in path.read_bytes(), f"the token leaked into {path}"
            searched += 1
    return searched


def test_env_values_are_never_written_or_shown(env: dict[str, str], tmp_path: Path) -> None:
    out = Outputs(env)
    works = f"{FIXTURE} --mode paged"
    # The working server: introspect, build, check.
    done = out.run("introspect", "--stdio", works, "--env", "FIXTURE_SECRET", "-o", str(tmp_path / "s.json"), *QUICK)
    assert done.returncode == 0, done.stderr
    done = out.run("build", "--stdio", works, "--env", "FIXTURE_SECRET", "--out", str(tmp_path / "site"), *SITE, *QUICK)
    assert done.returncode == 0, done.stderr
    done = out.run("check", "--stdio", works, "--env", "FIXTURE_SECRET", "--out", str(tmp_path / "site"), *SITE, *QUICK)
    assert done.returncode == 0, done.stdout + done.stderr
    # The crashing server prints the value on stderr; the error quotes that stderr, redacted.
    crash = f"{FIXTURE} --mode crash"
    done = out.run("build", "--stdio", crash, "--env", "FIXTURE_SECRET", "--out", str(tmp_path / "site"), *SITE, *QUICK)
    assert done.returncode == 1
    assert b"(secret ***)" in done.stderr
    done = out.run("introspect", "--stdio", crash, "--env", "FIXTURE_SECRET", "-o", str(tmp_path / "c.json"), "--debug")
    assert done.returncode == 1
    assert b"(secret ***)" in done.stderr
    assert not (tmp_path / "c.json").exists()
    assert assert_nowhere(out, tmp_path) > 20


def test_header_values_are_never_written_or_shown(env: dict[str, str], auth_url: str, tmp_path: Path) -> None:
    out = Outputs(env)
    bearer = "Authorization: Bearer ${FIXTURE_TOKEN}"
    done = out.run("introspect", "--url", auth_url, "--header", bearer, "-o", str(tmp_path / "s.json"), *QUICK)
    assert done.returncode == 0, done.stderr
    # Only the pattern is kept (readers need the header's form); never the value.
    snapshot = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    assert snapshot["endpoints"][0]["auth"] == [["Authorization", "Bearer ${FIXTURE_TOKEN}"]]
    assert (tmp_path / "s.json").read_text(encoding="utf-8").count("${FIXTURE_TOKEN}") == 1
    done = out.run("build", "--url", auth_url, "--header", bearer, "--out", str(tmp_path / "site"), *SITE, *QUICK)
    assert done.returncode == 0, done.stderr
    done = out.run("check", "--url", auth_url, "--header", bearer, "--out", str(tmp_path / "site"), *SITE, *QUICK)
    assert done.returncode == 0, done.stdout + done.stderr
    # Refused (a Basic scheme the server does not take): the 401 message must not echo the value.
    refused = "Authorization: Basic ${FIXTURE_TOKEN}"
    done = out.run("build", "--url", auth_url, "--header", refused, "--out", str(tmp_path / "site"), *SITE, "--debug")
    assert done.returncode == 1
    assert b"HTTP 401" in done.stderr
    # Credentials in the URL itself (sent as Basic auth, which this server refuses) are never shown.
    url = auth_url.replace("http://", f"http://user:{TOKEN}@")
    done = out.run("introspect", "--url", url, "-o", str(tmp_path / "u.json"), *QUICK)
    assert done.returncode == 1
    assert b"HTTP 401" in done.stderr
    # The command line itself holds the token here; only what we print and write is searched.
    assert assert_nowhere(out, tmp_path) > 20
