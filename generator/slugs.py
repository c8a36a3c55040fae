"""Safe, unique, deterministic URL slugs for tools, prompts, resources and templates.

A name is untrusted: it must never pick a file path.  A plain name
(``[A-Za-z0-9_.-]+``) is its own slug, unless a file system or a host would treat it
specially: ``.``/``..`` and other leading dots (hidden files), a trailing dot (Windows
drops it), a leading dash (reads as an option), a Windows device name (``con``,
``nul.txt``), or more than :data:`MAX_PLAIN` characters.  Anything else gets a readable
ASCII stem plus a short hash of the exact name.

Slugs are unique per list (one list per page directory: tools, prompts, resources,
resource templates) on a case-insensitive, Unicode-normalizing file system, and a page
``S/index.html`` owns its twin ``S.md`` too, so ``x`` and ``x.md`` may not both be slugs
(the directory ``x.md/`` would sit where ``x``'s twin is a file).  When two items would
share a file, the later one is hashed.  Items that share a name (two
resources called ``x`` at different URIs) are told apart by hashing the name together
with their identity, so no name and no pair can ever produce the same slug.  The result
depends only on the list, so URLs are stable between builds.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence

_PLAIN = re.compile(r"[A-Za-z0-9_.-]+")
_WINDOWS_RESERVED = {"con", "prn", "aux", "nul"} | {f"{p}{i}" for p in ("com", "lpt") for i in range(10)}
MAX_PLAIN = 80
_STEM = 40
TWIN_SUFFIX = ".md"
"""The Markdown twin of the page ``S/index.html`` is the file ``S.md`` beside it."""


def _is_plain(name: str) -> bool:
    return (
        bool(_PLAIN.fullmatch(name))
        and not name.startswith(".")  # ".", "..", and hidden files that hosts skip (".well-known")
        and not name.endswith(".")  # Windows drops trailing dots: "a." and "a" would share a file
        and not name.startswith("-")  # a leading dash reads as an option in shell commands
        and len(name) <= MAX_PLAIN
        and name.split(".")[0].lower() not in _WINDOWS_RESERVED
    )


def _hashed(stem_from: str, exact: str) -> str:
    """A readable ASCII stem of *stem_from*, then 10 hex digits of the SHA-256 of *exact*."""
    folded = unicodedata.normalize("NFKD", stem_from).encode("ascii", "ignore").decode("ascii")
    stem = re.sub(r"[^A-Za-z0-9_]+", "-", folded).strip("-_")[:_STEM].strip("-_") or "tool"
    digest = hashlib.sha256(exact.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{stem}-{digest}"


def fold(path: str) -> str:
    """The key under which two slugs (or paths) would be the same file on a forgiving file system."""
    return unicodedata.normalize("NFKC", path).casefold()


def _files(slug: str) -> tuple[str, str]:
    """What a slug occupies in its directory, folded: the page's directory and its Markdown twin."""
    return fold(slug), fold(slug + TWIN_SUFFIX)


def item_slugs(items: Sequence[tuple[str, str]]) -> list[str]:
    """One slug per item of *items*, given as (name, identity), in order; pairwise distinct after :func:`fold`.

    The identity is what tells items apart (a tool's or prompt's name, a resource's URI).
    A name only one item has is its own slug when plain, else hashed as itself; a name
    several items share is hashed together with each identity (as a JSON pair, so the
    resource ``"x u1"`` and the resource ``"x"`` at ``u1`` never hash alike).  Earlier
    items keep plain slugs on a clash, and uniqueness never rests on the hash alone.
    """
    counts = Counter(name for name, _ in items)
    taken: set[str] = set()
    slugs: list[str] = []
    for name, identity in items:
        if counts[name] == 1:
            hashed = _hashed(name, name)
            slug = name if _is_plain(name) else hashed
        else:
            hashed = _hashed(f"{name} {identity}", json.dumps([name, identity]))
            slug = hashed
        if not taken.isdisjoint(_files(slug)):
            slug = hashed
        # A clash of 40-bit hash prefixes is astronomically unlikely (or the same item twice): stay unique anyway.
        base, counter = slug, 2
        while not taken.isdisjoint(_files(slug)):
            slug = f"{base}-{counter}"
            counter += 1
        taken.update(_files(slug))
        slugs.append(slug)
    return slugs


def assign_slugs(names: Iterable[str]) -> dict[str, str]:
    """Map each distinct name to a unique slug (a name given twice is one entry); earlier names keep plain slugs."""
    distinct = list(dict.fromkeys(names))
    return dict(zip(distinct, item_slugs([(n, n) for n in distinct]), strict=True))


def duplicates(keys: Iterable[str]) -> list[str]:
    """The keys given more than once, each once, in order of first appearance."""
    counts = Counter(keys)
    return [key for key, count in counts.items() if count > 1]
