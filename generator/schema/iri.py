"""The ``iri`` and ``iri-reference`` formats (RFC 3987), decided without a grammar engine.

An IRI is a URI that may also hold the non-ASCII characters RFC 3987 calls ``ucschar`` (and, in
the query only, ``iprivate``). Its mapping to a URI (section 3.1) percent-encodes each of them as
UTF-8, so an IRI is valid exactly when every non-ASCII character is one of those and the mapped
string is a valid URI. The URI check is ``rfc3986_validator``, the package jsonschema itself uses
for ``uri``; no grammar has to be compiled at start-up.
"""

from __future__ import annotations

from urllib.parse import quote

from rfc3986_validator import validate_rfc3986  # type: ignore[import-untyped]

_UCSCHAR = (
    (0xA0, 0xD7FF),
    (0xF900, 0xFDCF),
    (0xFDF0, 0xFFEF),
    *((plane + 0x0000, plane + 0xFFFD) for plane in range(0x10000, 0xE0000, 0x10000)),
    (0xE1000, 0xEFFFD),
)
_IPRIVATE = ((0xE000, 0xF8FF), (0xF0000, 0xFFFFD), (0x100000, 0x10FFFD))


def _within(code: int, ranges: tuple[tuple[int, int], ...]) -> bool:
    return any(low <= code <= high for low, high in ranges)


def to_uri(value: str) -> str | None:
    """The URI an IRI maps to (RFC 3987, 3.1), or None when it holds a character no IRI may hold."""
    out: list[str] = []
    in_query = False
    for char in value:
        if char == "?" and not in_query:
            in_query = True
        elif char == "#":
            in_query = False
        code = ord(char)
        if code < 0x80:
            out.append(char)
        elif _within(code, _UCSCHAR) or (in_query and _within(code, _IPRIVATE)):
            out.append(quote(char, safe=""))
        else:
            return None
    return "".join(out)


def is_iri(instance: object) -> bool:
    """Whether *instance* is an absolute IRI; values that are not strings pass, as for every format."""
    if not isinstance(instance, str):
        return True
    uri = to_uri(instance)
    return uri is not None and validate_rfc3986(uri, rule="URI") is not None


def is_iri_reference(instance: object) -> bool:
    """Whether *instance* is an IRI reference (absolute or relative)."""
    if not isinstance(instance, str):
        return True
    uri = to_uri(instance)
    return uri is not None and validate_rfc3986(uri, rule="URI_reference") is not None
