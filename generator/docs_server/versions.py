"""Release history: the versions a versioned site keeps, and the folder a ``version`` argument names.

``mcp-portal build --versioned`` publishes each version's whole portal into ``SITE/<version>/`` and lists
the versions, newest first, in ``SITE/versions.json`` (written by :mod:`generator.history.versions`)::

    {"generator": "mcp-portal 0.1.0", "latest": "2.0.0",
     "versions": [{"version": "2.0.0", "path": "2.0.0/", "date": "2026-04-01", "protocol": "2026-07-28",
                   "breaking": true, "tools": 5, "locales": ["en", "ru", "ar"], "search": true}, ...]}

The top level of such a site holds no portal of its own (its pages list the versions and lead to the
newest), so a call without a version reads the newest. This module is the docs server's one reader of that
file. A site is untrusted input: the file is bounded, no object may name a key twice, every version must
be a label a build could have written (:func:`generator.labels.label_problem`), at its own folder, once;
an agent gets only the fields above, each of its type.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from generator.docs_server.source import NotFound, SiteError, SiteSource
from generator.jsonutil import RepeatedKey, loads_unique
from generator.labels import label_problem
from generator.text import one_line

VERSIONS = "versions.json"
MAX_VERSIONS_FILE = 4 * 1024 * 1024
MAX_VERSIONS = 1000
FIELDS: dict[str, type | tuple[type, ...]] = {
    "date": str,
    "protocol": str,
    "breaking": bool,
    "tools": int,
    "locales": list,
    "search": bool,
}
"""The fields of an entry an agent gets besides ``version`` and ``path``, and their JSON types."""


class UnknownVersion(SiteError):
    """A ``version`` argument the site does not have."""


@dataclass(frozen=True)
class Versions:
    """The versions a site keeps, newest first, each with the fields versions.json gives it."""

    entries: tuple[dict[str, Any], ...]
    latest: str
    """The newest version: the one a call without a version reads."""

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(str(entry["version"]) for entry in self.entries)

    def before(self, version: str) -> str | None:
        """The version published just before *version* (the next older one), if the site keeps it."""
        names = self.names
        at = names.index(version) if version in names else len(names)
        return names[at + 1] if at + 1 < len(names) else None


async def load_versions(source: SiteSource) -> Versions | None:
    """The site's ``versions.json``, or None when it has none; a :class:`SiteError` when it is not one a build
    wrote."""
    try:
        raw = await source.read(VERSIONS, MAX_VERSIONS_FILE)
    except NotFound:
        return None
    return parse_versions(raw, f"{source.label}{'' if source.label.endswith('/') else '/'}{VERSIONS}")


def parse_versions(raw: bytes, where: str) -> Versions:
    """The versions *raw* (a ``versions.json``, at *where*) lists; a :class:`SiteError` saying what is wrong."""
    try:
        data = loads_unique(raw)
    except RepeatedKey as exc:
        raise _damaged(where, str(exc)) from None
    except (ValueError, RecursionError):
        raise _damaged(where, "it is not JSON") from None
    listed = data.get("versions") if isinstance(data, dict) else None
    if not isinstance(listed, list) or not listed:
        raise _damaged(where, 'it has no "versions" list, or an empty one')
    if len(listed) > MAX_VERSIONS:
        raise _damaged(where, f"it lists more than {MAX_VERSIONS:,} versions")
    entries: list[dict[str, Any]] = []
    for entry in listed:
        checked = _entry(entry)
        if isinstance(checked, str):
            raise _damaged(where, f"the entry {one_line(json.dumps(entry, ensure_ascii=False))[:120]} {checked}")
        if any(e["version"].casefold() == checked["version"].casefold() for e in entries):
            raise _damaged(where, f"it lists the version {checked['version']!r} twice")
        entries.append(checked)
    names = [e["version"] for e in entries]
    latest = data.get("latest")
    return Versions(tuple(entries), latest if isinstance(latest, str) and latest in names else names[0])


def _entry(entry: object) -> dict[str, Any] | str:
    """The entry's fields an agent gets, or what is wrong with it."""
    version = entry.get("version") if isinstance(entry, dict) else None
    if not isinstance(entry, dict) or not isinstance(version, str):
        return "has no version"
    problem = label_problem(version)
    if problem is not None:
        return f"has a version that cannot name a folder ({problem})"
    if entry.get("path", f"{version}/") != f"{version}/":
        return "has a path that is not its version's folder"
    found: dict[str, Any] = {"version": version, "path": f"{version}/"}
    for key, kind in FIELDS.items():
        value = entry.get(key)
        if kind is list and isinstance(value, list):
            found[key] = [v for v in value if isinstance(v, str)]
        elif kind is not list and isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
            found[key] = value
    return found


def _damaged(where: str, problem: str) -> SiteError:
    return SiteError(
        f"The site's {where} is not one `mcp-portal build --versioned` wrote: {problem}. The docs server reads "
        "each version from the folder this file names, so it reads none; restore the file from the published "
        "site and start it again."
    )


def prefix_for(version: str | None, versions: Versions | None) -> str:
    """The folder (``""`` for the root, else ``"<version>/"``) of the portal *version* names.

    No version means the portal at the root, or in a versioned site the newest version.
    """
    if versions is None:
        if version is None:
            return ""
        raise UnknownVersion(
            f"This site keeps no release history (it has no versions.json), so there is no version "
            f"{one_line(version)[:60]!r}. Call again without a version."
        )
    if version is None:
        return f"{versions.latest}/"
    if version not in versions.names:
        known = ", ".join(versions.names[:20]) + (" ..." if len(versions.names) > 20 else "")
        raise UnknownVersion(
            f"This site has no version {one_line(version)[:60]!r}; it keeps {known}. Call list_versions to see them."
        )
    return f"{version}/"
