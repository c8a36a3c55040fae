"""Benchmark: ``mcp-portal mcp`` over a large portal: start-up, and how long one search takes.

    python bench/bench_docs_server.py                    # 1,000 tools, en/ru/ar, 200 searches
    python bench/bench_docs_server.py --tools 100,1000,5000 --searches 500 --json docs-server.json
    python bench/bench_docs_server.py --served           # also read the portal from a URL (mcp-portal serve)

For every N in ``--tools`` it builds the portal of the first N tools of ``bench/scale_server.py``'s
workload (en, ru and ar, ``--no-search``: the docs server keeps its own index) into a temporary
directory, unmeasured. Then, measured:

- ``start-up``: from starting ``mcp-portal mcp DIR`` over stdio to the SDK client's session being ready
  (the server reads every twin and builds its indexes before it answers), ``--runs`` times;
- ``search (MCP)``: ``--searches`` calls of ``search_docs`` through that session, each a query from a
  fixed, seeded list (tool titles, parameter names, words of descriptions, tool names, misspellings),
  timed from the call to its result: median, p95 and the slowest;
- ``search (in process)``: the same queries against the index itself, without the protocol.

With ``--served``, the start-up is also measured with the portal read from ``mcp-portal serve``'s URL
(every twin fetched over HTTP). It prints a Markdown table; ``--json FILE`` writes every sample.
Nothing is written outside a temporary directory.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.scale_server import workload  # noqa: E402
from generator.commands.cli import main as cli  # noqa: E402
from generator.docs_server.docs import Docs  # noqa: E402
from generator.docs_server.source import open_source  # noqa: E402
from generator.snapshot.snapshot import new_snapshot  # noqa: E402

LOCALES = ("en", "ru", "ar")


def build_portal(n: int, out: Path) -> None:
    """The portal of the workload's first *n* tools, written to *out* (not measured)."""
    snapshot = new_snapshot(
        protocol_version="2026-07-28",
        server={"name": "scale-bench", "title": "Scale bench", "version": "1.0.0"},
        tools=tuple(workload(n)),
        capability_version="1.0.0",
        transport="stdio",
        endpoint="python bench/scale_server.py",
    )
    path = out.parent / f"snapshot-{n}.json"
    path.write_text(snapshot.to_json(), encoding="utf-8")
    code = cli(["build", "--from", str(path), "--no-search", "--quiet", "--out", str(out)])
    if code != 0:
        raise SystemExit(f"the build of {n} tools failed ({code})")


def queries(n: int, count: int, seed: int = 7) -> list[tuple[str, str]]:
    """*count* (query, locale) pairs drawn from the workload: titles, names, parameters, words, typos."""
    rng = random.Random(seed)
    tools = workload(n)
    found: list[tuple[str, str]] = []
    while len(found) < count:
        tool = rng.choice(tools)
        kind = rng.randrange(5)
        if kind == 0:
            text = re.sub(r"\s*\(.*\)", "", tool["title"]).lower()
        elif kind == 1:
            text = tool["name"]
        elif kind == 2:
            text = rng.choice(list(tool["inputSchema"]["properties"]))
        elif kind == 3:
            text = " ".join(rng.sample(re.findall(r"[a-z]{4,}", tool["description"].lower()), 2))
        else:
            word = rng.choice(re.findall(r"[a-z]{5,}", tool["description"].lower()))
            text = word[:-1]  # a word typed short
        found.append((text, rng.choice(LOCALES)))
    return found


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "median": statistics.median(ordered),
        "p95": ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))],
        "max": ordered[-1],
    }


async def over_mcp(site: str, asked: list[tuple[str, str]]) -> tuple[float, list[float], int]:
    """Start-up seconds of ``mcp-portal mcp SITE`` over stdio, each search's seconds, and the hits found."""
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "generator", "mcp", site], cwd=str(ROOT))
    start = time.perf_counter()
    async with Client(params) as client:
        ready = time.perf_counter() - start
        samples, hits = [], 0
        for query, locale in asked:
            began = time.perf_counter()
            result = await client.call_tool("search_docs", {"query": query, "locale": locale, "limit": 10})
            samples.append(time.perf_counter() - began)
            assert not result.is_error and result.structured_content is not None, result.content
            hits += bool(result.structured_content["hits"])
    return ready, samples, hits


async def in_process(site: str, asked: list[tuple[str, str]]) -> tuple[float, list[float]]:
    start = time.perf_counter()
    docs = await Docs.open(open_source(site))
    ready = time.perf_counter() - start
    samples = []
    for query, locale in asked:
        began = time.perf_counter()
        await docs.search(query, locale, None, 10)
        samples.append(time.perf_counter() - began)
    await docs.source.aclose()
    return ready, samples


def served(site: Path) -> tuple[str, Callable[[], None]]:
    """``mcp-portal serve`` on a free port; its base URL and how to stop it."""
    log = site.parent / "serve.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "generator", "serve", "--out", str(site), "--port", "0"],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = re.search(r"at (http://127\.0\.0\.1:\d+/)", log.read_text(errors="replace"))
        if found:
            return found.group(1), proc.terminate
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.terminate()
    raise SystemExit(f"mcp-portal serve did not start: {log.read_text(errors='replace')[-400:]}")


def bench(n: int, args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    site = tmp / f"site-{n}"
    build_portal(n, site)
    asked = queries(n, args.searches)
    row: dict[str, Any] = {"tools": n, "twins": len(list(site.rglob("*.md")))}
    startups, mcp_samples = [], []
    for _ in range(args.runs):
        ready, samples, hits = anyio.run(over_mcp, str(site), asked)
        startups.append(ready)
        mcp_samples += samples
    row["startup_s"] = statistics.median(startups)
    row["search_mcp_s"] = percentiles(mcp_samples)
    row["queries_with_hits"] = hits / len(asked)
    _, local = anyio.run(in_process, str(site), asked)
    row["search_in_process_s"] = percentiles(local)
    if args.served:
        url, stop = served(site)
        try:
            row["startup_url_s"] = anyio.run(over_mcp, url, asked[:10])[0]
        finally:
            stop()
    row["samples"] = {"startup": startups, "search_mcp": mcp_samples, "search_in_process": local}
    return row


def main() -> int:
    parser = argparse.ArgumentParser(prog="python bench/bench_docs_server.py", description=__doc__)
    parser.add_argument("--tools", default="1000", help="comma-separated tool counts (default 1000)")
    parser.add_argument("--searches", type=int, default=200, help="searches per run (default 200)")
    parser.add_argument("--runs", type=int, default=3, help="server starts per tool count (default 3)")
    parser.add_argument("--served", action="store_true", help="also start from the portal's URL (mcp-portal serve)")
    parser.add_argument("--json", type=Path, help="write every sample to this file")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-docs-server-") as tmp:
        for n in (int(v) for v in args.tools.split(",")):
            rows.append(bench(n, args, Path(tmp)))

    def ms(seconds: float) -> str:
        return f"{seconds * 1000:.1f}"

    print("| tools | twins | start-up (s) | search over MCP, median / p95 / max (ms) | in process, median / p95 (ms) |"
          + (" start-up from URL (s) |" if args.served else ""))  # fmt: skip
    print("| ---: | ---: | ---: | --- | --- |" + (" ---: |" if args.served else ""))
    for row in rows:
        mcp, local = row["search_mcp_s"], row["search_in_process_s"]
        line = (
            f"| {row['tools']} | {row['twins']} | {row['startup_s']:.2f} | {ms(mcp['median'])} / {ms(mcp['p95'])} / "
            f"{ms(mcp['max'])} | {ms(local['median'])} / {ms(local['p95'])} |"
        )
        print(line + (f" {row['startup_url_s']:.2f} |" if args.served else ""))
    print(f"\n{args.searches} searches per run, {args.runs} runs; queries with at least one hit: "
          + ", ".join(f"{r['tools']}: {r['queries_with_hits']:.0%}" for r in rows))  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
