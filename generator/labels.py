"""Version labels: what may name the directory of one version of a versioned site (``OUT/1.4.0/``).

The one check (:func:`label_problem`), shared by the stages that write a versioned site (``--version-label``
in :mod:`generator.config.checks`, the server's version and ``versions.json`` in :mod:`generator.history`) and
the docs server that reads one (:mod:`generator.docs_server.versions`): a label names a path, so whoever
gave it, it is checked before it picks one.
"""

from __future__ import annotations

import re

MAX_LABEL = 64
_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")
_WINDOWS_DEVICES = {"con", "prn", "aux", "nul"} | {f"{p}{i}" for p in ("com", "lpt") for i in range(10)}
RESERVED_LABELS = frozenset(
    {
        "latest", "assets", "changes.xml", "index.html", "llms.txt", "manifest.json", "versions.json",
        "404.html", "robots.txt", "sitemap.xml", "server.json", "server-card.json",
    }
)  # fmt: skip
"""Names the top level of a versioned site uses itself, so no version may be called so."""


def label_problem(label: str) -> str | None:
    """Why *label* cannot name a version's directory of a versioned site, or None when it can.

    A label names a directory (``OUT/1.4.0/``), so it is checked like any name that picks a path,
    whoever gave it (the server's ``serverInfo.version`` or ``--version-label``): one segment of
    letters, digits and ``. _ + -``, starting with a letter or a digit, at most :data:`MAX_LABEL`
    characters, not ending with a dot, not a Windows device name and not one of :data:`RESERVED_LABELS`.
    """
    if not label:
        return "it is empty"
    if len(label) > MAX_LABEL:
        return f"it is longer than {MAX_LABEL} characters"
    if not _LABEL.fullmatch(label):
        return (
            "it is not one path segment of letters, digits and . _ + - starting with a letter or a digit "
            "(a slash, a space, '..' or any other character could pick a path outside the site)"
        )
    if label.endswith("."):
        return "it ends with a dot, which Windows drops from file names"
    if label.casefold() in RESERVED_LABELS:
        return "the top level of a versioned site uses that name itself"
    if label.split(".")[0].lower() in _WINDOWS_DEVICES:
        return "it is a Windows device name"
    return None
