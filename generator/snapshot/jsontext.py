"""``json.dumps(value, indent=2, ensure_ascii=False)``, byte for byte, in about half the time.

Python's JSON encoder has a C version only for compact output; with ``indent`` every value
goes through the pure-Python one, which spends 0.17 s on the 5 MB snapshot of a 1,000-tool
server, more than the checks it is written after.  :func:`pretty` walks the containers in
Python but hands each *leaf* container (one holding no object or array) to the C encoder,
whose item separator then carries the newline and the indentation: a JSON string never holds
a raw newline, so that output is exactly what the pure-Python encoder writes for it.

Anything that is not plain JSON data (a key that is not a string, a tuple, a subclass, a
value the stdlib would convert) goes to :func:`json.dumps` itself, so the result is the
stdlib's in every case; ``tests/test_startup.py`` compares the two on generated values.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from json.encoder import encode_basestring
from typing import Any

try:
    from json.encoder import c_make_encoder  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - an interpreter without the C accelerator
    c_make_encoder = None

_SCALARS = (str, int, float, bool, type(None))
_CONTAINERS = (dict, list)


class _NotPlain(Exception):
    """A value the fast path does not handle exactly as the stdlib does; the stdlib writes the whole text."""


def _refuse(value: object) -> Any:
    raise _NotPlain


@cache
def _flat(newline: str) -> Any:
    """The C encoder for a leaf container whose items start at *newline* (a newline and the indentation)."""
    return c_make_encoder(None, _refuse, encode_basestring, None, ": ", "," + newline, False, False, True)


_COMPACT = (
    c_make_encoder(None, _refuse, encode_basestring, None, ":", ",", False, False, True) if c_make_encoder else None
)


def compact(value: object) -> str:
    """``json.dumps(value, ensure_ascii=False, separators=(",", ":"))``, the same string, without making
    an encoder for each call (a snapshot's tools are encoded one by one: 1,000 calls at 1,000 tools,
    83 ms through ``json.dumps``, 65 ms here)."""
    if _COMPACT is None:  # pragma: no cover
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    try:
        return "".join(_COMPACT(value, 0))
    except _NotPlain:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def pretty(value: object) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)``, the same string, faster for large data."""
    if c_make_encoder is None:  # pragma: no cover
        return json.dumps(value, indent=2, ensure_ascii=False)
    out: list[str] = []
    try:
        _write(value, "\n", out)
    except _NotPlain:
        return json.dumps(value, indent=2, ensure_ascii=False)
    return "".join(out)


_SCALAR_TYPES = frozenset(_SCALARS)
_PLAIN_TYPES = _SCALAR_TYPES | frozenset(_CONTAINERS)
_STR_ONLY = {str}


def _scalar(item: object, kind: type, newline: str) -> str:
    """The text of a plain scalar: strings by the C string encoder, the rest by the C encoder."""
    if kind is str:
        return encode_basestring(item)  # type: ignore[arg-type]
    return "".join(_flat(newline)(item, 0))


def _write(value: object, newline: str, out: list[str]) -> None:
    """Append the text of *value*, whose first line is already indented; *newline* starts its later lines.

    Exact types only (subclasses, tuples and other values go to the stdlib encoder through
    :class:`_NotPlain`); the types of a container's items are collected in one C-level pass.
    """
    kind = type(value)
    if kind is dict:
        if not value:
            out.append("{}")
            return
        if set(map(type, value)) != _STR_ONLY:  # type: ignore[call-overload]
            raise _NotPlain  # the stdlib converts such keys; leave that to it
        items = value.items()  # type: ignore[attr-defined]
        types = set(map(type, value.values()))  # type: ignore[attr-defined]
        opening, closing = "{", "}"
    elif kind is list:
        if not value:
            out.append("[]")
            return
        items = None
        types = set(map(type, value))  # type: ignore[call-overload]
        opening, closing = "[", "]"
    elif kind in _SCALAR_TYPES:
        out.append(_scalar(value, kind, newline))
        return
    else:
        raise _NotPlain
    inner = newline + "  "
    if types <= _SCALAR_TYPES:  # a leaf: the C encoder writes it, its item separator indenting
        out.append(opening + inner + "".join(_flat(inner)(value, 0))[1:-1] + newline + closing)
        return
    if not types <= _PLAIN_TYPES:
        raise _NotPlain
    out.append(opening)
    separator = inner
    if items is not None:
        for key, item in items:
            item_kind = type(item)
            if item_kind is dict or item_kind is list:
                out.append(separator + encode_basestring(key) + ": ")
                _write(item, inner, out)
            else:
                out.append(separator + encode_basestring(key) + ": " + _scalar(item, item_kind, inner))
            separator = "," + inner
    else:
        for item in value:  # type: ignore[attr-defined]
            item_kind = type(item)
            if item_kind is dict or item_kind is list:
                out.append(separator)
                _write(item, inner, out)
            else:
                out.append(separator + _scalar(item, item_kind, inner))
            separator = "," + inner
    out.append(newline + closing)


def around_list(value: dict[str, Any], key: str) -> tuple[str, str] | None:
    """The text :func:`pretty` writes for *value* before the items of its non-empty list
    ``value[key]`` (up to its ``[``) and after them (from its ``]``); None when there is no such list.

    Between the two go the items, each as :func:`list_item` writes it, ``",\\n    "`` between them
    and ``"\\n    "`` before the first.
    """
    items = value.get(key)
    shell = pretty({**value, key: []}) if type(items) is list and items else ""
    slot = f"\n  {encode_basestring(key)}: []"  # the only line indented by two spaces that holds the key
    if shell.count(slot) != 1:
        return None
    before, after = shell.split(slot)
    return before + slot[:-2] + "[", "\n  ]" + after


def list_item(item: object) -> str:
    """The text of *item* as an item of a list at the top level of a :func:`pretty` text.

    Written by :func:`pretty` at the top level and indented for its place: in text written with
    ``indent=2`` a raw newline only ever starts an indented line (JSON strings escape theirs), and
    an item of a top-level list has every later line four spaces further in.
    """
    return pretty(item).replace("\n", "\n    ")


def pretty_pieces(value: dict[str, Any], key: str) -> Iterator[str]:
    """:func:`pretty` of *value* in pieces that join to the same string: the text before the list
    ``value[key]``, each of its items (with the separator before it), and the text after.

    For writing a large snapshot a tool at a time: its whole text (and that text encoded) is never
    held at once.
    """
    around = around_list(value, key)
    if around is None:
        yield pretty(value)
        return
    separator = "\n    "
    yield around[0]
    for item in value[key]:
        yield separator + list_item(item)
        separator = ",\n    "
    yield around[1]
