"""Reading a snapshot's JSON text without loss, and knowing when the value is plainly safe.

:func:`load_json` turns the text into Python values, keeping what Python could not hold (an
integer too long to convert) for :mod:`generator.snapshot.shape` to name; :func:`load_json_plain`
also says whether the value is *plain* (no lone surrogate, every number finite and short), so
the shape check may skip its value-by-value scan. An object that names a key twice is refused:
JSON leaves which value counts to each reader, and a snapshot must mean one thing to all of them.
Each problem is a :class:`ShapeProblem`.
"""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any

from generator.jsonutil import RepeatedKey, unique_keys
from generator.snapshot.wording import quote, where

JSON = Any

MAX_DEPTH = 640
"""How deeply a snapshot's JSON may nest (objects and arrays). Real servers stay under 30 levels.

The bound leaves room on Python's call stack for the recursive walks of later stages (schema rows,
``$ref`` resolution, examples, JSON output), so deeper data is one clear error here instead of a
``RecursionError`` there.
"""

_INT_DIGITS = 4300  # Python's default limit for int <-> str conversion; a longer integer cannot be shown


class ShapeProblem(ValueError):
    """Snapshot JSON that breaks the shape; the message is one sentence naming where (no file, no remedy)."""


class LongInt(str):
    """An integer literal too long to convert; kept as text so the scan can name where it is."""


def _int(text: str) -> int | LongInt:
    return int(text) if len(text.lstrip("-")) <= _INT_DIGITS else LongInt(text)


def too_deep_problem(at: list[str | int] | None) -> str:
    """The sentence for a value nested past :data:`MAX_DEPTH` at *at* (None: somewhere in the text)."""
    place = "it" if at is None else where(at)
    return (
        f"{place} lies deeper than the {MAX_DEPTH} levels of nesting a snapshot may have (real servers use a few dozen)"
    )


_SURROGATE_ESCAPE = re.compile("\\\\u[dD][89a-fA-F]")
"""A lone surrogate as a JSON escape (or text that merely looks like one)."""


def _may_hold_surrogate(raw: str) -> bool:
    """Whether a string or key parsed from *raw* can hold a lone surrogate: as a character (which
    UTF-8 cannot encode) or as an escape. Two passes in C (``str.isascii`` and ``in``), 0.05 s for
    54 MB: a regular expression doing both is ten times slower."""
    try:
        raw.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return _SURROGATE_ESCAPE.search(raw) is not None


def load_json_plain(raw: str) -> tuple[JSON, bool]:
    """:func:`load_json`, and whether the value is *plain*: no string or key can hold a lone surrogate
    (the text has none, escaped or not), and every number is finite and short enough to show."""
    if sys.get_int_max_str_digits() == _INT_DIGITS:
        quick = _load_quick(raw)
        if quick is not None:
            return quick
    return _load_hooked(raw)


def _load_hooked(raw: str) -> tuple[JSON, bool]:
    """:func:`load_json_plain` with a hook on every number: the way that decides every case."""
    unusual: list[str] = []

    def number(text: str) -> JSON:
        value = float(text)
        if not math.isfinite(value):
            unusual.append(text)
        return value

    def constant(text: str) -> float:
        unusual.append(text)
        return float(text)

    def integer(text: str) -> int | LongInt:
        value = _int(text)
        if isinstance(value, LongInt):
            unusual.append(text)
        return value

    data = load_json(raw, parse_int=integer, parse_float=number, parse_constant=constant)
    return data, not unusual and not _may_hold_surrogate(raw)


def _load_quick(raw: str) -> tuple[JSON, bool] | None:
    """:func:`load_json_plain` with integers parsed by the C scanner (a Python hook per integer cost
    0.5 s at 10,000 tools); None when that cannot give the same value, for the hooked path to decide.

    The C scanner converts an integer exactly as :func:`_int` does while Python's digit limit is the
    default, and raises ValueError for a longer one, which the hooked path keeps as text. Malformed
    or too deep text is also left to that path, which words the problem.
    """
    unusual = False

    def number(text: str) -> JSON:
        nonlocal unusual
        value = float(text)
        unusual = unusual or not math.isfinite(value)
        return value

    def constant(text: str) -> float:
        nonlocal unusual
        unusual = True
        return float(text)

    try:
        data = json.loads(raw, parse_float=number, parse_constant=constant, object_pairs_hook=unique_keys)
    except (ValueError, RecursionError):  # JSONDecodeError and RepeatedKey are ValueErrors too
        return None
    return data, not unusual and not _may_hold_surrogate(raw)


def load_json(raw: str, **hooks: Any) -> JSON:
    """The JSON value of *raw*; only JSON Python can hold without loss reaches the caller.

    *hooks* are :func:`json.loads`'s number hooks (``parse_int`` defaults to one that keeps an
    integer too long to convert as text, for the scan to name).
    """
    try:
        return json.loads(raw, **({"parse_int": _int, "object_pairs_hook": unique_keys} | hooks))
    except json.JSONDecodeError as exc:
        raise ShapeProblem(f"it is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:  # the parser recurses per level, so this is only reached past MAX_DEPTH
        raise ShapeProblem(too_deep_problem(_too_deep(raw))) from None
    except RepeatedKey as exc:
        raise ShapeProblem(repeated_key_problem(_repeated(raw), exc.key)) from None


def repeated_key_problem(at: list[str | int] | None, key: str) -> str:
    """The sentence for an object at *at* (None: somewhere in the text) that names *key* twice."""
    return (
        f"{'an object' if at is None else where(at)} names the key {quote(key)} twice, and JSON leaves which "
        f"of the two values counts to each reader; keep one"
    )


_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},:]')


def _repeated(raw: str) -> list[str | int] | None:
    """The JSON path of the first object of *raw* that names a key twice (a scan of the text, for the message)."""
    at: list[str | int] = []  # for each open container, the key or index being read in it
    keys: list[set[str] | None] = []  # for each open object, the keys read so far
    key = ""
    for token in _TOKENS.finditer(raw):
        text = token.group()
        if text in ("[", "{"):
            at.append(0 if text == "[" else "")
            keys.append(None if text == "[" else set())
        elif text in ("]", "}"):
            if at:
                at.pop()
                keys.pop()
        elif text == ",":
            if at and isinstance(at[-1], int):
                at[-1] += 1
        elif text == ":":
            seen = keys[-1] if keys else None
            if seen is not None:
                if key in seen:
                    return at[:-1]
                seen.add(key)
                at[-1] = key
        else:
            key = json.loads(text)
    return None


def _too_deep(raw: str) -> list[str | int] | None:
    """The JSON path of the first object or array of *raw* that lies deeper than :data:`MAX_DEPTH`.

    A scan of the text, for input too deep for the parser to return at all.
    """
    at: list[str | int] = []  # for each open container, the key or index being read in it
    key: str | int = ""
    for token in _TOKENS.finditer(raw):
        text = token.group()
        if text in ("[", "{"):
            if len(at) == MAX_DEPTH:
                return at
            at.append(0 if text == "[" else "")
        elif text in ("]", "}"):
            if at:
                at.pop()
        elif text == ",":
            if at and isinstance(at[-1], int):
                at[-1] += 1
        elif text == ":":
            if at:
                at[-1] = key
        else:
            key = json.loads(text)
    return None
