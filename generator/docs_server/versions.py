"""Release history: which portal a ``version`` argument names.

A site built with release history keeps each version's portal in ``SITE/<version>/`` and lists the versions,
newest first, in ``SITE/versions.json``. This module is the one place that reads that layout (it is being
built at the same time as the docs server, so it is kept small and apart): it accepts a list of objects
with a ``version`` string, bare or under a ``versions`` key, and maps a version to its folder.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from generator.docs_server.source import NotFound, Refused, SiteError, SiteSource, site_path
from generator.text import one_line

MAX_VERSIONS_FILE = 4 * 1024 * 1024


class UnknownVersion(SiteError):
    """A ``version`` argument the site does not have."""


@dataclass(frozen=True)
class Versions:
    """The versions a site lists (newest first), each with the fields versions.json gives it."""

    entries: tuple[dict[str, Any], ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(str(entry["version"]) for entry in self.entries)


async def load_versions(source: SiteSource) -> Versions | None:
    """The site's ``versions.json``, or None when it has none; a :class:`SiteError` when it is malformed."""
    try:
        data = json.loads(await source.read("versions.json", MAX_VERSIONS_FILE))
    except NotFound:
        return None
    except ValueError:
        raise SiteError(f"{source.label} has a versions.json that is not JSON.") from None
    listed = data.get("versions") if isinstance(data, dict) else data
    if not isinstance(listed, list):
        raise SiteError(f"{source.label} has a versions.json that lists no versions.")
    entries = []
    for entry in listed:
        version = entry.get("version") if isinstance(entry, dict) else None
        try:
            if not isinstance(version, str) or "/" in site_path(version):
                raise Refused("")
        except Refused:
            raise SiteError(
                f"{source.label} has a versions.json entry whose version is not a folder name: "
                f"{one_line(json.dumps(entry))[:120]}."
            ) from None
        entries.append(dict(entry))
    return Versions(tuple(entries))


def prefix_for(version: str | None, versions: Versions | None, root_is_portal: bool) -> str:
    """The folder (``""`` for the root, else ``"<version>/"``) of the portal *version* names.

    No version means the portal at the root, or, when only versions are kept, the newest one.
    """
    if version is None:
        if root_is_portal or versions is None or not versions.entries:
            return ""
        return f"{versions.names[0]}/"
    if versions is None:
        raise UnknownVersion(
            f"This site keeps no release history (it has no versions.json), so there is no version "
            f"{one_line(version)[:60]!r}. Call again without a version."
        )
    if version not in versions.names:
        known = ", ".join(versions.names[:20]) + (" ..." if len(versions.names) > 20 else "")
        raise UnknownVersion(
            f"This site has no version {one_line(version)[:60]!r}; it keeps {known}. Call list_versions to see them."
        )
    return f"{version}/"
