"""``L/names.js``: the small name index beside Pagefind, one file per locale, loaded on demand.

Pagefind finds words, and a misspelled name is no word it has. The search dialog (``assets/search.js``)
also matches the query against this index, forgiving up to two edits, and ranks a tool, prompt or
resource whose own name (or one of whose parameters) the query names above every other hit. The
sidebar's filter reads the same file for what it matches besides names: each item's summary and its
access badge in the locale's words.

It is a script (``window.PORTAL_NAMES = [...]``), not JSON, so a page opened from disk can load it too.
JSON is ASCII-escaped, safe inside JavaScript; server text is passed through :func:`generator.text.visible`
(hidden and bidi characters as ``[U+XXXX]``), as everything the sidebar shows is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from generator.model.pages import Page
from generator.model.site import SiteModel
from generator.render.i18n import Catalog
from generator.text import visible

MAX_PARAMETERS = 40
"""Parameter names listed per tool: a name index, not the schema."""
MAX_SUMMARY = 200
"""Characters of an item's summary kept for the sidebar's filter."""

KINDS = {"tool": "t", "prompt": "p", "resource": "r", "resource_template": "u"}
"""Each page kind's letter in the index."""


def parameter_names(tool: Any) -> tuple[str, ...]:
    """The names of a tool's parameters, nested ones by their own last name, each once, in order (at most
    :data:`MAX_PARAMETERS`). A build takes them as it renders the tool's pages, or from the last build's
    record of them, rather than flattening every schema again for this file."""
    found: list[str] = []
    for row in tool.params.rows:
        name = str(row.path or "").rsplit(".", 1)[-1].removesuffix("[]")
        if name and name not in found:
            found.append(visible(name))
        if len(found) >= MAX_PARAMETERS:
            break
    return tuple(found)


def names_script(site: SiteModel, catalog: Catalog, parameters: Mapping[str, Sequence[str]] | None = None) -> str:
    """``L/names.js`` for the locale of *catalog*: every tool, prompt, resource and resource template with
    its page (relative to the locale's root), its kind, summary, parameters and access badge. *parameters*
    gives tools' :func:`parameter_names` by the tool's slug (unique in a site, as its page) where they are
    known already."""
    known = parameters or {}
    entries: list[dict[str, Any]] = []
    for tool in site.tools:
        entries.append(
            {
                "n": visible(tool.name),
                "h": f"tools/{tool.slug}/index.html",
                "k": KINDS["tool"],
                "d": visible(tool.summary[:MAX_SUMMARY]),
                "p": list(known[tool.slug] if tool.slug in known else parameter_names(tool)),
                "b": visible(catalog.t("access." + tool.access.level)),
            }
        )
    for _, items in site.item_sections:
        for item in items:
            page = Page.of(item, catalog.code)
            entries.append(
                {
                    "n": visible(item.name),
                    "h": page.html_path[len(catalog.code) + 1 :],
                    "k": KINDS[str(item.kind)],
                    "d": visible(page.summary[:MAX_SUMMARY]),
                }
            )
    return "window.PORTAL_NAMES = " + json.dumps(entries, ensure_ascii=True, sort_keys=True) + ";\n"
