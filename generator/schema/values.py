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

import re
from typing import Any

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
    "username": "alex", "user": "alex", "owner": "octocat", "repo": "octocat/hello-world",
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
    """A parameter name normalised for the hint tables: trimmed, lower case, ``_`` for spaces and dashes."""
    return re.sub(r"[\s-]+", "_", (name or "").strip()).lower()


def string_hint(name: str | None) -> str:
    """A realistic string for a parameter with this name, or a generic one."""
    key = hint_key(name)
    if key in _STRING_HINTS:
        return _STRING_HINTS[key]
    if key.endswith(("_id", "id")) and key != "id":
        return "abc123"
    if key.endswith(("_url", "_uri", "_link")):
        return "https://example.com"
    if key.endswith("_at") or key.endswith("_date"):
        return "2026-09-03"
    for suffix, hint in (("email", "alex@example.com"), ("name", "Alex Example"), ("path", "reports/q3.pdf")):
        if key.endswith(suffix):
            return hint
    return "example"


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
    """The typed stub showing a call's shape; never raises, never validated."""
    try:
        dialect, _ = detect_dialect(schema)
        return _stub(schema, LocalRefs(schema, dialect), None, 0, ())
    except Exception:  # RecursionError included: fall back to the simplest shape
        return {}


def _stub(node: object, refs: LocalRefs, name: str | None, depth: int, stack: tuple[int, ...]) -> Any:
    for _ in range(32):
        if not isinstance(node, dict) or (keyword := ref_keyword(node)) is None:
            break
        target, problem = refs.lookup(node[keyword], keyword)
        if problem is not None or id(target) in stack:
            return {} if problem is None else f"<{name or 'value'}>"
        stack = (*stack, id(target))
        node = target
    if not isinstance(node, dict) or depth > 12:
        return f"<{name or 'value'}>" if node is not False else None
    types = [t for t in (declared_types(node) or own_types(node)) if t != "null"]
    if not types:
        for key in ("anyOf", "oneOf", "allOf"):
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
    if kind == "integer":
        return 1
    if kind == "number":
        return 1.0
    if kind == "boolean":
        return True
    if kind == "array":
        prefix = node.get("prefixItems", node.get("items"))
        if isinstance(prefix, list):
            return [_stub(sub, refs, name, depth + 1, stack) for sub in prefix[:16]]
        return [_stub(node.get("items", True), refs, name, depth + 1, stack)]
    if kind == "object":
        props = node.get("properties")
        out = (
            {str(k): _stub(v, refs, str(k), depth + 1, stack) for k, v in props.items()}
            if isinstance(props, dict)
            else {}
        )
        required = node.get("required")
        for key in required if isinstance(required, list) else []:
            if isinstance(key, str) and key not in out:
                out[key] = f"<{key}>"
        extra = node.get("additionalProperties")
        if not out and isinstance(extra, dict) and extra:
            out["<key>"] = _stub(extra, refs, "value", depth + 1, stack)
        return out
    return f"<{name or 'value'}>"
