"""``llms-full.txt`` in parts: the token estimate, the parts' records, the notice said once.

A locale's ``llms-full.txt`` holds every twin; over :data:`generator.site.job.PART_TOKENS`
it is also written as parts of whole pages, which ``llms.txt`` lists with their first and last
page. Every twin repeats a short notice (the pointer to ``llms.txt``, the generated notice): in
``llms-full.txt`` it is stated once, at the top, and cut from each copy.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

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


def without_shared(twin: bytes, shared: bytes | None) -> bytes:
    """A twin's copy for ``llms-full.txt`` (UTF-8) without the shared text (its first occurrence, and the
    blank line after it); unchanged when the twin does not carry it (a user template may leave it out).

    Bytes, not text: the copies go from the cache to the file without being decoded. A UTF-8 needle
    matches only where its characters begin, so this cuts exactly what the same search in text would.
    """
    if not shared:
        return twin
    at = twin.find(b"\n" + shared + b"\n")
    if at < 0:
        return twin
    end = at + len(shared) + 2
    return twin[: at + 1] + twin[end + 1 if twin[end : end + 1] == b"\n" else end :]


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
