"""The render cache: what a tool's (or a prompt's, a resource's) pages rendered to, by the hash of what went in.

A rebuild after one tool changed should cost that tool, not the site. Each documented thing's
pages (its HTML page, its Markdown twin and the twin's copy for ``llms-full.txt``, in every
locale) and the warnings its examples gave are kept in one entry, named by a content hash of
everything those pages are made from:

- the *site key*: the installed mcp-portal code and the versions of the libraries that shape its
  output (:func:`generator.cache.keys.code_digest`); every shipped and theme template and catalog
  file, found through symbolic links as the loaders find them;
  the configuration (paths, limits, locales, title, base URL...) together with the contents of
  the overlays and translations directories, the OpenAPI document and the previous snapshot;
  and the snapshot without its tools' details (the server, the endpoints with their variants,
  the prompts and resources, every tool's name, which decides the pages' file names);
- the thing's own JSON, exactly as the server sent it (its keys in the order they came);
- the JSON of the tools its page links to with their summary (an overlay's related tools).

So a change to anything a page shows changes its key, and the entry is simply not found. A
changed template, catalog, configuration, generator code or library version changes every key. Pages made
from the whole site (the tool list, llms.txt, connecting, changes, the API page, nav.js) are
always rendered again, but the tool lists and llms.txt take each unchanged tool's rows from a
``.rows`` record named by the site key (:mod:`generator.render.listings`), and ``snapshot.json``
takes each unchanged tool's text from the ``.pieces`` record (:mod:`generator.cache.pieces`).
The search index is built again whenever a page it indexes changed; when none did, the previous
site's index files are reused (a ``.search`` record, below).

An entry (``<key>.entry``) is a JSON header with its own sha256, then the pages' bytes; the
header gives each page's sha256. A rebuild hard-links a page from the previous site when that
site holds the same hash at the same path (its bytes in the entry are then never read), and
checks every piece it does read against its hash. Over the site it last published, a rebuild
does not even open the entry of a thing whose pages that site still holds: the ``.index`` record
(:mod:`generator.cache.index`) gives their hashes, and the twins' copies are read from the
previous ``llms-full.txt``. An entry that cannot be read, does not parse,
fails a hash or does not name the pages asked for is a miss: its pages are rendered again
and the entry rewritten, so a damaged cache can cost time but never change a byte of the site.
Entries are written atomically (a temporary file, then a rename) into a pending directory, and moved
in only after the site is published: a failed build leaves the cache as it found it. After a
successful build every entry this build did not use is removed, so the cache holds one site's worth;
files the cache did not write are never touched. Records are data (JSON and checked bytes), never
code: nothing read from the cache is run or unpickled.
The default directory is ``.mcp-portal-cache/<name of --out>/`` beside ``--out``; ``--cache DIR``
puts the entries in DIR, and ``--no-cache`` renders everything. A directory someone else could write
is not used (:mod:`generator.cache.trust`).
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import re
import shutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from generator.cache.index import KeptIndex, index_bytes, read_index
from generator.cache.keys import FORMAT
from generator.cache.pieces import NAME as PIECES
from generator.cache.pieces import KeptPieces
from generator.cache.rows import MAGIC as ROWS_MAGIC
from generator.cache.rows import KeptRows, read_rows, record_lines, rows_lines, unchanged
from generator.cache.trust import make_private
from generator.config.portal import PortalConfig
from generator.render.listings import Rows

T = TypeVar("T")
_MAGIC = f"mcp-portal render cache {FORMAT}\n".encode()
_ENTRY = re.compile(r"[0-9a-f]{64}\.(?:entry|json|search|rows|pieces|parts|index)")
"""The only file names the cache writes (and so the only ones it ever removes; ``.json`` entries
are those of format 1, removed by the first build that does not use them; a ``.search`` record
lists the files of a search index, see :meth:`RenderCache.get_search`; a ``.rows`` record, named
by the site key, the rows of the site-wide lists, see :meth:`RenderCache.get_rows`; the ``.pieces``
record, each tool's text in ``snapshot.json``, see :meth:`RenderCache.snapshot_pieces`; the ``.parts``
record, named by the site key, the parts of split ``llms-full.txt`` files, see :meth:`RenderCache.get_parts`;
the ``.index`` record, named by the site key, what each entry's pages were when the site was last
published, see :meth:`RenderCache.get_index`)."""
_SEARCH_MAGIC = f"mcp-portal search record {FORMAT}\n".encode()
_PARTS_MAGIC = f"mcp-portal parts record {FORMAT}\n".encode()
_COMPILED_DIR = re.compile(r"templates-[0-9a-f]{16}")
_COMPILED_FILE = re.compile(r"[0-9a-f]{40}\.code")
"""Where earlier versions kept Jinja's compiled templates (Python byte code): a published build removes
such files and never reads them."""
PUBLISHED = "published.json"
"""The signatures of the files of the site last published with this cache
(:func:`generator.publish.write.record_published`)."""


@dataclass(frozen=True)
class CachedGroup:
    """A documented thing's rendered pages: (html path, html, md path, md, llms-full copy) per page."""

    pages: tuple[tuple[str, str, str, str, str], ...]
    warnings: tuple[str, ...]
    """What finding its examples warned of."""
    notes: tuple[str, ...] = ()
    """What flattening its input schema warned of (:func:`generator.model.gather.schema_warnings`)."""


@dataclass(frozen=True)
class Piece:
    """One file's bytes inside a stored entry: where they are, and the sha256 they must have."""

    sha256: str
    start: int
    size: int


@dataclass(frozen=True)
class StoredPage:
    """A page of a stored entry: its HTML and twin (paths and pieces) and its ``llms-full.txt`` copy."""

    html_path: str
    html: Piece
    md_path: str
    md: Piece
    full: bytes
    """The copy's UTF-8 bytes, checked: ``llms-full.txt`` is assembled from bytes."""
    full_sha256: str
    """Their sha256 (what the parts of a split ``llms-full.txt`` are known by, see :meth:`RenderCache.get_parts`)."""


@dataclass(frozen=True)
class Stored:
    """An entry as read back: the pages' hashes, their copies for ``llms-full.txt`` (checked), the warnings.

    Only the header and the copies (the start of the payload) are read with the entry. The HTML
    and Markdown bytes are read and checked only when :meth:`data` is asked for them: a page the
    previous site already holds with the same hash is hard-linked from there and never read.
    """

    pages: tuple[StoredPage, ...]
    warnings: tuple[str, ...]
    notes: tuple[str, ...]
    path: Path
    offset: int
    """Where the payload starts in the file."""

    def data(self, piece: Piece) -> bytes | None:
        """The bytes of *piece*, or None when they cannot be read or do not match their hash (a damaged entry)."""
        try:
            with open(self.path, "rb") as handle:
                handle.seek(self.offset + piece.start)
                return _checked(handle.read(piece.size), Piece(piece.sha256, 0, piece.size))
        except OSError:
            return None


class RenderCache:
    """Entries in one directory; see the module docstring for what a key covers.

    New entries are written to a pending directory inside it and moved into place by
    :meth:`commit` once the build has published its site; :meth:`discard` drops them after a
    failure, so a failed build leaves the cache as it found it.
    """

    def __init__(self, root: Path, site: str, recollection: Recollection | None = None) -> None:
        self.root = root
        self.recollection = recollection
        """The records a watch keeps in memory between its builds (None: every record is read from its file)."""
        self.site = site
        self.pending = root / f".pending-{os.getpid()}"
        self._created = make_private(root)
        """The directories this build created for the cache, innermost first (removed if left empty)."""
        self.used: set[str] = set()
        """The keys of the entries the site needs (set after rendering): what :meth:`commit` keeps."""
        self._records: list[Callable[[], None]] = []
        """The records this build keeps for the next one (:meth:`keep_index`, :meth:`keep_rows`), made by
        :meth:`commit`: a watch publishes its site first and makes them after its "Built" line."""
        self._recall: list[tuple[Path, Callable[[], object]]] = []
        """The records :meth:`commit` hands to :attr:`recollection` (what each file it leaves holds)."""

    def _path(self, key: str) -> Path:
        return self.root / f"{key}.entry"

    def get(self, key: str, html_paths: Sequence[str]) -> Stored | None:
        """The entry for *key*, if its header is whole and names exactly these pages; otherwise None.

        An entry is a magic line, a JSON header, the header's sha256, then the payload: every page's
        ``llms-full.txt`` copy (read and checked here), then the HTML and twin bytes (see :class:`Stored`).
        """
        path = self._path(key)
        try:
            with open(path, "rb") as handle:
                if handle.read(len(_MAGIC)) != _MAGIC:
                    return None
                header, digest = handle.readline().rstrip(b"\n"), handle.readline().rstrip(b"\n")
                if hashlib.sha256(header).hexdigest().encode() != digest:
                    return None
                body = json.loads(header)
                if body["format"] != FORMAT or body["key"] != key or [p[0] for p in body["pages"]] != list(html_paths):
                    return None
                offset, copies = handle.tell(), handle.read(body["copies"])
            pages = []
            for html_path, html, md_path, md, full in body["pages"]:
                piece = _piece(full)
                copy = _checked(copies, piece)
                if copy is None or not isinstance(html_path, str) or not isinstance(md_path, str):
                    return None
                pages.append(StoredPage(html_path, _piece(html), md_path, _piece(md), copy, piece.sha256))
            warnings, notes = body["warnings"], body["notes"]
            if not all(isinstance(w, str) for w in [*warnings, *notes]):
                return None
            return Stored(tuple(pages), tuple(warnings), tuple(notes), path, offset)
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, entry: CachedGroup) -> None:
        """Keep *entry*; a cache that cannot be written only costs time, so errors are ignored."""
        chunks: list[bytes] = []
        at = 0

        def piece(text: str) -> list[object]:
            nonlocal at
            data = text.encode("utf-8")
            chunks.append(data)
            at += len(data)
            return [hashlib.sha256(data).hexdigest(), at - len(data), len(data)]

        fulls = [piece(page[4]) for page in entry.pages]  # first: every hit reads them
        copies = at
        pages = [
            [html, piece(text), md, piece(twin), full]
            for (html, text, md, twin, _), full in zip(entry.pages, fulls, strict=True)
        ]
        header = json.dumps(
            {"format": FORMAT, "key": key, "pages": pages, "copies": copies, "warnings": entry.warnings,
             "notes": entry.notes},
            ensure_ascii=False,
        ).encode("utf-8")  # fmt: skip
        head = _MAGIC + header + b"\n" + hashlib.sha256(header).hexdigest().encode() + b"\n"
        self._write_pending(f"{key}.entry", [head, *chunks])

    def get_search(self, key: str) -> dict[str, str] | None:
        """The files (site path -> sha256) of the search index last built from the pages *key* names.

        A record is a magic line, its JSON and the JSON's sha256; one that cannot be read or does not
        check out is a miss (the index is built again).
        """
        return self._read_record(f"{key}.search", _SEARCH_MAGIC, key)

    def put_search(self, key: str, files: dict[str, str]) -> None:
        """Record the files of the search index built from the pages *key* names (errors cost only time)."""
        self._write_record(f"{key}.search", _SEARCH_MAGIC, key, files)

    def get_parts(self) -> dict[str, str]:
        """The parts of split ``llms-full.txt`` files the last build of this site wrote: what each part was
        made of (:func:`generator.site.llms_full.composition`) -> its sha256. Empty when there is none
        or it does not check out, and then every part is written."""
        self.used.add(self.site)
        return self._read_record(f"{self.site}.parts", _PARTS_MAGIC, self.site) or {}

    def keep_parts(self, known: dict[str, str], parts: dict[str, str]) -> None:
        """Keep the *parts* this build wrote for the next one, unless they are the *known* ones."""
        if parts != known:
            self._write_record(f"{self.site}.parts", _PARTS_MAGIC, self.site, parts)

    def get_index(self) -> KeptIndex | None:
        """What each entry's pages were when this site was last published (:mod:`generator.cache.index`)."""
        self.used.add(self.site)
        path = self.root / f"{self.site}.index"
        return self._recalled(path, KeptIndex) or read_index(path, self.site)

    def keep_index(self, known: KeptIndex | None, make: Callable[[], KeptIndex]) -> None:
        """Keep the index *make* gives for the next build, unless it is the *known* one (made by :meth:`commit`)."""

        def keep() -> None:
            index = make()
            if index != known:
                self._write_pending(f"{self.site}.index", index_bytes(self.site, index))
            self._recall.append((self.root / f"{self.site}.index", lambda: index))

        self._records.append(keep)

    def _read_record(self, name: str, magic: bytes, key: str) -> dict[str, str] | None:
        """A record's map of strings: a magic line, its JSON (naming *key*) and the JSON's sha256; None
        when it cannot be read or does not check out."""
        try:
            data = (self.root / name).read_bytes()
            if not data.startswith(magic):
                return None
            body, _, digest = data[len(magic) :].rstrip(b"\n").rpartition(b"\n")
            if hashlib.sha256(body).hexdigest().encode() != digest:
                return None
            record = json.loads(body)
            files = record["files"] if isinstance(record, dict) and record.get("key") == key else None
        except (OSError, ValueError, KeyError):
            return None
        if not isinstance(files, dict) or not all(isinstance(p, str) and isinstance(h, str) for p, h in files.items()):
            return None
        return dict(files)

    def _write_record(self, name: str, magic: bytes, key: str, files: dict[str, str]) -> None:
        """Write a record :meth:`_read_record` reads (errors cost only time)."""
        body = json.dumps({"key": key, "files": files}, sort_keys=True, ensure_ascii=False).encode("utf-8")
        self._write_pending(name, [magic, body, b"\n", hashlib.sha256(body).hexdigest().encode()])

    def get_rows(self) -> KeptRows | None:
        """The rows of the site-wide lists the last build of this site kept (:mod:`generator.cache.rows`)."""
        path = self.root / f"{self.site}.rows"
        return self._recalled(path, KeptRows) or read_rows(path, self.site)

    def snapshot_pieces(self) -> KeptPieces:
        """Each tool's text in ``snapshot.json`` as the last build wrote it, and the record of this build's
        (:mod:`generator.cache.pieces`); call its ``close`` once the file is written."""
        self.used.add(PIECES.partition(".")[0])
        return KeptPieces(self.root, self.pending)

    def spill_rows(self, made: Rows, chunk: int) -> None:
        """Put the rows a render worker *made* in a part file of the pending directory, in the record's
        line format: :meth:`keep_rows` copies its lines, so no worker sends its rows to the parent."""
        self._write_pending(f"rows-{chunk:06d}.part", [rows_lines(where, made[where]) for where in sorted(made)])

    def keep_rows(self, known: KeptRows | None, made: Rows, hits: dict[str, set[str]]) -> None:
        """Keep for the next build the rows this build made (*made* here, and the workers' part files)
        and the *known* ones it used (their keys: *hits*); the record is made by :meth:`commit`."""
        self.used.add(self.site)

        def keep() -> None:
            parts = sorted(self.pending.glob("rows-*.part")) if self.pending.is_dir() else []
            if not made and not parts and unchanged(known, hits):
                return  # the record holds exactly the rows used: it stays as it is
            lines = record_lines(self.site, known or {}, hits, parts, made)
            self._write_pending(f"{self.site}.rows", itertools.chain([ROWS_MAGIC], lines))

        self._records.append(keep)
        path = self.root / f"{self.site}.rows"
        self._recall.append((path, lambda: read_rows(path, self.site)))  # read only where records are recalled

    def _write_pending(self, name: str, parts: Iterable[bytes]) -> None:
        """Write *name* into the pending directory atomically; a cache that cannot be written only costs time."""
        target = self.pending / name
        temporary = self.pending / f".{name}.{os.getpid()}.tmp"  # a worker's own pid: workers never collide
        try:
            self.pending.mkdir(mode=0o700, exist_ok=True)
            with open(temporary, "wb") as handle:
                handle.writelines(parts)
            os.replace(temporary, target)
        except OSError:
            with contextlib.suppress(OSError):
                temporary.unlink()

    def commit(self) -> None:
        """After a published build: make the records it keeps, move the new entries in, and remove every
        entry it did not use.

        Only files named like an entry are removed, and the pending directories of builds that
        were killed (their process is gone).
        """
        while self._records:  # each is let go once made: what they were made from (the build) is freed
            self._records.pop(0)()
        with contextlib.suppress(OSError):
            for path in sorted(p for p in self.pending.iterdir() if _ENTRY.fullmatch(p.name)):
                os.replace(path, self.root / path.name)
        shutil.rmtree(self.pending, ignore_errors=True)
        recall, self._recall = self._recall, []
        if self.recollection is not None:
            self.recollection.keep(recall)
        with contextlib.suppress(OSError):
            for path in self.root.iterdir():
                if _abandoned(path):
                    shutil.rmtree(path, ignore_errors=True)
                elif _COMPILED_DIR.fullmatch(path.name):
                    _remove_compiled(path)
                elif _ENTRY.fullmatch(path.name) and path.name.partition(".")[0] not in self.used and path.is_file():
                    path.unlink()

    def _recalled(self, path: Path, kind: type[T]) -> T | None:
        """The record :attr:`recollection` holds for *path*, while the file there is the one it was kept for."""
        return self.recollection.get(path, kind) if self.recollection is not None else None

    def discard(self) -> None:
        """After a failed build: drop its new entries, and the cache directories it created if they are empty."""
        self._records.clear()
        self._recall.clear()
        shutil.rmtree(self.pending, ignore_errors=True)
        for directory in self._created:
            with contextlib.suppress(OSError):
                directory.rmdir()  # only succeeds when empty


class Recollection:
    """The ``.index`` and ``.rows`` records the last build of a watch committed, kept in memory and taken
    from there while their files are the very files it left: a rebuild then reads neither. A record
    recalled is what reading its file would give, so, as with the file, every page it vouches for is
    still checked against the site's own hashes. Only the last build's records are held."""

    def __init__(self) -> None:
        self._kept: dict[Path, tuple[tuple[int, ...], object]] = {}

    def keep(self, records: Sequence[tuple[Path, Callable[[], object]]]) -> None:
        """Hold what each record gives as what its file holds now, in place of the last build's."""
        self._kept.clear()
        for path, record in records:
            signature = _signature(path)
            value = record() if signature is not None else None
            if value is not None and signature is not None:
                self._kept[path] = (signature, value)

    def get(self, path: Path, kind: type[T]) -> T | None:
        """The record held for *path*, of *kind*, while the file there is the one it was kept for; else None."""
        kept = self._kept.get(path)
        if kept is None or kept[0] != _signature(path) or not isinstance(kept[1], kind):
            return None
        return kept[1]


def _signature(path: Path) -> tuple[int, ...] | None:
    """What tells one file from another, or the same file written again (None when there is none)."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)


def _remove_compiled(directory: Path) -> None:
    """Remove a directory of compiled templates an earlier version left: its ``.code`` files, then it if empty."""
    if directory.is_symlink() or not directory.is_dir():
        return
    for file in directory.iterdir():
        if _COMPILED_FILE.fullmatch(file.name) and file.is_file() and not file.is_symlink():
            file.unlink()
    with contextlib.suppress(OSError):
        directory.rmdir()


def _checked(payload: bytes, piece: Piece) -> bytes | None:
    """*piece*'s bytes in *payload*, or None when they do not match their hash."""
    data = payload[piece.start : piece.start + piece.size]
    return data if hashlib.sha256(data).hexdigest() == piece.sha256 else None


def _piece(value: object) -> Piece:
    """A header's ``[sha256, start, size]`` as a :class:`Piece` (TypeError or ValueError when it is not one)."""
    if not isinstance(value, list) or len(value) != 3:
        raise TypeError("not a piece")
    digest, start, size = value
    if not isinstance(digest, str) or not isinstance(start, int) or not isinstance(size, int) or start < 0 or size < 0:
        raise TypeError("not a piece")
    return Piece(digest, start, size)


def _abandoned(path: Path) -> bool:
    """Whether *path* is the pending directory of a build whose process is gone."""
    pid = path.name.removeprefix(".pending-")
    if not path.name.startswith(".pending-") or not pid.isdigit() or not path.is_dir() or path.is_symlink():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def cache_dir(config: PortalConfig) -> Path | None:
    """Where this build keeps its entries, or None with ``--no-cache``."""
    if not config.use_cache:
        return None
    if config.cache:
        return Path(config.cache)
    out = Path(config.out)
    return out.absolute().parent / ".mcp-portal-cache" / out.absolute().name
