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

:func:`gc_paused` serves the other direction: reading (or listing) a large snapshot's JSON
without the garbage collector walking the new objects again and again.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from contextlib import contextmanager
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


def _leaf(items: Any) -> bool:
    """Whether every item is a plain scalar (then the C encoder writes the container); raises for odd ones."""
    leaf = True
    for item in items:
        kind = type(item)
        if kind in _CONTAINERS:
            leaf = False
        elif kind not in _SCALARS:
            raise _NotPlain
    return leaf


def _write(value: object, newline: str, out: list[str]) -> None:
    """Append the text of *value*, whose first line is already indented; *newline* starts its later lines."""
    kind = type(value)
    if kind in _SCALARS:
        out.append("".join(_flat(newline)(value, 0)))
        return
    if isinstance(value, dict) and kind is dict:  # exact types only: subclasses go to the stdlib encoder
        if not value:
            out.append("{}")
            return
        if not all(type(key) is str for key in value):
            raise _NotPlain  # the stdlib converts such keys; leave that to it
        inner = newline + "  "
        if _leaf(value.values()):
            out.append("{" + inner + "".join(_flat(inner)(value, 0))[1:-1] + newline + "}")
            return
        out.append("{")
        separator = inner
        for key, item in value.items():
            out.append(separator + encode_basestring(key) + ": ")
            separator = "," + inner
            _write(item, inner, out)
        out.append(newline + "}")
        return
    if isinstance(value, list) and kind is list:
        if not value:
            out.append("[]")
            return
        inner = newline + "  "
        if _leaf(value):
            out.append("[" + inner + "".join(_flat(inner)(value, 0))[1:-1] + newline + "]")
            return
        out.append("[")
        separator = inner
        for item in value:
            out.append(separator)
            separator = "," + inner
            _write(item, inner, out)
        out.append(newline + "]")
        return
    raise _NotPlain


@contextmanager
def gc_paused() -> Iterator[None]:
    """Run the block without the cyclic garbage collector (restored after, as it was).

    Reading a snapshot, or listing a large server, builds millions of small objects that are
    kept and form no cycles; each full collection walks all of them again, which cost about a
    third of the time at 10,000 tools.  Reference counting still frees everything as usual;
    only cycles made in the block wait for the next collection after it.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
