"""Parsing a snapshot's text while noting where each of its tools lies in it.

A watching build (:mod:`generator.snapshot.remembered`) must tell which tools of a new text it read
before. Encoding each parsed tool again to hash it costs about 40 ms at 1,000 tools; hashing the
text each tool was parsed from costs a tenth of that. :func:`load_with_spans` parses a text whose
top level is an object exactly as :func:`json.loads` does with the quick path's hooks
(:func:`~generator.snapshot.jsonread.load_json_plain`), by the same C scanner, value by value, and
gives each item of one array member with the span of text it came from.

It gives up (None) on anything it cannot be sure of: a text that is not such an object, that is
malformed or too deep, or an integer the quick path leaves to the hooked one. The caller then
loads the text as usual, which words every problem.
"""

from __future__ import annotations

import json
import json.decoder
from typing import Any

from generator.snapshot.jsonread import NumberHooks, quick_ints

Span = tuple[int, int]
"""Where an item's text starts and ends in the text (string indexes)."""

_decoding = vars(json.decoder)  # what json.loads parses with (typeshed declares neither name)
_space = _decoding["WHITESPACE"].match
_string = _decoding["scanstring"]


class _Unsure(Exception):
    """The text is not one :func:`load_with_spans` reads with certainty."""


def load_with_spans(raw: str, member: str) -> tuple[dict[str, Any], bool, list[Span] | None] | None:
    """*raw* parsed (an object), whether it is plain, and the span of each item of its *member* array
    (None when that member is not an array); None when the text must be loaded as usual."""
    if not quick_ints():
        return None
    hooks = NumberHooks()
    decoder: Any = json.JSONDecoder(parse_float=hooks.number, parse_constant=hooks.constant)
    scan = decoder.scan_once  # the C scanner json.loads parses with (typeshed does not declare it)
    try:
        data, spans = _object(raw, member, scan)
    except (_Unsure, StopIteration, ValueError, RecursionError):  # a JSONDecodeError is a ValueError
        return None
    return data, hooks.plain(raw), spans


def _object(raw: str, member: str, scan: Any) -> tuple[dict[str, Any], list[Span] | None]:
    """The top-level object, its members parsed by *scan* (the *member* array item by item)."""
    at = _space(raw, 0).end()
    if raw[at : at + 1] != "{":
        raise _Unsure
    at = _space(raw, at + 1).end()
    pairs: list[tuple[str, Any]] = []
    spans: list[Span] | None = None
    if raw[at : at + 1] == "}":
        at += 1
    else:
        while True:
            if raw[at : at + 1] != '"':
                raise _Unsure
            name, at = _string(raw, at + 1, True)
            at = _space(raw, at).end()
            if raw[at : at + 1] != ":":
                raise _Unsure
            at = _space(raw, at + 1).end()
            if name == member and raw[at : at + 1] == "[":
                value, found, at = _array(raw, at, scan)
            else:
                (value, at), found = scan(raw, at), None
            if name == member:
                spans = found  # as in a dict, the last of two members of one name is the one kept
            pairs.append((name, value))
            at = _space(raw, at).end()
            if raw[at : at + 1] == "}":
                at += 1
                break
            if raw[at : at + 1] != ",":
                raise _Unsure
            at = _space(raw, at + 1).end()
    if _space(raw, at).end() != len(raw):
        raise _Unsure
    return dict(pairs), spans


def _array(raw: str, at: int, scan: Any) -> tuple[list[Any], list[Span], int]:
    """The array at *at* (its ``[``), each item parsed by *scan*, with each item's span; and where it ends."""
    items: list[Any] = []
    spans: list[Span] = []
    at = _space(raw, at + 1).end()
    if raw[at : at + 1] == "]":
        return items, spans, at + 1
    while True:
        start = at
        value, at = scan(raw, at)
        items.append(value)
        spans.append((start, at))
        at = _space(raw, at).end()
        if raw[at : at + 1] == "]":
            return items, spans, at + 1
        if raw[at : at + 1] != ",":
            raise _Unsure
        at = _space(raw, at + 1).end()
