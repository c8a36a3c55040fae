"""``llms-full.txt`` in parts: the token estimate, the parts' records, the notice said once.

A locale's ``llms-full.txt`` holds every twin; over :data:`generator.site.job.PART_TOKENS`
it is also written as parts of whole pages, which ``llms.txt`` lists with their first and last
page. Every twin repeats a short notice (the pointer to ``llms.txt``, the generated notice): in
``llms-full.txt`` it is stated once, at the top, and cut from each copy.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import BinaryIO

from generator.cache.pages import Chunk, Pages
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
    copies: Iterable[tuple[Page, bytes | memoryview, str]],
    tokens: int,
) -> list[FullPart]:
    """Write *code*'s twin *copies* (in page order: the page, the copy, the twin's sha256) as parts of
    ``llms-full.txt``, each under *tokens* (a page larger than that is a part of its own) and starting
    with *head*; return the parts.
    """
    budget = tokens * BYTES_PER_TOKEN
    parts: list[FullPart] = []
    current: list[tuple[Page, bytes | memoryview, str]] = []

    def flush() -> None:
        path = f"{code}/llms-full-{len(parts) + 1:02d}.txt"
        body = [head] if head else []
        staging.write(path, b"\n".join(body + [data for _, data, _ in current]))  # a part: a few hundred KB
        size = len(head) + sum(len(data) + 1 for _, data, _ in current)
        parts.append(FullPart(path, _label(current[0][0]), _label(current[-1][0]), estimate_tokens(size)))

    used = len(head)
    for page, data, twin in copies:
        if current and used + len(data) + 1 > budget:
            flush()
            current, used = [], len(head)
        current.append((page, data, twin))
        used += len(data) + 1
    if current:
        flush()
    return parts


def write_full(
    staging: Staging, pages: Pages, chunks: Sequence[Chunk], shared: Mapping[str, bytes], tokens: int
) -> tuple[dict[str, list[FullPart]], dict[str, tuple[bytes, int, str]]]:
    """Each locale's ``llms-full.txt`` from the chunks' copies (*shared*: the text stated once at its top),
    and its parts when it is over *tokens*; return the parts and each file's head, size and sha256, by locale."""
    parts: dict[str, list[FullPart]] = {}
    files: dict[str, tuple[bytes, int, str]] = {}
    for code, text in shared.items():
        # Every twin of the locale in the site's page order: the chunks hold consecutive groups.
        path, head = f"{code}/llms-full.txt", text + b"\n" if text else b""
        source = staging.previous / code / "llms-full.txt" if staging.previous is not None else None
        pieces = pages.pieces(code, chunks, head)
        files[code] = (head, staging.write_ranges(path, pieces, source), staging.hashes[path])
        parts[code] = []
        if estimate_tokens(len(head) + sum(p.size + 1 for chunk in chunks for p in chunk.sizes[code])) > tokens:
            with open(staging.location(path), "rb") as file:
                copies = _copies(pages.pages, code, chunks, file, len(head))
                parts[code] = split_full(staging, code, head, copies, tokens)
    return parts, files


def _copies(
    pages: Sequence[Page], code: str, chunks: Sequence[Chunk], file: BinaryIO, head: int
) -> Iterator[tuple[Page, bytes, str]]:
    """Each twin copy of *code* as (page, its bytes, the twin's sha256), in page order, read in turn from the
    locale's ``llms-full.txt`` as written (*file*), whose first *head* bytes are the head: only the copies of
    the part being written are in memory."""
    file.seek(head)
    for number, chunk in enumerate(chunks):
        file.seek(1 if head or number else 0, os.SEEK_CUR)  # the newline before every chunk's copies but the first
        for n, placed in enumerate(chunk.sizes[code]):
            file.seek(1 if n else 0, os.SEEK_CUR)
            yield pages[placed.page], file.read(placed.size), placed.twin
