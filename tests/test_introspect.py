"""Introspection over real transports: public servers, the demo, and a scripted fixture server.

Nothing is mocked: every test starts a real MCP server (stdio child process or
Streamable HTTP on 127.0.0.1) and talks to it with :func:`generator.connect.introspect.introspect`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from generator.commands.demo_portal import demo_server
from generator.config.portal import Limits, ServerSpec
from generator.connect.introspect import introspect
from generator.errors import PortalError
from generator.snapshot.snapshot import Snapshot
from tests.conftest import PYTHON, ROOT, free_port, http_server, node_bin, venv_bin
from tests.servers.fixture_server import PAGED_TOOLS

DEMO_TOOLS = [
    "search_chat",
    "query_research_conversations",
    "file_defect",
    "delete_document",
    "my_capabilities",
    "workspace_status",
]
DEMO_READ_ONLY = ["search_chat", "query_research_conversations", "my_capabilities"]
MODERN = "2026-07-28"
HANDSHAKE_ERA = "2025-11-25"
FAST = Limits(request_timeout=10, total_timeout=30)
TOKEN = "tok-fixture-7f3a9c1e5b"
SECRET = "s3cret-fixture-value-42"


def fixture_spec(mode: str | None = None, *, env: tuple[str, ...] = ()) -> ServerSpec:
    """The fixture server over stdio; without *mode* it reads FIXTURE_MODE (or defaults to ``paged``)."""
    command = (PYTHON, "-m", "tests.servers.fixture_server", *(("--mode", mode) if mode else ()))
    return ServerSpec(command=command, env=env, cwd=str(ROOT), fixed_env=(("PYTHONPATH", str(ROOT)),))


def names(snapshot: Snapshot) -> list[str]:
    return [tool["name"] for tool in snapshot.tools]


def failure(spec: ServerSpec, limits: Limits = FAST, rule: str = "server") -> tuple[str, float]:
    """Introspect, expecting a PortalError; return its message and the seconds it took."""
    started = time.monotonic()
    with pytest.raises(PortalError) as info:
        introspect(spec, limits, rule)
    return info.value.message, time.monotonic() - started


# --- the bundled demo -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo_snapshot() -> Snapshot:
    return introspect(demo_server(), FAST)


def test_demo_over_stdio_is_modern_and_complete(demo_snapshot: Snapshot) -> None:
    snap = demo_snapshot
    assert snap.protocol_version == MODERN
    assert snap.transport == "stdio"
    assert names(snap) == DEMO_TOOLS  # the server's order, not alphabetical
    server = snap.server
    assert server["name"] == "teamspace-demo"
    assert server["title"] == "Teamspace (demo)"
    assert server["version"] == "2.4.0"
    assert server["description"].startswith("A demo of Teamspace")
    assert server["websiteUrl"].startswith("https://")
    assert "search_chat" in server["instructions"]
    assert server["capabilities"]["tools"] is not None
    assert [p["name"] for p in snap.prompts] == ["triage_defect"]
    assert [r["uri"] for r in snap.resources] == ["teamspace://handbook"]
    assert snap.capability_version == server["version"]
    assert snap.fingerprint.startswith("sha256:") and len(snap.fingerprint) == len("sha256:") + 64
    for tool in snap.tools:
        assert tool["inputSchema"]["type"] == "object"


def test_demo_fingerprint_is_stable_across_runs(demo_snapshot: Snapshot) -> None:
    # A second run, started by hand rather than through demo_server(): same tools, same fingerprint.
    command = (sys.executable, "-m", "generator.demo")
    again = introspect(ServerSpec(command=command, fixed_env=(("PYTHONPATH", str(ROOT)),)), FAST)
    assert again.fingerprint == demo_snapshot.fingerprint
    assert again.tools == demo_snapshot.tools
    assert again.server == demo_snapshot.server
    assert again.capability_version == demo_snapshot.capability_version


@pytest.mark.parametrize(("path", "expected"), [("/mcp/", DEMO_TOOLS), ("/mcp/readonly/", DEMO_READ_ONLY)])
def test_demo_over_http_serves_both_profiles(demo_url: str, path: str, expected: list[str]) -> None:
    snap = introspect(ServerSpec(url=demo_url + path), FAST)
    assert snap.transport == "streamable-http"
    assert snap.endpoint == demo_url + path
    assert names(snap) == expected
    assert snap.server["name"] == "teamspace-demo"
    assert snap.capability_version == "2.4.0"


def test_http_path_that_serves_nothing_is_a_404_with_a_hint(demo_url: str) -> None:
    message, _ = failure(ServerSpec(url=demo_url + "/nothing-here/"))
    assert "HTTP 404" in message
    assert "check the URL" in message


# --- public servers ---------------------------------------------------------------------------


def check_everything(snap: Snapshot) -> None:
    assert snap.protocol_version == HANDSHAKE_ERA  # a 2025 (initialize-era) server
    assert len(snap.tools) > 10
    assert snap.prompts and snap.resources and snap.resource_templates
    echo = next(t for t in snap.tools if t["name"] == "echo")
    assert echo["inputSchema"]["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert snap.server["name"] == "mcp-servers/everything"


@pytest.mark.npm
def test_server_everything_over_stdio() -> None:
    snap = introspect(ServerSpec(command=(node_bin("mcp-server-everything"), "stdio")), FAST)
    check_everything(snap)
    assert snap.transport == "stdio"


@pytest.mark.npm
def test_server_everything_over_streamable_http(everything_url: str) -> None:
    snap = introspect(ServerSpec(url=everything_url), FAST)
    check_everything(snap)
    assert snap.transport == "streamable-http"


def test_mcp_server_time_has_output_schemas_and_annotations() -> None:
    snap = introspect(ServerSpec(command=(venv_bin("mcp-server-time"),)), FAST)
    assert snap.protocol_version == MODERN
    assert names(snap) == ["get_current_time", "convert_time"]
    for tool in snap.tools:
        assert tool["outputSchema"]["type"] == "object"
        assert isinstance(tool["annotations"], dict) and "readOnlyHint" in tool["annotations"]


def test_mcp_server_git_lists_its_tools(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    snap = introspect(ServerSpec(command=(venv_bin("mcp-server-git"), "--repository", str(repo))), FAST)
    assert len(snap.tools) == 12
    assert "git_status" in names(snap)
    assert snap.server["name"] == "mcp-git"


# --- pagination and misbehaving servers -------------------------------------------------------


def test_paged_tools_are_collected_in_server_order() -> None:
    # Three pages, and max_pages=3 is exactly enough.
    snap = introspect(fixture_spec("paged"), Limits(request_timeout=10, total_timeout=30, max_pages=3))
    assert names(snap) == list(PAGED_TOOLS)
    assert all(t["inputSchema"]["required"] == ["count"] for t in snap.tools)
    assert snap.capability_version == "1.0.0"


def test_max_pages_too_small_for_a_long_list() -> None:
    message, _ = failure(fixture_spec("paged"), Limits(request_timeout=10, total_timeout=30, max_pages=2))
    assert "after 2 pages" in message and "--max-pages" in message


def test_max_tools_bounds_the_list() -> None:
    message, _ = failure(fixture_spec("paged"), Limits(request_timeout=10, total_timeout=30, max_tools=4))
    assert "more than 4" in message and "--max-tools" in message


def test_repeated_cursor_is_reported() -> None:
    spec = fixture_spec("loop")
    message, _ = failure(spec)
    assert spec.describe() in message
    assert "tools/list" in message
    assert "cursor 'again' again" in message


def test_empty_cursor_is_reported() -> None:
    spec = fixture_spec("empty-cursor")
    message, _ = failure(spec)
    assert spec.describe() in message
    assert "empty cursor" in message and "page 1 of tools/list" in message


def test_endless_cursors_stop_at_max_pages() -> None:
    spec = fixture_spec("endless")
    message, _ = failure(spec, Limits(request_timeout=10, total_timeout=30, max_pages=5))
    assert spec.describe() in message
    assert "tools/list after 5 pages" in message and "cursors never end" in message


def test_duplicate_tool_names_are_reported() -> None:
    spec = fixture_spec("duplicates")
    message, _ = failure(spec)
    assert spec.describe() in message
    assert "'dup'" in message and "more than once in tools/list" in message
    assert "'other'" not in message


def test_server_that_exits_mid_walk() -> None:
    spec = fixture_spec("crash")
    message, elapsed = failure(spec)
    assert spec.describe() in message
    assert "closed the connection during tools/list (page 2)" in message
    assert "process exited" in message
    assert "crashing on purpose" in message  # its stderr is quoted
    assert elapsed < 10


GO_PANIC = """\
2025/01/14 09:12:01 starting mcp server on stdio
panic: assignment to entry in nil map

goroutine 1 [running]:
github.com/acme/mcp-server/internal/server.(*Server).registerTools(0xc0000a6000)
\t/home/dev/mcp-server/internal/server/tools.go:88 +0x5d
github.com/acme/mcp-server/internal/server.New({0x7ffd5e8a1b2c, 0x12})
\t/home/dev/mcp-server/internal/server/server.go:41 +0x1a5
main.main()
\t/home/dev/mcp-server/cmd/mcp-server/main.go:23 +0x85
"""
"""What a Go program writes when it panics (Go 1.22, an unrecovered panic); it then exits with status 2."""


def _crashing(kind: str) -> tuple[str, ...]:
    """A real process that dies as a server of *kind* does, on stderr, before it says anything on stdout."""
    if kind == "go":
        script = f"import sys; sys.stderr.write({GO_PANIC!r}); sys.stderr.flush(); sys.exit(2)"
        return (PYTHON, "-c", script)
    if kind == "node":
        return ("node", "-e", 'console.error("Starting server..."); throw new TypeError("MONGODB_URI is not set")')
    return (PYTHON, "-c", "import os\ndef main():\n    raise RuntimeError('no API key')\nmain()")


@pytest.mark.parametrize(
    ("kind", "cause"),
    [
        ("go", "panic: assignment to entry in nil map"),
        ("node", "TypeError: MONGODB_URI is not set"),
        ("python", "RuntimeError: no API key"),
    ],
)
def test_a_crashed_servers_excerpt_leads_with_the_cause(kind: str, cause: str) -> None:
    """Issue 47: a Go server's panic was shown from the tail of its goroutine's stack."""
    message, _ = failure(ServerSpec(command=_crashing(kind)))
    assert f"The server's last words on stderr: {cause}" in message, message


def test_secrets_passed_with_env_are_redacted_from_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every --env value counts as a secret, so the mode goes on the command line, not in FIXTURE_MODE.
    monkeypatch.setenv("FIXTURE_SECRET", SECRET)
    message, _ = failure(fixture_spec("crash", env=("FIXTURE_SECRET",)))
    assert "crashing on purpose" in message
    assert SECRET not in message
    assert "(secret ***)" in message


def test_hanging_server_hits_the_request_timeout() -> None:
    # 4 s per request: the handshake's clock starts at spawn, and the fixture's start can take
    # seconds on a busy 2-core machine.  Bounded by the 10 s total plus start and shutdown;
    # the defaults (30 s per request, 120 s in all) would take far longer.
    message, elapsed = failure(fixture_spec("hang"), Limits(request_timeout=4, total_timeout=10))
    assert elapsed < 18
    assert "did not finish tools/list (page 1) in time" in message
    assert "4 s per request" in message and "--request-timeout" in message


def test_hanging_server_hits_the_total_timeout() -> None:
    message, elapsed = failure(fixture_spec("hang"), Limits(request_timeout=30, total_timeout=2))
    assert elapsed < 10
    assert "in time" in message and "2 s in all" in message and "--total-timeout" in message


def test_server_that_writes_garbage_fails_quickly() -> None:
    # The garbage comes within milliseconds of the start (no imports), so a short handshake timeout
    # still sees it first.
    command = (PYTHON, "-m", "tests.servers.garbage_server")
    spec = ServerSpec(command=command, cwd=str(ROOT), fixed_env=(("PYTHONPATH", str(ROOT)),))
    message, elapsed = failure(spec, Limits(request_timeout=1, total_timeout=3))
    assert elapsed < 6
    assert spec.describe() in message
    assert "handshake" in message and "not MCP JSON-RPC" in message and "hello, I am not an MCP server" in message


def test_a_server_refusing_with_code_32001_is_not_called_slow(
    cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    # -32001 is the SDK's timeout code and a server's common "Unauthorized". Before, the refusal, sent at
    # once, was reported as "did not finish ... in time ... raise --request-timeout".
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("API_TOKEN", "tok-4f9c2b7e1d")
    started = time.monotonic()
    run = cli("introspect", "--stdio", f"{PYTHON} -m tests.servers.refusing_server", "--env", "API_TOKEN",
              "-o", str(tmp_path / "snapshot.json"))  # fmt: skip
    assert run.code == 1 and time.monotonic() - started < 20, run.err
    assert "answered the connection handshake (server/discover or initialize) with an error (code -32001: " in run.err
    assert "Unauthorized: the token" in run.err and "in time" not in run.err and "--request-timeout" not in run.err
    assert "tok-4f9c2b7e1d" not in run.out + run.err


def test_a_failure_names_an_env_variable_that_is_set_but_empty(monkeypatch: pytest.MonkeyPatch) -> None:
    # How CI passes a secret the job may not read; the server then fails in words of its own.
    monkeypatch.setenv("API_TOKEN", "")
    command = (PYTHON, "-m", "tests.servers.refusing_server")
    message, _ = failure(ServerSpec(command=command, cwd=str(ROOT), env=("API_TOKEN",)))
    assert "code -32001: Unauthorized" in message
    assert "Note: API_TOKEN, passed with --env, is set but empty, as CI passes a secret" in message


def test_an_http_server_started_over_stdio_is_named_as_one() -> None:
    # The demo with --http (as a server whose default is HTTP) given to --stdio: nothing comes over stdio,
    # and its log says where it listens. Before: only "did not finish ... in time", and the log's last lines.
    port = free_port()
    command = (PYTHON, "-m", "generator.demo", "--http", "--port", str(port), "--log-level", "info")
    spec = ServerSpec(command=command, cwd=str(ROOT), fixed_env=(("PYTHONPATH", str(ROOT)),))
    message, _ = failure(spec, Limits(request_timeout=30, total_timeout=8))  # its log comes in a second or two
    assert f"It seems to serve HTTP, not stdio: it wrote 'INFO:     Uvicorn running on http://127.0.0.1:{port} " in (
        message
    )
    assert "give its MCP endpoint at that address (often /mcp) to --url" in message


def test_program_that_does_not_exist() -> None:
    message, _ = failure(ServerSpec(command=("no-such-mcp-server-xyz", "--flag")))
    assert "'no-such-mcp-server-xyz' was not found" in message


# --- capability version rules -----------------------------------------------------------------


def test_fingerprint_rule_uses_the_first_12_hex_digits() -> None:
    snap = introspect(fixture_spec("paged"), FAST, "fingerprint")
    assert snap.capability_version == snap.fingerprint.removeprefix("sha256:")[:12]
    assert len(snap.capability_version) == 12
    int(snap.capability_version, 16)


def test_missing_meta_key_is_an_error() -> None:
    message, _ = failure(fixture_spec("paged"), FAST, "meta:release")
    assert "'release'" in message and "_meta" in message


# --- environment passthrough ------------------------------------------------------------------


def test_env_passes_named_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIXTURE_MODE", "env-echo")
    monkeypatch.setenv("FIXTURE_SECRET", SECRET)
    snap = introspect(fixture_spec(env=("FIXTURE_MODE", "FIXTURE_SECRET")), FAST)
    assert names(snap) == ["echo_env"]
    # The fixture echoes the value on purpose: that is how we see it arrived.
    assert SECRET in snap.tools[0]["description"]


def test_env_passes_only_what_it_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIXTURE_MODE", "env-echo")
    snap = introspect(fixture_spec(env=("FIXTURE_MODE",)), FAST)
    assert snap.tools[0]["description"].endswith("no secret")


def test_without_env_the_server_does_not_see_the_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIXTURE_MODE", "env-echo")
    monkeypatch.setenv("FIXTURE_SECRET", SECRET)
    snap = introspect(fixture_spec(), FAST)
    assert names(snap) == list(PAGED_TOOLS)  # the default mode: FIXTURE_MODE never arrived
    assert SECRET not in snap.to_json()


def test_env_naming_an_unset_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FIXTURE_NOT_SET", raising=False)
    message, elapsed = failure(fixture_spec("paged", env=("FIXTURE_NOT_SET",)))
    assert "FIXTURE_NOT_SET" in message and "not set" in message
    assert elapsed < 2  # rejected before anything starts


# --- HTTP headers -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def auth_url() -> Iterator[str]:
    """The fixture server in ``auth`` mode over Streamable HTTP, expecting TOKEN."""
    port = free_port()
    argv = [PYTHON, "-m", "tests.servers.fixture_server", "--http", "--port", str(port), "--mode", "auth"]
    with http_server(argv, port, {"FIXTURE_TOKEN": TOKEN, "PYTHONPATH": str(ROOT)}):
        yield f"http://127.0.0.1:{port}/mcp"


BEARER = (("Authorization", "Bearer ${FIXTURE_TOKEN}"),)


def test_header_from_environment_authenticates(auth_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIXTURE_TOKEN", TOKEN)
    snap = introspect(ServerSpec(url=auth_url, headers=BEARER), FAST)
    assert names(snap) == list(PAGED_TOOLS)
    assert TOKEN not in snap.to_json()
    assert snap.endpoint == auth_url


def test_missing_header_is_a_401_with_a_hint(auth_url: str) -> None:
    message, _ = failure(ServerSpec(url=auth_url))
    assert "HTTP 401" in message
    assert "--header" in message


def test_wrong_token_is_a_401_and_is_not_echoed(auth_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIXTURE_TOKEN", "wrong-token-value-123")
    message, _ = failure(ServerSpec(url=auth_url, headers=BEARER))
    assert "HTTP 401" in message
    assert "wrong-token-value-123" not in message
    # Before: "pass a token with --header", to a user who had passed one.
    assert "did not accept the credentials sent" in message and "pass a token" not in message


def test_header_naming_an_unset_variable(auth_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UNSET_VAR", raising=False)
    message, _ = failure(ServerSpec(url=auth_url, headers=(("Authorization", "Bearer ${UNSET_VAR}"),)))
    assert "UNSET_VAR" in message and "not set" in message
    assert "Authorization" in message


def test_header_naming_an_empty_variable_fails_before_a_request(auth_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # GitHub Actions passes a secret a fork's pull request may not read as an empty variable. Before, the
    # header went out as "Bearer " and the 401 was reported as a token the server did not accept.
    monkeypatch.setenv("EMPTY_TOKEN", "")
    message, _ = failure(ServerSpec(url=auth_url, headers=(("Authorization", "Bearer ${EMPTY_TOKEN}"),)))
    assert "The header Authorization refers to the environment variable EMPTY_TOKEN, which is set but empty" in message
    assert "HTTP 401" not in message


def test_credentials_in_the_url_are_never_shown(auth_url: str) -> None:
    url = auth_url.replace("http://", "http://user:hunter2pw@")
    spec = ServerSpec(url=url)
    assert spec.public_endpoint() == auth_url
    assert "hunter2pw" not in spec.describe()
    message, _ = failure(spec)  # httpx sends them as Basic auth, which this server refuses
    assert "HTTP 401" in message
    assert "hunter2pw" not in message


def test_unreachable_url_is_reported_without_credentials() -> None:
    url = f"http://user:hunter2pw@127.0.0.1:{free_port()}/mcp"
    message, elapsed = failure(ServerSpec(url=url))
    assert "could not be reached" in message and "Check that the server is running" in message
    assert "hunter2pw" not in message
    assert elapsed < 5


# A server that writes 2 GiB to stderr as fast as it can, its last words after them, then hangs without a word
# on stdout. Its stderr once went straight into a temporary file: at about 1 GB/s until the request timed out.
_SPEW = """
import os, sys, time
chunk = b"x" * 65535 + b"\\n"
for _ in range(32768):
    os.write(2, chunk)
os.write(2, b"fatal: the configuration names no database\\n")
time.sleep(3600)
"""


def test_a_server_that_floods_stderr_costs_no_disk_and_its_last_words_are_kept(tmp_path: Path) -> None:
    spec = ServerSpec(command=(PYTHON, "-c", _SPEW))
    disk = os.statvfs(tempfile.gettempdir())
    free: list[int] = []
    done = threading.Event()

    def sample() -> None:  # the free space of the temporary directory's file system, every 50 ms
        while not done.wait(0.05):
            now = os.statvfs(tempfile.gettempdir())
            free.append(now.f_bavail * now.f_frsize)

    watcher = threading.Thread(target=sample)
    watcher.start()
    try:
        message, _ = failure(spec, Limits(request_timeout=8, total_timeout=12))
    finally:
        done.set()
        watcher.join()
    used = disk.f_bavail * disk.f_frsize - min(free, default=disk.f_bavail * disk.f_frsize)
    assert free and used < 512 * 2**20, f"{used / 2**30:.1f} GiB of disk taken while the server wrote 2 GiB to stderr"
    assert "The server's last words on stderr: " in message, message
    assert message.endswith(" | fatal: the configuration names no database"), message
