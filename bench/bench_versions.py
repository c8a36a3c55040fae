"""What a versioned site weighs: N tools × 3 locales × V versions, against GitHub Pages' 1 GB.

    python bench/bench_versions.py                       # 1,000 tools, 5 versions, with search
    python bench/bench_versions.py --tools 100 --versions 3 --no-search --json sizes.json

It takes one snapshot of ``bench/scale_server.py`` (a real MCP server over stdio, listing the tools
of :func:`bench.scale_server.workload`) with ``mcp-portal introspect``, and derives one snapshot per
version from it: version *k* lists the tools ``10k`` to ``N + 10k`` (ten removed and ten added per
version), and in every version two in a hundred tools change (a description, or a parameter made
required). Each version is published with ``mcp-portal build --versioned --from ... --out DIR``
(en, ru and ar), one after the other into the same DIR, each as a child process timed with
``bench/rusage.py``. Then it sums the size of every file of the site (what a Pages artifact holds),
by version and by kind (pages, twins, ``llms-full.txt``, search index, snapshot and manifest), and
prints it with the distance to 1 GB (10^9 bytes; GitHub's limit is stated in GB), and what the
newest version would add again if ``latest/`` were a copy instead of its redirect pages. With
``--full-versions N`` the newest version is then published again with that option (the older
versions lose their search index and ``llms-full.txt``), and the site measured again.

Nothing is written outside a temporary directory (or ``--workdir``, which is kept).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator.snapshot.snapshot import Snapshot, load_snapshot, revised  # noqa: E402

GB = 1_000_000_000
LOCALES = "en,ru,ar"
KINDS = (
    ("pages", lambda p: p.endswith(".html")),
    ("twins", lambda p: p.endswith(".md")),
    ("llms-full", lambda p: "/llms-full" in p),
    ("search", lambda p: "/pagefind/" in p),
    ("snapshot, manifest", lambda p: p.endswith(("snapshot.json", "manifest.json"))),
)


def portal() -> list[str]:
    return [sys.executable, "-m", "generator"]


def introspect(tools: int, target: Path) -> Snapshot:
    """One snapshot of the scale server with *tools* tools."""
    server = f"{sys.executable} {ROOT / 'bench' / 'scale_server.py'} --tools {tools}"
    subprocess.run([*portal(), "introspect", "--stdio", server, "-o", str(target)], check=True, cwd=ROOT)
    return load_snapshot(target)


def version_of(base: Snapshot, k: int, tools: int) -> Snapshot:
    """Version *k*: tools ``10k`` to ``tools + 10k`` of *base*, two in a hundred of them changed."""
    chosen = []
    for i, tool in enumerate(base.tools[10 * k : tools + 10 * k], 10 * k):
        if k and i % 100 == k:  # a description changed
            tool = dict(tool, description=f"{tool['description']} Revised in version 1.{k}.")
        elif k and i % 100 == 50 + k:  # a parameter made required: a breaking change
            schema = dict(tool["inputSchema"])
            schema["required"] = [*schema.get("required", []), *list(schema["properties"])[:1]]
            tool = dict(tool, inputSchema=schema)
        chosen.append(tool)
    names = {tool["name"] for tool in chosen}
    records = tuple(dataclasses.replace(r, tools=tuple(n for n in r.tools if n in names)) for r in base.endpoints)
    label = f"1.{k}.0"
    return revised(base, tools=tuple(chosen), endpoints=records, server=dict(base.server, version=label),
                   capability_version=label)  # fmt: skip


def measure(out: Path) -> dict[str, Any]:
    """Every file of the site by where it is (a version, ``latest``, the top) and, within versions, by kind."""
    sizes: dict[str, Any] = {"total": 0, "files": 0, "versions": {}, "latest": 0, "top": 0, "kinds": {}}
    for path in out.rglob("*"):
        if not path.is_file() or path.is_symlink():
            continue
        relative = path.relative_to(out).as_posix()
        size = path.stat().st_size
        sizes["total"] += size
        sizes["files"] += 1
        head = relative.split("/")[0]
        if "/" not in relative:
            sizes["top"] += size
        elif head == "latest":
            sizes["latest"] += size
        else:
            sizes["versions"][head] = sizes["versions"].get(head, 0) + size
            kind = next((name for name, test in KINDS if test(relative)), "other")
            sizes["kinds"][kind] = sizes["kinds"].get(kind, 0) + size
    return sizes


def publish(args: argparse.Namespace, work: Path, k: int, name: str, *extra: str) -> dict[str, Any]:
    """Publish version 1.*k*.0 into ``work/site`` as a child process; its wall time and peak RSS."""
    result = work / f"{name}.json"
    search = [] if args.search else ["--no-search"]
    cmd = [*portal(), "build", "--versioned", "--from", str(work / f"1.{k}.0.json"), "--out", str(work / "site"),
           "--locales", LOCALES, "--quiet", "--no-cache", *search, *extra]  # fmt: skip
    env = dict(os.environ, SOURCE_DATE_EPOCH=str(1_767_225_600 + k * 86_400 * 30))
    with open(work / f"{name}.log", "wb") as log:  # the stage lines and warnings, kept apart
        subprocess.run([sys.executable, "-I", "-S", str(ROOT / "bench" / "rusage.py"), str(result), *cmd],
                       check=True, cwd=ROOT, env=env, stdout=log, stderr=log)  # fmt: skip
    found: dict[str, Any] = json.loads(result.read_text(encoding="utf-8"))
    print(f"{name}: {found['wall']:.1f} s, peak RSS {found['rss_kb'] / 1024:.0f} MiB", file=sys.stderr)
    return found


def run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    base = introspect(args.tools + 10 * args.versions, work / "base.json")
    builds = []
    for k in range(args.versions):
        (work / f"1.{k}.0.json").write_text(version_of(base, k, args.tools).to_json(), encoding="utf-8")
        builds.append(publish(args, work, k, f"build-1.{k}.0"))
    found = {"tools": args.tools, "versions": args.versions, "search": args.search, "builds": builds,
             "sizes": measure(work / "site")}  # fmt: skip
    if args.full_versions:  # the newest version published again, the older ones lightened
        newest = args.versions - 1
        found["lightened"] = publish(args, work, newest, "full-versions", "--full-versions", str(args.full_versions))
        found["lightened_sizes"] = measure(work / "site")
        found["full_versions"] = args.full_versions
    return found


def report(found: dict[str, Any]) -> str:
    sizes = found["sizes"]
    mb = 1_000_000
    newest = max(sizes["versions"].items(), key=lambda item: [int(n) for n in item[0].split(".")])
    lines = [
        f"{found['tools']:,} tools × 3 locales × {found['versions']} versions"
        f"{'' if found['search'] else ' (no search)'}: {sizes['files']:,} files",
        "",
        "| part | MB |",
        "| --- | --- |",
        *(f"| version {label} | {size / mb:,.1f} |" for label, size in sorted(sizes["versions"].items())),
        f"| `latest/` (redirect pages) | {sizes['latest'] / mb:,.1f} |",
        f"| top level (versions.json, index.html, llms.txt, changes.xml...) | {sizes['top'] / mb:,.2f} |",
        f"| **the whole site** | **{sizes['total'] / mb:,.1f}** ({sizes['total'] / GB * 100:.0f} % of 1 GB) |",
        "",
        "Within the versions: " + ", ".join(f"{k} {v / mb:,.1f} MB" for k, v in sorted(sizes["kinds"].items())) + ".",
        f"`latest/` as a copy of the newest version would add {newest[1] / mb:,.1f} MB "
        f"(the site would be {(sizes['total'] - sizes['latest'] + newest[1]) / mb:,.1f} MB).",
        "Builds (wall, peak RSS): "
        + ", ".join(f"{b['wall']:.1f} s / {b['rss_kb'] / 1024:.0f} MiB" for b in found["builds"])
        + ".",
    ]
    if "lightened_sizes" in found:
        light = found["lightened_sizes"]
        lines.append(
            f"With --full-versions {found['full_versions']} (the newest published again, "
            f"{found['lightened']['wall']:.1f} s): **{light['total'] / mb:,.1f} MB** "
            f"({light['total'] / GB * 100:.0f} % of 1 GB); versions "
            + ", ".join(f"{label} {size / mb:,.1f}" for label, size in sorted(light["versions"].items()))
            + " MB."
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python bench/bench_versions.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tools", type=int, default=1000, help="tools per version (default 1000)")
    parser.add_argument("--versions", type=int, default=5, help="versions published (default 5)")
    parser.add_argument("--no-search", dest="search", action="store_false", help="build without the search index")
    parser.add_argument("--full-versions", type=int, help="then publish the newest again with --full-versions N")
    parser.add_argument("--workdir", type=Path, help="keep the snapshots and the site here")
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    args = parser.parse_args(argv)
    if args.workdir:
        args.workdir.mkdir(parents=True, exist_ok=True)
        found = run(args, args.workdir)
    else:
        with tempfile.TemporaryDirectory(prefix="mcp-portal-versions-") as tmp:
            found = run(args, Path(tmp))
    print(report(found))
    if args.json:
        args.json.write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
