"""Full-text search: a Pagefind index per locale, built in memory as part of ``build``.

Pagefind (PyPI ``pagefind[extended]``, whose binary ships in the wheel) splits the
index by each page's ``<html lang>``, so every locale searches only its own pages,
with its own stemming.  Only the main content is indexed, not the raw schemas.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anyio

from generator.errors import PortalError

ENTRY = "pagefind/pagefind-entry.json"


async def _index(pages: Mapping[str, str], work: Path, out: Path) -> None:
    from pagefind.index import IndexConfig, PagefindIndex

    # One add_directory call: the Python wrapper waits ~0.1 s per request, so adding pages
    # one by one cost 0.1 s a page (5 minutes for 1,000 tools); a directory is one request.
    for path, html in pages.items():
        target = work / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html, encoding="utf-8")
    config = IndexConfig(
        root_selector="main",
        exclude_selectors=["details", "pre", ".notice", ".crumbs", "table.fields .constraints"],
        keep_index_url=True,
        output_path=str(out),
    )
    async with PagefindIndex(config=config) as index:
        await index.add_directory(str(work))


def _run(pages: Mapping[str, str]) -> dict[str, bytes]:
    with tempfile.TemporaryDirectory(prefix="mcp-portal-search-") as tmp:
        out = Path(tmp) / "pagefind"
        try:
            # A thread of its own: callers may already run an event loop (Playwright, notebooks).
            with ThreadPoolExecutor(max_workers=1) as pool:
                pool.submit(anyio.run, _index, pages, Path(tmp) / "site", out).result()
        except Exception as exc:  # boundary: the Pagefind service is a subprocess that can fail
            raise PortalError(
                f"Building the search index with Pagefind failed ({type(exc).__name__}: {exc}). "
                f"Reinstall mcp-portal (it needs pagefind[extended]) or build with --no-search."
            ) from None
        return {f"pagefind/{p.relative_to(out).as_posix()}": p.read_bytes() for p in out.rglob("*") if p.is_file()}


def search_files(pages: Mapping[str, str]) -> dict[str, bytes]:
    """The ``pagefind/`` bundle for *pages* (site path -> HTML), as site path -> bytes."""
    for _attempt in range(3):
        files = _run(pages)
        # Pagefind has been seen to leave a file empty now and then; a retry gives the full set.
        if files and all(files.values()):
            break
    else:
        empty = sorted(path for path, data in files.items() if not data)
        raise PortalError(
            f"Pagefind wrote incomplete search files three times ({', '.join(empty[:3]) or 'no files'}). "
            f"Build again, or build with --no-search."
        )
    # Pagefind writes its language map in hash-map order; sort it so builds are byte-identical.
    if ENTRY in files:
        entry = json.loads(files[ENTRY])
        files[ENTRY] = json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return files
