"""Realistic values and placeholder stubs for JSON Schemas (no validation here).

What this module knows:

* :data:`FORMAT_VALUES`: fixed, realistic strings for each known ``format``
  (three per format, so unique items and second tries get a different one).
* Property-name hints (``_STRING_HINTS``, ``NUMBER_HINTS``, looked up by
  :func:`hint_key` / :func:`string_hint`), and :func:`fit_length`, which pads or
  cuts a plain string to ``minLength``/``maxLength``.
* :func:`placeholder_for`: the typed stub that shows a call's shape
  (``"<name>"``, ``1``, ``1.0``, ``true``, one array item, every declared
  property).

What it does not know: whether a value validates.  The tables are only
candidates; :mod:`generator.schema.examples` checks every candidate against the real
schema, and placeholders are never validated at all.  Everything here is fixed
and deterministic (no clock, no randomness).  Callers import :data:`FORMAT_VALUES` and
:func:`placeholder_for` from here.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any

from generator.jsonutil import is_number, jsonable
from generator.schema.constraints import declared_types, own_types
from generator.schema.refs import LocalRefs, detect_dialect, ref_keyword

FORMAT_VALUES: dict[str, tuple[str, ...]] = {
    "uuid": (
        "3f2b8c1e-4a5d-4e6f-9a7b-1c2d3e4f5a6b",
        "7c9e6679-7425-40de-944b-e07fc1f90ae7",
        "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
    ),
    "date-time": ("2026-09-03T10:15:00Z", "2026-09-04T08:30:00Z", "2026-09-05T16:45:00Z"),
    "date": ("2026-09-03", "2026-09-04", "2026-09-05"),
    "time": ("10:15:00Z", "08:30:00Z", "16:45:00Z"),
    "duration": ("P3D", "PT2H", "P1W"),
    "email": ("alex@example.com", "sam@example.org", "kim@example.net"),
    "idn-email": ("alex@example.com", "sam@example.org", "kim@example.net"),
    "uri": ("https://example.com/docs/quarterly-report", "https://example.com/a", "https://example.org/b"),
    "iri": ("https://example.com/docs/quarterly-report", "https://example.com/a", "https://example.org/b"),
    "uri-reference": ("/docs/quarterly-report", "/docs/a", "/docs/b"),
    "iri-reference": ("/docs/quarterly-report", "/docs/a", "/docs/b"),
    "hostname": ("api.example.com", "docs.example.com", "mail.example.org"),
    "host-name": ("api.example.com", "docs.example.com", "mail.example.org"),
    "idn-hostname": ("api.example.com", "docs.example.com", "mail.example.org"),
    "ipv4": ("192.0.2.10", "198.51.100.7", "203.0.113.42"),
    "ip-address": ("192.0.2.10", "198.51.100.7", "203.0.113.42"),
    "ipv6": ("2001:db8::1", "2001:db8::2", "2001:db8:85a3::8a2e:370:7334"),
    "json-pointer": ("/items/0/title", "/items/1/title", "/name"),
    "relative-json-pointer": ("0/title", "1/name", "2"),
    "regex": ("^[a-z0-9-]+$", "^\\d{4}$", "^[A-Z]{3}$"),
    "uri-template": ("https://example.com/items/{id}", "https://example.com/users/{user}", "/search{?q}"),
}
# Property-name hints, looked up with the name lower-cased and "-"/" " turned into "_".
_STRING_HINTS: dict[str, str] = {
    "query": "quarterly report", "q": "quarterly report", "search": "quarterly report",
    "keywords": "quarterly report", "prompt": "Summarize the quarterly report.",
    "name": "Alex Example", "title": "Quarterly report", "description": "A short description.",
    "summary": "A short summary.", "message": "Hello, world!", "text": "Hello, world!",
    "content": "Hello, world!", "body": "Hello, world!", "comment": "Looks good to me.",
    "email": "alex@example.com", "url": "https://example.com", "uri": "https://example.com",
    "link": "https://example.com", "homepage": "https://example.com", "path": "reports/q3.pdf",
    "file": "reports/q3.pdf", "filename": "q3.pdf", "file_path": "reports/q3.pdf",
    "language": "en", "lang": "en", "locale": "en-US", "country": "US", "currency": "USD",
    "timezone": "Europe/Berlin", "tz": "Europe/Berlin", "city": "Berlin", "phone": "+1-202-555-0100",
    "username": "alex", "user": "alex", "author": "Alex Example", "assignee": "Alex Example",
    "owner": "octocat", "repo": "octocat/hello-world",
    "repository": "octocat/hello-world", "branch": "main", "ref": "main", "sha": "9fceb02",
    "commit": "9fceb02", "tag": "finance", "status": "active", "state": "open", "color": "#3366ff",
    "version": "1.0.0", "id": "abc123", "key": "api-key", "token": "eyJwYWdlIjoyfQ",
    "cursor": "eyJwYWdlIjoyfQ", "date": "2026-09-03", "code": "print('hello')", "sql": "SELECT 1",
    "format": "json", "mode": "default", "type": "default", "kind": "default", "category": "finance",
    "label": "finance", "address": "1 Main St",
}  # fmt: skip
# Realistic numbers for common parameter names, keyed by hint_key().
NUMBER_HINTS: dict[str, float] = {
    "limit": 10, "max_results": 10, "top_k": 5, "k": 5, "count": 10, "size": 10, "page_size": 10,
    "per_page": 10, "page": 1, "offset": 0, "skip": 0, "year": 2026, "month": 9, "day": 3, "hour": 10,
    "minute": 15, "port": 8080, "timeout": 30, "age": 30, "temperature": 0.7, "lat": 52.52,
    "latitude": 52.52, "lon": 13.405, "lng": 13.405, "longitude": 13.405, "price": 19.99,
    "amount": 19.99, "quantity": 1, "retries": 3, "max_tokens": 256, "depth": 2, "days": 7,
}  # fmt: skip


def hint_key(name: str | None) -> str:
    """A parameter name normalised for the hint tables: words split (``pageId`` is ``page_id``), lower case, ``_``."""
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", (name or "").strip())
    return re.sub(r"[\s-]+", "_", text).lower()


# Name endings (after hint_key) and the string they suggest, tried in order after the exact names.
_STRING_SUFFIXES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("_id", "_uid", "_key", "_ref"), "abc123"),
    (("_ids",), "abc123"),
    (("_url", "_uri", "_link", "_href", "_endpoint"), "https://example.com"),
    (("email", "_mail"), "alex@example.com"),
    (("_at", "_time", "timestamp", "_datetime"), "2026-09-03T10:15:00Z"),
    (("_date", "_since", "_until", "_day"), "2026-09-03"),
    (("_path", "_file", "filepath", "filename"), "reports/q3.pdf"),
    (("_dir", "directory", "folder"), "reports"),
    (("_name", "name"), "Alex Example"),
    (("_language", "_lang", "_locale"), "en"),
    (("_query", "_search", "_keyword", "keyword"), "quarterly report"),
    (("_script", "_function", "_expression", "_code"), "document.title"),
    (("_selector",), "#main"),
    (("_namespace", "namespace"), "default"),
    (("_region", "region"), "us-east-1"),
    (("_command", "command", "_cmd"), "ls -la"),
    (("_pattern", "_glob"), "*.md"),
    (("_message", "_text", "_content", "_body", "_note", "_comment"), "Hello, world!"),
    (("_description", "_summary"), "A short description."),
    (("_title",), "Quarterly report"),
)
# Words in a description (lower case, whole words) and the string they suggest, when the name says nothing.
_DESCRIPTION_WORDS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("url", "uri", "link", "website"), "https://example.com"),
    (("email", "e-mail"), "alex@example.com"),
    (("id", "identifier", "uid", "uuid"), "abc123"),
    (("path", "file", "filename"), "reports/q3.pdf"),
    (("directory", "folder"), "reports"),
    (("date", "timestamp", "iso 8601", "iso8601"), "2026-09-03"),
    (("language", "locale"), "en"),
    (("javascript", "script", "function", "expression"), "document.title"),
    (("selector",), "#main"),
    (("namespace",), "default"),
    (("region",), "us-east-1"),
    (("command",), "ls -la"),
    (("keyword", "keywords"), "quarterly report"),
)
_GENERIC = "example"
_ID_NAMES = frozenset({"uid", "guid", "uuid", "pid", "oid", "ids"})
"""Names that are ids without saying ``_id`` (``pageId`` says it: :func:`hint_key` makes it ``page_id``)."""


def _ends(key: str, suffixes: tuple[str, ...]) -> bool:
    """Does *key* end with one of *suffixes* (``_path``), or is it the bare word (``path``)?"""
    return key.endswith(suffixes) or key in {s.lstrip("_") for s in suffixes}


def _words(text: object) -> set[str]:
    """The lower-case words of a description (``ISO 8601`` and ``e-mail`` kept whole), for hint lookups."""
    if not isinstance(text, str):
        return set()
    lowered = text[:500].lower()
    words = set(re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)?", lowered))
    return words | {phrase for phrase in ("iso 8601", "number of") if phrase in lowered}


_GIVEN = re.compile(r"(?:\bfor example|\be\.g\.,?|\bsuch as)\s+([`'\"]?)([^\s,;:()`'\"]+)\1", re.IGNORECASE)
_NOT_EXAMPLES = frozenset({"a", "an", "the", "this", "that", "one", "any", "some", "when", "if"})


def described_example(description: object) -> str | None:
    """The value a description gives as an example (``for example #release``, ``e.g. `read_all```), if any."""
    if not isinstance(description, str):
        return None
    for match in _GIVEN.finditer(description[:500]):
        value = match.group(2).rstrip(".")
        if len(value) > 1 and value.lower() not in _NOT_EXAMPLES:
            return value
    return None


def string_hint(name: str | None, description: object = None) -> str:
    """A realistic string for a parameter with this name (and description), or a generic one.

    Deterministic: the exact name first, then an example the description gives (``for example
    #release``), then the name's ending (``pageId``, ``file_path``), then words of the description
    (``The uid of an element``); ``"example"`` only when nothing fits.
    """
    key = hint_key(name)
    if key in _STRING_HINTS:
        return _STRING_HINTS[key]
    if given := described_example(description):
        return given
    if key in _ID_NAMES:
        return "abc123"
    for suffixes, hint in _STRING_SUFFIXES:
        if _ends(key, suffixes):
            return hint
    words = _words(description)
    for keys, hint in _DESCRIPTION_WORDS:
        if words & set(keys):
            return hint
    return _GENERIC


# Name endings (after hint_key) and the number they suggest.
_NUMBER_SUFFIXES: tuple[tuple[tuple[str, ...], int], ...] = (
    (("_id", "_uid"), 42),
    (("_count", "_limit", "_size", "_results", "_items", "_lines", "_entries"), 10),
    (("_ms", "_millis", "_milliseconds"), 1000),
    (("_seconds", "_secs", "_timeout", "_sec"), 30),
    (("_minutes", "_mins"), 15),
    (("_hours",), 2),
    (("_days",), 7),
    (("_index", "_idx", "_offset"), 0),
    (("_page", "_number", "_num"), 1),
    (("_port",), 8080),
    (("_percent", "_percentage", "_pct"), 50),
    (("_width",), 1280),
    (("_height",), 720),
)
_NUMBER_WORDS: tuple[tuple[tuple[str, ...], int], ...] = (
    (("id", "identifier"), 42),
    (("milliseconds", "ms"), 1000),
    (("seconds",), 30),
    (("count", "number of", "maximum", "max", "limit"), 10),
    (("index",), 0),
)


def number_hint(name: str | None, description: object = None) -> float | None:
    """A realistic number for a parameter with this name (and description); None when nothing suggests one.

    An id, a count or a duration is a whole number even where the schema says ``number``.
    """
    key = hint_key(name)
    if key in NUMBER_HINTS:
        return NUMBER_HINTS[key]
    if key in _ID_NAMES or key == "id":
        return 42
    for suffixes, value in _NUMBER_SUFFIXES:
        if _ends(key, suffixes):
            return value
    if key.startswith(("max_", "min_", "num_", "number_of_")):
        return 10
    words = _words(description)
    for keys, value in _NUMBER_WORDS:
        if words & set(keys):
            return value
    return None


def fit_length(text: str, lo: int, hi: int | None) -> str:
    """Pad or cut a plain string to the length bounds (patterns are generated, not fitted)."""
    if len(text) < lo:
        filler = (text or "x") + " "
        text = (filler * (lo // len(filler) + 1))[:lo]
        text = text[:-1] + "x" if text.endswith(" ") else text
    if hi is not None and len(text) > hi:
        text = text[:hi]
    return text


# --------------------------------------------------------------------------- placeholders


def placeholder_for(schema: object) -> Any:
    """The typed stub showing a call's shape; never raises, never validated.

    Strings are placeholders (``"<name>"``); every concrete value stands where the schema allows
    it: an ``enum`` member or the ``const``, a number inside the bounds, as many array items as
    ``minItems`` asks, and the properties of ``allOf`` branches merged into their object.
    """
    try:
        dialect, _ = detect_dialect(schema)
        return _stub(schema, LocalRefs(schema, dialect), None, 0, ())
    except Exception:  # RecursionError included: fall back to the simplest shape
        return {}


_MAX_STUB_ITEMS = 16
"""Array items a stub shows at most (a ``minItems`` above it cannot be shown whole)."""


def _follow(node: object, refs: LocalRefs, stack: tuple[int, ...]) -> tuple[object, tuple[int, ...], str | None]:
    """*node* with ``$ref`` followed: the target, the stack of targets, and ``"missing"``/``"loop"`` when it stops."""
    for _ in range(32):
        if not isinstance(node, dict) or (keyword := ref_keyword(node)) is None:
            return node, stack, None
        target, problem = refs.lookup(node[keyword], keyword)
        if problem is not None:
            return node, stack, "missing"
        if id(target) in stack:
            return node, stack, "loop"
        stack = (*stack, id(target))
        node = target
    return node, stack, "loop"


def _with_all_of(node: dict[str, Any], refs: LocalRefs, stack: tuple[int, ...], level: int = 0) -> dict[str, Any]:
    """*node* with its ``allOf`` branches merged in: properties and ``required`` joined, other keywords first-wins."""
    branches = node.get("allOf")
    if not isinstance(branches, list) or level > 8:
        return node
    merged = {k: v for k, v in node.items() if k != "allOf"}
    for branch in branches[:16]:
        sub, _, problem = _follow(branch, refs, stack)
        if problem is not None or not isinstance(sub, dict):
            continue
        for key, value in _with_all_of(sub, refs, stack, level + 1).items():
            if key == "properties" and isinstance(value, dict):
                props = dict(merged["properties"]) if isinstance(merged.get("properties"), dict) else {}
                for prop, schema in value.items():
                    props[prop] = {"allOf": [props[prop], schema]} if prop in props else schema
                merged["properties"] = props
            elif key == "required" and isinstance(value, list):
                before = merged["required"] if isinstance(merged.get("required"), list) else []
                merged["required"] = list(dict.fromkeys(r for r in [*before, *value] if isinstance(r, str)))
            else:
                merged.setdefault(key, value)
    return merged


def _number_stub(node: dict[str, Any], integer: bool) -> int | float:
    """``1`` (or ``1.0``), moved inside the schema's bounds and onto its ``multipleOf``."""

    def bound(key: str) -> Fraction | None:
        value = node.get(key)
        return Fraction(value) if is_number(value) and math.isfinite(value) else None

    lo, hi = bound("minimum"), bound("maximum")
    lo_x, hi_x = bound("exclusiveMinimum"), bound("exclusiveMaximum")
    if node.get("exclusiveMinimum") is True:  # draft-04: a flag on minimum
        lo, lo_x = None, lo
    if node.get("exclusiveMaximum") is True:
        hi, hi_x = None, hi
    step = bound("multipleOf")
    unit = step if step is not None and step > 0 else Fraction(1)
    value = Fraction(1)
    if lo is not None and value < lo:
        value = lo
    if lo_x is not None and value <= lo_x:
        value = lo_x + (unit if integer or step is not None else Fraction(1, 2))
    if hi is not None and value > hi:
        value = hi
    if hi_x is not None and value >= hi_x:
        value = hi_x - (unit if integer or step is not None else Fraction(1, 2))
    if step is not None and step > 0:
        value = math.ceil(value / step) * step
    if integer:
        return math.ceil(value)
    return float(value)


def _pick(values: list[Any]) -> Any:
    """The enum member a stub shows: the first that is not ``null``."""
    return next((v for v in values if v is not None), values[0])


def _stub(node: object, refs: LocalRefs, name: str | None, depth: int, stack: tuple[int, ...]) -> Any:
    node, stack, problem = _follow(node, refs, stack)
    if problem is not None:
        return {} if problem == "loop" else f"<{name or 'value'}>"
    if not isinstance(node, dict) or depth > 12:
        return f"<{name or 'value'}>" if node is not False else None
    node = _with_all_of(node, refs, stack)
    if "const" in node:
        return jsonable(node["const"])
    enum = node.get("enum")
    if isinstance(enum, list) and enum:
        return jsonable(_pick(enum))
    types = [t for t in (declared_types(node) or own_types(node)) if t != "null"]
    if not types:
        for key in ("anyOf", "oneOf"):
            branches = node.get(key)
            if isinstance(branches, list):
                for branch in branches:
                    value = _stub(branch, refs, name, depth + 1, stack)
                    if value is not None:
                        return value
        if "null" in (declared_types(node) or []):
            return None
        if "items" in node or "prefixItems" in node:
            types = ["array"]
    kind = types[0] if types else "string"
    if kind in ("integer", "number"):
        return _number_stub(node, kind == "integer")
    if kind == "boolean":
        return True
    if kind == "array":
        return _array_stub(node, refs, name, depth, stack)
    if kind == "object":
        return _object_stub(node, refs, depth, stack)
    return f"<{name or 'value'}>"


def _array_stub(node: dict[str, Any], refs: LocalRefs, name: str | None, depth: int, stack: tuple[int, ...]) -> Any:
    """The tuple positions, then the item stub repeated up to ``minItems`` (one item when no count is asked)."""
    prefix = node.get("prefixItems", node.get("items"))
    items = node.get("items") if isinstance(node.get("prefixItems"), list) else node.get("additionalItems")
    if not isinstance(prefix, list):
        prefix, items = [], node.get("items", True)
    low = node.get("minItems")
    high = node.get("maxItems")
    count = int(low) if is_number(low) and low >= 0 and math.isfinite(low) else 1
    if is_number(high) and high >= 0 and count > high:
        count = int(high)
    if is_number(high) and high == 0:
        return []
    shown = [_stub(sub, refs, name, depth + 1, stack) for sub in prefix[:_MAX_STUB_ITEMS]]
    more = max(count, 0 if shown else 1) - len(shown)
    if more > 0 and items is not False:
        item = _stub(items if items is not None else True, refs, name, depth + 1, stack)
        shown += [item] * min(more, _MAX_STUB_ITEMS)
    return shown


def _object_stub(node: dict[str, Any], refs: LocalRefs, depth: int, stack: tuple[int, ...]) -> dict[str, Any]:
    """Every declared property, then each required name not declared, else one ``<key>`` of additionalProperties."""
    props = node.get("properties")
    out = (
        {str(k): _stub(v, refs, str(k), depth + 1, stack) for k, v in props.items()} if isinstance(props, dict) else {}
    )
    required = node.get("required")
    for key in required if isinstance(required, list) else []:
        if isinstance(key, str) and key not in out:
            out[key] = f"<{key}>"
    extra = node.get("additionalProperties")
    if not out and isinstance(extra, dict) and extra:
        out["<key>"] = _stub(extra, refs, "value", depth + 1, stack)
    return out
