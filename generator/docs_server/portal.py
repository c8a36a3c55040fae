"""One built portal, as the docs server reads it: its files, its tools, its twins and their search indexes.

A portal is the site ``build`` wrote, at the root of SITE or, with release history, in one version's
folder (*prefix*, such as ``1.4.0/``). Loading it reads ``manifest.json`` (every file of the site),
``snapshot.json`` (what the server said: each tool's name, title, annotations and parameters) and every
Markdown twin, and builds one :class:`~generator.docs_server.index.SearchIndex` per locale. After that, a
search touches only memory; a page or a tool's twin is read from the site when it is asked for, so what an
agent gets is the file as published, byte for byte.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from typing import Any

import anyio

from generator.docs_server.index import Analyzer, Document, SearchIndex, document
from generator.docs_server.source import SiteError, SiteSource
from generator.docs_server.twins import parse_twin
from generator.text import one_line, visible

MAX_MANIFEST = 32 * 1024 * 1024
MAX_SNAPSHOT = 64 * 1024 * 1024
MAX_TWIN = 4 * 1024 * 1024
"""The largest twin read for the index (a larger one is left out of search, and can still be read whole)."""
MAX_PAGE = 4 * 1024 * 1024
"""The largest tool page read for its example call."""
LOAD_CONCURRENCY = 8
_LLMS_LOCALE = re.compile(r"\]\(([A-Za-z0-9_-]{1,35})/llms\.txt\)")


@dataclass(frozen=True)
class ToolEntry:
    """A tool as the snapshot lists it, and its twin in each locale."""

    name: str
    title: str | None
    annotations: dict[str, Any]
    params: tuple[str, ...]
    twins: dict[str, str]
    """Locale to the twin's path."""


class Portal:
    """A loaded portal: call :meth:`load`."""

    def __init__(self, source: SiteSource, prefix: str) -> None:
        self.source = source
        self.prefix = prefix
        self.locales: tuple[str, ...] = ()
        self.version = ""
        self.title = "an MCP server"
        """The documented server's title (or name), as its snapshot records it."""
        self.files: tuple[str, ...] = ()
        self.tools: dict[str, ToolEntry] = {}
        self.indexes: dict[str, SearchIndex] = {}
        self.summaries: dict[str, str] = {}
        """A twin's path to its front matter description."""
        self.removed: dict[str, str] = {}
        """In a versioned site, the tools an earlier version had, each with the version that removed it."""

    @classmethod
    async def load(cls, source: SiteSource, prefix: str = "") -> Portal:
        """Read the portal at *prefix* of *source* and index it; a :class:`SiteError` if it is not one."""
        portal = cls(source, prefix)
        manifest = await portal._json("manifest.json", MAX_MANIFEST)
        files = manifest.get("files") if isinstance(manifest, dict) else None
        if not isinstance(files, dict):
            where = portal._where("manifest.json")
            raise SiteError(f"{where} lists no files; is this a site `mcp-portal build` wrote?")
        portal.files = tuple(sorted(str(path) for path in files))
        # A version's folder is named by its label (what list_versions lists), which --version-label may set.
        portal.version = prefix.rstrip("/") or str(manifest.get("capability_version", ""))
        portal.locales = await portal._locales()
        snapshot = await portal._json("snapshot.json", MAX_SNAPSHOT)
        twins = await portal._read_twins()
        snapshot = snapshot if isinstance(snapshot, dict) else {}
        server = snapshot.get("server")
        named = (server.get("title") or server.get("name")) if isinstance(server, dict) else None
        if isinstance(named, str) and named.strip():
            portal.title = one_line(visible(named))[:80]
        portal._index(snapshot, twins)
        return portal

    def _where(self, path: str) -> str:
        return f"{self.source.label}{'' if self.source.label.endswith('/') else '/'}{self.prefix}{path}"

    async def read(self, path: str, limit: int) -> bytes:
        """A file of this portal (*path* relative to it)."""
        return await self.source.read(self.prefix + path, limit)

    async def _json(self, path: str, limit: int) -> Any:
        data = await self.read(path, limit)
        try:
            return json.loads(data)
        except ValueError:
            raise SiteError(f"{self._where(path)} is not JSON; is this a site `mcp-portal build` wrote?") from None

    async def _locales(self) -> tuple[str, ...]:
        """The locales in the site's own order (the root llms.txt lists them), else every locale directory."""
        present = sorted({path.split("/", 1)[0] for path in self.files if path.endswith("/index.md")})
        try:
            root = (await self.read("llms.txt", MAX_TWIN)).decode("utf-8", "replace")
        except SiteError:
            return tuple(present)
        listed = [code for code in dict.fromkeys(_LLMS_LOCALE.findall(root)) if code in present]
        return tuple(listed + [code for code in present if code not in listed])

    async def _read_twins(self) -> dict[str, str]:
        """Every twin of every locale, by path; one that is too large or unreadable is left out of search."""
        paths = [p for p in self.files if p.endswith(".md") and p.split("/", 1)[0] in self.locales]
        texts: dict[str, str] = {}
        limiter = anyio.CapacityLimiter(LOAD_CONCURRENCY)

        async def one(path: str) -> None:
            async with limiter:
                try:
                    texts[path] = (await self.read(path, MAX_TWIN)).decode("utf-8", "replace")
                except SiteError:
                    return

        async with anyio.create_task_group() as group:
            for path in paths:
                group.start_soon(one, path)
        return texts

    def _index(self, snapshot: dict[str, Any], texts: dict[str, str]) -> None:
        listed = [t for t in snapshot.get("tools", ()) if isinstance(t, dict) and isinstance(t.get("name"), str)]
        by_title = {visible(t["name"]): t for t in listed}
        twins_of: dict[str, dict[str, str]] = {}
        per_locale: dict[str, list[Document]] = {code: [] for code in self.locales}
        verbatim = "en"
        for path in sorted(texts):
            twin = parse_twin(path, texts[path])
            self.summaries[path] = twin.description
            verbatim = twin.front.get("verbatim_language", verbatim)
            tool = by_title.get(twin.title) if twin.kind == "tool" else None
            if tool is not None:
                twins_of.setdefault(tool["name"], {})[path.split("/", 1)[0]] = path
            elif twin.kind == "tool" and twin.front.get("removed_in"):
                self.removed[twin.title] = twin.front["removed_in"]
            locale = path.split("/", 1)[0]
            per_locale[locale].append(document(twin, _params(tool) if tool else ()))
        for tool in listed:
            annotations = tool.get("annotations")
            title = tool.get("title")
            self.tools[tool["name"]] = ToolEntry(
                tool["name"],
                title if isinstance(title, str) else None,
                annotations if isinstance(annotations, dict) else {},
                _params(tool),
                twins_of.get(tool["name"], {}),
            )
        for code, documents in per_locale.items():
            self.indexes[code] = SearchIndex(documents, Analyzer(code, verbatim))

    def url(self, path: str, canonical: str = "") -> str:
        """Where a reader opens the page whose twin is *path* (an llms file is its own page): absolute when the
        site's address is known."""
        if path == "index.md" or path.endswith("/index.md"):
            route = path[: -len("index.md")]
        else:
            route = path[:-3] + "/" if path.endswith(".md") else path
        if self.source.base_url:
            return f"{self.source.base_url}{self.prefix}{route}"
        if canonical.startswith(("https://", "http://")):
            return canonical
        return self.prefix + route

    async def example(self, twin: str, name: str) -> dict[str, Any] | None:
        """The tool's example call as its HTML page shows it (checked against the schema when the site was built)."""
        try:
            page = (await self.read(twin[:-3] + "/index.html", MAX_PAGE)).decode("utf-8", "replace")
        except SiteError:
            return None
        return example_call(page, name)


def _params(tool: dict[str, Any]) -> tuple[str, ...]:
    schema = tool.get("inputSchema")
    properties = schema.get("properties") if isinstance(schema, dict) else None
    return tuple(str(name) for name in properties) if isinstance(properties, dict) else ()


def example_call(page: str, name: str) -> dict[str, Any] | None:
    """The ``tools/call`` request in the call section (``id="call"``) of a tool's HTML page.

    The section's JSON tab shows the arguments first and the whole request folded after them, so the
    first code block that is a whole ``tools/call`` request for *name* is the one."""
    start = page.find('id="call"')
    if start < 0:
        return None
    end = page.find("<h2", start)
    section = page[start : end if end > 0 else len(page)]
    for block in re.finditer(r"<pre\b[^>]*>\s*<code\b[^>]*>(.*?)</code>", section, re.S):
        request = _request(block.group(1), name)
        if request is not None:
            return request
    return None


def _request(code: str, name: str) -> dict[str, Any] | None:
    """*code* (a highlighted code block's HTML) read as a ``tools/call`` request for *name*, else None."""
    try:
        request = json.loads(html.unescape(re.sub(r"<[^>]*>", "", code)))
    except ValueError:
        return None
    params = request.get("params") if isinstance(request, dict) else None
    if not isinstance(params, dict) or request.get("method") != "tools/call" or params.get("name") != name:
        return None
    found: dict[str, Any] = request
    return found
