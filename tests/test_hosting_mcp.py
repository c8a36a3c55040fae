"""The docs server behind nginx, as docs/agents.md documents it, run for real.

Debian's nginx (``nginx-light``) is started with ``tests/hosting/nginx-mcp.conf`` as it is written (only
the docs server's port changed) in a server block of its own, in front of ``mcp-portal mcp SITE --http``;
the SDK's client connects through nginx and searches. docs/agents.md must show the file verbatim.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client

from generator.commands.cli import main
from tests.conftest import ROOT, listening, running, wait_until

pytestmark = pytest.mark.anyio

SNIPPET = ROOT / "tests" / "hosting" / "nginx-mcp.conf"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def docs_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """``mcp-portal mcp --http`` over the demo portal with its ru translations; yields its port."""
    tmp = tmp_path_factory.mktemp("mcp")
    site, log = tmp / "site", tmp / "mcp.log"
    translations = ROOT / "tests" / "fixtures" / "demo-translations"
    golden = ROOT / "tests" / "golden" / "demo.snapshot.json"
    argv = ["build", "--from", str(golden), "--translations", str(translations), "--no-search", "--out", str(site)]
    assert main(argv) == 0
    with running(["mcp", str(site), "--http", "--port", "0"], log, r"at (http://127\.0\.0\.1:\d+/mcp)") as url:
        yield int(url.rsplit(":", 1)[1].split("/", 1)[0])


@pytest.fixture(scope="module")
def nginx(docs_server: int, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    binary = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").is_file() else None)
    if binary is None:
        pytest.fail("nginx is not installed: run scripts/test, which installs Debian's nginx-light")
    documented = SNIPPET.read_text(encoding="utf-8")
    assert documented.count("127.0.0.1:8001") == 3  # the comments name it too
    location = documented.replace("127.0.0.1:8001", f"127.0.0.1:{docs_server}")
    work = tmp_path_factory.mktemp("nginx")
    port = _free_port()
    temp = " ".join(f"{kind}_temp_path {work}/{kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    (work / "nginx.conf").write_text(
        f"{'user root;' if os.geteuid() == 0 else ''}\n"
        f"daemon off;\npid {work}/nginx.pid;\nerror_log {work}/error.log;\nevents {{}}\n"
        f"http {{\naccess_log off;\n{temp}\nserver {{\nlisten 127.0.0.1:{port};\n{location}\n}}\n}}\n",
        encoding="utf-8",
    )
    proc = subprocess.Popen(
        [binary, "-p", str(work), "-c", str(work / "nginx.conf"), "-e", str(work / "error.log")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:

        def started() -> bool:
            if proc.poll() is not None:
                pytest.fail(f"nginx did not start: {(work / 'error.log').read_text(errors='replace')[-600:]}")
            return listening(port)

        wait_until(started, 30, "nginx did not listen")
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_agents_reach_the_docs_server_through_nginx(nginx: int, mode: str) -> None:
    async with Client(f"http://127.0.0.1:{nginx}/mcp", mode=mode) as client:
        result = await client.call_tool("search_docs", {"query": "архив чатов", "locale": "ru"})
        assert not result.is_error and result.structured_content is not None
        assert result.structured_content["hits"][0]["title"] == "search_chat"


def test_the_docs_show_the_tested_configuration() -> None:
    documented = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    assert f"```nginx\n{SNIPPET.read_text(encoding='utf-8')}```" in documented
