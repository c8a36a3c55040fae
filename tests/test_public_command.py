"""The command readers are shown for a stdio server (issue 37, item 11): ``--public`` replaces the
command the build runs on every page and client configuration, and a command that is a path on the
build machine gets a warning that names the setting. Built from the real demo over stdio."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow

DEMO = f"{shlex.quote(sys.executable)} -m generator.demo"


def _site_text(out: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(out.rglob("*")) if p.suffix in (".html", ".md"))


def test_public_replaces_the_local_command_everywhere(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(ROOT)
    out = tmp_path / "site"
    result = cli("build", "--stdio", DEMO, "--public", "uvx teamspace-mcp", "--out", str(out), "--no-search")
    assert result.code == 0, result.err
    text = _site_text(out)
    assert "uvx teamspace-mcp" in (out / "en" / "connecting" / "index.html").read_text(encoding="utf-8")
    assert '"command": "uvx"' in text  # the client configurations split it like a shell
    assert sys.executable not in text
    assert "is a path on this machine" not in result.err


def test_a_local_path_as_the_command_is_a_warning(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(ROOT)
    result = cli("build", "--stdio", DEMO, "--out", str(tmp_path / "site"), "--no-search")
    assert result.code == 0, result.err
    assert "is a path on this machine" in result.err and "--public" in result.err and "public:" in result.err


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--public", "npx -y x"], "--public needs --stdio or --url"),
        (["--url", "http://127.0.0.1:9/mcp/", "--public", "npx -y x"], "--public must be the http"),
        (["--stdio", DEMO, "--public", "  "], "--public is empty"),
        # Before: --public "$UNSET" with no server documented the bundled demo and exited 0, as if not given.
        (["--public", ""], "--public is empty"),
        (["--from", "snapshot.json", "--public", ""], "--public is empty"),
    ],
)
def test_public_misuse_is_a_usage_error(cli, tmp_path: Path, argv: list[str], says: str) -> None:  # type: ignore[no-untyped-def]
    result = cli("build", *argv, "--out", str(tmp_path / "site"))
    assert result.code == 2 and says in result.err
    assert not (tmp_path / "site").exists()
