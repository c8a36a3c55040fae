"""The Python and TypeScript calls on the tool pages, taken from the built HTML and run for real.

Every tool page of the demo shows its call as a Python program (the official ``mcp`` SDK's
``Client``) and a TypeScript module (``@modelcontextprotocol/client``, pinned in tests/package.json),
once per endpoint: over stdio (``python -m generator.demo``) and Streamable HTTP. Each program is taken
from the page as a reader copies it (the text of its ``<code>``), and run: Python in this test venv,
TypeScript type-checked by ``tsc`` and run by ``node``, against the demo's stdio server and its HTTP
server on a free port of 127.0.0.1. The only change made to a program is the HTTP host and port.

Both protocol eras: the demo's pages (2026-07-28, ``mode: "auto"``), every tool's programs, and the same
snapshot recorded at 2025-11-25 (``mode: "legacy"``: the initialize handshake), whose programs differ
from the first era's only in that word (checked), one tool's programs over both transports. A program
that does not print a result without ``isError`` fails here.
"""

from __future__ import annotations

import html as html_lib
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from generator.commands.demo_portal import DEMO_LABEL, DEMO_PUBLIC_HTTP
from generator.demo.launch import running_http_demo
from generator.snapshot.snapshot import load_snapshot
from tests.conftest import TEMPLATES
from tests.golden_tool import SNAPSHOT, golden_files
from tests.test_sequences import _legacy_snapshot

pytestmark = pytest.mark.npm

REPO_ROOT = Path(__file__).resolve().parent.parent
NODE_MODULES = REPO_ROOT / "tests" / "node_modules"
TSC = NODE_MODULES / ".bin" / "tsc"
ERAS = ("2026-07-28", "2025-11-25")
LEGACY_RUN = "en/tools/search_chat/index.html"
"""The page whose programs are run in the handshake era (the others are the first era's but for the mode)."""
PANEL = re.compile(r'<div class="panel panel-(python|typescript)".*?</div>\n', re.S)
PROGRAM = re.compile(
    r'<p class="via">([^:<]+):.*?</p>\n<pre[^>]*><code class="language-\w+[^"]*">(.*?)</code></pre>', re.S
)
# A tool that changes the demo's state is called last, so the others read what they expect.
LAST = ("delete_document",)


def _programs(snapshot_path: Path) -> list[tuple[str, str, str, str]]:
    """(tool page, language, transport, program) for every program on the demo's English tool pages."""
    files = golden_files(load_snapshot(snapshot_path), TEMPLATES)
    found = []
    for path in sorted(files, key=lambda p: (any(name in p for name in LAST), p)):
        if not (path.startswith("en/tools/") and path.endswith("/index.html")):
            continue
        page = files[path].decode("utf-8")
        for panel in PANEL.finditer(page):
            for via in PROGRAM.finditer(panel.group(0)):
                text = html_lib.unescape(re.sub(r"<[^>]+>", "", via.group(2)))
                found.append((path, panel.group(1), via.group(1), text))
    return found


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[str, str, str, str]]]:
    tmp = tmp_path_factory.mktemp("snippets")
    return {"2026-07-28": _programs(SNAPSHOT), "2025-11-25": _programs(_legacy_snapshot(tmp))}


@pytest.fixture(scope="module")
def demo_http() -> Iterator[str]:
    with running_http_demo() as base:
        yield base


def _environment() -> dict[str, str]:
    """This venv's ``python`` first on PATH: the stdio programs start ``python -m generator.demo``."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = str(REPO_ROOT)
    return env


def _result(stdout: str, where: str) -> dict[str, object]:
    """The JSON the program printed: a tool result with content and no error."""
    start = stdout.find("{")
    assert start >= 0, f"{where}: printed {stdout!r}"
    result = json.loads(stdout[start:])
    assert isinstance(result, dict) and result.get("content"), f"{where}: {result!r}"
    assert result.get("isError", False) is False, f"{where}: {result!r}"
    return result


def _run(argv: list[str], cwd: Path, where: str) -> dict[str, object]:
    done = subprocess.run(argv, cwd=cwd, env=_environment(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"{where}: exit {done.returncode}\n{done.stderr[-2000:]}"
    return _result(done.stdout, where)


def _ready(program: str, transport: str, demo_http: str) -> str:
    if transport == "stdio":
        assert "generator.demo" in program and DEMO_LABEL == "python -m generator.demo"
        return program
    assert program.count(DEMO_PUBLIC_HTTP) == 1, program  # only the URL names the host
    return program.replace(DEMO_PUBLIC_HTTP, demo_http)


def test_every_tool_page_shows_both_programs_for_both_endpoints(
    programs: dict[str, list[tuple[str, str, str, str]]],
) -> None:
    for era, found in programs.items():
        kinds = {(language, transport) for _, language, transport, _ in found}
        assert kinds == {(lang, via) for lang in ("python", "typescript") for via in ("stdio", "Streamable HTTP")}, era
        assert len({path for path, *_ in found}) == 6, era  # every demo tool shows its call
        mode = "auto" if era == "2026-07-28" else "legacy"
        assert all(f'mode="{mode}"' in text or f'mode: "{mode}"' in text for *_, text in found), era
    legacy = [text.replace('"legacy"', '"auto"') for *_, text in programs["2025-11-25"]]
    assert legacy == [text for *_, text in programs["2026-07-28"]]


def _chosen(
    programs: dict[str, list[tuple[str, str, str, str]]], era: str, language: str
) -> list[tuple[str, str, str]]:
    """The programs of *language* to run in *era*: every tool's in the first, one tool's in the second."""
    every = [(path, via, text) for path, lang, via, text in programs[era] if lang == language]
    chosen = every if era == "2026-07-28" else [item for item in every if item[0] == LEGACY_RUN]
    assert len(chosen) == (12 if era == "2026-07-28" else 2), [item[:2] for item in every]
    return chosen


@pytest.mark.parametrize("era", ERAS)
def test_the_python_programs_run_against_the_demo(
    programs: dict[str, list[tuple[str, str, str, str]]], demo_http: str, era: str, tmp_path: Path
) -> None:
    chosen = _chosen(programs, era, "python")
    files = []
    for number, (path, via, text) in enumerate(chosen):
        file = tmp_path / f"call_{number}.py"
        file.write_text(_ready(text, via, demo_http), encoding="utf-8")
        files.append((file, f"{era} {path} ({via}, Python)"))
    # Two at a time (the machine's two cores), each a fresh process as a reader runs it.
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda item: _run([sys.executable, str(item[0])], tmp_path, item[1]), files))
    assert len(results) == len(chosen)


@pytest.fixture(scope="module")
def typescript(
    programs: dict[str, list[tuple[str, str, str, str]]], demo_http: str, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, list[tuple[Path, str]]]:
    """era -> [(module, where)] of the programs to run, written as the page says (``call.mts``) and
    type-checked by one ``tsc`` run (strict, Node's module resolution) against the pinned SDK."""
    tmp = tmp_path_factory.mktemp("typescript")
    (tmp / "node_modules").symlink_to(NODE_MODULES, target_is_directory=True)
    (tmp / "package.json").write_text('{"type": "module"}\n', encoding="utf-8")
    files: dict[str, list[tuple[Path, str]]] = {}
    for era in ERAS:
        for number, (path, via, text) in enumerate(_chosen(programs, era, "typescript")):
            file = tmp / f"call_{era}_{number}.mts"
            file.write_text(_ready(text, via, demo_http), encoding="utf-8")
            files.setdefault(era, []).append((file, f"{era} {path} ({via}, TypeScript)"))
    options = ["--noEmit", "--strict", "--module", "nodenext", "--target", "es2022", "--types", "node"]
    every = [str(file) for listed in files.values() for file, _ in listed]
    checked = subprocess.run([str(TSC), *options, *every], cwd=tmp, capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, f"tsc: {checked.stdout[-3000:]}{checked.stderr[-1000:]}"
    return files


@pytest.mark.parametrize("era", ERAS)
def test_the_typescript_programs_type_check_and_run_against_the_demo(
    typescript: dict[str, list[tuple[Path, str]]], era: str
) -> None:
    # Node 20 runs the module as JavaScript (tsc checked it above): the programs use no type syntax.
    runnable = []
    for file, where in typescript[era]:
        copy = file.with_suffix(".mjs")
        copy.write_text(file.read_text(encoding="utf-8"), encoding="utf-8")
        runnable.append((copy, where))
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda item: _run(["node", str(item[0])], item[0].parent, item[1]), runnable))
    assert len(results) == len(runnable) == (12 if era == "2026-07-28" else 2)
