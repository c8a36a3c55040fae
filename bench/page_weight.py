"""Page weight: what a reader downloads, per page kind and locale, and what is shared.

    python bench/page_weight.py               # demo portal (golden snapshot) + a 1,000-tool server
    python bench/page_weight.py --tools 2000  # a larger synthetic server

Builds the demo portal in memory from tests/golden/demo.snapshot.json, with search, and
prints for each page kind and locale the raw and gzip (level 9) size; then the shared
assets (portal.css, portal.js, each locale's nav.js, the Pagefind UI and runtime, and the
search index per locale); then builds synthetic servers without search and shows that a
tool page does not grow with the number of tools while nav.js and the index page do.
Nothing is written to disk.
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_build import synthetic  # noqa: E402
from generator.commands.build import site_files  # noqa: E402
from generator.commands.demo_portal import demo_config  # noqa: E402
from generator.config.portal import PortalConfig  # noqa: E402
from generator.snapshot.snapshot import load_snapshot  # noqa: E402

SNAPSHOT = ROOT / "tests" / "golden" / "demo.snapshot.json"
LOCALES = ("en", "ru", "ar")


def gz(data: bytes) -> int:
    # mtime=0: the figure depends on the bytes only.
    return len(gzip.compress(data, compresslevel=9, mtime=0))


def kb(n: float) -> str:
    return f"{n / 1000:7.1f} KB"


def row(label: str, blobs: Iterable[bytes]) -> str:
    items = list(blobs)
    raw = sum(len(b) for b in items)
    packed = sum(gz(b) for b in items)
    count = f" ({len(items)} files)" if len(items) != 1 else ""
    return f"  {label:<40} {kb(raw)}  gzip {kb(packed)}{count}"


def spread(label: str, blobs: list[bytes]) -> str:
    sizes = sorted(len(b) for b in blobs)
    packed = sorted(gz(b) for b in blobs)
    return (
        f"  {label:<40} {kb(statistics.median(sizes))}  gzip {kb(statistics.median(packed))}"
        f"   (median of {len(sizes)}; min {kb(sizes[0]).strip()}, max {kb(sizes[-1]).strip()})"
    )


def timed(func: Callable[[], tuple[dict[str, bytes], list[str]]]) -> tuple[dict[str, bytes], float]:
    start = time.perf_counter()
    files, _ = func()
    return files, time.perf_counter() - start


def page_kinds(files: dict[str, bytes], code: str) -> list[tuple[str, list[bytes]]]:
    tools_html = [d for p, d in files.items() if p.startswith(f"{code}/tools/") and p.endswith("/index.html")]
    tools_md = [d for p, d in files.items() if p.startswith(f"{code}/tools/") and p.endswith(".md")]
    return [
        ("index.html (tool list)", [files[f"{code}/index.html"]]),
        ("connecting/index.html", [files[f"{code}/connecting/index.html"]]),
        ("tools/*/index.html", tools_html),
        ("404.html", [files[f"{code}/404.html"]]),
        ("index.md (twin)", [files[f"{code}/index.md"]]),
        ("tools/*.md (twins)", tools_md),
        ("llms.txt", [files[f"{code}/llms.txt"]]),
        ("llms-full.txt", [files[f"{code}/llms-full.txt"]]),
    ]


def report_demo() -> None:
    snapshot = load_snapshot(SNAPSHOT)
    config = demo_config(PortalConfig(base_url="https://teamspace.example/developers/"))
    files, with_search = timed(lambda: site_files(snapshot, config))
    _, without = timed(lambda: site_files(snapshot, demo_config(PortalConfig(search=False))))
    print(f"Demo portal ({len(snapshot.tools)} tools, {', '.join(LOCALES)}) from {SNAPSHOT.relative_to(ROOT)}")
    print(
        f"  {len(files)} files, {sum(len(d) for d in files.values()) / 1000:.0f} KB in all; "
        f"built in memory in {with_search:.2f} s with search, {without:.2f} s without "
        f"(Pagefind: {with_search - without:.2f} s)"
    )
    for code in LOCALES:
        print(f"\nPages, locale {code}")
        for label, blobs in page_kinds(files, code):
            print(spread(label, blobs) if len(blobs) > 1 else row(label, blobs))
    print("\nSite root")
    for path in ("index.html", "404.html", "llms.txt", "snapshot.json", "manifest.json", "sitemap.xml"):
        print(row(path, [files[path]]))

    print("\nShared assets (cached across pages)")
    print(row("assets/portal.css", [files["assets/portal.css"]]))
    print(row("assets/portal.js", [files["assets/portal.js"]]))
    for code in LOCALES:
        print(row(f"{code}/nav.js", [files[f"{code}/nav.js"]]))
    print("\nSearch (Pagefind). Nothing is requested until a reader opens search: then portal.js imports")
    print("pagefind.js (which starts pagefind-worker.js) and the locale's files.")
    print("Index, fragment and wasm files are gzip-compressed by Pagefind already: raw size = transfer size.")
    for name in ("pagefind.js", "pagefind-worker.js"):
        print(row(f"pagefind/{name}", [files[f"pagefind/{name}"]]))
    unused = [p for p in files if p.startswith("pagefind/pagefind-component-ui") or "modular-ui" in p]
    unused += [p for p in files if p in ("pagefind/pagefind-ui.js", "pagefind/pagefind-ui.css")]
    print(row("default, component and modular UIs (not used)", [files[p] for p in sorted(unused)]))
    print(row("pagefind-highlight.js (not used)", [files["pagefind/pagefind-highlight.js"]]))
    print(row("wasm.unknown.pagefind (not used)", [files["pagefind/wasm.unknown.pagefind"]]))
    for code in LOCALES:
        wasm = files[f"pagefind/wasm.{code}.pagefind"]
        index = [d for p, d in files.items() if p.startswith((f"pagefind/index/{code}_", f"pagefind/pagefind.{code}_"))]
        fragments = [d for p, d in files.items() if p.startswith(f"pagefind/fragment/{code}_")]
        print(row(f"search index {code} (meta + index chunks)", index))
        print(row(f"search fragments {code} (one per page)", fragments))
        print(row(f"pagefind/wasm.{code}.pagefind", [wasm]))
    bundle = [d for p, d in files.items() if p.startswith("pagefind/")]
    print(row("pagefind/ in all", bundle))
    empty = sorted(p for p, d in files.items() if not d)
    if empty:
        # Seen now and then: Pagefind's bundle read back with some files still empty.
        print(f"  WARNING: empty files in this build (figures above are wrong for them): {', '.join(empty)}")


def report_growth(n: int) -> None:
    print(f"\nGrowth with the number of tools (synthetic servers, no search, {', '.join(LOCALES)})")
    demo_files, _ = site_files(load_snapshot(SNAPSHOT), demo_config(PortalConfig(search=False)))
    demo_tools = sorted(
        len(d) for p, d in demo_files.items() if p.startswith("en/tools/") and p.endswith("/index.html")
    )
    print(
        f"  demo tool pages (en, no base URL): median {kb(statistics.median(demo_tools)).strip()}, "
        f"{kb(demo_tools[0]).strip()} to {kb(demo_tools[-1]).strip()}"
    )
    tool = "tool_00005"
    header = f"  {'tools':>6} {'build s':>8} {'en tool page':>14} {'gzip':>10} {'en nav.js':>12} {'en index.html':>15}"
    print(header)
    for count in (10, n):
        snapshot = synthetic(count)
        files, seconds = timed(lambda: site_files(snapshot, PortalConfig(search=False)))  # noqa: B023 - called at once
        page = files[f"en/tools/{tool}/index.html"]
        print(
            f"  {count:>6} {seconds:>8.2f} {len(page):>11,} B {gz(page):>8,} B "
            f"{len(files['en/nav.js']):>10,} B {len(files['en/index.html']):>13,} B"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tools", type=int, default=1000, help="tools of the large synthetic server (default 1000)")
    args = parser.parse_args()
    report_demo()
    report_growth(args.tools)
    return 0


if __name__ == "__main__":
    sys.exit(main())
