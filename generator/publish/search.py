"""Full-text search: a Pagefind index per locale, built as part of ``build``.

Pagefind (PyPI ``pagefind[extended]``, whose binary ships in the wheel) splits the
index by each page's ``<html lang>``, so every locale searches only its own pages,
with its own stemming.  Only the main content is indexed, not the raw schemas.

The pages are written to a private temporary directory and the Pagefind command
line indexes them there (``python -m pagefind``, the wheel's documented entry
point).  Not the Python wrapper's long-running service: that wrapper ends the
service with SIGTERM as soon as it answers ``WriteFiles``, while Pagefind's async
file writes may still be in flight, so a file could be left empty or cut short
(seen in CI as a ``pagefind-ui.js`` that differed between two identical builds).
The command line exits on its own only after every write has finished.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from generator.errors import PortalError

ENTRY = "pagefind/pagefind-entry.json"

TIMEOUT = 600.0
"""Seconds Pagefind may take before the build gives up (1,000 tools index in about 10 s)."""

CONFIG = {
    "site": "site",
    "output_path": "pagefind",
    "root_selector": "main",
    "exclude_selectors": ["details", "pre", ".notice", ".crumbs", "table.fields .constraints"],
    "keep_index_url": True,
    "quiet": True,
}
"""Pagefind's configuration, written as ``pagefind.json`` in the working directory it runs in."""


def _failure(reason: str) -> PortalError:
    return PortalError(
        f"Building the search index with Pagefind failed: {reason}. "
        f"Reinstall mcp-portal (it needs pagefind[extended]) or build with --no-search."
    )


def _run(pages: Mapping[str, str], work: Path) -> dict[str, bytes]:
    for path, html in pages.items():
        target = work / "site" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html, encoding="utf-8")
    (work / "pagefind.json").write_text(json.dumps(CONFIG), encoding="utf-8")
    # Pagefind also reads PAGEFIND_* variables; the build must not depend on the caller's shell.
    env = {key: value for key, value in os.environ.items() if not key.upper().startswith("PAGEFIND_")}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pagefind"],
            cwd=work,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise _failure(f"it was still running after {TIMEOUT:.0f} s") from None
    except OSError as exc:
        raise _failure(f"{type(exc).__name__}: {exc}") from None
    if done.returncode != 0:
        said = (done.stderr or done.stdout).decode("utf-8", "replace").strip().splitlines()
        raise _failure(f"exit code {done.returncode}" + (f" ({said[-1][:300]})" if said else ""))
    out = work / "pagefind"
    return {f"pagefind/{p.relative_to(out).as_posix()}": p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def search_files(pages: Mapping[str, str]) -> dict[str, bytes]:
    """The ``pagefind/`` bundle for *pages* (site path -> HTML), as site path -> bytes."""
    with tempfile.TemporaryDirectory(prefix="mcp-portal-search-") as tmp:
        files = _run(pages, Path(tmp))
    empty = sorted(path for path, data in files.items() if not data)
    if not files or empty:
        raise _failure(f"it wrote incomplete files ({', '.join(empty[:3]) or 'no files'})")
    # Pagefind writes its language map in hash-map order; sort it so builds are byte-identical.
    if ENTRY in files:
        entry = json.loads(files[ENTRY])
        files[ENTRY] = json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return files
