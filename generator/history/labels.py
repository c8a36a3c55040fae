"""Version labels: the one path segment each version of a versioned site lives under, and their order.

What a label may be is :func:`generator.labels.label_problem` (the one check, shared with
``--version-label`` and the docs server). A label that breaks it is refused, never rewritten: two server versions
rewritten to the same segment would overwrite each other's release.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from generator.labels import MAX_LABEL, RESERVED_LABELS, label_problem

__all__ = ["LATEST", "MAX_LABEL", "RESERVED_LABELS", "label_problem", "newest_first"]

LATEST = "latest"
"""The directory that leads to the newest version."""

_VERSION = re.compile(r"[vV]?(\d{1,9}(?:\.\d{1,9}){0,5})(?:-([0-9A-Za-z.-]{1,40}))?(?:\+[0-9A-Za-z.-]{0,40})?")


def _parts(label: str) -> tuple[tuple[int, ...], tuple[int, tuple[tuple[int, int | str], ...]]] | None:
    """The sort key of a label that reads as a version (``1.4.0``, ``v2``, ``1.0.0-rc.1``), else None.

    Release numbers compare as numbers with missing places as zero (``1.4`` = ``1.4.0``); a
    pre-release (``-rc.1``) comes before its release, and its dot-separated parts compare as
    numbers when numeric, else as text, as semantic versioning orders them.
    """
    found = _VERSION.fullmatch(label)
    if found is None:
        return None
    numbers = tuple(int(n) for n in found.group(1).split("."))
    numbers = numbers + (0,) * (6 - len(numbers))
    pre = found.group(2)
    if pre is None:
        return numbers, (1, ())
    keyed = tuple((0, int(p)) if p.isdigit() else (1, p) for p in pre.split("."))
    return numbers, (0, keyed)


def newest_first(labels: Sequence[str], stored: Sequence[str]) -> list[str]:
    """*labels*, newest first.

    When every label reads as a version, by version (a ``1.2.1`` published after ``1.3.0`` still
    comes after it, ties broken by the label's text); otherwise in the order *stored* (the order the
    site's ``versions.json`` gives, newest first), a label it does not hold yet being the newest.
    """
    keys = {label: _parts(label) for label in labels}
    if all(key is not None for key in keys.values()):
        return sorted(labels, key=lambda label: (keys[label], label), reverse=True)
    known = [label for label in stored if label in labels]
    fresh = [label for label in labels if label not in known]
    return [*fresh, *known]
