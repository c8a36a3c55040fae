"""``llms-full.txt``: the copies the workers make, the notice said once, the token estimate, the parts.

A locale's ``llms-full.txt`` holds every twin; over :data:`generator.site.job.PART_TOKENS`
it is also written as parts of whole pages, which ``llms.txt`` lists with their first and last
page. Every twin repeats a short notice (the pointer to ``llms.txt``, the generated notice): in
``llms-full.txt`` it is stated once, at the top, and cut from each copy.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from generator.model.pages import Page
from generator.publish.staging import Staging

BYTES_PER_TOKEN = 4
"""The estimate: one token per four bytes of UTF-8 (English runs about four characters a token;
Cyrillic and Arabic take two bytes a character and run two to three characters a token)."""


def estimate_tokens(size: int) -> int:
    """Tokens in *size* bytes of UTF-8 text, estimated (:data:`BYTES_PER_TOKEN`), rounded up."""
    return -(-size // BYTES_PER_TOKEN)


@dataclass(frozen=True)
class FullPart:
    """One part of a split ``llms-full.txt``: its site path, the pages it holds (first and last), its size."""

    path: str
    first: str
    last: str
    tokens: int


def _label(page: Page) -> str:
    """How ``llms.txt`` names a page that starts or ends a part: the tool or item, else the page kind."""
    return page.doc.name if page.doc is not None else page.kind.value


def split_full(
    staging: Staging,
    code: str,
    head: bytes,
    copies: Iterable[tuple[Page, bytes]],
    tokens: int,
) -> list[FullPart]:
    """Write *code*'s twin *copies* (in page order: the page and the copy) as parts of
    ``llms-full.txt``, each under *tokens* (a page larger than that is a part of its own) and starting
    with *head*; return the parts.
    """
    budget = tokens * BYTES_PER_TOKEN
    parts: list[FullPart] = []
    current: list[tuple[Page, bytes]] = []

    def flush() -> None:
        path = f"{code}/llms-full-{len(parts) + 1:02d}.txt"
        body = [head] if head else []
        staging.write(path, b"\n".join(body + [data for _, data in current]))  # a part: a few hundred KB
        size = len(head) + sum(len(data) + 1 for _, data in current)
        parts.append(FullPart(path, _label(current[0][0]), _label(current[-1][0]), estimate_tokens(size)))

    used = len(head)
    for page, data in copies:
        if current and used + len(data) + 1 > budget:
            flush()
            current, used = [], len(head)
        current.append((page, data))
        used += len(data) + 1
    if current:
        flush()
    return parts


@dataclass(frozen=True)
class Placed:
    """A twin's copy as a chunk wrote it: its page (an index into the build's pages) and its size."""

    page: int
    size: int


@dataclass(frozen=True)
class Fragment:
    """Where a chunk's copies of one locale are: the fragment file's name, offset and size."""

    name: str
    start: int
    size: int


@dataclass
class Copies:
    """A chunk's twin copies, by locale: each copy in page order, and the fragment that holds them."""

    placed: dict[str, list[Placed]] = field(default_factory=dict)
    fragments: dict[str, Fragment] = field(default_factory=dict)


def without_shared(twin: bytes, shared: bytes | None) -> bytes:
    """A twin's copy for ``llms-full.txt`` without the text every twin repeats (its first occurrence and the
    blank line after it), stated once at the top of that file; unchanged when the twin does not carry it.
    Bytes, not text: a UTF-8 needle matches only where its characters begin, so this cuts what text would."""
    if not shared:
        return twin
    at = twin.find(b"\n" + shared + b"\n")
    if at < 0:
        return twin
    end = at + len(shared) + 2
    return twin[: at + 1] + twin[end + 1 if twin[end : end + 1] == b"\n" else end :]


class Fragments:
    """The files the chunks' copies go to before each locale's ``llms-full.txt`` is written: one per process
    and locale in the private *directory*, appended to and kept open (creating a file costs about 0.9 ms,
    docs/performance.md), so neither a worker nor the parent holds every copy. *shared* is each locale's
    text cut from every copy (:func:`without_shared`). Made before the workers fork."""

    def __init__(self, directory: Path, shared: Mapping[str, bytes]) -> None:
        self.directory, self.shared = directory, shared
        self._appending: dict[str, io.FileIO] = {}

    def add(self, copies: Iterable[tuple[int, str, bytes]]) -> Copies:
        """Append one chunk's *copies* (page index, locale, copy; in page order) to this process's files."""
        result = Copies({code: [] for code in self.shared})
        joined: dict[str, list[bytes]] = {code: [] for code in self.shared}
        for page, locale, copy in copies:
            cut = without_shared(copy, self.shared.get(locale))
            joined[locale].append(cut)
            result.placed[locale].append(Placed(page, len(cut)))
        for code, parts in joined.items():
            result.fragments[code] = self._append(code, b"\n".join(parts))
        return result

    def _append(self, locale: str, data: bytes) -> Fragment:
        name = f"{os.getpid()}.{locale}"
        handle = self._appending.get(name)
        if handle is None:
            handle = self._appending[name] = io.FileIO(self.directory / name, "ab")
        start = handle.tell()
        view = memoryview(data)
        while view:
            view = view[handle.write(view) or 0 :]
        return Fragment(name, start, len(data))

    def close(self) -> None:
        """Close this process's fragment files (the workers' close as they exit)."""
        for handle in self._appending.values():
            handle.close()
        self._appending.clear()

    def pieces(self, code: str, chunks: Sequence[Copies], head: bytes) -> Iterator[bytes]:
        """*code*'s ``llms-full.txt`` in pieces: *head* (if any), then each chunk's copies, read back from
        its fragment in turn, all joined by newlines."""
        opened: dict[str, int] = {}
        try:
            if head:
                yield head
            for number, chunk in enumerate(chunks):
                fragment = chunk.fragments[code]
                if fragment.name not in opened:
                    opened[fragment.name] = os.open(self.directory / fragment.name, os.O_RDONLY)
                data = os.pread(opened[fragment.name], fragment.size, fragment.start) if fragment.size else b""
                if len(data) != fragment.size:
                    raise RuntimeError(f"a fragment of llms-full.txt ({fragment.size} bytes at {fragment.start} in "
                                       f"{fragment.name}) cannot be read back")  # fmt: skip
                yield b"\n" + data if head or number else data
        finally:
            for handle in opened.values():
                os.close(handle)


def write_full(
    staging: Staging, pages: Sequence[Page], fragments: Fragments, chunks: Sequence[Copies], tokens: int
) -> dict[str, list[FullPart]]:
    """Each locale's ``llms-full.txt`` from the chunks' copies (in the site's page order: the chunks hold
    consecutive groups), headed by the text cut from each copy, and its parts when it is over *tokens*."""
    parts: dict[str, list[FullPart]] = {}
    for code, text in fragments.shared.items():
        path, head = f"{code}/llms-full.txt", text + b"\n" if text else b""
        staging.write_stream(path, fragments.pieces(code, chunks, head))
        parts[code] = []
        if estimate_tokens(len(head) + sum(p.size + 1 for chunk in chunks for p in chunk.placed[code])) > tokens:
            with open(staging.location(path), "rb") as file:
                parts[code] = split_full(staging, code, head, _copies(pages, code, chunks, file, len(head)), tokens)
    return parts


def _copies(
    pages: Sequence[Page], code: str, chunks: Sequence[Copies], file: BinaryIO, head: int
) -> Iterator[tuple[Page, bytes]]:
    """Each twin copy of *code* with its page, in page order, read in turn from the locale's ``llms-full.txt``
    as written (*file*), whose first *head* bytes are the head: only the copies of the part being written are
    in memory."""
    file.seek(head)
    for number, chunk in enumerate(chunks):
        file.seek(1 if head or number else 0, os.SEEK_CUR)  # the newline before every chunk's copies but the first
        for n, placed in enumerate(chunk.placed[code]):
            file.seek(1 if n else 0, os.SEEK_CUR)
            yield pages[placed.page], file.read(placed.size)
