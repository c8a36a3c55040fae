"""What a build takes from the last build, behind one object: :class:`Reuse`, made by the command.

A rebuild after one tool changed should cost that tool, not the site. Everything a build may reuse is
a record of the cache's one file (:mod:`generator.cache.store`), of one of these kinds:

- ``pages``, named by a documented thing's page key (:func:`generator.cache.keys.page_key`): its HTML
  pages, Markdown twins and the twins' copies for ``llms-full.txt`` in every locale, and the warnings
  its examples and schema gave;
- ``index``, named by the site key: what each ``pages`` record's pages were when the site was last
  published, and where each twin's copy sits in each locale's ``llms-full.txt``, so that a rebuild
  leaves unchanged pages where they are without reading them (:class:`SiteIndex`);
- ``rows``, named by the site key: the rows of the tool lists and ``llms.txt`` (:class:`ListRows`);
  the render workers write theirs as pending ``rows-part`` records, copied into it at commit;
- ``snapshot``: each tool's text in ``snapshot.json`` (:class:`SnapshotTexts`);
- ``search``, named by the hash of the indexed pages: the files of the search index built from them.

A changed template, catalog, configuration, generator code or library version changes every key
(:mod:`generator.cache.keys`), so a record is simply not found. A page left in place or copied from a
record is checked against its hash; anything that does not check out is rendered again. After a
published build every record it did not use is removed, so the cache holds one site's worth; the
default place is ``.mcp-portal-cache/<name of --out>/`` beside ``--out`` (``--cache DIR``,
``--no-cache``), and a directory someone else could write is not used (:mod:`generator.cache.trust`).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.cache.store import NAME, Record, Store, Writer
from generator.cache.trust import make_private, remove_legacy
from generator.config.portal import PortalConfig
from generator.render.listings import Rows

STALE_SHARE = 8
"""A list of rows is copied as it stands while at most one of this many of its rows went unused (an
unused row costs only its bytes: its key is the hash of all that went into it)."""
SNAPSHOT = "snapshot"
PUBLISHED = "published.json"
"""The signatures of the files of the site last published with this cache
(:func:`generator.publish.write.record_published`), beside the database."""


@dataclass(frozen=True)
class RenderedPage:
    """One page as rendered: its HTML, its twin, and the twin's copy for ``llms-full.txt``."""

    html_path: str
    html: str
    md_path: str
    md: str
    full: str


@dataclass(frozen=True)
class CachedGroup:
    """A documented thing's rendered pages, and what its examples (*warnings*) and schema (*notes*) warned of."""

    pages: tuple[RenderedPage, ...]
    warnings: tuple[str, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Blob:
    """Blob *n* of the record *record*, and the sha256 it must have."""

    record: int
    n: int
    sha256: str


@dataclass(frozen=True)
class RecordedPage:
    """A page of a ``pages`` record: its HTML and twin (paths and blobs) and its checked ``llms-full.txt`` copy."""

    html_path: str
    html: Blob
    md_path: str
    md: Blob
    full: bytes
    full_sha256: str


@dataclass(frozen=True)
class PagesRecord:
    """A ``pages`` record as read back: the HTML and Markdown bytes are read (and checked) only when asked for."""

    pages: tuple[RecordedPage, ...]
    warnings: tuple[str, ...]
    notes: tuple[str, ...]
    store: Store

    def read(self, blob: Blob) -> bytes | None:
        return self.store.blob(blob.record, blob.n)


@dataclass(frozen=True)
class PageHashes:
    """A page's sha256s: its HTML, its twin, and the twin as ``llms-full.txt`` copies it."""

    html: str
    md: str
    twin: str


@dataclass(frozen=True)
class Made:
    """What one ``pages`` record's pages were: their HTML paths, their hashes, and its warnings and notes."""

    paths: tuple[str, ...]
    pages: tuple[PageHashes, ...]
    warnings: tuple[str, ...]
    notes: tuple[str, ...]


@dataclass(frozen=True)
class Span:
    """Where a twin's copy sits in a locale's ``llms-full.txt``."""

    offset: int
    size: int


@dataclass(frozen=True)
class Copies:
    """Where each twin's copy sits in one locale's ``llms-full.txt``: the file's sha256, and twin sha256 -> span."""

    sha256: str
    at: dict[str, Span]


@dataclass
class SiteIndex:
    """The ``index`` record: cache key -> :class:`Made`, and locale -> :class:`Copies`."""

    groups: dict[str, Made] = field(default_factory=dict)
    copies: dict[str, Copies] = field(default_factory=dict)

    def to_json(self) -> Any:
        groups = {
            k: [m.paths, [[p.html, p.md, p.twin] for p in m.pages], m.warnings, m.notes] for k, m in self.groups.items()
        }
        copies = {code: [c.sha256, {t: [s.offset, s.size] for t, s in c.at.items()}] for code, c in self.copies.items()}
        return {"groups": dict(sorted(groups.items())), "copies": dict(sorted(copies.items()))}

    @classmethod
    def from_json(cls, header: Any) -> SiteIndex | None:
        """The index *header* holds, or None when any of it is not what :meth:`to_json` writes."""
        try:
            groups = {str(k): _made(v) for k, v in header["groups"].items()}
            copies = {str(k): _copies(v) for k, v in header["copies"].items()}
        except (ValueError, KeyError, TypeError, AttributeError):
            return None
        return cls(groups, copies)


def _strings(value: object, size: int | None = None) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise TypeError("not a list of strings")
    if size is not None and len(value) != size:
        raise TypeError("not the right number of strings")
    return tuple(value)


def _made(value: Any) -> Made:
    paths, pages, warnings, notes = value
    hashes = tuple(PageHashes(*_strings(page, 3)) for page in pages)
    if len(hashes) != len(paths):
        raise TypeError("not one hash a page")
    return Made(_strings(paths), hashes, _strings(warnings), _strings(notes))


def _copies(value: Any) -> Copies:
    sha256, at = value
    if not isinstance(sha256, str) or not all(type(n) is int and n >= 0 for where in at.values() for n in where):
        raise TypeError("not a locale's copies")
    return Copies(sha256, {str(twin): Span(*where) for twin, where in at.items()})


def layout(head: bytes, chunks: Iterable[Iterable[tuple[int, str]]]) -> tuple[dict[str, Span], int]:
    """Where each copy sits in an ``llms-full.txt`` written as :func:`generator.site.assemble.render_pages`
    writes it: *head* (if any), then each chunk's copies joined by newlines, all joined by newlines.
    *chunks* give each copy's (size, twin sha256); returns twin sha256 -> span, and the file's size."""
    at: dict[str, Span] = {}
    position, items = (len(head), 1) if head else (0, 0)
    for chunk in chunks:
        position += 1 if items else 0  # the newline before every item but the first
        items += 1
        for n, (size, twin) in enumerate(chunk):
            position += 1 if n else 0
            at.setdefault(twin, Span(position, size))
            position += size
    return at, position


class PreviousCopies:
    """Where the twins' copies sit in the previous site's ``llms-full.txt`` files, by the index: a locale's
    file counts only when the publisher found it intact (*files*: site path -> sha256) with the sha256 the
    index gives. Nothing is read here: the parent copies the ranges when it writes the new file."""

    def __init__(self, previous: Path | None, files: Mapping[str, str], copies: Mapping[str, Copies]) -> None:
        self._previous, self._files, self._copies = previous, files, copies

    def where(self, locale: str, twin: str) -> Span | None:
        copies = self._copies.get(locale)
        span = copies.at.get(twin) if copies is not None else None
        if self._previous is None or copies is None or span is None:
            return None
        return span if self._files.get(f"{locale}/llms-full.txt") == copies.sha256 else None


class ListRows(Mapping[str, Mapping[str, tuple[int, str]]]):
    """The lists of a ``rows`` record, each read and parsed when asked for and not kept (at 5,000 tools the
    record holds 65,000 rows); an empty list when its blobs no longer check out. Each blob is one piece of
    one list, a JSON object ``{key: [links, row]}``; the header gives each blob's list and number of rows."""

    def __init__(self, store: Store, record: Record) -> None:
        self._store, self._record = store, record
        self._lists: dict[str, list[tuple[int, int]]] = {}
        for n, (where, count) in enumerate(record.header["lists"]):
            if not isinstance(where, str) or type(count) is not int:
                raise TypeError("not a list and a count")
            self._lists.setdefault(where, []).append((n, count))
        self.counts = {where: sum(count for _, count in blobs) for where, blobs in self._lists.items()}

    def __getitem__(self, where: str) -> dict[str, tuple[int, str]]:
        rows: dict[str, tuple[int, str]] = {}
        for n, _ in self._lists[where]:
            data = self._store.blob(self._record, n)
            try:
                found = {key: (row[0], row[1]) for key, row in json.loads(data or b"null").items()}
            except (ValueError, AttributeError, TypeError, KeyError, IndexError):
                return {}
            if not all(type(links) is int and isinstance(text, str) for links, text in found.values()):
                return {}
            rows.update(found)
        return rows

    def pieces(self, where: str) -> list[tuple[tuple[int, int], int]]:
        """The list's blobs as (record id, n) to copy as they stand, each with its number of rows."""
        return [((self._record.id, n), count) for n, count in self._lists[where]]

    def few_unused(self, where: str, used: int) -> bool:
        """Whether at most one in :data:`STALE_SHARE` of the list's rows went unused."""
        return where in self.counts and (self.counts[where] - used) * STALE_SHARE <= self.counts[where]

    def __iter__(self) -> Iterator[str]:
        return iter(self._lists)

    def __len__(self) -> int:
        return len(self._lists)


class SnapshotTexts:
    """The last build's ``snapshot`` record, read a tool's text at a time, and this build's, written as the
    texts are given (a tool found is copied inside the database, not written again); used as
    :class:`~generator.snapshot.snapshot.TextStore` while ``snapshot.json`` is written, then closed (:meth:`close`)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._old = store.get(SNAPSHOT, SNAPSHOT)
        names = self._old.header.get("names") if self._old is not None and isinstance(self._old.header, dict) else None
        self._names = {str(name): n for n, name in enumerate(names)} if isinstance(names, list) else {}
        self._new = Writer(store, SNAPSHOT, SNAPSHOT)
        self._added: list[str] = []
        self._found = 0
        self._last: tuple[bytes, bytes, int] | None = None

    def text(self, key: bytes) -> bytes | None:
        n = self._names.get(key.hex())
        data = self._store.blob(self._old, n) if self._old is not None and n is not None else None
        if data is not None and n is not None:
            self._found += 1
            self._last = (key, data, n)
        return data

    def add(self, key: bytes, piece: bytes) -> None:
        last, self._last = self._last, None
        if last is not None and self._old is not None and last[0] == key and last[1] is piece:
            self._new.add((self._old.id, last[2]))  # copied inside the database
        else:
            self._new.add(piece)
        self._added.append(key.hex())

    def close(self) -> None:
        """Keep the record as it is when it holds exactly this build's tools; else finish the new one."""
        if self._found == len(self._added) == len(self._names):
            self._new.drop()
        else:
            self._new.finish({"names": self._added})


class Reuse:
    """Everything one build may take from the last: the records of the cache directory *root* for the site
    key *site*. Made by the command and passed down; :meth:`commit` after the site is published,
    :meth:`discard` after a failure (a failed build leaves the cache as it found it)."""

    def __init__(self, root: Path, site: str) -> None:
        self.root, self.site = root, site
        self._created = make_private(root)
        """The directories this build created for the cache, innermost first (removed after a failure)."""
        self._new_file = not (root / NAME).exists()
        self.store = Store(root)
        self.used: set[str] = {site}
        """The keys of the records the site needs (found or written): what :meth:`commit` keeps."""
        self._late: list[Callable[[], None]] = []
        """Records made by :meth:`commit` (the index, the rows): a watch makes them after its "Built" line."""

    def warnings(self) -> list[str]:
        """Why this build could not use the cache's file (the site is the same, built more slowly)."""
        problem = self.store.problem
        if problem is None:
            return []
        return [
            f"not using the render cache in {self.root}: {self.store.path} {problem}. The site is built without "
            f"the cache (the same bytes, more slowly); remove {self.store.path} (and its -wal and -shm files) or "
            f"give --cache a directory of your own."
        ]

    def pages(self, key: str, html_paths: Sequence[str]) -> PagesRecord | None:
        """The ``pages`` record for *key*, if it checks out and names exactly these pages; otherwise None."""
        record = self.store.get("pages", key)
        try:
            if record is None or [p[0] for p in record.header["pages"]] != list(html_paths):
                return None
            count, sha = len(record.header["pages"]), record.blobs
            pages = []
            for i, (html_path, md_path) in enumerate(record.header["pages"]):
                copy = self.store.blob(record, i)
                html, md = (
                    Blob(record.id, count + 2 * i, sha[count + 2 * i]),
                    Blob(record.id, count + 2 * i + 1, sha[count + 2 * i + 1]),
                )
                if copy is None or not isinstance(html_path, str) or not isinstance(md_path, str):
                    return None
                pages.append(RecordedPage(html_path, html, md_path, md, copy, sha[i]))
            warnings, notes = _strings(record.header["warnings"]), _strings(record.header["notes"])
        except (ValueError, KeyError, TypeError, IndexError):
            return None
        return PagesRecord(tuple(pages), warnings, notes, self.store)

    def write_pages(self, key: str, group: CachedGroup) -> None:
        """Keep *group*'s pages as a ``pages`` record: the copies first (every hit reads them), then each
        page's HTML and twin."""
        blobs = [page.full.encode("utf-8") for page in group.pages]
        for page in group.pages:
            blobs += [page.html.encode("utf-8"), page.md.encode("utf-8")]
        header = {
            "pages": [[p.html_path, p.md_path] for p in group.pages],
            "warnings": group.warnings,
            "notes": group.notes,
        }
        self.store.put("pages", key, header, blobs)

    def search_files(self, key: str) -> dict[str, str] | None:
        """The files (site path -> sha256) of the search index last built from the pages *key* names."""
        record = self.store.get("search", key)
        files = record.header.get("files") if record is not None and isinstance(record.header, dict) else None
        if not isinstance(files, dict) or not all(isinstance(p, str) and isinstance(h, str) for p, h in files.items()):
            return None
        self.used.add(key)
        return files

    def write_search_files(self, key: str, files: dict[str, str]) -> None:
        self.store.put("search", key, {"files": files})
        self.used.add(key)

    def index(self) -> SiteIndex | None:
        """What each ``pages`` record's pages were when this site was last published."""
        record = self.store.get("index", self.site)
        return SiteIndex.from_json(record.header) if record is not None else None

    def write_index(self, known: SiteIndex | None, make: Callable[[], SiteIndex]) -> None:
        """Record the index *make* gives for the next build, unless it is the *known* one (made by :meth:`commit`)."""

        def write() -> None:
            index = make()
            if index != known:
                self.store.put("index", self.site, index.to_json())

        self._late.append(write)

    def rows(self) -> ListRows | None:
        """The rows of the site-wide lists the last build of this site recorded."""
        record = self.store.get("rows", self.site)
        with contextlib.suppress(KeyError, TypeError, ValueError):
            return (
                ListRows(self.store, record)
                if record is not None and len(record.header["lists"]) == len(record.blobs)
                else None
            )
        return None

    def snapshot_texts(self) -> SnapshotTexts:
        self.used.add(SNAPSHOT)
        return SnapshotTexts(self.store)

    def write_rows_part(self, made: Rows, chunk: int) -> None:
        """Record the rows a render worker *made* (copied into the ``rows`` record at commit: no worker
        sends its rows to the parent)."""
        lists = sorted(made)
        self.store.put(
            "rows-part",
            f"{chunk:06d}",
            {"lists": [[w, len(made[w])] for w in lists]},
            map(_rows_blob, (made[w] for w in lists)),
        )

    def write_rows(self, known: ListRows | None, made: Rows, hits: dict[str, set[str]]) -> None:
        """Record for the next build the rows this build made (*made*, and the workers' parts) and the
        *known* ones it used (their keys: *hits*); the record is made by :meth:`commit`."""
        self._late.append(lambda: self._write_rows(known, made, hits))

    def _write_rows(self, known: ListRows | None, made: Rows, hits: dict[str, set[str]]) -> None:
        parts = self.store.pending("rows-part")
        same = (
            known.keys() == hits.keys() and all(known.few_unused(w, len(hits[w])) for w in known) if known else not hits
        )
        if not made and not parts and same:
            return  # the record holds exactly the rows used: it stays as it is
        writer, lists = Writer(self.store, "rows", self.site), []
        for where in sorted(hits):
            if known is not None and known.few_unused(where, len(hits[where])):
                for piece, count in known.pieces(where):
                    writer.add(piece)
                    lists.append([where, count])
                continue
            rows = known.get(where, {}) if known is not None else {}
            kept = {key: rows[key] for key in sorted(hits[where]) if key in rows}
            writer.add(_rows_blob(kept))
            lists.append([where, len(kept)])
        for part in parts:
            with contextlib.suppress(TypeError, ValueError):
                for n, (where, count) in enumerate(part.header["lists"]):
                    writer.add((part.id, n))
                    lists.append([str(where), int(count)])
        for where in sorted(made):
            writer.add(_rows_blob(made[where]))
            lists.append([where, len(made[where])])
        writer.finish({"lists": lists})

    def commit(self) -> None:
        """After a published build: make the records written late, make this build's records the cache's,
        and remove every record it did not use."""
        while self._late:  # each is let go once made: what they were made from (the build) is freed
            self._late.pop(0)()
        self.store.commit(self.used, drop="rows-part")
        self.store.close()
        with contextlib.suppress(OSError):
            remove_legacy(self.root)

    def discard(self) -> None:
        """After a failed build: drop its records, and the cache it created, if it created one."""
        self._late.clear()
        self.store.discard()
        self.store.close()
        if self._new_file:
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(OSError):
                    (self.root / (NAME + suffix)).unlink()
        for directory in self._created:
            with contextlib.suppress(OSError):
                directory.rmdir()  # only succeeds when empty (and never on a symbolic link)


def _rows_blob(rows: Mapping[str, tuple[int, str]]) -> bytes:
    return json.dumps(rows, ensure_ascii=False).encode("utf-8")


def cache_dir(config: PortalConfig) -> Path | None:
    """Where this build keeps its cache, or None with ``--no-cache``."""
    if not config.use_cache:
        return None
    if config.cache:
        return Path(config.cache)
    out = Path(config.out)
    return out.absolute().parent / ".mcp-portal-cache" / out.absolute().name
