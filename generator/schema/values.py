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


_CHOICE = re.compile(
    r"\b(?:options?|one of|must be(?: one of)?|valid values(?: are)?|allowed values(?: are)?|"
    r"possible values(?: are)?|accepted values(?: are)?|either)\s*[:=]?\s*"
    r"(?:([`'\"])([^`'\"\n]{1,60})\1|([A-Za-z0-9][A-Za-z0-9_.-]{0,59})(?=\s*(?:,|\||/|\bor\b)))",
    re.IGNORECASE,
)
"""An allow-list written in prose (``Options: 'general', 'azurefunctions'``, ``one of: a, b``): its
first value. Bounded alternatives, no nested repetition: linear to match."""


def described_choice(description: object) -> str | None:
    """The first value of an allow-list the description states in prose, if any."""
    if not isinstance(description, str):
        return None
    match = _CHOICE.search(description[:2000])
    if match is None:
        return None
    return match.group(2) or match.group(3)


_PERSON_NAMES = ("author", "assignee", "user", "username", "first", "last", "full", "display", "person",
                 "contact", "customer", "owner", "sender", "recipient", "reviewer", "given", "family")  # fmt: skip
"""What comes before ``_name`` when the name is a person's (``author_name``); any other ``*_name``
names a thing (``vm_name``, ``index_name``) and gets a thing-like value."""
_PATH_NAMES = ("_path", "_file", "filepath", "_dir", "directory", "folder")
_EXTENSION = re.compile(r"\.(xlsx|xls|csv|json|yaml|yml|md|txt|pdf|docx|png|jpg|py|js|ts|html|xml|zip|parquet)\b", re.I)


_THING_NAMED = (
    re.compile(r"\bname (?:of|for) (?:the |a |an |this )?([a-z][a-z0-9]*(?: [a-z][a-z0-9]*){0,2})", re.I),
    re.compile(r"\b([a-z][a-z0-9]{1,30}) name\b", re.I),
)
"""What a plain ``name`` names, in its description: "Name of the file share", "The cluster name"."""
_NOT_A_THING = frozenset(
    ["the", "a", "an", "its", "your", "their", "this", "full", "display", "to", "in", "for", "that", "which",
     "with", "from", "on", "of", "and", "or", "is", "be", "you", "new", "unique"]
)  # fmt: skip


def _thing_named(description: object) -> str | None:
    """``my-<thing>`` for a ``name`` whose description says what it names, unless that is a person."""
    if not isinstance(description, str):
        return None
    for match in (m for pattern in _THING_NAMED for m in pattern.finditer(description[:2000])):
        words = match.group(1).lower().split()
        cut = next((i for i, w in enumerate(words) if w in _NOT_A_THING), len(words))
        thing = words[:cut]
        if thing and not any(w in _PERSON_NAMES or w == "person" for w in thing):
            return "my-" + "-".join(thing)[:40]
        if thing:
            return None  # a person's name
    return None


def _path_hint(key: str, description: object) -> str:
    """A path that suits the description: a directory when it speaks of one, a file of the type it
    names (``.xlsx``), else a report file."""
    text = description[:2000] if isinstance(description, str) else ""
    words = _words(text)
    if key.endswith(("dir", "directory", "folder")) or words & {"directory", "folder", "dir", "project", "workspace"}:
        return "./project"
    if extension := _EXTENSION.search(text):
        return f"data/file.{extension.group(1).lower()}"
    if words & {"workbook", "spreadsheet", "excel"}:
        return "data/workbook.xlsx"
    return "reports/q3.pdf"


def string_hint(name: str | None, description: object = None) -> str:
    """A realistic string for a parameter with this name (and description), or a generic one.

    Deterministic, the description first: an allow-list it states in prose (``Options: 'general',
    'azurefunctions'``), an example it gives (``e.g. 2401.12345``), a path that suits it (a directory,
    a ``.xlsx`` file); then the exact name, a thing's name for ``*_name`` (``vm_name`` is ``my-vm``;
    a person's only for a person), the name's ending (``pageId``), words of the description (``The
    uid of an element``); ``"example"`` only when nothing fits. The solver checks every value.
    """
    key = hint_key(name)
    if choice := described_choice(description):
        return choice
    if given := described_example(description):
        return given
    if key in ("path", "file", "file_path") or _ends(key, _PATH_NAMES):
        return _path_hint(key, description)
    if key == "name" and (thing := _thing_named(description)):
        return thing
    if key in _STRING_HINTS:
        return _STRING_HINTS[key]
    if key in _ID_NAMES:
        return "abc123"
    if key.endswith("_name") and not _ends(key.removesuffix("_name"), _PERSON_NAMES):
        return "my-" + key.removesuffix("_name").replace("_", "-")[:40]  # vm_name -> my-vm, not a person
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
