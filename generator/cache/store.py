"""The render cache: what a tool's (or a prompt's, a resource's) pages rendered to, by the hash of what went in.

A rebuild after one tool changed should cost that tool, not the site. The cache is a directory
of *records*, every one in the format of :mod:`generator.cache.record` and named
``<key>.<kind>``. Each documented thing's pages (its HTML page, its Markdown twin and the twin's
copy for ``llms-full.txt``, in every locale) and the warnings its examples gave are one ``pages``
record, named by a content hash of everything those pages are made from:

- the *site key*: the installed mcp-portal code and the versions of the libraries that shape its
  output (:func:`generator.cache.keys.code_digest`); every shipped and theme template and catalog
  file, found through symbolic links as the loaders find them;
  the configuration (paths, limits, locales, title, base URL...) together with the contents of
  the overlays and translations directories, the OpenAPI document and the previous snapshot;
  and the snapshot without its tools' details (the server, the endpoints with their variants,
  the prompts and resources, every tool's name, which decides the pages' file names);
- the thing's own JSON, exactly as the server sent it (its keys in the order they came);
- the JSON of the tools its page links to with their summary (an overlay's related tools).

So a change to anything a page shows changes its key, and the record is simply not found. A
changed template, catalog, configuration, generator code or library version changes every key.
Pages made from the whole site (the tool lists, llms.txt, connecting, changes, the API page,
nav.js) are always rendered again, from records named by the site key or kept once per cache:

- ``index``: what each ``pages`` record's pages were when the site was last published, so that a
  rebuild leaves unchanged pages where they are without opening their records (:mod:`generator.cache.index`);
- ``rows``: the rows of the tool lists and llms.txt (:mod:`generator.cache.rows`);
- ``snapshot``: each tool's text in ``snapshot.json`` (:mod:`generator.cache.snapshot_texts`);
- ``search``, named by the hash of the indexed pages: the files of the search index built from
  them, reused while none of those pages changed.

A rebuild hard-links a page from the previous site when that site holds the same hash at the same
path (its bytes in the record are then never read), and checks every blob it does read against its
hash. A record that cannot be read, does not check out or does not name the pages asked for is a
miss: its pages are rendered again and the record rewritten, so a damaged cache can cost time but
never change a byte of the site. Records are written into a pending directory and moved in only
after the site is published: a failed build leaves the cache as it found it. After a successful
build every record this build did not use is removed, so the cache holds one site's worth; files
the cache did not write are never touched. The default directory is
``.mcp-portal-cache/<name of --out>/`` beside ``--out``; ``--cache DIR`` puts the records in DIR,
and ``--no-cache`` renders everything. A directory someone else could write is not used
(:mod:`generator.cache.trust`).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.cache.index import SiteIndex, read_index, write_index
from generator.cache.record import Blob, Record, read_record, write_record
from generator.cache.rows import ListRows, read_rows, unchanged, write_rows, write_rows_part
from generator.cache.snapshot_texts import NAME as SNAPSHOT
from generator.cache.snapshot_texts import SnapshotTexts
from generator.cache.trust import make_private
from generator.config.portal import PortalConfig
from generator.render.listings import Rows

_RECORD = re.compile(r"[0-9a-f]{64}\.(?:pages|index|rows|snapshot|search|entry|json|pieces|parts)")
"""The only file names the cache writes, and so the only ones it removes (``entry``, ``json``,
``pieces`` and ``parts`` are the names earlier versions gave their records)."""
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
class RecordedPage:
    """A page of a ``pages`` record: its HTML and twin (paths and blobs) and its ``llms-full.txt`` copy."""

    html_path: str
    html: Blob
    md_path: str
    md: Blob
    full: bytes
    """The copy's UTF-8 bytes, checked: ``llms-full.txt`` is assembled from bytes."""
    full_sha256: str


@dataclass(frozen=True)
class PagesRecord:
    """A ``pages`` record as read back: its pages, their copies for ``llms-full.txt`` (read and checked
    with the record), and the warnings. The HTML and Markdown bytes are read and checked only when
    :meth:`read` is asked for them: a page the previous site holds with the same hash is hard-linked
    from there and never read."""

    pages: tuple[RecordedPage, ...]
    warnings: tuple[str, ...]
    notes: tuple[str, ...]
    record: Record

    def read(self, blob: Blob) -> bytes | None:
        """The bytes of *blob*, or None when they cannot be read or do not match their hash."""
        return self.record.read(blob)


class RenderCache:
    """The records of one directory; see the module docstring for what a key covers.

    New records are written to a pending directory inside it and moved into place by :meth:`commit`
    once the build has published its site; :meth:`discard` drops them after a failure, so a failed
    build leaves the cache as it found it.
    """

    def __init__(self, root: Path, site: str) -> None:
        self.root = root
        self.site = site
        self.pending = root / f".pending-{os.getpid()}"
        self._created = make_private(root)
        """The directories this build created for the cache, innermost first (removed if left empty)."""
        self._identity = _identity(root)
        """The cache directory as checked (device, inode): what :meth:`commit` and :meth:`discard` act in."""
        self.used: set[str] = set()
        """The keys of the records the site needs (set after rendering): what :meth:`commit` keeps."""
        self._late: list[Callable[[], None]] = []
        """Records made by :meth:`commit` rather than when asked for (:meth:`write_index`, :meth:`write_rows`):
        a watch publishes its site first and makes them after its "Built" line."""

    def pages(self, key: str, html_paths: Sequence[str]) -> PagesRecord | None:
        """The ``pages`` record for *key*, if it checks out and names exactly these pages; otherwise None."""
        record = read_record(self.root / f"{key}.pages", "pages", key)
        try:
            if record is None or [p[0] for p in record.header["pages"]] != list(html_paths):
                return None
            count = len(record.header["pages"])
            fulls, htmls, mds = record.blobs[:count], record.blobs[count::2], record.blobs[count + 1 :: 2]
            with record.reading() as handle:
                copies = [record.read(blob, handle) for blob in fulls]
            pages = []
            for (html_path, md_path), html, md, full, copy in zip(
                record.header["pages"], htmls, mds, fulls, copies, strict=True
            ):
                if copy is None or not isinstance(html_path, str) or not isinstance(md_path, str):
                    return None
                pages.append(RecordedPage(html_path, html, md_path, md, copy, full.sha256))
            warnings, notes = record.header["warnings"], record.header["notes"]
            if not all(isinstance(w, str) for w in [*warnings, *notes]):
                return None
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return PagesRecord(tuple(pages), tuple(warnings), tuple(notes), record)

    def write_pages(self, key: str, group: CachedGroup) -> None:
        """Keep *group*'s pages as a ``pages`` record: the copies first (every hit reads them), then each
        page's HTML and twin. A cache that cannot be written only costs time, so errors are ignored."""
        blobs = [page[4].encode("utf-8") for page in group.pages]
        for _, html, _, md, _ in group.pages:
            blobs += [html.encode("utf-8"), md.encode("utf-8")]
        fields = {
            "pages": [[page[0], page[2]] for page in group.pages],
            "warnings": group.warnings,
            "notes": group.notes,
        }
        write_record(self.pending / f"{key}.pages", "pages", key, fields, blobs)

    def search_files(self, key: str) -> dict[str, str] | None:
        """The files (site path -> sha256) of the search index last built from the pages *key* names."""
        return self._files("search", key)

    def write_search_files(self, key: str, files: dict[str, str]) -> None:
        """Record the files of the search index built from the pages *key* names."""
        write_record(self.pending / f"{key}.search", "search", key, {"files": files})

    def _files(self, kind: str, key: str) -> dict[str, str] | None:
        """The map of strings a record of *kind* holds, or None."""
        record = read_record(self.root / f"{key}.{kind}", kind, key)
        files: Any = record.header.get("files") if record is not None else None
        if not isinstance(files, dict) or not all(isinstance(p, str) and isinstance(h, str) for p, h in files.items()):
            return None
        return files

    def index(self) -> SiteIndex | None:
        """What each ``pages`` record's pages were when this site was last published (:mod:`generator.cache.index`)."""
        self.used.add(self.site)
        return read_index(self.root / f"{self.site}.index", self.site)

    def write_index(self, known: SiteIndex | None, make: Callable[[], SiteIndex]) -> None:
        """Record the index *make* gives for the next build, unless it is the *known* one (made by :meth:`commit`)."""

        def write() -> None:
            index = make()
            if index != known:
                write_index(self.pending / f"{self.site}.index", self.site, index)

        self._late.append(write)

    def rows(self) -> ListRows | None:
        """The rows of the site-wide lists the last build of this site recorded (:mod:`generator.cache.rows`)."""
        return read_rows(self.root / f"{self.site}.rows", self.site)

    def snapshot_texts(self) -> SnapshotTexts:
        """Each tool's text in ``snapshot.json`` as the last build wrote it, and the record of this build's
        (:mod:`generator.cache.snapshot_texts`); call its ``close`` once the file is written."""
        self.used.add(SNAPSHOT.partition(".")[0])
        return SnapshotTexts(self.root, self.pending)

    def write_rows_part(self, made: Rows, chunk: int) -> None:
        """Record the rows a render worker *made* in the pending directory: :meth:`write_rows` copies them,
        so no worker sends its rows to the parent."""
        write_rows_part(self.pending / f"rows-{chunk:06d}", self.site, made)

    def write_rows(self, known: ListRows | None, made: Rows, hits: dict[str, set[str]]) -> None:
        """Record for the next build the rows this build made (*made* here, and the workers' parts) and
        the *known* ones it used (their keys: *hits*); the record is made by :meth:`commit`."""
        self.used.add(self.site)

        def write() -> None:
            parts = sorted(self.pending.glob("rows-*")) if self.pending.is_dir() else []
            if not made and not parts and unchanged(known, hits):
                return  # the record holds exactly the rows used: it stays as it is
            write_rows(self.pending / f"{self.site}.rows", self.site, known or {}, hits, parts, made)

        self._late.append(write)

    def commit(self) -> None:
        """After a published build: make the records it writes late, move the new records in, and remove
        every record it did not use.

        Only files named like a record are removed, and the pending directories of builds that
        were killed (their process is gone). All of it happens through the cache directory opened
        without following a symbolic link, and only while it is still the directory this build
        checked: one replaced meanwhile (by a link to somewhere else, say) is left alone.
        """
        while self._late:  # each is let go once made: what they were made from (the build) is freed
            self._late.pop(0)()
        with self._opened() as root:
            if root is None:
                return
            with contextlib.suppress(OSError), _opened_in(root, self.pending.name) as pending:
                for name in sorted(n for n in os.listdir(pending) if _RECORD.fullmatch(n)):
                    os.replace(name, name, src_dir_fd=pending, dst_dir_fd=root)
            shutil.rmtree(self.pending.name, ignore_errors=True, dir_fd=root)
            with contextlib.suppress(OSError):
                for name in os.listdir(root):
                    _tidy(root, name, self.used)

    def discard(self) -> None:
        """After a failed build: drop its new records, and the cache directories it created if they are empty."""
        self._late.clear()
        with self._opened() as root:
            if root is not None:
                shutil.rmtree(self.pending.name, ignore_errors=True, dir_fd=root)
        for directory in self._created:
            with contextlib.suppress(OSError):
                directory.rmdir()  # only succeeds when empty (and never on a symbolic link)

    @contextlib.contextmanager
    def _opened(self) -> Iterator[int | None]:
        """The cache directory, open, when it is still the directory this build checked; else None."""
        try:
            fd = os.open(self.root, _DIRECTORY)
        except OSError:
            yield None
            return
        try:
            info = os.fstat(fd)
            yield fd if (info.st_dev, info.st_ino) == self._identity else None
        finally:
            os.close(fd)


_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
"""How the cache opens a directory: never through a symbolic link."""


def _identity(root: Path) -> tuple[int, int] | None:
    """The device and inode of the directory *root* (None when it is no directory, a symbolic link included)."""
    try:
        info = os.lstat(root)
    except OSError:
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISDIR(info.st_mode) else None


@contextlib.contextmanager
def _opened_in(parent: int, name: str) -> Iterator[int]:
    """The directory *name* inside the open directory *parent*, open (never through a symbolic link)."""
    fd = os.open(name, _DIRECTORY, dir_fd=parent)
    try:
        yield fd
    finally:
        os.close(fd)


def _tidy(root: int, name: str, used: set[str]) -> None:
    """Remove the entry *name* of the open cache directory *root* when it is the cache's and no longer
    needed: a record this build did not use, the pending directory of a build that was killed, or the
    compiled templates of an earlier version. Nothing is followed through a symbolic link."""
    info = os.stat(name, dir_fd=root, follow_symlinks=False)
    if stat.S_ISDIR(info.st_mode) and _abandoned(name):
        shutil.rmtree(name, ignore_errors=True, dir_fd=root)
    elif stat.S_ISDIR(info.st_mode) and _COMPILED_DIR.fullmatch(name):
        _remove_compiled(root, name)
    elif stat.S_ISREG(info.st_mode) and _RECORD.fullmatch(name) and name.partition(".")[0] not in used:
        os.unlink(name, dir_fd=root)


def _remove_compiled(root: int, name: str) -> None:
    """Remove a directory of compiled templates an earlier version left: its ``.code`` files, then it if empty."""
    with _opened_in(root, name) as directory:
        for file in os.listdir(directory):
            if _COMPILED_FILE.fullmatch(file) and stat.S_ISREG(
                os.stat(file, dir_fd=directory, follow_symlinks=False).st_mode
            ):
                os.unlink(file, dir_fd=directory)
    with contextlib.suppress(OSError):
        os.rmdir(name, dir_fd=root)


def _abandoned(name: str) -> bool:
    """Whether the directory *name* is the pending directory of a build whose process is gone."""
    pid = name.removeprefix(".pending-")
    if not name.startswith(".pending-") or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def cache_dir(config: PortalConfig) -> Path | None:
    """Where this build keeps its records, or None with ``--no-cache``."""
    if not config.use_cache:
        return None
    if config.cache:
        return Path(config.cache)
    out = Path(config.out)
    return out.absolute().parent / ".mcp-portal-cache" / out.absolute().name
