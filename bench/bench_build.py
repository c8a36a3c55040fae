"""Benchmark: how long a build takes and how many files it writes.

    python bench/bench_build.py              # demo portal (live, then from its snapshot)
    python bench/bench_build.py --tools 1000 # plus a synthetic server with 1,000 tools

Prints wall-clock figures (median of N runs) for: introspecting the demo over stdio alone,
introspecting its three endpoints (stdio and two HTTP profiles) concurrently, rendering the
demo portal from its snapshot, a whole live build, and rendering a large synthetic snapshot.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generator.commands.build import build, site_files
from generator.commands.demo_portal import demo_config, demo_endpoints, demo_server
from generator.config.portal import PortalConfig
from generator.connect.introspect import introspect, introspect_all
from generator.demo.launch import running_http_demo
from generator.snapshot.snapshot import Snapshot, new_snapshot


def timed(label: str, runs: int, func) -> float:  # type: ignore[no-untyped-def]
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        func()
        samples.append(time.perf_counter() - start)
    median = statistics.median(samples)
    print(f"{label:<48} median {median * 1000:8.1f} ms   min {min(samples) * 1000:8.1f} ms   ({runs} runs)")
    return median


def synthetic(n: int) -> Snapshot:
    tools = []
    for i in range(n):
        tools.append(
            {
                "name": f"tool_{i:05d}",
                "description": f"Synthetic tool number {i}. It looks up records by id and returns them.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "format": "uuid", "description": "Record id"},
                        "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
                        "filter": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                    },
                    "required": ["id"],
                },
                "outputSchema": {
                    "type": "object",
                    "properties": {
                        "items": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {"id": {"type": "string"}, "score": {"type": "number"}},
                                "required": ["id"],
                            },
                        }
                    },
                    "required": ["items"],
                },
                "annotations": {"readOnlyHint": i % 3 == 0},
            }
        )
    return new_snapshot(
        protocol_version="2026-07-28",
        server={"name": "synthetic", "version": "1.0.0"},
        tools=tuple(tools),
        capability_version="1.0.0",
        transport="stdio",
        endpoint="synthetic",
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tools", type=int, default=0, help="also render a synthetic server with this many tools")
    args = parser.parse_args()
    config = demo_config(PortalConfig())
    timed("introspect demo over stdio (one endpoint)", args.runs, lambda: introspect(demo_server(), config.limits))
    with running_http_demo() as base:
        specs = demo_endpoints(base)
        snapshot = introspect_all(specs, config.limits)
        timed("introspect demo's 3 endpoints concurrently", args.runs, lambda: introspect_all(specs, config.limits))
    files, _ = site_files(snapshot, config)
    print(f"demo portal: {len(files)} files, {sum(len(d) for d in files.values()) / 1024:.0f} KiB")
    timed("render demo portal (en, ru, ar) in memory", args.runs, lambda: site_files(snapshot, config))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "site"
        timed(
            "mcp-portal build (demo, 3 endpoints, live, to disk)", args.runs, lambda: build(PortalConfig(out=str(out)))
        )
    if args.tools:
        big = synthetic(args.tools)
        big_files, _ = site_files(big, PortalConfig())
        print(
            f"synthetic portal: {args.tools} tools, {len(big_files)} files, "
            f"{sum(len(d) for d in big_files.values()) / 1024 / 1024:.1f} MiB"
        )
        timed(
            f"render {args.tools}-tool portal in memory",
            max(1, args.runs // 5),
            lambda: site_files(big, PortalConfig()),
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
