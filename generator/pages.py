"""The site's structure: which pages exist, where each lives, and how they link.

Links are relative and name ``index.html`` explicitly, so a site works at the
root of a host, under a base path such as ``/developers/``, and opened from disk.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Any

from generator.model import SiteModel, ToolDoc

KINDS = ("index", "tool", "connecting", "changes", "instructions", "api", "prompt", "resource", "resource_template")
_ITEM_DIRS = {"prompt": "prompts", "resource": "resources", "resource_template": "resource-templates"}


@dataclass(frozen=True)
class Page:
    """One page of the portal in one locale (it has an HTML form and a Markdown twin)."""

    kind: str
    locale: str
    tool: ToolDoc | None = None
    item: Any = None
    """The prompt, resource or resource template of those pages (a :mod:`generator.product` doc)."""

    @property
    def directory(self) -> str:
        """The page's pretty URL path, relative to the site root (``en/tools/x/``)."""
        if self.kind == "tool":
            assert self.tool is not None
            return f"{self.locale}/tools/{self.tool.slug}/"
        if self.kind in _ITEM_DIRS:
            return f"{self.locale}/{_ITEM_DIRS[self.kind]}/{self.item.slug}/"
        if self.kind in ("connecting", "changes", "instructions", "api"):
            return f"{self.locale}/{self.kind}/"
        return f"{self.locale}/"

    @property
    def html_path(self) -> str:
        return self.directory + "index.html"

    @property
    def md_path(self) -> str:
        """The twin: the route with ``.md`` (``en/tools/x.md``, ``en/index.md``)."""
        if self.kind == "index":
            return f"{self.locale}/index.md"
        return self.directory.rstrip("/") + ".md"

    def in_locale(self, locale: str) -> Page:
        return Page(self.kind, locale, self.tool, self.item)

    @property
    def template(self) -> str:
        return "resource" if self.kind == "resource_template" else self.kind


def pages_for(model: SiteModel) -> list[Page]:
    """Every page of the site, in a stable order: per locale, index, connecting, changes,
    instructions and API operations, then tools, prompts, resources and resource templates."""
    pages = []
    for locale in model.locales:
        pages.append(Page("index", locale))
        pages.append(Page("connecting", locale))
        if model.previous_version is not None:
            pages.append(Page("changes", locale))
        if model.has_instructions:
            pages.append(Page("instructions", locale))
        if model.api is not None:
            pages.append(Page("api", locale))
        pages.extend(Page("tool", locale, tool) for tool in model.tools)
        pages.extend(Page("prompt", locale, item=p) for p in model.prompts)
        pages.extend(Page("resource", locale, item=r) for r in model.resources)
        pages.extend(Page("resource_template", locale, item=r) for r in model.resource_templates)
    return pages


def relative(from_path: str, to_path: str) -> str:
    """A relative link from the file *from_path* to the file (or directory) *to_path*."""
    start = posixpath.dirname(from_path) or "."
    rel = posixpath.relpath(to_path, start)
    if to_path.endswith("/") and not rel.endswith("/"):
        rel += "/"
    return rel


def absolute(base_url: str | None, path: str) -> str | None:
    """The public URL of a site path, when the base URL is known."""
    if not base_url:
        return None
    return base_url.rstrip("/") + "/" + path.removesuffix("index.html")
