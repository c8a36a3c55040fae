"""The site's structure: which pages exist, where each lives, and how they link.

Links are relative and name ``index.html`` explicitly, so a site works at the
root of a host, under a base path such as ``/developers/``, and opened from disk.
"""

from __future__ import annotations

import functools
import posixpath
from dataclasses import dataclass

from generator.errors import PortalError
from generator.model.kinds import PageKind
from generator.model.product import Doc, ItemDoc, ResourceDoc
from generator.model.site import SiteModel
from generator.model.tool import ToolDoc
from generator.slugs import duplicates, fold

KINDS: tuple[PageKind, ...] = tuple(PageKind)
_ITEM_DIRS = {
    PageKind.PROMPT: "prompts",
    PageKind.RESOURCE: "resources",
    PageKind.RESOURCE_TEMPLATE: "resource-templates",
}
"""Where the pages of prompts, resources and resource templates live (``en/prompts/x/``)."""
_SECTIONS = (
    PageKind.CONNECTING,
    PageKind.CHANGES,
    PageKind.INSTRUCTIONS,
    PageKind.API,
    PageKind.READINESS,
    PageKind.HISTORY,
)
"""Pages of their own, one per locale, each in a directory named after its kind."""


@dataclass(frozen=True)
class Page:
    """One page of the portal in one locale (it has an HTML form and a Markdown twin)."""

    kind: PageKind
    locale: str
    doc: Doc | None = None
    """The tool, prompt, resource or resource template the page documents (None on the other pages)."""

    @classmethod
    def of(cls, doc: Doc, locale: str) -> Page:
        """The page of a tool, prompt, resource or resource template."""
        return cls(doc.kind, locale, doc)

    @property
    def tool(self) -> ToolDoc | None:
        """The tool of a tool page (templates read ``page.tool``)."""
        return self.doc if isinstance(self.doc, ToolDoc) else None

    @property
    def item(self) -> ItemDoc | None:
        """The prompt, resource or resource template of those pages (templates read ``page.item``)."""
        return self.doc if isinstance(self.doc, ItemDoc) else None

    @property
    def summary(self) -> str:
        """The documented thing in a line, for the page's meta description and front matter: a tool's
        summary; a prompt's or resource's description, else its title, else its name (a resource's URI).
        Empty on pages that document no single thing (they describe themselves with a catalog string)."""
        if self.tool is not None:
            return self.tool.summary
        item = self.item
        if item is None:
            return ""
        return item.description or item.title or (item.uri if isinstance(item, ResourceDoc) else item.name)

    @functools.cached_property
    def directory(self) -> str:
        """The page's pretty URL path, relative to the site root (``en/tools/x/``); each path of a page is
        worked out once (a rebuild asks for every page's paths many times over)."""
        if self.kind == PageKind.TOOL:
            if self.tool is None:
                raise TypeError("a tool page needs its tool")
            return f"{self.locale}/tools/{self.tool.slug}/"
        if self.kind == PageKind.REMOVED:  # a removed tool keeps its address
            if self.doc is None:
                raise TypeError("a removed tool's page needs its tool")
            return f"{self.locale}/tools/{self.doc.slug}/"
        if self.kind in _ITEM_DIRS:
            if self.item is None:
                raise TypeError(f"a {self.kind} page needs its item")
            return f"{self.locale}/{_ITEM_DIRS[self.kind]}/{self.item.slug}/"
        if self.kind in _SECTIONS:
            return f"{self.locale}/{self.kind}/"
        return f"{self.locale}/"

    @functools.cached_property
    def html_path(self) -> str:
        return self.directory + "index.html"

    @functools.cached_property
    def md_path(self) -> str:
        """The twin: the route with ``.md`` (``en/tools/x.md``, ``en/index.md``)."""
        if self.kind == PageKind.INDEX:
            return f"{self.locale}/index.md"
        return self.directory.rstrip("/") + ".md"

    def in_locale(self, locale: str) -> Page:
        return Page(self.kind, locale, self.doc)

    @property
    def template(self) -> str:
        return PageKind.RESOURCE if self.kind == PageKind.RESOURCE_TEMPLATE else self.kind


def pages_for(model: SiteModel) -> list[Page]:
    """Every page of the site, in a stable order: per locale, index, connecting, changes,
    instructions, API operations, agent readiness and release history, then tools, prompts, resources,
    resource templates and the tools earlier versions had.

    Made once per model (a build asks for them for the render job, each ``llms.txt`` and the sitemap:
    15,000 pages at 5,000 tools); each call returns a list of its own.
    """
    made: list[Page] | None = model.__dict__.get(_PAGES)
    if made is None:
        made = model.__dict__[_PAGES] = _pages(model)  # a frozen model: its cached_property way
    return list(made)


_PAGES = "_pages_for"


def _pages(model: SiteModel) -> list[Page]:
    pages = []
    for locale in model.locales:
        pages.append(Page(PageKind.INDEX, locale))
        pages.append(Page(PageKind.CONNECTING, locale))
        if model.previous_version is not None:
            pages.append(Page(PageKind.CHANGES, locale))
        if model.has_instructions:
            pages.append(Page(PageKind.INSTRUCTIONS, locale))
        if model.api is not None:
            pages.append(Page(PageKind.API, locale))
        if model.readiness is not None:
            pages.append(Page(PageKind.READINESS, locale))
        if model.history is not None:
            pages.append(Page(PageKind.HISTORY, locale))
        pages.extend(Page.of(tool, locale) for tool in model.tools)
        pages.extend(Page.of(p, locale) for p in model.prompts)
        pages.extend(Page.of(r, locale) for r in model.resources)
        pages.extend(Page.of(r, locale) for r in model.resource_templates)
        pages.extend(Page.of(r, locale) for r in model.removed_tools)
    return pages


_LABELS = {
    PageKind.TOOL: "tool",
    PageKind.PROMPT: "prompt",
    PageKind.RESOURCE: "resource",
    PageKind.RESOURCE_TEMPLATE: "resource template",
}
_SHOWN = 80
"""Characters of a name quoted in a message (a name can be megabytes long)."""


def _quoted(text: str) -> str:
    """A name as a message shows it: cut, and as a Python literal, so control and bidi characters are escapes."""
    return repr(text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…")


def describe(page: Page) -> str:
    """The item a page documents, as a message names it (``the resource 'x' (file:///x)``)."""
    if page.tool is not None:
        return f"the tool {_quoted(page.tool.name)}"
    item = page.item
    if item is None:
        return f"the {page.kind} page"
    label = f"the {_LABELS.get(page.kind, page.kind)} {_quoted(item.name)}"
    return f"{label} ({_quoted(item.uri)})" if isinstance(item, ResourceDoc) else label


def _refuse_repeats(model: SiteModel) -> None:
    """A snapshot that lists one tool, prompt, resource or template twice is an error, never folded silently."""
    for kind, keys in (
        ("tool name", [t.name for t in model.tools]),
        ("prompt name", [p.name for p in model.prompts]),
        ("resource URI", [r.uri for r in model.resources]),
        ("resource template URI template", [r.uri for r in model.resource_templates]),
    ):
        repeated = duplicates(keys)
        if repeated:
            listed = ", ".join(_quoted(k) for k in repeated[:10]) + (
                f" (and {len(repeated) - 10} more)" if len(repeated) > 10 else ""
            )
            raise PortalError(
                f"The snapshot lists the {kind}(s) {listed} more than once. Each one has a single page, "
                f"so they must be unique. Introspect the server again: `mcp-portal introspect` reports "
                f"repeated entries, and with --lenient keeps the first of each."
            )


def check_one_page_per_item(model: SiteModel) -> None:
    """Defence in depth: no two pages (nor a page and its twin) may ever share an output file.

    Paths are compared as a case-insensitive, Unicode-normalizing file system would see
    them, and a file may not sit where another page needs a directory (``x.md`` against
    ``x.md/index.html``).  Slugs make this impossible; this guard makes a bug in them loud
    instead of a page silently lost.
    """
    _refuse_repeats(model)
    files: dict[str, tuple[Page, str]] = {}
    folders: dict[str, tuple[Page, str]] = {}
    chains: dict[str, list[str]] = {}
    """Folded directory -> it and every directory above it, each claimed in *folders* when first met."""

    def chain(directory: str, page: Page, path: str) -> list[str]:
        found = chains.get(directory)
        if found is None:
            folders.setdefault(directory, (page, path))
            above = chain(posixpath.dirname(directory), page, path) if directory else []
            found = chains[directory] = [directory, *above]
        return found

    for page in pages_for(model):
        for path in (page.html_path, page.md_path):
            key = fold(path)
            parents = chain(fold(path.rpartition("/")[0]), page, path)  # site paths: no "//", no trailing "/"
            clash = files.get(key) or folders.get(key)
            if clash is None and not files.keys().isdisjoint(parents):
                clash = next(files[p] for p in parents if p in files)
            if clash is not None:
                other, at = clash
                raise PortalError(
                    f"Two pages would be written to the same place, {at} and {path}: {describe(other)} and "
                    f"{describe(page)}. This is a bug in mcp-portal's slugs, and nothing was written; please "
                    f"report it with the snapshot."
                )
            files[key] = (page, path)


def _segments(path: str) -> list[str] | None:
    """The segments of a normalized relative site path (``""`` has none); None for any other path."""
    if not path:
        return []
    parts = path.split("/")
    return None if any(part in ("", ".", "..") for part in parts) else parts


def relative(from_path: str, to_path: str) -> str:
    """A relative link from the file *from_path* to the file (or directory) *to_path*.

    Site paths are normalized and relative, so the link is worked out from their segments
    (what :func:`posixpath.relpath` gives, without its two ``abspath`` calls: a large build makes
    over 100,000 links); any other path goes to :func:`posixpath.relpath` itself.
    """
    start, target = _segments(posixpath.dirname(from_path)), _segments(to_path.rstrip("/"))
    if start is None or target is None or to_path.startswith("/"):
        rel = posixpath.relpath(to_path, posixpath.dirname(from_path) or ".")
    else:
        common = 0
        for a, b in zip(start, target, strict=False):
            if a != b:
                break
            common += 1
        rel = "/".join([".."] * (len(start) - common) + target[common:]) or "."
    if to_path.endswith("/") and not rel.endswith("/"):
        rel += "/"
    return rel


def absolute(base_url: str | None, path: str) -> str | None:
    """The public URL of a site path, when the base URL is known."""
    if not base_url:
        return None
    return base_url.rstrip("/") + "/" + path.removesuffix("index.html")
