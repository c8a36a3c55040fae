"""Realistic values for JSON Schemas (no validation here).

What this module knows:

* :data:`FORMAT_VALUES`: fixed, realistic strings for each known ``format``
  (three per format, so unique items and second tries get a different one).
* Property-name hints (``_STRING_HINTS``, ``NUMBER_HINTS``, looked up by
  :func:`hint_key` / :func:`string_hint`), and :func:`fit_length`, which pads or
  cuts a plain string to ``minLength``/``maxLength``.

The typed stubs that show a call's shape are :mod:`generator.schema.placeholders`.

What it does not know: whether a value validates.  The tables are only
candidates; :mod:`generator.schema.examples` checks every candidate against the real
schema, and placeholders are never validated at all.  Everything here is fixed
and deterministic (no clock, no randomness).
"""

from __future__ import annotations

import re

from generator.schema.prose_values import given_values, listed_values, rejected_values
from generator.schema.thing_values import (
    MAX_TEXT,
    PATH_NAMES,
    PERSON_NAME,
    PERSON_NAMES,
    arn,
    ends,
    hint_key,
    name_hint,
    path_hint,
    words,
)

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
    "name": PERSON_NAME, "title": "Quarterly report", "description": "A short description.",
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
    "label": "finance", "address": "1 Main St", "sheet": "Sheet1", "sheet_name": "Sheet1", "range": "A1:B10",
    "cell": "A1", "symbol": "AAPL", "ticker": "AAPL", "symbols": "AAPL", "project": "my-project",
    "head": "feature/login", "base": "main", "source_branch": "feature/login",
    "target_branch": "main", "default_branch": "main", "revision": "HEAD",
    "environment": "production", "cluster": "my-cluster", "database": "my-database",
    "table": "my_table", "severity": "high", "password": "correct-horse-battery-staple", "chart": "bitnami/nginx",
    "manifest": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: my-config\n",
    "cron": "0 9 * * 1", "duration": "1h", "secret": "my-secret", "emoji": "thumbsup", "reaction": "thumbsup",
    "slug": "my-page", "thought": "First, list what the question asks.", "insight": "Sales rose 12% in Q3.",
    "instruction": "Find the sign-in button.", "input": "Summarize the quarterly report.",
    "question": "What changed in the last release?", "topic": "machine learning", "intent": "compare results",
    "snippet": "def main():", "value": "42", "values": "42",
    "replacement": "Q3", "api_operation": "DescribeClusters", "metric": "http_requests_total",
    "logql": '{job="api"} |= "error"', "room_prefix": "incident", "what": "Deploy finished",
    "after": "eyJwYWdlIjoyfQ", "before": "2026-09-03", "fill_color": "#3366ff", "text_to_find": "quarterly report",
    "new_paragraphs": "A short paragraph.", "changing_cell": "B2", "refers_to": "Sheet1!$A$1:$A$10",
    "row_fields": "Region", "approved_labels": "job", "expected_base_labels": "job",
    "section": "History", "resource_type": "deployment", "location": "52.52,13.405", "ip": "203.0.113.42",
    "text_selection": "quarterly report", "search_phrase": "S3 bucket policy", "time_spent": "1h 30m",
    "image": "nginx:1.27", "claim": "The Eiffel Tower is 330 metres tall.", "observation": "Prefers email to calls.",
    "entity_type": "person", "relation_type": "works_at", "op": "replace", "column": "A", "subject": "Quarterly report",
    "paragraph": "A short paragraph.", "query_string": "fields @timestamp, @message | limit 20",
    "rfc3339": "2026-09-03T10:15:00Z", "policy_document": '{"Version": "2012-10-17", "Statement": []}',
}  # fmt: skip
# Realistic numbers for common parameter names, keyed by hint_key().
NUMBER_HINTS: dict[str, float] = {
    "limit": 10, "max_results": 10, "top_k": 5, "k": 5, "count": 10, "size": 10, "page_size": 10,
    "per_page": 10, "page": 1, "offset": 0, "skip": 0, "year": 2026, "month": 9, "day": 3, "hour": 10,
    "minute": 15, "port": 8080, "timeout": 30, "age": 30, "temperature": 0.7, "lat": 52.52,
    "latitude": 52.52, "lon": 13.405, "lng": 13.405, "longitude": 13.405, "price": 19.99,
    "amount": 19.99, "quantity": 1, "retries": 3, "max_tokens": 256, "depth": 2, "days": 7,
}  # fmt: skip


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
    (("_version",), "1.0.0"),
    (("_base64",), "SGVsbG8sIHdvcmxkIQ=="),
    (("_column",), "A"),
    (("_policy_document",), '{"Version": "2012-10-17", "Statement": []}'),
    (("_rfc3339",), "2026-09-03T10:15:00Z"),
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
    (("address", "addresses"), "Alexanderplatz, Berlin"),
    (("branch",), "main"),
)
_GENERIC = "example"
_ID_NAMES = frozenset({"uid", "guid", "uuid", "pid", "oid", "ids"})
"""Names that are ids without saying ``_id`` (``pageId`` says it: :func:`hint_key` makes it ``page_id``)."""


def described_example(description: object) -> str | None:
    """The first value a description gives as an example (``for example #release``, ``e.g. `read_all```), if any
    (:func:`~generator.schema.prose_values.given_values`)."""
    given = given_values(description)
    return given[0] if given else None


_CHOICE = re.compile(
    r"\b(?:options?|one of|must be(?: one of)?|valid values(?: are)?|allowed values(?: are)?|"
    r"possible values(?: are)?|accepted values(?: are)?|(either))\s*[:=]?\s*"
    r"(?:([`'\"])([^`'\"\n]{1,60})\2|(?(1)(?!)|([A-Za-z0-9][A-Za-z0-9_.-]{0,59})(?=\s*(?:,|\||/|\bor\b))))",
    re.IGNORECASE,
)
"""An allow-list written in prose (``Options: 'general', 'azurefunctions'``, ``one of: a, b``): its
first value. After "either", quoted values only: "Provide either text or regex" names two arguments, not
two values. Bounded alternatives, no nested repetition: linear to match."""


def described_choice(description: object) -> str | None:
    """The first value of an allow-list the description states in prose, if any."""
    if not isinstance(description, str):
        return None
    match = _CHOICE.search(description[:2000])
    if match is None:
        return None
    return match.group(3) or match.group(4)


def string_hints(name: str | None, description: object = None, owner: str | None = None) -> list[str]:
    """Realistic strings for a parameter with this name (and description), best first; ``["example"]``
    only when nothing fits.

    Deterministic, the server's words first: the examples the description gives (``Example:
    nodes-base.httpRequest``, ``e.g. 2401.12345``), an allow-list it states in prose (``Options:
    'general', 'azurefunctions'``, ``(status, history, restart)``); then a value from the name and
    description (:func:`named_hint`, which reads *owner*); a number for a name that counts (``count``
    is ``"10"``). A value the description rejects (``"/etc" ... are rejected``) is never among them.
    The solver checks each.
    """
    said = [*given_values(description), described_choice(description), *listed_values(description)]
    hints = [h for h in said if h]
    own = named_hint(name, description, owner)
    if own is not None:
        hints.append(own)
    number = number_hint(name, description) if own is None else None
    if number is not None:
        hints.append(str(int(number)) if float(number).is_integer() else str(number))
    rejected = rejected_values(description)
    kept = [h for h in dict.fromkeys(hints) if not _rejected(h, rejected)]
    return kept or [_GENERIC]


def _rejected(value: str, rejected: frozenset[str]) -> bool:
    """Is *value* one the description rejects, or a path under one (``/etc/app`` under ``"/etc"``)?"""
    return value in rejected or any(r and value.startswith(r.rstrip("/") + "/") for r in rejected)


def string_hint(name: str | None, description: object = None) -> str:
    """The best of :func:`string_hints`."""
    return string_hints(name, description)[0]


_NUMERIC_ID = re.compile(
    r"\b(?:numeric|integer|internal id|iid)\b|\bid\b[^.]{0,20}\bor\b[^.]{0,30}\bpath\b|\bid \(integer\)", re.I
)
"""An id the description says is a number ("Numeric project ID", "The internal ID of the issue", "Project ID or
URL-encoded path": a number is one of the two)."""
_SECRET_KEYS = ("api", "access", "secret", "private", "public", "encryption", "license", "signing", "ssh")
_EMBEDDED_NUMBER = re.compile(r'\{\s*"type"\s*:\s*"(?:integer|number)"\s*\}')
"""A JSON Schema for a number quoted in a description (FastMCP prompt arguments: "Provide a value matching the
following JSON schema: {"type":"integer"}")."""
_CJK_HINTS = (
    ("经纬度", "116.397428,39.90923"),
    ("经度", "116.397428,39.90923"),
    ("城市", "北京"),
    ("IP", "203.0.113.42"),
)
"""Chinese descriptions (AMap): coordinates "longitude,latitude", a city, an IP address."""


def named_hint(name: str | None, description: object = None, owner: str | None = None, depth: int = 0) -> str | None:
    """A value from the name and description alone, or None: a path that suits the description (a
    directory, a ``.xlsx`` file), a thing's name (``vm_name`` is ``my-vm``; a person's only for a person),
    the exact name, the name's ending (``pageId``; a number where the description says the id is one),
    words of the description (``The uid of an element``). *owner* names what the property belongs to
    (the enclosing property, or the tool): a plain ``name`` of a ``node`` is ``my-node``."""
    key = hint_key(name)
    text = description[:MAX_TEXT] if isinstance(description, str) else ""
    if _EMBEDDED_NUMBER.search(text):
        return None  # a number: number_hint says which
    if ends(key, PATH_NAMES):  # path, file, file_path, output_dir, ...
        return path_hint(key, description)
    if ends(key, ("_id", "_iid", "_uid", "_ids")) and _NUMERIC_ID.search(text):
        return "42"
    if key == "name" or (_NAME_OF.match(text) and key not in _STRING_HINTS and not key.endswith("_name")):
        return name_hint(description, owner)
    if key in ("source", "target") and hint_key(owner).endswith(("edge", "link", "relation", "connection")):
        return "my-node"  # an edge joins two nodes, named by their names
    if key == "patch":
        return '{"spec": {"replicas": 2}}' if "json" in words(text) else "-old line\n+new line"
    if key.startswith(_FLAG_PREFIXES) and not ends(key, ("_id", "_ids", "_key", "_name", "_url")):  # _path: above
        return "true"  # a flag passed as text (prompt arguments)
    if key.endswith("_arn") or key == "arn":
        return arn(key)
    if cjk := next((hint for word, hint in _CJK_HINTS if word in text[:200]), None):
        return cjk
    if key in _STRING_HINTS:
        return _STRING_HINTS[key]
    if key in _ID_NAMES:
        return "abc123"
    if key.endswith("_name") and not ends(key.removesuffix("_name"), PERSON_NAMES):
        return "my-" + key.removesuffix("_name").replace("_", "-")[:40]  # vm_name -> my-vm, not a person
    if key.endswith(("_key", "_slug")) and not key.startswith(_SECRET_KEYS):
        return "my-" + key.rsplit("_", 1)[0].replace("_", "-")[:40]  # project_key -> my-project
    for suffixes, hint in _STRING_SUFFIXES:
        if ends(key, suffixes):
            return hint
    said = words(description)
    for keys, hint in _DESCRIPTION_WORDS:
        if said & set(keys):
            return hint
    return _by_part(key, owner) if depth == 0 else None


def _by_part(key: str, owner: str | None) -> str | None:
    """A hint for a name of two parts from one of them: ``time_a`` is a time, ``text_gone`` a text,
    ``new_paragraph`` a paragraph; not from a last part that says only what sort it is (``incident_type``)."""
    head, _, last = key.rpartition("_")
    for part in (head, last) if head else ():
        if part in ("name", "type", "kind", "mode", "id", "key", "format", "base", "new"):
            continue
        if (hint := named_hint(part, None, owner, depth=1)) is not None:
            return hint
    return None


_NAME_OF = re.compile(r"(?:the )?name of (?:the |a |an )?[a-z]", re.I)
_FLAG_PREFIXES = ("is_", "has_", "check_", "include_", "enable_", "use_", "show_", "allow_")
# Name endings (after hint_key) and the number they suggest.
_NUMBER_SUFFIXES: tuple[tuple[tuple[str, ...], int], ...] = (
    (("_id", "_uid", "_iid"), 42),
    (("_threshold", "_replicas"), 3),
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
    if isinstance(description, str) and _EMBEDDED_NUMBER.search(description[:MAX_TEXT]):
        return NUMBER_HINTS.get(key, 3)
    if key in NUMBER_HINTS:
        return NUMBER_HINTS[key]
    if key in _ID_NAMES:
        return 42
    for suffixes, value in _NUMBER_SUFFIXES:
        if ends(key, suffixes):
            return value
    if key.startswith(("max_", "min_", "num_", "number_of_")):
        return 10
    if key.startswith("threshold_"):
        return 80
    said = words(description)
    for keys, value in _NUMBER_WORDS:
        if said & set(keys):
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
