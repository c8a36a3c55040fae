"""Safe, unique, deterministic URL slugs for tool names.

A tool name is untrusted: it must never pick a file path.  A plain name
(``[A-Za-z0-9_.-]+``, not ``.``/``..``) is its own slug.  Anything else, and any
name that would clash with another on a case-insensitive or Unicode-normalizing
file system, or that Windows reserves, gets a readable stem plus a short hash of
the exact name.  The result depends only on the tool list, so URLs are stable.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable

_PLAIN = re.compile(r"[A-Za-z0-9_.-]+")
_WINDOWS_RESERVED = {"con", "prn", "aux", "nul"} | {f"{p}{i}" for p in ("com", "lpt") for i in range(10)}
MAX_PLAIN = 80
_STEM = 40


def _is_plain(name: str) -> bool:
    return (
        bool(_PLAIN.fullmatch(name))
        and name not in (".", "..")
        and not name.endswith(".")  # Windows drops trailing dots: "a." and "a" would share a file
        and not name.startswith("-")  # a leading dash reads as an option in shell commands
        and len(name) <= MAX_PLAIN
        and name.split(".")[0].lower() not in _WINDOWS_RESERVED
    )


def _hashed(name: str) -> str:
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    stem = re.sub(r"[^A-Za-z0-9_]+", "-", folded).strip("-_")[:_STEM].strip("-_") or "tool"
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{stem}-{digest}"


def _fold(slug: str) -> str:
    """The key under which two slugs would be the same file on a forgiving file system."""
    return unicodedata.normalize("NFKC", slug).casefold()


def assign_slugs(names: Iterable[str]) -> dict[str, str]:
    """Map each tool name to a unique slug; earlier tools keep plain slugs on a clash."""
    slugs: dict[str, str] = {}
    taken: set[str] = set()
    for name in names:
        if name in slugs:
            continue
        slug = name if _is_plain(name) else _hashed(name)
        if _fold(slug) in taken:
            slug = _hashed(name)
        # A hash collision on a 40-bit prefix is astronomically unlikely, but stay unique anyway.
        counter = 2
        base = slug
        while _fold(slug) in taken:
            slug = f"{base}-{counter}"
            counter += 1
        taken.add(_fold(slug))
        slugs[name] = slug
    return slugs
