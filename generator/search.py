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


async def _index(pages: Mapping[str, str], out: Path) -> None:
    from pagefind.index import IndexConfig, PagefindIndex

    config = IndexConfig(
        root_selector="main",
        exclude_selectors=["details", "pre", ".notice", ".crumbs", "table.fields .constraints"],
        keep_index_url=True,
        output_path=str(out),
    )
    async with PagefindIndex(config=config) as index:
        for path, html in sorted(pages.items()):
            await index.add_html_file(content=html, url="/" + path)


def search_files(pages: Mapping[str, str]) -> dict[str, bytes]:
    """The ``pagefind/`` bundle for *pages* (site path -> HTML), as site path -> bytes."""
    with tempfile.TemporaryDirectory(prefix="mcp-portal-search-") as tmp:
        out = Path(tmp) / "pagefind"
        try:
            # A thread of its own: callers may already run an event loop (Playwright, notebooks).
            with ThreadPoolExecutor(max_workers=1) as pool:
                pool.submit(anyio.run, _index, pages, out).result()
        except Exception as exc:  # boundary: the Pagefind service is a subprocess that can fail
            raise PortalError(
                f"Building the search index with Pagefind failed ({type(exc).__name__}: {exc}). "
                f"Reinstall mcp-portal (it needs pagefind[extended]) or build with --no-search."
            ) from None
        files = {f"pagefind/{p.relative_to(out).as_posix()}": p.read_bytes() for p in out.rglob("*") if p.is_file()}
    # Pagefind writes its language map in hash-map order; sort it so builds are byte-identical.
    if ENTRY in files:
        entry = json.loads(files[ENTRY])
        files[ENTRY] = json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return files
