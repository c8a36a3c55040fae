"""A secret written literally into a server's command, URL or ``public`` value (issue 47, item 4).

LaunchDarkly documents ``mcp start --api-key KEY``; built with a real key there, the key landed in
130 files and in the build's output. Such a value is now refused with exit 2 and a message that
names where it was found (never the value) and how to pass it instead; ``--allow-literal-secrets``
goes on, and the value is masked in every file and message. The last tests build the real demo,
over stdio and over Streamable HTTP, with a literal secret on its command line and in its URL.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from generator.config.literal_secrets import in_command, in_url
from tests.conftest import ROOT, Run, tree_bytes

KEY = "api-7f3c2a91-5d0e-4b8a-9c61-2e4f8a0b7d13"
"""Shaped as LaunchDarkly's API access tokens are; invented for the test."""
GITHUB = "ghp_R2d4T6y8U0i2O4p6A8s0D2f4G6h8J0k2L4z6"


@pytest.mark.parametrize(
    ("command", "named"),
    [
        (f"npx -y --package @launchdarkly/mcp-server -- mcp start --api-key {KEY}", "`--api-key`"),
        (f"mcp start --api-key={KEY}", "`--api-key`"),
        ("node server.js --password hunter2hunter2", "`--password`"),
        ("srv --client-secret 9f8e7d6c5b4a", "`--client-secret`"),
        (f"docker run -i --rm -e GITHUB_PERSONAL_ACCESS_TOKEN={GITHUB} ghcr.io/github/github-mcp-server", "TOKEN"),
        ("env SLACK_BOT_TOKEN=xoxb-1234-5678-abcdEFGHijkl node slack.js", "`SLACK_BOT_TOKEN`"),
        (f"uvx some-server {GITHUB}", "credential-shaped"),
        ("npx srv sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2", "credential-shaped"),
    ],
)
def test_a_literal_secret_in_a_command_is_found(command: str, named: str) -> None:
    found = in_command(tuple(shlex.split(command)), "--stdio")
    assert len(found) == 1 and named in found[0].what, found
    assert found[0].value not in found[0].what and found[0].value not in found[0].shown


@pytest.mark.parametrize(
    "command",
    [
        "mcp start --api-key KEY",  # the documentation's placeholder
        "mcp start --api-key YOUR_API_KEY",
        "mcp start --api-key your-api-key-here",
        "mcp start --api-key '<key>'",
        "mcp start --api-key '${LD_API_KEY}'",  # expanded for the process, published as written
        "mcp start --api-key $LD_API_KEY",
        "srv --key ./certs/client.pem",
        "srv --token-env GITHUB_TOKEN",
        "srv --max-tokens 4096",
        "uvx mcp-server-git --repository /tmp/repo",
        "npx -y @modelcontextprotocol/server-everything stdio",
        "npx sk-example-server",  # a credential prefix without a key's random tail
        "npx -y @circleci/mcp-server-circleci",
        "env KEYBOARD_LAYOUT=us-intl node srv.js",
    ],
)
def test_ordinary_commands_and_placeholders_are_no_secret(command: str) -> None:
    assert in_command(tuple(shlex.split(command)), "--stdio") == []


@pytest.mark.parametrize(
    ("url", "named"),
    [
        ("https://deploy:s3cretPass9@mcp.example.com/mcp", "user name and password"),
        ("https://mcp.example.com/mcp?token=9b1deb4d3b7d4bad", "`token`"),
        ("https://mcp.example.com/mcp?region=eu&api_key=9b1deb4d3b7d", "`api_key`"),
        ("https://actions.zapier.com/mcp/sk-ak-Zx9Qw8Er7Ty6Ui5Op4As3Df2/sse", "credential-shaped"),
    ],
)
def test_a_literal_secret_in_a_url_is_found(url: str, named: str) -> None:
    found = in_url(url, "--url")
    assert len(found) == 1 and named in found[0].what, found


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/mcp/",
        "https://mcp.example.com/mcp?token=${MCP_TOKEN}",
        "https://${USER}:${PASSWORD}@mcp.example.com/mcp",
        "https://mcp.example.com/v1/mcp?limit=20&region=eu-west-1",
    ],
)
def test_urls_without_a_literal_secret_pass(url: str) -> None:
    assert in_url(url, "--url") == []


@pytest.mark.parametrize(
    "argv",
    [
        ["--stdio", f"mcp start --api-key {KEY}"],
        ["--url", f"https://deploy:{KEY}@mcp.example.com/mcp"],
        ["--url", f"https://mcp.example.com/mcp?key={KEY}"],
        ["--stdio", "python -m srv", "--public", f"npx -y @acme/srv --token {KEY}"],
    ],
)
def test_the_command_line_refuses_a_literal_secret_with_exit_2(cli, tmp_path: Path, argv: list[str]) -> None:  # type: ignore[no-untyped-def]
    result: Run = cli("build", *argv, "--out", str(tmp_path / "site"))
    assert result.code == 2, result.err
    assert "looks like a secret written literally" in result.err and "--allow-literal-secrets" in result.err
    assert "${" in result.err  # how to pass it instead
    assert KEY not in result.err + result.out
    assert "Traceback" not in result.err and not (tmp_path / "site").exists()


def test_portal_yaml_is_refused_naming_the_key(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    config = tmp_path / "portal.yaml"
    config.write_text(
        "endpoints:\n"
        "  - name: full\n    url: http://127.0.0.1:9/mcp/\n"
        f"  - name: local\n    stdio: mcp start --api-key {KEY}\n",
        encoding="utf-8",
    )
    result: Run = cli("introspect", "--config", str(config), "-o", str(tmp_path / "s.json"))
    assert result.code == 2 and "`endpoints[1].stdio` of the configuration" in result.err, result.err
    assert KEY not in result.err and not (tmp_path / "s.json").exists()


DEMO = [sys.executable, "-m", "generator.demo"]
SECRET = "Zq7Lw2Rx9Tb4Nc6Vm1Ks8Hd3"


def _leaks(out: Path, run: Run, secret: str) -> list[str]:
    files = tree_bytes(out)
    assert len(files) > 50  # the whole site was written
    where = [path for path, data in files.items() if secret.encode() in data]
    return where + [name for name, text in (("stdout", run.out), ("stderr", run.err)) if secret in text]


@pytest.mark.slow
def test_an_allowed_literal_secret_is_masked_everywhere(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(ROOT)
    command = shlex.join(["env", f"DEMO_SECRET={SECRET}", *DEMO])
    refused: Run = cli("build", "--stdio", command, "--out", str(tmp_path / "refused"))
    assert refused.code == 2 and SECRET not in refused.err
    out = tmp_path / "site"
    result: Run = cli("build", "--stdio", command, "--allow-literal-secrets", "--out", str(out), "--no-search")
    assert result.code == 0, result.err
    assert _leaks(out, result, SECRET) == []
    connecting = (out / "en" / "connecting.md").read_text(encoding="utf-8")
    assert "DEMO_SECRET=<DEMO_SECRET value>" in connecting  # shown as a literal header value is


@pytest.mark.slow
def test_an_allowed_secret_in_a_url_never_reaches_the_site(cli, tmp_path: Path, demo_url: str) -> None:  # type: ignore[no-untyped-def]
    url = f"{demo_url}/mcp/?token={SECRET}"
    out = tmp_path / "site"
    result: Run = cli("build", "--url", url, "--allow-literal-secrets", "--out", str(out), "--no-search")
    assert result.code == 0, result.err
    assert _leaks(out, result, SECRET) == []
