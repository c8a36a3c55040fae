"""Hostile and broken servers, end to end through the command line.

Every failure mode of ``tests/servers/fixture_server.py`` is run through ``mcp-portal build``
against an ``--out`` that already holds a good site.  A failure must exit 1 with one paragraph
naming the server and the request, within its time bound, and leave the old site byte-identical.
The modes that can be documented (a 5 MB description, $ref cycles, dangling refs, invalid tools
with --lenient, a schema 400 levels deep read from a snapshot) must build, bounded in time and size.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from generator.commands.cli import main
from generator.snapshot.snapshot import load_snapshot, new_snapshot
from tests.conftest import PYTHON, ROOT, TEMPLATES, free_port, http_server, tree_bytes
from tests.servers.fixture_server import DEEP_LEVELS, HUGE_DESCRIPTION_BYTES, deep_schema

GOLDEN = ROOT / "tests" / "golden" / "demo.snapshot.json"
FAST = ("--request-timeout", "5", "--total-timeout", "20")
BUILD_BOUND = 30.0
"""Seconds a successful build against a hostile server may take, connection included."""


@dataclass
class Result:
    code: int
    out: str
    err: str
    seconds: float


def stdio(mode: str) -> str:
    """The command of the fixture server in *mode*, or of tests/servers/garbage_server.py for ``garbage``."""
    if mode == "garbage":
        return f"{PYTHON} -m tests.servers.garbage_server"
    return f"{PYTHON} -m tests.servers.fixture_server --mode {mode}"


@pytest.fixture(autouse=True)
def _at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    # The SDK gives a stdio server only a safe environment (no PYTHONPATH): `-m tests...` needs the cwd.
    monkeypatch.chdir(ROOT)


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    def go(*argv: str) -> Result:
        started = time.monotonic()
        code = main(list(argv))
        seconds = time.monotonic() - started
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err, seconds)

    return go


@pytest.fixture(scope="module")
def previous_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, bytes]]:
    """A good site, built once from the golden snapshot: failed builds must leave it alone."""
    out = tmp_path_factory.mktemp("previous") / "site"
    assert main(["build", "--from", str(GOLDEN), "--out", str(out)], renderer=TEMPLATES) == 0
    return out, tree_bytes(out)


def assert_failed(result: Result, server: str, request: str, bound: float) -> str:
    """Exit 1, one paragraph on stderr naming the server and the request, in time."""
    assert result.code == 1, result.err
    assert result.seconds < bound, f"took {result.seconds:.1f} s"
    assert result.err.startswith("mcp-portal: error: ")
    message = result.err.removeprefix("mcp-portal: error: ").strip()
    assert "\n" not in message, "one paragraph"
    assert "Traceback" not in result.err
    assert server in message, message
    assert request in message, message
    return message


def assert_untouched(previous: tuple[Path, dict[str, bytes]]) -> None:
    out, before = previous
    assert tree_bytes(out) == before


# --- failures over stdio ----------------------------------------------------------------------

STDIO_FAILURES = [
    # mode, extra options, request named in the message, a phrase of the message, seconds allowed
    ("loop", (), "page 2 of tools/list", "cursor 'again' again", 15),
    ("endless", ("--max-pages", "5"), "tools/list after 5 pages", "--max-pages", 15),
    ("crash", (), "tools/list (page 2)", "closed the connection", 15),
    ("duplicates", (), "tools/list", "'dup' more than once", 15),
    ("invalid", (), "tools/list (page 1)", "use --lenient to skip them", 15),
    # The handshake's clock starts when the server is spawned; the garbage comes within milliseconds.
    ("garbage", ("--request-timeout", "1", "--total-timeout", "3"), "handshake", "not MCP JSON-RPC", 6),
    ("hang", ("--request-timeout", "4", "--total-timeout", "10"), "tools/list (page 1)", "4 s per request", 18),
    # 400 levels of JSON are more than the SDK's JSON parser accepts: the reply is dropped, so the
    # request times out, and the message says why.
    ("deep", ("--request-timeout", "4", "--total-timeout", "10"), "tools/list (page 1)", "nested deeper", 15),
]


@pytest.mark.parametrize(
    ("mode", "options", "request_", "phrase", "bound"),
    STDIO_FAILURES,
    ids=[f"{m}-{i}" for i, (m, *_) in enumerate(STDIO_FAILURES)],
)
def test_stdio_failure_is_one_paragraph_in_time_and_keeps_the_old_site(
    run, previous_site, mode: str, options: tuple[str, ...], request_: str, phrase: str, bound: float
) -> None:
    out, _ = previous_site
    result = run("build", "--stdio", stdio(mode), "--out", str(out), *FAST, *options)
    message = assert_failed(result, stdio(mode).split(" -m ", 1)[1] + "`", request_, bound)
    assert phrase in message
    assert_untouched(previous_site)


def test_invalid_tools_are_named_with_what_is_wrong(run, previous_site) -> None:
    out, _ = previous_site
    message = assert_failed(
        run("build", "--stdio", stdio("invalid"), "--out", str(out), *FAST), "--mode invalid`", "tools/list", 15
    )
    assert "'bad_schema': inputSchema: Input should be a valid dictionary" in message
    assert "'untyped_schema': inputSchema.type: Field required" in message
    assert "the name '42', which is not a string" in message
    assert "good_one" not in message and "good_two" not in message
    assert "--lenient" in message
    assert_untouched(previous_site)


def test_introspect_and_check_fail_the_same_way(run, previous_site, tmp_path: Path) -> None:
    out, _ = previous_site
    snapshot = tmp_path / "s.json"
    result = run("introspect", "--stdio", stdio("duplicates"), "-o", str(snapshot), *FAST)
    assert_failed(result, "--mode duplicates`", "tools/list", 15)
    assert not snapshot.exists()
    result = run("check", "--stdio", stdio("loop"), "--out", str(out), *FAST)
    assert_failed(result, "--mode loop`", "tools/list", 15)
    assert_untouched(previous_site)


# --- what builds ------------------------------------------------------------------------------


def html_files(site: Path) -> list[Path]:
    pages = sorted(site.rglob("*.html"))
    assert pages
    return pages


def assert_small_pages(site: Path) -> None:
    for page in html_files(site):
        assert page.stat().st_size < 1_000_000, f"{page} is {page.stat().st_size} bytes"


def test_lenient_skips_invalid_tools_and_lists_them(run, tmp_path: Path) -> None:
    out = tmp_path / "site"
    result = run("build", "--stdio", stdio("invalid"), "--out", str(out), "--lenient", *FAST)
    assert result.code == 0, result.err
    assert result.seconds < BUILD_BOUND
    warnings = [line for line in result.err.splitlines() if line.startswith("warning: skipped the invalid tool")]
    assert len(warnings) == 4, result.err
    assert any("'bad_header'" in w and "x-mcp-header" in w for w in warnings)
    snap = load_snapshot(out / "snapshot.json")
    assert [t["name"] for t in snap.tools] == ["good_one", "good_two"]
    skipped = {s["name"]: s["reason"] for s in snap.skipped_tools}
    assert set(skipped) == {
        "bad_schema",
        "untyped_schema",
        "bad_header",
        "#4 on the page (the name '42', which is not a string)",
    }
    assert "Field required" in skipped["untyped_schema"]
    index = (out / "en" / "index.html").read_text(encoding="utf-8")
    for name in ("bad_schema", "untyped_schema", "bad_header"):
        assert f'<code dir="ltr">{name}</code>' in index


def test_lenient_introspect_keeps_the_first_of_duplicate_names(run, tmp_path: Path) -> None:
    snapshot = tmp_path / "s.json"
    result = run("introspect", "--stdio", stdio("duplicates"), "-o", str(snapshot), "--lenient", *FAST)
    assert result.code == 0, result.err
    assert "warning:" in result.err and "'dup' more than once" in result.err
    snap = load_snapshot(snapshot)
    assert [t["name"] for t in snap.tools] == ["dup", "other"]
    assert [s["name"] for s in snap.skipped_tools] == ["dup"]


def test_five_megabyte_description_is_cut(run, tmp_path: Path) -> None:
    out = tmp_path / "site"
    result = run("build", "--stdio", stdio("huge-description"), "--out", str(out), "--max-description", "1000", *FAST)
    assert result.code == 0, result.err
    assert result.seconds < BUILD_BOUND
    assert_small_pages(out)
    page = (out / "en" / "tools" / "huge" / "index.html").read_text(encoding="utf-8")
    shown = page.count("All work and no play")
    # The cut description, plus its first sentence in the lead, the meta description and og:description.
    assert 5 <= shown <= 1000 // len("All work and no play makes a very long description. ") + 4
    assert "only the first 1,000 are shown" in page  # the page says it is cut
    twin = (out / "en" / "tools" / "huge.md").read_text(encoding="utf-8")
    assert len(twin) < 100_000
    assert "only the first 1,000 are shown" in twin
    # The snapshot keeps what the server said, in full: it is data, not a page.
    assert len(load_snapshot(out / "snapshot.json").tools[0]["description"]) == HUGE_DESCRIPTION_BYTES


def test_ref_cycles_build(run, tmp_path: Path) -> None:
    out = tmp_path / "site"
    result = run("build", "--stdio", stdio("ref-cycle"), "--out", str(out), *FAST)
    assert result.code == 0, result.err
    assert result.seconds < BUILD_BOUND
    assert_small_pages(out)
    for name in ("cycle", "self_ref", "pointless"):
        assert (out / "en" / "tools" / name / "index.html").is_file()


@pytest.fixture
def ref_catcher() -> Iterator[tuple[str, list[str]]]:
    """An HTTP server on 127.0.0.1 that records every request: a $ref to it must never be fetched."""
    import http.server
    import threading

    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            body = json.dumps({"$defs": {"Thing": {"type": "string"}}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/schema.json#/$defs/Thing", hits
    finally:
        server.shutdown()
        server.server_close()


def test_dangling_and_remote_refs_build_and_are_never_fetched(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ref_catcher: tuple[str, list[str]]
) -> None:
    url, hits = ref_catcher
    monkeypatch.setenv("FIXTURE_REF_URL", url)
    out = tmp_path / "site"
    result = run("build", "--stdio", stdio("dangling-ref"), "--env", "FIXTURE_REF_URL", "--out", str(out), *FAST)
    assert result.code == 0, result.err
    assert result.seconds < BUILD_BOUND
    assert "remote $ref" in result.err and "not fetched" in result.err
    snap = load_snapshot(out / "snapshot.json")
    assert snap.tools[0]["inputSchema"]["properties"]["local_remote"]["$ref"] == url  # it did reach us
    assert_small_pages(out)
    # Rendering again offline, from the snapshot: still nothing fetched.
    assert run("build", "--from", str(out / "snapshot.json"), "--out", str(tmp_path / "again")).code == 0
    assert hits == []


def test_schema_four_hundred_levels_deep_builds_from_a_snapshot(run, tmp_path: Path) -> None:
    # No server can send this through the SDK (see the `deep` failure above), but a snapshot can hold it.
    tool = {"name": "deep", "description": "Deep.", "inputSchema": deep_schema(DEEP_LEVELS)}
    snap = new_snapshot(
        protocol_version="2026-07-28",
        server={"name": "deep-server", "version": "1", "description": "d", "instructions": "i", "capabilities": {}},
        tools=(tool,),
        capability_version="1",
        transport="stdio",
        endpoint="deep-server",
    )
    source = tmp_path / "deep.json"
    source.write_text(snap.to_json(), encoding="utf-8")
    out = tmp_path / "site"
    result = run("build", "--from", str(source), "--out", str(out), "--max-schema-depth", "8")
    assert result.code == 0, result.err
    assert result.seconds < BUILD_BOUND
    assert "depth limit 8 reached" in result.err
    assert_small_pages(out)
    page = (out / "en" / "tools" / "deep" / "index.html").read_text(encoding="utf-8")
    assert "level_1" in page
    assert "level_399" not in page


# --- a representative subset over Streamable HTTP ---------------------------------------------


@pytest.fixture
def http_fixture() -> Iterator:  # type: ignore[type-arg]
    """Start the fixture server over HTTP in a given mode; yields a starter returning its /mcp URL."""
    import contextlib

    with contextlib.ExitStack() as stack:

        def start(mode: str) -> str:
            port = free_port()
            argv = [PYTHON, "-m", "tests.servers.fixture_server", "--http", "--port", str(port), "--mode", mode]
            stack.enter_context(http_server(argv, port, {"PYTHONPATH": str(ROOT)}))
            return f"http://127.0.0.1:{port}/mcp"

        yield start


HTTP_FAILURES = [
    ("loop", (), "page 2 of tools/list", "cursor 'again' again", 15),
    ("crash", (), "tools/list (page 2)", "", 15),
    ("hang", ("--request-timeout", "1", "--total-timeout", "3"), "tools/list (page 1)", "in time", 8),
    ("invalid", (), "tools/list (page 1)", "'bad_schema'", 15),
]


@pytest.mark.parametrize(
    ("mode", "options", "request_", "phrase", "bound"), HTTP_FAILURES, ids=[m[0] for m in HTTP_FAILURES]
)
def test_http_failure_is_one_paragraph_in_time_and_keeps_the_old_site(
    run, previous_site, http_fixture, mode: str, options: tuple[str, ...], request_: str, phrase: str, bound: float
) -> None:
    out, _ = previous_site
    url = http_fixture(mode)
    result = run("build", "--url", url, "--out", str(out), *FAST, *options)
    message = assert_failed(result, f"the server at {url}", request_, bound)
    assert phrase in message
    assert_untouched(previous_site)


def test_http_lenient_and_huge_description(run, http_fixture, tmp_path: Path) -> None:
    out = tmp_path / "lenient"
    result = run("build", "--url", http_fixture("invalid"), "--out", str(out), "--lenient", *FAST)
    assert result.code == 0, result.err
    assert [t["name"] for t in load_snapshot(out / "snapshot.json").tools] == ["good_one", "good_two"]
    out = tmp_path / "huge"
    result = run("build", "--url", http_fixture("huge-description"), "--out", str(out), *FAST)
    assert result.code == 0, result.err
    assert result.seconds < BUILD_BOUND
    assert_small_pages(out)
    assert re.search(r"All work and no play", (out / "en" / "tools" / "huge" / "index.html").read_text("utf-8"))


# A stdio "server" that dies at once, its stderr full of terminal escapes and GitHub Actions commands.
_LOUD_DEATH = (
    "import sys; sys.stderr.write('\\x1b[2J\\x1b]0;owned\\x07 \\x9b31m boom\\n::error::pwned\\n"
    "  ::add-mask::secret ##[error]old\\r::warning::x \\x1b[31m \\u202egnp\\n'); sys.exit(3)"
)


def test_server_text_in_an_error_cannot_drive_the_terminal_or_the_ci_log(run, previous_site) -> None:
    """The error paragraph quotes the server's stderr, shown: no escape reaches the terminal, no line a command."""
    out, _ = previous_site
    result = run("build", "--stdio", f'{PYTHON} -c "{_LOUD_DEATH}"', "--out", str(out), *FAST)
    assert result.code == 1, result.err
    assert result.err.startswith("mcp-portal: error: ") and "Traceback" not in result.err
    assert "[U+001B][31m [U+202E]gnp" in result.err and "pwned" in result.err  # the server's words, made visible
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]", result.err + result.out)
    assert not any(line.lstrip().startswith("::") for line in (result.err + result.out).splitlines())
    assert "##[" not in result.err
    assert_untouched(previous_site)
