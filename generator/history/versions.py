"""``OUT/versions.json``: every version of a versioned site, newest first, with what a reader needs to pick one.

The file is what the version switcher of every page reads at run time (so a page built long ago
still lists the versions published after it) and what the next build reads to know the versions
it keeps. It is read back from the output directory, which anyone with access to the host or the
branch could have edited, so it is checked as untrusted input: bounded, every label a safe path
segment (:func:`generator.history.labels.label_problem`), every field of the type it must be.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from generator.errors import PortalError
from generator.history.labels import LATEST, label_problem
from generator.jsonutil import RepeatedKey, loads_unique

VERSIONS = "versions.json"
MAX_VERSIONS_BYTES = 4 * 1024 * 1024
"""A ``versions.json`` larger than this is not one we wrote (ours is about 200 bytes a version)."""
MAX_VERSIONS = 1000
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_PROTOCOL = re.compile(r"[0-9A-Za-z.-]{1,40}")
_LOCALE = re.compile(r"[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8}){0,3}")


@dataclass(frozen=True)
class Version:
    """One published version, as ``versions.json`` lists it."""

    label: str
    date: str
    """When it was first published, ``YYYY-MM-DD`` (UTC); a rebuild of the same version keeps it."""
    protocol: str
    """The MCP protocol revision its first endpoint negotiated: its protocol era."""
    breaking: bool
    """Whether it broke anything for callers of the version before it (:mod:`generator.compare`'s rules)."""
    tools: int
    locales: tuple[str, ...]
    search: bool = True
    """Whether its directory holds a search index."""

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.label,
            "path": f"{self.label}/",
            "date": self.date,
            "protocol": self.protocol,
            "breaking": self.breaking,
            "tools": self.tools,
            "locales": list(self.locales),
            "search": self.search,
        }


def dump(versions: Sequence[Version], generator: str) -> bytes:
    """``versions.json``'s bytes for *versions* (newest first): the newest is also named ``latest``."""
    body = {
        "generator": generator,
        LATEST: versions[0].label if versions else None,
        "versions": [v.to_json() for v in versions],
    }
    return (json.dumps(body, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


class VersionsError(PortalError):
    """A ``versions.json`` that mcp-portal did not write as it stands."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(
            f"The versions list {where} is not one mcp-portal wrote: {problem}. mcp-portal keeps it up to "
            f"date itself and never uses a version it cannot trust to name a directory; restore the file "
            f"from the last published site (or your Pages branch) and build again."
        )


def parse(raw: bytes, where: str) -> list[Version]:
    """The versions *raw* lists, newest first, every field checked; :class:`VersionsError` says what is wrong."""
    if len(raw) > MAX_VERSIONS_BYTES:
        raise VersionsError(where, f"it is larger than {MAX_VERSIONS_BYTES:,} bytes")
    try:
        data = loads_unique(raw.decode("utf-8"))
    except RepeatedKey as exc:  # two readers could take two different lists from it
        raise VersionsError(where, str(exc)) from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise VersionsError(where, "it is not valid JSON") from None
    entries = data.get("versions") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise VersionsError(where, 'it has no "versions" list')
    if len(entries) > MAX_VERSIONS:
        raise VersionsError(where, f"it lists more than {MAX_VERSIONS:,} versions")
    found: list[Version] = []
    for n, entry in enumerate(entries, 1):
        version = _entry(entry)
        if isinstance(version, str):
            raise VersionsError(where, f"entry {n} {version}")
        if any(v.label.casefold() == version.label.casefold() for v in found):
            raise VersionsError(where, f"entry {n} repeats the version {version.label!r}")
        found.append(version)
    return found


def _entry(entry: object) -> Version | str:
    """One entry of the list as a :class:`Version`, or what is wrong with it."""
    if not isinstance(entry, dict):
        return "is not a JSON object"
    label = entry.get("version")
    if not isinstance(label, str):
        return "has no version"
    if (problem := label_problem(label)) is not None:
        return f"has a version {label[:80]!r} that cannot name a directory ({problem})"
    date, protocol, locales = entry.get("date"), entry.get("protocol"), entry.get("locales")
    if not isinstance(date, str) or not _DATE.fullmatch(date):
        return f"({label}) has no date of the form YYYY-MM-DD"
    if not isinstance(protocol, str) or not _PROTOCOL.fullmatch(protocol):
        return f"({label}) has no protocol revision"
    if not isinstance(entry.get("breaking"), bool) or not isinstance(entry.get("search", True), bool):
        return f"({label}) has a breaking or search flag that is not true or false"
    tools = entry.get("tools")
    if not isinstance(tools, int) or isinstance(tools, bool) or tools < 0:
        return f"({label}) has no tool count"
    if (
        not isinstance(locales, list)
        or not locales
        or not all(isinstance(c, str) and _LOCALE.fullmatch(c) for c in locales)
    ):
        return f"({label}) has no list of locale codes"
    return Version(
        label, date, protocol, bool(entry["breaking"]), tools, tuple(locales), bool(entry.get("search", True))
    )
