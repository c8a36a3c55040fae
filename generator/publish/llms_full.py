"""``llms-full.txt`` in parts: the token estimate, the parts' records, the notice said once.

A locale's ``llms-full.txt`` holds every twin; over :data:`generator.publish.assemble.PART_TOKENS`
it is also written as parts of whole pages, which ``llms.txt`` lists with their first and last
page. Every twin repeats a short notice (the pointer to ``llms.txt``, the generated notice): in
``llms-full.txt`` it is stated once, at the top, and cut from each copy.
"""

from __future__ import annotations

from dataclasses import dataclass

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


def without_shared(twin: str, shared: str | None) -> str:
    """A twin's copy for ``llms-full.txt`` without the shared text (its first occurrence, and the blank
    line after it); unchanged when the twin does not carry it (a user template may leave it out)."""
    if not shared:
        return twin
    at = twin.find("\n" + shared + "\n")
    if at < 0:
        return twin
    end = at + len(shared) + 2
    return twin[: at + 1] + twin[end + 1 if twin[end : end + 1] == "\n" else end :]
