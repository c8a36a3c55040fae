"""What a build takes from the last build, behind one object: :class:`Reuse`, made by the command.

A rebuild after one tool changed should cost that tool, not the site. Everything a build may reuse is
a record of the cache's one file (:mod:`generator.cache.store`), named by its kind and a key:

- ``pages``, by a documented thing's page key (:func:`generator.cache.keys.page_key`): its pages, twins
  and the twins' copies for ``llms-full.txt``, and its warnings (:mod:`generator.cache.pages`);
- ``copies``, by the site key: where each twin's copy sits in each locale's ``llms-full.txt``;
- ``rows``, by the site key: the rows of the tool lists and ``llms.txt`` (:class:`ListRows`), which the
  render workers write as pending ``rows-part`` records, copied into it at commit;
- ``snapshot``: each tool's text in ``snapshot.json`` (:class:`SnapshotTexts`);
- ``search``, by the hash of the indexed pages: the files of the search index built from them;
- ``published``: the signatures of the files of the site last published (:class:`Published`).

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
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from generator.cache.keys import theme_digest
from generator.cache.store import NAME, Record, Store, Writer
from generator.cache.trust import make_private, remove_legacy
from generator.config.portal import PortalConfig
from generator.render.listings import Rows
from generator.render.renderer import Renderer
from generator.snapshot.remembered import ToolMemory

STALE_SHARE = 8
"""A list of rows is copied as it stands while at most one of this many of its rows went unused (an
unused row costs only its bytes: its key is the hash of all that went into it)."""
SNAPSHOT, PUBLISHED, COPIES = "snapshot", "published", "copies"


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


class RowMemo:
    """Rows of the site-wide lists by where they are written and their tool's page key: the render cache's
    side of :class:`generator.render.listings.RowSource` (see that module)."""

    def __init__(self, keys: Mapping[str, str], known: Mapping[str, Mapping[str, tuple[int, str]]]) -> None:
        self.keys = keys
        """Tool name -> the key of its pages."""
        self.known = known
        """The rows a previous build wrote, by list (:class:`ListRows` parses a list when asked)."""
        self.made: Rows = {}
        """The rows this process wrote since :meth:`drain`."""
        self.hits: dict[str, set[str]] = {}
        """Where -> the keys of the known rows this process used since :meth:`drain` (keys only: the
        parent process has :attr:`known` too, so a worker never sends a kept row back)."""

    def row(
        self,
        where: str,
        kept: Mapping[str, tuple[int, str]],
        name: str,
        make: Callable[[], str],
        marks: list[int] | None,
    ) -> str:
        """*name*'s row in the list *where* (whose kept rows are *kept*): kept, else made by *make* (and kept).
        *marks* is the page's count of marked links: a kept row adds the links it counted when it was made."""
        key = self.keys.get(name)
        if key is None:
            return make()
        found = kept.get(key)
        if found is None:
            before = marks[0] if marks is not None else 0
            text = make()
            found = ((marks[0] if marks is not None else 0) - before, text)
            self.made.setdefault(where, {})[key] = found
        else:
            if marks is not None:
                marks[0] += found[0]
            self.hits.setdefault(where, set()).add(key)
        return found[1]

    def drain(self) -> tuple[Rows, dict[str, set[str]]]:
        """The rows made and the keys of those reused since the last call (a worker sends them back)."""
        made, hits = self.made, self.hits
        self.made, self.hits = {}, {}
        return made, hits


class ThemeRenderer:
    """One renderer (its templates compiled in memory) for the builds of one process while the theme
    stays the same: a watch's rebuild then compiles no template again."""

    def __init__(self) -> None:
        self._theme: str | None = None
        self._renderer: Renderer | None = None

    def for_theme(self, template_dir: Path | None) -> Renderer:
        """The renderer for *template_dir*, made afresh when a file of the theme changed."""
        theme = theme_digest(template_dir)
        if self._renderer is None or theme != self._theme:
            self._renderer, self._theme = Renderer(template_dir), theme
        return self._renderer


@dataclass
class Warm:
    """What a process that builds again and again (``build --watch``) keeps from one build to the next:
    the tools of the snapshot file it read, and its renderer. Each only saves time: a build given a
    :class:`Warm` writes the very bytes a fresh one does."""

    tools: ToolMemory = field(default_factory=ToolMemory)
    renderer: ThemeRenderer = field(default_factory=ThemeRenderer)


class Published:
    """The signatures of the files of the site last published with the cache in *root*
    (:class:`generator.publish.signatures.Kept`): one ``published`` record, written once the site is out."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def signatures(self, site: str) -> dict[str, list[int]]:
        store = Store(self.root)
        record = store.get(PUBLISHED, PUBLISHED)
        store.close()
        header = record.header if record is not None and isinstance(record.header, dict) else {}
        files = header.get("files") if header.get("site") == site else None
        if not isinstance(files, dict):
            return {}
        return {p: v for p, v in files.items() if isinstance(v, list) and all(type(n) is int for n in v)}

    def keep(self, site: str, files: dict[str, list[int]]) -> None:
        store = Store(self.root)
        store.keep(PUBLISHED, PUBLISHED, {"site": site, "files": files})
        store.close()


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
        self.used: set[str] = {site, PUBLISHED}
        """The keys of the records the site needs (found or written): what :meth:`commit` keeps."""
        self._late: list[Callable[[], None]] = []
        """Records made by :meth:`commit` (the copies, the rows): a watch makes them after its "Built" line."""
        self.last_rows = self._rows()
        self.memo = RowMemo({}, self.last_rows or {})
        """The rows of the site-wide lists as the row writers use them (:meth:`use_rows` names the tools)."""
        self.row_hits: dict[str, set[str]] = {}
        """List -> the keys of the last build's rows this build used (the rows it made go to the cache as made)."""
        self.hits = 0
        """Groups whose pages came from the cache (for the progress line and the benchmark)."""

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

    def use_rows(self, keys: Mapping[str, str]) -> RowMemo:
        """The row memo, knowing each tool's page key (tool name -> key)."""
        self.memo.keys = keys
        return self.memo

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

    def copies(self) -> Record | None:
        """Where the twins' copies sit in the last published site's ``llms-full.txt`` files."""
        return self.store.get(COPIES, self.site)

    def write_copies(self, make: Callable[[], object]) -> None:
        """Record where the copies sit (*make* gives it) for the next build; made by :meth:`commit`."""
        self._late.append(lambda: self._put(COPIES, make()))

    def _put(self, kind: str, header: object) -> None:
        self.store.put(kind, self.site, header)

    def _rows(self) -> ListRows | None:
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

    def keep_rows(self, chunk: int | None) -> dict[str, set[str]]:
        """Record the rows this process made since the last call: a render worker's (*chunk*) as a pending
        part (no worker sends its rows to the parent); the parent's, with every row used, for :meth:`commit`.
        Returns the keys of the kept rows this process used."""
        made, hits = self.memo.drain()
        if chunk is not None:
            if made:
                self._write_rows_part(made, chunk)
            return hits
        for where, keys in hits.items():
            self.row_hits.setdefault(where, set()).update(keys)
        known, used = self.last_rows, self.row_hits
        self._late.append(lambda: self._write_rows(known, made, used))
        return hits

    def _write_rows_part(self, made: Rows, chunk: int) -> None:
        """Record the rows a render worker *made* (copied into the ``rows`` record at commit: no worker
        sends its rows to the parent)."""
        lists = sorted(made)
        self.store.put(
            "rows-part",
            f"{chunk:06d}",
            {"lists": [[w, len(made[w])] for w in lists]},
            map(_rows_blob, (made[w] for w in lists)),
        )

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
