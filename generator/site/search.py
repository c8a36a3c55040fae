"""Full-text search: a Pagefind index per locale, built as part of ``build``.

Pagefind (PyPI ``pagefind[extended]``, whose binary ships in the wheel) splits the
index by each page's ``<html lang>``, so every locale searches only its own pages,
with its own stemming.  Only the main content is indexed, not the raw schemas.
It runs once per locale directory, one locale after another, and the runs' files are
merged into what one run over every page writes (:func:`_run`): half the peak memory.

The Pagefind command line (``python -m pagefind``, the wheel's documented entry
point) indexes the pages the build has just written to the staging directory
(:func:`index_site`), through hard links made in one order (:func:`_in_order`), so they
are neither held in memory nor copied.
Not the Python wrapper's long-running service: that wrapper ends the
service with SIGTERM as soon as it answers ``WriteFiles``, while Pagefind's async
file writes may still be in flight, so a file could be left empty or cut short
(seen in CI as a ``pagefind-ui.js`` that differed between two identical builds).
The command line exits on its own only after every write has finished.

A locale with more pages than one run should hold is indexed in parts, a Pagefind run each
(:mod:`generator.site.search_parts`): the first part joins the merged index, each later one is a
bundle of its own under ``pagefind/parts/``, which the search script merges into the search as it
loads (Pagefind's ``mergeIndex``), as ``pagefind/parts.json`` lists.

Pagefind's output is a pure function of its version, its settings, the pages it reads and the
order it finds them in, which :func:`_in_order` fixes on each file system (two builds are
byte-identical), so a build whose indexed pages are all the previous site's, byte for byte,
reuses that site's index files instead of running it again (:func:`search_key`; the record of
which files those are lives in the render cache).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path

from generator.cache.reuse import Reuse
from generator.errors import PortalError
from generator.publish.staging import Staging
from generator.site import search_parts

ENTRY = "pagefind/pagefind-entry.json"

TIMEOUT = 600.0
"""Seconds one Pagefind run (one locale) may take before the build gives up (1,000 tools: about 3 s a locale)."""

CONFIG: dict[str, object] = {
    "root_selector": "main",
    # Indexed: what tells one page from another, which is what readers search for: a tool's name,
    # title, description and notes, its parameters' and result fields' names and descriptions, the
    # author's own troubleshooting rows, and every other page's text. Not indexed: raw schemas and
    # code, the furniture every page repeats (notice, breadcrumbs, contents, pager, section links,
    # badges, table headers), and what every tool page says in the same words with other values
    # filled in: the stock sentences (``.stock``, on prompt and resource pages too), the access
    # sentence, where the tool is available, its annotation hints, the types and required marks of
    # fields and prompt arguments, the fields' rules, the troubleshooting rows its declarations
    # derive, and the pointer to the errors every tool shares (indexed once, on the Connecting
    # page). Those were most of the words, and so most of Pagefind's time (docs/performance.md),
    # without finding any page a reader could not find by its own words.
    "exclude_selectors": [
        "details",
        "pre",
        ".notice",
        ".crumbs",
        ".toc",
        ".pager",
        ".anchor",
        ".badge",
        ".verbatim-note",
        ".stock",
        ".access",
        ".profiles",
        ".endpoints",
        "table.hints",
        "thead",
        "td.type",
        "td.req",
        "table.fields .constraints",
        "tr.derived",
        ".trouble-common",
    ],
    "keep_index_url": True,
    "quiet": True,
}
"""Pagefind's settings (the site and output paths are added per build), written as ``pagefind.json``."""


def _failure(reason: str) -> PortalError:
    return PortalError(
        f"Building the search index with Pagefind failed: {reason}. "
        f"Reinstall mcp-portal (it needs pagefind[extended]) or build with --no-search."
    )


PAGES = "*/**/index.html"
"""What is indexed: every page of every locale (``L/index.html``, ``L/tools/x/index.html``...),
not the entry page that only redirects, the 404 pages or anything that is not a page."""


OUTPUT = "pagefind"
"""Where the index goes, below the site root."""

PARTS = "parts"
"""Where, below :data:`OUTPUT`, the bundles of a split locale's later parts go (``parts/en-2/``...)."""

PARTS_LIST = "parts.json"
"""What the search script reads before the first search, below :data:`OUTPUT`: for each split locale's
code, ``bundles`` (its later parts' paths below :data:`OUTPUT`, in order) and ``skip`` (the ids of
results to drop: :func:`generator.site.search_parts.vocabulary_ids`); ``{}`` when none is split."""


def indexed(path: str) -> bool:
    """Whether Pagefind reads the site file at *path*: what :data:`PAGES` matches."""
    return path.endswith("/index.html")


def _pagefind_version() -> str | None:
    """The versions of the Pagefind wrapper and binary packages, or None when either is unknown."""
    try:
        return f"{metadata.version('pagefind')} {metadata.version('pagefind_bin_extended')}"
    except metadata.PackageNotFoundError:
        return None


def search_key(hashes: Mapping[str, str]) -> str | None:
    """The hash of everything the index is made from: Pagefind's version, its settings, how a locale is
    split into parts, and every page it reads (path and sha256, from *hashes*); None when Pagefind's
    version cannot be told."""
    version = _pagefind_version()
    if version is None:
        return None
    digest = hashlib.sha256(f"pagefind {version}\0".encode())
    layout = {"glob": PAGES, "output": OUTPUT, "part_pages": search_parts.PART_PAGES, "parts": PARTS_LIST}
    digest.update(json.dumps(CONFIG | layout, sort_keys=True).encode())
    for path in sorted(p for p in hashes if indexed(p)):
        digest.update(f"\0{path}\0{hashes[path]}".encode())
    return digest.hexdigest()


def index_site(staging: Staging, cache: Reuse | None = None) -> bool:
    """Index the pages already written to *staging*; Pagefind's files join it (and its hashes).
    True when the previous site's index was reused.

    With a *cache* that recorded an index of exactly these pages, and a previous site that still holds
    every file of it, those files are reused (:func:`_reuse`). Otherwise Pagefind runs: it reads one
    directory, so the pages a rebuild left in the previous site are linked in first.
    """
    key = search_key(staging.hashes) if cache is not None else None
    if cache is not None and key is not None:
        files = cache.search_files(key)
        if files is not None and _reuse(staging, files):
            return True
    _run(staging)
    if cache is not None and key is not None:
        cache.write_search_files(key, {p: h for p, h in staging.hashes.items() if p.startswith(OUTPUT + "/")})
    return False


def _reuse(staging: Staging, files: Mapping[str, str]) -> bool:
    """Put the previous site's index *files* (path -> sha256) into *staging*, when it holds every one of
    them intact; False, with nothing of them left in *staging*, when it does not."""
    if not files or any(not p.startswith(OUTPUT + "/") or staging.unchanged.get(p) != h for p, h in files.items()):
        return False
    previous = staging.previous
    if previous is None:
        return False
    for path, digest in sorted(files.items()):
        if not staging.write_known(path, digest, functools.partial(_read, previous / path, digest)):
            for placed in files:  # a file gone since the previous site was checked: index afresh
                staging.hashes.pop(placed, None)
                staging.same.discard(placed)
            shutil.rmtree(staging.root / OUTPUT, ignore_errors=True)
            return False
    return True


def _read(path: Path, digest: str) -> bytes | None:
    """The bytes of *path* when they still have the sha256 *digest*, else None."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return data if hashlib.sha256(data).hexdigest() == digest else None


def _run(staging: Staging, *, by_locale: bool = True) -> None:
    """Run Pagefind over the whole site in *staging* (made complete first) and adopt what it wrote.

    With *by_locale*, Pagefind runs once per locale directory (once per part of a locale with more
    than :data:`~generator.site.search_parts.PART_PAGES` pages), one after the other, and the
    runs' files are merged (:func:`_by_locale`): a run holds one language's words, so its peak memory
    is about half of one run over every page (at 1,000 tools, about 1 s more). The merge gives the
    files one run would have written (plus a large locale's later parts, in bundles of their own);
    when it cannot be sure of that (two runs wrote one language, or one path with different bytes),
    Pagefind runs once over every page instead.
    """
    staging.complete()
    output = staging.root / OUTPUT
    # Scratch in the staging directory, as render_pages keeps its own: a kill leaves it for the next build.
    with tempfile.TemporaryDirectory(prefix=".search-", dir=staging.root) as tmp:
        work = Path(tmp)
        site = _in_order(staging.root, sorted(p for p in staging.hashes if indexed(p) and "/" in p), work / "pages")
        locales = _locale_pages(staging.hashes) if by_locale else None
        if locales is None or not _by_locale(site, locales, work, output):
            shutil.rmtree(output, ignore_errors=True)
            (work / "all").mkdir()
            config = CONFIG | {"site": str(site), "output_path": str(output), "glob": PAGES}
            _pagefind(config, work / "all")
            _write_json(output / PARTS_LIST, {})
    files = {p.relative_to(output).as_posix(): p for p in sorted(output.rglob("*")) if p.is_file()}
    empty = sorted(name for name, p in files.items() if p.stat().st_size == 0)
    if not files or empty:
        raise _failure(f"it wrote incomplete files ({', '.join(empty[:3]) or 'no files'})")
    for entry in sorted(output.rglob("pagefind-entry.json")):
        # Pagefind writes its language map in hash-map order; sort it so builds are byte-identical.
        _write_json(entry, json.loads(entry.read_bytes()))
    staging.adopt(OUTPUT)


def _in_order(root: Path, pages: Sequence[str], view: Path) -> Path:
    """The *pages* below *root* (site paths, sorted), linked into the new directory *view* one by one in
    that order, and *view*; a copy where a link cannot be made.

    Pagefind numbers pages in the order it finds them, which is the order a directory lists its entries.
    Render workers write pages in whatever order they finish; a file system that lists entries in the
    order they were made (tmpfs, btrfs, XFS) would so give two builds of the same pages two indexes.
    Made in one order, the pages are listed in one order on such file systems. ext4 lists entries in
    the order of a hash of their names, seeded per file system: the same order for every build on it.
    """
    for path in pages:
        target = view / path
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(root / path, target, follow_symlinks=False)
        except OSError:  # a file system without hard links
            shutil.copyfile(root / path, target, follow_symlinks=False)
    return view


def same_index(built: Mapping[str, bytes], fresh: Mapping[str, bytes]) -> bool:
    """Whether the search bundle of the site files *built* (site path -> bytes) is the one of *fresh*,
    or holds the same in another page order: Pagefind read the pages in another file system's order
    (:func:`_in_order`).

    The same pages with the same text give the same fragments (each page's indexed text, named by its
    hash) and the same scripts, whatever the order; the order shows only in the index, filter and meta
    files (numbered pages, named by their hashes) and in the meta files' names in each entry. So: every
    other file is the same, each directory has as many index, filter and meta files, and the entries are
    the same but for those names.
    """
    mine, theirs = _bundle(built), _bundle(fresh)
    if mine == theirs:
        return True
    if {p: d for p, d in mine.items() if not _in_page_order(p)} != {
        p: d for p, d in theirs.items() if not _in_page_order(p)
    }:
        return False
    entries = sorted(p for p in theirs if p.endswith("/pagefind-entry.json"))
    if _kinds(mine) != _kinds(theirs) or entries != sorted(p for p in mine if p.endswith("/pagefind-entry.json")):
        return False
    return all(_unnamed(theirs[p]) is not None and _unnamed(mine[p]) == _unnamed(theirs[p]) for p in entries)


def _bundle(files: Mapping[str, bytes]) -> dict[str, bytes]:
    return {path: data for path, data in files.items() if path.startswith(OUTPUT + "/")}


def _kinds(bundle: Mapping[str, bytes]) -> Counter[str]:
    """How many files of each kind each directory of *bundle* holds, of those :func:`_in_page_order` names."""
    return Counter(f"{p.rpartition('/')[0]} {p.rpartition('.')[2]}" for p in bundle if _in_page_order(p))


def _in_page_order(path: str) -> bool:
    """Whether Pagefind's file at *path* records pages by their number (the order they were read in)."""
    return path.endswith((".pf_meta", ".pf_index", ".pf_filter", "/pagefind-entry.json"))


def _unnamed(raw: bytes) -> object:
    """A Pagefind entry without its languages' meta file names; None when *raw* is no entry."""
    try:
        entry = json.loads(raw)
        for language in entry["languages"].values():
            language.pop("hash")
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    return entry


def _write_json(path: Path, value: object) -> None:
    """Write *value* as sorted, compact JSON (UTF-8)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    path.write_bytes(text.encode("utf-8"))


_LOCALE_DIR = re.compile(r"[A-Za-z0-9_-]+")
"""A directory name that is safe to put in a Pagefind glob as it is (every locale code is one)."""


def _locale_pages(hashes: Mapping[str, str]) -> dict[str, list[str]] | None:
    """The pages :data:`PAGES` matches, sorted, by top-level directory (the locales); None when there
    are none or a directory's name is not plain (then one run over every page is simpler)."""
    pages: dict[str, list[str]] = {}
    for path in sorted(p for p in hashes if indexed(p) and "/" in p):
        pages.setdefault(path.split("/", 1)[0], []).append(path)
    if not pages or not all(_LOCALE_DIR.fullmatch(name) for name in pages):
        return None
    return pages


def _by_locale(site: Path, locales: Mapping[str, Sequence[str]], work: Path, output: Path) -> bool:
    """Pagefind runs per locale directory (per part of a large one), merged into *output*; False (with
    *output* left unwritten or partly written) when the runs cannot be merged into what one run writes.

    The first part of every locale joins the merged index (:func:`_merge`); every later part becomes a
    bundle of its own, and :data:`PARTS_LIST` lists them (:mod:`generator.site.search_parts`).
    """
    runs: list[Path] = []
    listed: dict[str, dict[str, list[str]]] = {}
    later: list[tuple[Path, str]] = []
    for code, pages in locales.items():
        globs = search_parts.part_globs(site, code, pages)
        split = len(globs) > 1
        with search_parts.vocabulary_written(site, code, pages) if split else contextlib.nullcontext():
            for number, glob in enumerate(globs, 1):
                run = work / f"run-{code}-{number}"
                (work / f"config-{code}-{number}").mkdir()
                config = CONFIG | {"site": str(site), "output_path": str(run), "glob": glob}
                _pagefind(config, work / f"config-{code}-{number}")
                if split:
                    lists = listed.setdefault(code, {"bundles": [], "skip": []})
                    lists["skip"] = sorted({*lists["skip"], *search_parts.vocabulary_ids(run, code)})
                if number == 1:
                    runs.append(run)
                else:
                    name = f"{PARTS}/{code}-{number}/"
                    later.append((run, name))
                    listed[code]["bundles"].append(name)
    if not _merge(runs, output):
        return False
    for run, name in later:
        search_parts.place_part(run, output / name)
    _write_json(output / PARTS_LIST, listed)
    return True


def _merge(runs: Sequence[Path], output: Path) -> bool:
    """Move the files of per-locale Pagefind *runs* into *output*, as one run over their pages writes them.

    Each run writes its own language's index, fragments and meta file under names made from their
    hashes, the same shared files (scripts, UI, the wasm files), and a ``pagefind-entry.json`` that
    names its language. The merge keeps one copy of each shared file, which must be byte-identical in
    every run, and one entry naming every language; False when a language or a path differs between
    runs, so that the caller indexes in one run instead.
    """
    found: dict[str, Path] = {}
    languages: dict[str, object] = {}
    rest: dict[str, object] | None = None
    for run in runs:
        for file in sorted(run.rglob("*")):
            if not file.is_file() or file.is_symlink():
                continue
            name = file.relative_to(run).as_posix()
            if name == "pagefind-entry.json":
                entry = json.loads(file.read_bytes())
                named = entry.pop("languages", None) if isinstance(entry, dict) else None
                if not isinstance(named, dict) or languages.keys() & named.keys() or rest not in (None, entry):
                    return False
                languages.update(named)
                rest = entry
            elif name not in found:
                found[name] = file
            elif found[name].read_bytes() != file.read_bytes():
                return False
    if rest is None:
        return False
    for name, file in sorted(found.items()):
        target = output / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(file, target)
    (output / "pagefind-entry.json").write_text(json.dumps(rest | {"languages": languages}), encoding="utf-8")
    return True


def _pagefind(config: Mapping[str, object], work: Path) -> None:
    """Run Pagefind with *config* in the directory *work*; a failure is one paragraph. Its paths are given
    relative to *work*: they stay inside the staging directory, so Pagefind never reads the output's own path
    (which need not be UTF-8, and which Pagefind's JSON cannot hold then)."""
    relative = {key: os.path.relpath(str(config[key]), work) for key in ("site", "output_path")}
    (work / "pagefind.json").write_text(json.dumps({**config, **relative}), encoding="utf-8")
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


def search_files(pages: Mapping[str, str]) -> dict[str, bytes]:
    """The ``pagefind/`` bundle for *pages* (site path -> HTML) alone, as site path -> bytes (tests, tools)."""
    with tempfile.TemporaryDirectory(prefix="mcp-portal-pages-") as tmp:
        staging = Staging(Path(tmp))
        for path, html in sorted(pages.items()):
            staging.write(path, html.encode("utf-8"))
        index_site(staging)
        return {path: staging.read(path) for path in sorted(staging.hashes) if path.startswith("pagefind/")}
