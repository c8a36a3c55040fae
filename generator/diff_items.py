"""Classified changes of prompts, resources and resource templates between two snapshots.

Prompts are matched by name, resources by URI and templates by URI template (a new URI or
template is a removal plus an addition: a client holding the old one can no longer use it).
Judged from the client's side, like tools in :mod:`generator.diff`:

* a prompt, resource or template removed, a prompt argument removed or made required, a
  required argument added, or a MIME type changed (a reader may parse it differently) is
  ``breaking``;
* anything added, an argument made optional, and other metadata (annotations, size, icons,
  ``_meta``) are ``non-breaking``;
* names, titles and descriptions are ``cosmetic``.

An endpoint that lists an item differently (its ``item_variants``) is compared against its
own earlier listing too, as :mod:`generator.diff` does for tools.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from generator.changes import BREAKING, COSMETIC, NON_BREAKING, Change, endpoint_pairs
from generator.schema import json_equal
from generator.snapshot import ITEM_KEYS, Snapshot

_SUBJECT = {"prompts": "prompt", "resources": "resource", "resource_templates": "resource-template"}
_NOUN = {"prompt": "prompt", "resource": "resource", "resource-template": "resource template"}
_COSMETIC_KEYS = frozenset({"name", "title", "description"})
_COMPARED = frozenset({"arguments", "mimeType"}) | _COSMETIC_KEYS


def _keyed(items: Iterable[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for item in items:
        found.setdefault(str(item.get(key)), item)
    return found


def _arguments(prompt: dict[str, Any]) -> dict[str, dict[str, Any]]:
    raw = prompt.get("arguments")
    args = [a for a in raw if isinstance(a, dict)] if isinstance(raw, list) else []
    return _keyed(args, "name")


def item_changes(old: Snapshot, new: Snapshot) -> list[Change]:
    """Every change of the prompts, resources and resource templates, in listing order."""
    changes: list[Change] = []
    for section, key in ITEM_KEYS.items():
        subject = _SUBJECT[section]
        noun = _NOUN[subject]
        before, after = _keyed(getattr(old, section), key), _keyed(getattr(new, section), key)
        for name, item in after.items():
            if name not in before:
                changes.append(Change(name, NON_BREAKING, f"{subject}-added", "", None, name,
                                      f"{noun} `{name}` was added", subject=subject))  # fmt: skip
            else:
                changes.extend(_item_changes(subject, name, before[name], item))
        for name in before:
            if name not in after:
                changes.append(Change(name, BREAKING, f"{subject}-removed", "", name, None,
                                      f"{noun} `{name}` was removed", subject=subject))  # fmt: skip
        changes.extend(_variant_changes(old, new, section, before, after))
    return changes


def _variant_changes(
    old: Snapshot, new: Snapshot, section: str, before: dict[str, Any], after: dict[str, Any]
) -> list[Change]:
    """Changes an endpoint made alone to a prompt or resource it lists differently (``item_variants``)."""
    pairs = endpoint_pairs(old, new)
    if pairs is None:
        return []
    subject = _SUBJECT[section]
    old_eps, new_eps = pairs
    changes: list[Change] = []
    for endpoint, record in new_eps.items():
        earlier = old_eps.get(endpoint)
        if earlier is None:
            continue
        old_own = (earlier.get("item_variants") or {}).get(section, {})
        new_own = (record.get("item_variants") or {}).get(section, {})
        offered = set(earlier.get(section, [])) & set(record.get(section, [])) & set(before) & set(after)
        for name in sorted(offered & (set(old_own) | set(new_own))):
            shared = {c.what for c in _item_changes(subject, name, before[name], after[name])}
            own = _item_changes(subject, name, old_own.get(name, before[name]), new_own.get(name, after[name]))
            where = str(record["address"])
            for change in own:
                if change.what not in shared:
                    message = f"{change.message} on the endpoint `{endpoint}` ({where})"
                    changes.append(replace(change, message=message, endpoint=endpoint))
    return changes


def _item_changes(subject: str, name: str, old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    noun = _NOUN[subject]
    out: list[Change] = []

    def add(cls: str, kind: str, path: str, before: Any, after: Any, message: str) -> None:
        out.append(Change(name, cls, kind, path, before, after, message, subject=subject))

    for field in sorted(_COSMETIC_KEYS):
        if old.get(field) != new.get(field) and not (subject == "prompt" and field == "name"):
            add(COSMETIC, f"{field}-changed", "", old.get(field), new.get(field), f"the {noun}'s {field} changed")
    if old.get("mimeType") != new.get("mimeType"):
        add(BREAKING, "mime-type-changed", "mimeType", old.get("mimeType"), new.get("mimeType"),
            f"the {noun}'s MIME type changed, so readers may parse its content differently")  # fmt: skip
    if subject == "prompt":
        out.extend(_argument_changes(name, _arguments(old), _arguments(new)))
    for field in sorted((set(old) | set(new)) - _COMPARED):
        if not json_equal(old.get(field), new.get(field)):
            add(NON_BREAKING, "metadata-changed", field, old.get(field), new.get(field),
                f"the {noun}'s `{field}` changed")  # fmt: skip
    return out


def _argument_changes(prompt: str, old: dict[str, dict[str, Any]], new: dict[str, dict[str, Any]]) -> list[Change]:
    out: list[Change] = []

    def add(cls: str, kind: str, arg: str, before: Any, after: Any, message: str) -> None:
        out.append(Change(prompt, cls, kind, f"arguments.{arg}", before, after, message, subject="prompt"))

    for arg, spec in new.items():
        required = spec.get("required") is True
        if arg not in old:
            if required:
                add(BREAKING, "param-added-required", arg, None, spec, f"required argument `{arg}` was added")
            else:
                add(NON_BREAKING, "param-added-optional", arg, None, spec, f"optional argument `{arg}` was added")
            continue
        was_required = old[arg].get("required") is True
        if required and not was_required:
            add(BREAKING, "param-required", arg, False, True, f"argument `{arg}` is now required")
        elif was_required and not required:
            add(NON_BREAKING, "param-optional", arg, True, False, f"argument `{arg}` is now optional")
        for field in ("title", "description"):
            if old[arg].get(field) != spec.get(field):
                add(COSMETIC, f"{field}-changed", arg, old[arg].get(field), spec.get(field),
                    f"the {field} of argument `{arg}` changed")  # fmt: skip
    for arg, spec in old.items():
        if arg not in new:
            add(BREAKING, "param-removed", arg, spec, None, f"argument `{arg}` was removed")
    return out
