"""Which JSON Schema dialect a document declares, and where its ``$ref`` point inside it.

Knows the ``$schema`` URIs of draft-03 to 2020-12, the identifier keywords
(``$id``/``id``, ``$anchor``, ``$dynamicAnchor``) and JSON
Pointer fragments, so :class:`LocalRefs` can resolve any reference whose target
is in the same document.  It never fetches: a reference to another document is
reported as a problem string, not followed.  It does not know what the target
means (no keyword semantics, no merging of ``$ref`` siblings, no cycle
detection across lookups); callers such as :mod:`generator.schema.flatten` and
:mod:`generator.schema.examples` bound their own chains and recursion.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urldefrag, urljoin

from generator.jsonutil import clip

LEGACY_DIALECTS = frozenset({"draft-03", "draft-04", "draft-06", "draft-07"})
_DIALECTS = {
    "json-schema.org/draft-03/schema": "draft-03",
    "json-schema.org/draft-04/schema": "draft-04",
    "json-schema.org/draft-06/schema": "draft-06",
    "json-schema.org/draft-07/schema": "draft-07",
    "json-schema.org/draft/2019-09/schema": "2019-09",
    "json-schema.org/draft/2020-12/schema": "2020-12",
}
REF_KEYWORDS = ("$ref", "$recursiveRef", "$dynamicRef")  # every keyword that points at another schema
_INDEX_BUDGET = 50_000  # nodes scanned for $id/$anchor
# Values under these keys are data, not subschemas: an "$id" inside an enum names nothing.
_DATA_KEYS = frozenset({"enum", "const", "default", "examples", "example"})


def detect_dialect(schema: object) -> tuple[str | None, str | None]:
    """``(dialect, warning)`` from ``$schema``; unknown or malformed gives ``(None, warning)``."""
    if not isinstance(schema, dict) or "$schema" not in schema:
        return None, None
    raw = schema["$schema"]
    if not isinstance(raw, str):
        return None, "$schema is not a string; interpreted as 2020-12"
    key = raw.strip().rstrip("#").lower()
    for prefix in ("https://", "http://"):
        key = key.removeprefix(prefix)
    dialect = _DIALECTS.get(key)
    if dialect is None:
        return None, f"unknown $schema {clip(raw, 120)!r}; interpreted as 2020-12"
    return dialect, None


def ref_keyword(node: dict[str, Any]) -> str | None:
    return next((k for k in REF_KEYWORDS if k in node), None)


class LocalRefs:
    """Resolves ``$ref`` inside one document; anything else is reported, never fetched."""

    def __init__(self, root: object, dialect: str | None) -> None:
        self.root = root
        self.ids: dict[str, object] = {}
        self.anchors: dict[str, object] = {}
        self.base = ""
        if isinstance(root, dict):
            rid = root.get("$id", root.get("id") if dialect in ("draft-03", "draft-04") else None)
            if isinstance(rid, str):
                self.base = urldefrag(rid)[0]
        self._index(dialect)

    def _index(self, dialect: str | None) -> None:
        # Iterative, budgeted and alias-safe: the document may be huge, deep or self-referential.
        id_keys = ("$id", "id") if dialect in ("draft-03", "draft-04") else ("$id",)
        stack: list[object] = [self.root]
        seen: set[int] = set()
        budget = _INDEX_BUDGET
        while stack and budget > 0:
            node = stack.pop()
            budget -= 1
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, list):
                stack.extend(v for v in reversed(node) if isinstance(v, dict | list))
                continue
            if not isinstance(node, dict):
                continue
            for key in id_keys:
                value = node.get(key)
                if isinstance(value, str):
                    self._add_id(value, node)
            for key in ("$anchor", "$dynamicAnchor"):  # 2019-09's $recursiveAnchor is a boolean: it names nothing
                value = node.get(key)
                if isinstance(value, str):
                    self.anchors.setdefault(value, node)
            stack.extend(
                v for k, v in reversed(list(node.items())) if k not in _DATA_KEYS and isinstance(v, dict | list)
            )

    def _add_id(self, value: str, node: object) -> None:
        try:
            url, frag = urldefrag(value)
            if url:
                self.ids.setdefault(url, node)
                self.ids.setdefault(urljoin(self.base, url) if self.base else url, node)
            if frag and not frag.startswith("/"):
                self.anchors.setdefault(frag, node)
        except ValueError:  # malformed URI (e.g. a broken IPv6 literal): just not indexed
            pass

    def lookup(self, ref: object, keyword: str = "$ref") -> tuple[object, str | None]:
        """``(target, None)`` or ``(None, problem)``; problems start with 'remote' or 'dangling'."""
        if keyword == "$recursiveRef":
            ref = "#"
        if not isinstance(ref, str):
            return None, f"dangling {keyword} (not a string)"
        try:
            url, frag = urldefrag(ref)
            doc: object
            if not url or url == self.base:
                doc = self.root
            elif url in self.ids:
                doc = self.ids[url]
            elif self.base and urljoin(self.base, url) in self.ids:
                doc = self.ids[urljoin(self.base, url)]
            else:
                return None, f"remote {keyword} {clip(ref, 120)!r} was not fetched"
        except ValueError:
            return None, f"dangling {keyword} {clip(ref, 120)!r} (malformed URI)"
        frag = unquote(frag)
        if not frag:
            return doc, None
        if not frag.startswith("/"):
            if frag in self.anchors:
                return self.anchors[frag], None
            return None, f"dangling {keyword} {clip(ref, 120)!r} (no such anchor)"
        target = doc
        for token in frag[1:].split("/"):
            token = token.replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and token in target:
                target = target[token]
            elif isinstance(target, list) and token.isdigit() and int(token) < len(target):
                target = target[int(token)]
            else:
                return None, f"dangling {keyword} {clip(ref, 120)!r}"
        return target, None
