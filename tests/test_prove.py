"""``--prove`` against real servers: the examples sent as printed, the answers recorded and shown.

The bundled demo is run over stdio and over Streamable HTTP on 127.0.0.1, in both protocol eras (the
demo's ``--handshake-only`` makes it a server of 2025-11-25, so the SDK client falls back to
``initialize``), with ``--call-log`` recording every call it receives: what ``--prove`` did not call is
shown by the log, not assumed. ``--maintenance search`` makes every ``search_chat`` call fail (a tool whose
every candidate is refused); the schema's own example cursor of ``query_research_conversations`` is
refused by the server (a refused example replaced by the next candidate); ``--changed-answers`` changes
the shape of ``search_chat``'s answer (``check --prove`` exits 3). A third-party server,
``@modelcontextprotocol/server-filesystem`` over a temporary directory, shows real answers, and
``server-everything``'s ``get-env`` shows that a secret passed with ``--env`` never reaches the snapshot.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from generator.commands.cli import main
from generator.render.i18n import load_catalog
from generator.snapshot.snapshot import load_snapshot
from tests.conftest import TEMPLATES, Run, free_port, http_server, node_bin, tree_bytes

PY = sys.executable
SHOWN = "python -m generator.demo"
"""What the demo's snapshots record as its command (--public): no path of this machine."""
READ_ONLY = ["my_capabilities", "query_research_conversations", "search_chat"]
ERAS = {"modern": "2026-07-28", "handshake": "2025-11-25"}


def demo_command(*options: str) -> str:
    return shlex.join([PY, "-m", "generator.demo", *options])


@contextmanager
def demo(transport: str, *options: str) -> Iterator[list[str]]:
    """The command-line options that reach the demo started with *options*, over *transport*."""
    if transport == "stdio":
        yield ["--stdio", demo_command(*options), "--public", SHOWN]
        return
    port = free_port()
    with http_server([PY, "-m", "generator.demo", "--http", "--port", str(port), *options], port):
        yield ["--url", f"http://127.0.0.1:{port}/mcp/"]


def calls(log: Path) -> list[tuple[str, str, dict[str, Any]]]:
    """(method, tool name or URI, arguments) of every call the demo recorded, in order."""
    if not log.exists():
        return []
    found = []
    for line in log.read_text(encoding="utf-8").splitlines():
        call = json.loads(line)
        params = call["params"]
        found.append((call["method"], params.get("name") or params.get("uri"), params.get("arguments") or {}))
    return found


def shown(html: str) -> str:
    """The text of an HTML page (its markup left out): a version sits in a ``<span dir="ltr">`` of its own."""
    return re.sub(r"<[^>]+>", "", html)


def tools_called(log: Path) -> list[str]:
    return [name for method, name, _ in calls(log) if method == "tools/call"]


@pytest.mark.parametrize("era", list(ERAS))
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_every_read_only_tool_prompt_and_resource_is_proven(cli: Any, tmp_path: Path, transport: str, era: str) -> None:
    log, out = tmp_path / "calls.jsonl", tmp_path / "snapshot.json"
    options = ["--call-log", str(log), *(["--handshake-only"] if era == "handshake" else [])]
    with demo(transport, *options) as source:
        run: Run = cli("introspect", *source, "--prove", "-o", str(out))
    assert run.code == 0, run.err
    snapshot = load_snapshot(out)
    assert snapshot.protocol_version == ERAS[era]
    proofs = snapshot.proofs
    assert proofs is not None
    endpoint = proofs["endpoints"]["default"]
    assert endpoint["protocol_version"] == ERAS[era]
    assert endpoint["server"] == {"name": "teamspace-demo", "version": "2.4.0"}
    assert sorted(proofs["tools"]) == READ_ONLY
    for name in READ_ONLY:
        assert proofs["tools"][name]["accepted"] is True, name
        assert proofs["tools"][name]["output"] == "valid", name
    assert proofs["prompts"]["triage_defect"]["accepted"] is True
    assert proofs["resources"]["teamspace://handbook"]["accepted"] is True
    template = proofs["resource_templates"]["teamspace://documents/{document_id}"]
    assert template["accepted"] is True
    assert "# Document " in template["attempts"][-1]["answer"]["result"]["contents"][0]["text"]
    # The demo's own record: each read-only tool called, nothing else; a prompt, the resource and the template read.
    assert set(tools_called(log)) == set(READ_ONLY)
    assert "delete_document" not in tools_called(log) and "file_defect" not in tools_called(log)
    recorded = calls(log)
    assert ("prompts/get", "triage_defect", {"defect": "DEF-1042"}) in recorded
    assert ("resources/read", "teamspace://handbook", {}) in recorded
    assert any(m == "resources/read" and n.startswith("teamspace://documents/") for m, n, _ in recorded)
    # The probe: a bad argument, answered as the demo's SDK answers one.
    assert endpoint["probe"]["form"] == "isError"
    assert endpoint["probe"]["request"]["arguments"] != proofs["tools"][endpoint["probe"]["tool"]]["attempts"][-1]


@pytest.fixture(scope="module")
def proven(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A proven snapshot of the demo over stdio with its search in maintenance, and the demo's call log."""
    tmp = tmp_path_factory.mktemp("proven")
    log, out = tmp / "calls.jsonl", tmp / "snapshot.json"
    source = ["--stdio", demo_command("--call-log", str(log), "--maintenance", "search"), "--public", SHOWN]
    assert main(["introspect", *source, "--prove", "-o", str(out)], renderer=TEMPLATES) == 0
    return out, log


@pytest.fixture(scope="module")
def pages(proven: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    site = tmp_path_factory.mktemp("pages") / "site"
    assert main(["build", "--from", str(proven[0]), "--out", str(site), "--no-search"], renderer=TEMPLATES) == 0
    return {path: data.decode("utf-8") for path, data in tree_bytes(site).items() if path.endswith((".md", ".html"))}


def test_a_refused_example_is_replaced_by_the_next_candidate(proven: tuple[Path, Path], pages: dict[str, str]) -> None:
    snapshot, log = proven
    proof = json.loads(snapshot.read_text(encoding="utf-8"))["proofs"]["tools"]["query_research_conversations"]
    first, second = proof["attempts"]
    assert "cursor" in first["request"]["arguments"] and "cursor" not in second["request"]["arguments"]
    assert first["answer"]["result"]["isError"] is True
    assert "Unknown cursor" in first["answer"]["result"]["content"][0]["text"]
    assert proof["accepted"] is True and second["answer"]["result"]["isError"] is False
    call = ("tools/call", "query_research_conversations")
    sent = [args for method, name, args in calls(log) if (method, name) == call]
    assert sent[:2] == [first["request"]["arguments"], second["request"]["arguments"]]
    twin = pages["en/tools/query_research_conversations.md"]
    assert "proven: true" in twin
    assert "The server refused the example first made from the schema" in twin and "Unknown cursor" in twin
    example = twin[twin.index("A complete call whose arguments validate") : twin.index("Proven on server version")]
    assert '"workspace_id"' in example and '"cursor"' not in example  # the call shown is the one that worked
    html = pages["en/tools/query_research_conversations/index.html"]
    assert "The server refused the example first made from the schema" in html
    assert "Proven on server version 2.4.0 (protocol 2026-07-28)" in shown(html)


def test_a_tool_whose_every_candidate_fails_is_shown_as_not_accepted(
    proven: tuple[Path, Path], pages: dict[str, str]
) -> None:
    snapshot, log = proven
    proof = json.loads(snapshot.read_text(encoding="utf-8"))["proofs"]["tools"]["search_chat"]
    assert proof["accepted"] is False and len(proof["attempts"]) == 5
    assert tools_called(log).count("search_chat") == 5  # the page's example and four more candidates
    for attempt in proof["attempts"]:
        assert attempt["answer"]["result"]["isError"] is True
    for locale, said in (("en", "Not accepted by the server"), ("ru", "Сервер не принял пример"),
                         ("ar", "لم يقبل الخادم هذا المثال")):  # fmt: skip
        twin, html = pages[f"{locale}/tools/search_chat.md"], pages[f"{locale}/tools/search_chat/index.html"]
        assert "proven: false" in twin
        for page in (twin, html):
            assert said in page and "The search component is in maintenance" in page
            assert "2.4.0" in page and "Proven on server" not in page
        # Said before the call: a refused example is never shown as if it worked.
        assert twin.index(said) < twin.index(load_catalog(locale).t("tool.example_real"))
        example = html.index('id="call"')
        assert example < html.index(said) < html.index("<pre", example)
        assert "An example result whose structuredContent validates" not in twin
    assert "It refused 4 other candidates made from the schema too." in pages["en/tools/search_chat.md"]


def test_what_is_not_read_only_is_never_called_and_says_so(proven: tuple[Path, Path], pages: dict[str, str]) -> None:
    _, log = proven
    called = tools_called(log)
    assert called and not {"delete_document", "file_defect", "workspace_status"} & set(called)
    for name in ("delete_document", "file_defect", "workspace_status"):
        twin = pages[f"en/tools/{name}.md"]
        assert "proven: false" in twin and "This example was not sent to the server" in twin
    # The probe's answer, in every locale's troubleshooting rows: the form this server really uses.
    assert (
        "a result with isError: true whose text names the problem (this server answered so"
        in pages["en/tools/query_research_conversations.md"]
    )
    assert "-32602 or -32603 (servers differ)" not in pages["en/connecting.md"]
    assert "this server answered so" in pages["en/connecting/index.html"]


def test_from_builds_of_a_proven_snapshot_are_byte_identical(proven: tuple[Path, Path], tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    for out, jobs in ((first, "1"), (second, "2")):
        assert (
            main(
                ["build", "--from", str(proven[0]), "--out", str(out), "--no-search", "--jobs", jobs],
                renderer=TEMPLATES,
            )
            == 0
        )
    assert tree_bytes(first) == tree_bytes(second)
    assert (first / "snapshot.json").read_bytes() == proven[0].read_bytes()


def test_prove_tools_calls_what_it_names_and_refuses_a_destructive_tool(cli: Any, tmp_path: Path) -> None:
    log, out = tmp_path / "calls.jsonl", tmp_path / "snapshot.json"
    source = ["--stdio", demo_command("--call-log", str(log)), "--public", SHOWN]
    refused = cli("introspect", *source, "--prove", "--prove-tools", "file_defect,delete_document", "-o", str(out))
    assert refused.code == 2 and "delete_document" in refused.err and "destructiveHint: true" in refused.err
    assert "Traceback" not in refused.err and not out.exists()
    assert tools_called(log) == []  # refused before any call
    named = cli("introspect", *source, "--prove", "--prove-tools", "file_defect,workspace_status", "-o", str(out))
    assert named.code == 0, named.err
    assert {"file_defect", "workspace_status"} <= set(tools_called(log))
    assert "delete_document" not in tools_called(log)
    proofs = load_snapshot(out).proofs
    assert proofs is not None and proofs["tools"]["file_defect"]["accepted"] is True


def test_check_prove_exits_3_when_an_answer_changes_shape(cli: Any, tmp_path: Path) -> None:
    site = tmp_path / "site"
    settings = ["--out", str(site), "--no-search", "--locales", "en"]
    with demo("stdio") as source:
        assert cli("build", *source, "--prove", *settings).code == 0
    with demo("stdio") as source:
        same = cli("check", *source, "--prove", *settings)
        plain = cli("check", *source, *settings)  # no call at all: the recorded answers are what the pages show
    assert same.code == 0 and "all 6 sent again are still accepted" in same.out, same.out + same.err
    assert plain.code == 0 and "Proven examples" not in plain.out
    with demo("stdio", "--changed-answers") as source:
        changed = cli("check", *source, "--prove", *settings)
        as_json = cli("check", *source, "--prove", *settings, "--format", "json")
    assert changed.code == 3, changed.out + changed.err
    lines = [line for line in changed.out.splitlines() if line.startswith("  tool ")]
    assert lines == [
        "  tool search_chat: the answer changed shape: `result.content[].text(JSON).found` was number, now string; "
        "`result.structuredContent.found` was number, now string"
    ]
    report = json.loads(as_json.out)
    assert as_json.code == 3 and report["status"] == "drift" and report["files"]["changed"] == []
    assert report["proofs"]["sent"] == 6 and len(report["proofs"]["drift"]) == 1
    with demo("stdio", "--maintenance", "research") as source:
        broken = cli("check", *source, "--prove", *settings)
    assert broken.code == 3
    assert "tool query_research_conversations: the proven example is no longer accepted: The research component" in (
        broken.out
    )


def test_build_with_no_server_proves_the_bundled_demo(cli: Any, tmp_path: Path) -> None:
    site = tmp_path / "site"
    run = cli("build", "--out", str(site), "--no-search", "--locales", "en")
    assert run.code == 0, run.err
    proofs = load_snapshot(site / "snapshot.json").proofs
    assert proofs is not None and set(proofs["endpoints"]) == {"stdio"}
    assert sorted(proofs["tools"]) == READ_ONLY
    page = shown((site / "en" / "tools" / "search_chat" / "index.html").read_text(encoding="utf-8"))
    assert "Proven on server version 2.4.0 (protocol 2026-07-28)" in page and "Jonas Berg" in page


@pytest.mark.npm
def test_a_third_party_server_shows_real_answers(cli: Any, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "notes.txt").write_text("hello from a real file\n", encoding="utf-8")
    site = tmp_path / "site"
    command = shlex.join([node_bin("mcp-server-filesystem"), str(shared)])
    run = cli("build", "--stdio", command, "--public", "npx -y @modelcontextprotocol/server-filesystem DIR",
              "--prove", "--out", str(site), "--no-search", "--locales", "en")  # fmt: skip
    assert run.code == 0, run.err
    proofs = load_snapshot(site / "snapshot.json").proofs
    assert proofs is not None and proofs["endpoints"]["default"]["protocol_version"] == "2025-11-25"
    listed = proofs["tools"]["list_allowed_directories"]
    assert listed["accepted"] is True and listed["output"] == "valid"
    twin = (site / "en" / "tools" / "list_allowed_directories.md").read_text(encoding="utf-8")
    html = shown((site / "en" / "tools" / "list_allowed_directories" / "index.html").read_text(encoding="utf-8"))
    for page in (twin, html):
        assert "Proven on server version 0.2.0 (protocol 2025-11-25)" in page
        assert str(shared) in page  # the server's real answer: the directory it was started with
    refused = (site / "en" / "tools" / "read_text_file.md").read_text(encoding="utf-8")
    assert "proven: false" in refused and "Not accepted by the server" in refused and "ENOENT" in refused
    assert "Text content" in html and "Its structuredContent validates against the output schema." in html


@pytest.mark.npm
def test_a_secret_given_with_env_never_reaches_the_snapshot(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-proof-0123456789abcdef"
    monkeypatch.setenv("PROOF_TOKEN", secret)
    out = tmp_path / "snapshot.json"
    # --request-timeout: trigger-long-running-operation (read-only, so proven too) would take 10 s; cut, it
    # is left unanswered (test_calls_are_bounded_per_call_and_per_endpoint), and get-env is answered at once.
    run = cli("introspect", "--stdio", f"{node_bin('mcp-server-everything')} stdio", "--env", "PROOF_TOKEN",
              "--prove", "--request-timeout", "4", "--prove-timeout", "40", "-o", str(out))  # fmt: skip
    assert run.code == 0, run.err
    text = out.read_text(encoding="utf-8")
    proofs = json.loads(text)["proofs"]
    answer = json.dumps(proofs["tools"]["get-env"]["attempts"][-1]["answer"])
    assert "PROOF_TOKEN" in answer and "***" in answer  # get-env printed the environment, masked
    assert secret not in text and secret not in run.out + run.err


@pytest.mark.npm
def test_calls_are_bounded_per_call_and_per_endpoint(cli: Any, tmp_path: Path) -> None:
    """``trigger-long-running-operation`` (declared read-only) runs for seconds: one call is cut by
    ``--request-timeout`` and shown as unanswered; the whole session is cut by ``--prove-timeout``."""
    everything = f"{node_bin('mcp-server-everything')} stdio"
    per_call, whole = tmp_path / "per-call.json", tmp_path / "whole.json"
    run = cli("introspect", "--stdio", everything, "--prove", "--request-timeout", "2", "-o", str(per_call))
    assert run.code == 0, run.err
    proofs = load_snapshot(per_call).proofs
    assert proofs is not None
    slow = proofs["tools"]["trigger-long-running-operation"]
    assert slow["accepted"] is False
    assert slow["attempts"][0]["answer"] == {"unanswered": "Request 'tools/call' timed out"}
    assert proofs["tools"]["echo"]["accepted"] is True
    started = time.monotonic()
    run = cli("introspect", "--stdio", everything, "--prove", "--prove-timeout", "3", "-o", str(whole))
    assert run.code == 0, run.err
    assert time.monotonic() - started < 30
    proofs = load_snapshot(whole).proofs
    assert proofs is not None
    assert "the calls stopped after 3 s (--prove-timeout)" in proofs["endpoints"]["default"]["problem"]
    assert "trigger-long-running-operation" not in proofs["tools"]  # cut off: unproven, not refused
    assert "--prove on endpoint default: the calls stopped after 3 s" in run.err
