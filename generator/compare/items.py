"""Classified changes of prompts, resources and resource templates between two snapshots.

Prompts are matched by name, resources by URI and templates by URI template (a new URI or
template is a removal plus an addition: a client holding the old one can no longer use it).
Judged from the client's side, like tools in :mod:`generator.compare.diff`:

* a prompt, resource or template removed, a prompt argument removed or made required, a
  required argument added, or a MIME type changed (a reader may parse it differently) is
  ``breaking``;
* anything added, an argument made optional, and other metadata (annotations, size, icons,
  ``_meta``) are ``non-breaking``;
* names, titles and descriptions are ``cosmetic``.

An endpoint that lists an item differently (its ``item_variants``) is compared against its
own earlier listing too, as :mod:`generator.compare.diff` does for tools.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from generator.compare.changes import (
    BREAKING,
    COSMETIC,
    ITEM_SUBJECTS,
    NON_BREAKING,
    Change,
    ChangeClass,
    confined_changes,
    keyed,
    noun,
)
from generator.jsonutil import json_equal
from generator.snapshot.records import EndpointRecord
from generator.snapshot.shape import ITEM_KEYS
from generator.snapshot.snapshot import Snapshot
from generator.text import code_span

_COSMETIC_KEYS = frozenset({"name", "title", "description"})
_COMPARED = frozenset({"arguments", "mimeType"}) | _COSMETIC_KEYS


def _arguments(prompt: dict[str, Any]) -> dict[str, dict[str, Any]]:
    raw = prompt.get("arguments")
    args = [a for a in raw if isinstance(a, dict)] if isinstance(raw, list) else []
    return keyed(args, "name")


def item_changes(old: Snapshot, new: Snapshot) -> list[Change]:
    """Every change of the prompts, resources and resource templates, in listing order."""
    changes: list[Change] = []
    for section, key in ITEM_KEYS.items():
        subject = ITEM_SUBJECTS[section]
        what = noun(subject)
        before, after = keyed(getattr(old, section), key), keyed(getattr(new, section), key)
        for name, item in after.items():
            if name not in before:
                changes.append(Change(name, NON_BREAKING, f"{subject}-added", "", None, name,
                                      f"{what} {code_span(name)} was added", subject=subject))  # fmt: skip
            else:
                changes.extend(_item_changes(subject, name, before[name], item))
        for name in before:
            if name not in after:
                changes.append(Change(name, BREAKING, f"{subject}-removed", "", name, None,
                                      f"{what} {code_span(name)} was removed", subject=subject))  # fmt: skip
        changes.extend(
            confined_changes(old, new, section, _variants_in(section), before, after, _compare(subject, key))
        )
    return changes


def _variants_in(section: str) -> Callable[[EndpointRecord], dict[str, Any]]:
    """Reads an endpoint record's own listings of *section* (its ``item_variants``)."""

    def variants(record: EndpointRecord) -> dict[str, Any]:
        return record.item_variants.get(section, {})

    return variants


def _compare(subject: str, key: str) -> Callable[[dict[str, Any], dict[str, Any]], list[Change]]:
    """Compares two listings of one item of *subject* (named by its *key* field)."""

    def compare(old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
        return _item_changes(subject, str(new.get(key)), old, new)

    return compare


def _item_changes(subject: str, name: str, old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    what = noun(subject)
    out: list[Change] = []

    def add(cls: ChangeClass, kind: str, path: str, before: Any, after: Any, message: str) -> None:
        out.append(Change(name, cls, kind, path, before, after, message, subject=subject))

    for field in sorted(_COSMETIC_KEYS):
        if old.get(field) != new.get(field) and not (subject == "prompt" and field == "name"):
            add(COSMETIC, f"{field}-changed", "", old.get(field), new.get(field), f"the {what}'s {field} changed")
    if old.get("mimeType") != new.get("mimeType"):
        add(BREAKING, "mime-type-changed", "mimeType", old.get("mimeType"), new.get("mimeType"),
            f"the {what}'s MIME type changed, so readers may parse its content differently")  # fmt: skip
    if subject == "prompt":
        out.extend(_argument_changes(name, _arguments(old), _arguments(new)))
    for field in sorted((set(old) | set(new)) - _COMPARED):
        if not json_equal(old.get(field), new.get(field)):
            add(NON_BREAKING, "metadata-changed", field, old.get(field), new.get(field),
                f"the {what}'s {code_span(field)} changed")  # fmt: skip
    return out


def _argument_changes(prompt: str, old: dict[str, dict[str, Any]], new: dict[str, dict[str, Any]]) -> list[Change]:
    out: list[Change] = []

    def add(cls: ChangeClass, kind: str, arg: str, before: Any, after: Any, message: str) -> None:
        out.append(Change(prompt, cls, kind, f"arguments.{arg}", before, after, message, subject="prompt"))

    for arg, spec in new.items():
        required = spec.get("required") is True
        if arg not in old:
            if required:
                add(BREAKING, "param-added-required", arg, None, spec, f"required argument {code_span(arg)} was added")
            else:
                message = f"optional argument {code_span(arg)} was added"
                add(NON_BREAKING, "param-added-optional", arg, None, spec, message)
            continue
        was_required = old[arg].get("required") is True
        if required and not was_required:
            add(BREAKING, "param-required", arg, False, True, f"argument {code_span(arg)} is now required")
        elif was_required and not required:
            add(NON_BREAKING, "param-optional", arg, True, False, f"argument {code_span(arg)} is now optional")
        for field in ("title", "description"):
            if old[arg].get(field) != spec.get(field):
                add(COSMETIC, f"{field}-changed", arg, old[arg].get(field), spec.get(field),
                    f"the {field} of argument {code_span(arg)} changed")  # fmt: skip
    for arg, spec in old.items():
        if arg not in new:
            add(BREAKING, "param-removed", arg, spec, None, f"argument {code_span(arg)} was removed")
    return out
