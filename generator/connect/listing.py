"""Listing what a server offers: every page of each list, bounded, each entry checked, kept as sent.

Each list request goes through the SDK's session (:func:`raw_page`), which checks the reply
against the negotiated protocol version, but asks for the result as a plain dict: the SDK's
models drop the fields they do not know (``annotations.category``, a prompt argument's
``default``, ``x-vendor`` keys), and a documentation portal must keep exactly what the server
said.  The SDK's models still read every page (:func:`faithful`), so an invalid entry is named
as the SDK names it, and a value the SDK coerces to its type (``"yes"`` for a boolean hint) is kept as
the SDK reads it.

``tools/list`` is walked page by page with loop and size guards (:func:`walk_pages`); a tool the SDK
rejects is named, or with ``--lenient`` skipped (:class:`ToolLister`).  Prompts, resources and
templates are listed when the server declares them, and a server that declares a list but
refuses it is recorded as having none, with a warning (:func:`optional_lists`).  A repeated name
or URI is an error, or with ``--lenient`` a warning (:func:`first_of_each`).
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import mcp_types
from mcp import Client, MCPError
from mcp.shared.inbound import find_invalid_x_mcp_header
from mcp_types import INVALID_PARAMS, METHOD_NOT_FOUND
from mcp_types import methods as mcp_methods
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from generator.config.portal import Limits
from generator.connect.failures import Underway
from generator.connect.raw import LISTS, faithful, faithful_items, raw_page
from generator.connect.session import RawTools
from generator.errors import PortalError

_NAME_SHOWN = 80
"""Characters of an invalid tool's name quoted in a message (a name can be megabytes long)."""
_NAME_KEPT = 200
"""Characters of a skipped tool's name recorded in the snapshot."""


@dataclass
class ListedPage:
    """One page of a list: its items as the server sent them, and the cursor of the next page."""

    items: list[dict[str, Any]]
    next_cursor: str | None


async def walk_pages(
    name: str,
    fetch: Callable[[str | None], Awaitable[ListedPage]],
    limits: Limits,
    progress: Underway,
    who: str,
) -> list[dict[str, Any]]:
    """Every item of a paginated list, in the server's order, with loop and size guards."""
    items: list[dict[str, Any]] = []
    seen: set[str] = set()
    cursor: str | None = None
    for page_number in range(1, limits.max_pages + 1):
        progress.request = f"{name} (page {page_number})"
        page = await fetch(cursor)
        items.extend(page.items)
        if len(items) > limits.max_tools:
            raise PortalError(
                f"{who} listed more than {limits.max_tools} entries in {name}. If that is expected, "
                f"raise --max-tools; otherwise the server is misbehaving."
            )
        cursor = page.next_cursor
        if cursor is None:
            return items
        if cursor == "" or cursor in seen:
            shown = "an empty cursor" if cursor == "" else f"the cursor {cursor[:60]!r} again"
            raise PortalError(
                f"{who} sent {shown} on page {page_number} of {name}, so its list would never end. "
                f"This is a server bug: cursors must advance and be absent on the last page."
            )
        seen.add(cursor)
    raise PortalError(
        f"{who} was still sending pages of {name} after {limits.max_pages} pages. If the list is "
        f"really that long, raise --max-pages; otherwise the server's cursors never end."
    )


def _tool_label(item: object, index: int) -> str:
    """How to name a tool in a message, whatever the server put in its ``name``."""
    name = item.get("name") if isinstance(item, dict) else None
    if isinstance(name, str) and name:
        return name
    shown = "no name" if name is None else f"the name {str(name)[:_NAME_SHOWN]!r}, which is not a string"
    return f"#{index + 1} on the page ({shown})"


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _reason(exc: ValidationError) -> str:
    """What is wrong, from pydantic's errors, without echoing the (untrusted, maybe huge) input."""
    parts = []
    for error in exc.errors()[:3]:
        path = error["loc"][2:] if error["loc"][:1] == ("tools",) else error["loc"]  # ("tools", 0, ...) -> ...
        loc = ".".join(str(p) for p in path) or "the tool"
        parts.append(f"{loc}: {error['msg']}")
    more = len(exc.errors()) - 3
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")


class ToolLister:
    """``tools/list`` through the SDK's session, naming (or, with --lenient, skipping) each invalid tool."""

    def __init__(self, client: Client, tap: RawTools, who: str, progress: Underway, lenient: bool) -> None:
        self.client = client
        self.tap = tap
        self.who = who
        self.progress = progress
        self.lenient = lenient
        self.skipped: list[dict[str, Any]] = []
        self.warnings: list[str] = []

    async def page(self, cursor: str | None) -> ListedPage:
        self.tap.last = None
        raw: dict[str, Any] | None = None
        try:
            raw, result = await raw_page(self.client, "tools/list", cursor)
        except ValidationError as exc:
            # The SDK checks the whole page before handing it over; the tap kept what was sent.
            sent = raw if raw is not None else self.tap.last
            if sent is None or not all(e["loc"][:1] == ("tools",) and len(e["loc"]) > 1 for e in exc.errors()):
                raise  # the page itself is broken, not one tool: reported as such by explain()
            return self._salvage(sent, exc)
        tools = faithful_items(raw, result, "tools/list")
        if self.client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            # At 2026-07-28 clients must drop a tool whose x-mcp-header is invalid. A documentation
            # portal must not lose a tool silently: treat it like any invalid tool.
            found = ((i, find_invalid_x_mcp_header(model.input_schema)) for i, model in enumerate(result.tools))
            bad = {i: why for i, why in found if why}
            self._invalid([(_tool_label(tools[i], i), why) for i, why in bad.items()])
            tools = [tool for i, tool in enumerate(tools) if i not in bad]
        return ListedPage(tools, result.next_cursor)

    def _salvage(self, raw: dict[str, Any], exc: ValidationError) -> ListedPage:
        """Check each tool of a page that failed as a whole; name the invalid ones."""
        version = self.client.protocol_version or "2025-11-25"
        items = raw.get("tools")
        rest = {k: v for k, v in raw.items() if k != "tools"}
        if not isinstance(items, list):
            raise exc
        good: list[dict[str, Any]] = []
        invalid: list[tuple[str, str]] = []
        for index, item in enumerate(items):
            label = _tool_label(item, index)
            try:
                # The same check the SDK makes (the negotiated version's wire types), one tool at a time.
                # (KeyError: a version without a wire table, where the SDK skips this check too.)
                with contextlib.suppress(KeyError):
                    mcp_methods.validate_server_result("tools/list", version, {**rest, "tools": [item]})
                tool = mcp_types.Tool.model_validate(item, by_name=False)
            except ValidationError as problem:
                invalid.append((label, _reason(problem)))
                continue
            if version in MODERN_PROTOCOL_VERSIONS and (why := find_invalid_x_mcp_header(tool.input_schema)):
                invalid.append((label, why))
                continue
            good.append(faithful(item, tool))
        if not invalid:
            raise exc  # every tool passes alone, so the page as a whole is what is wrong
        self._invalid(invalid)
        cursor = rest.get("nextCursor")
        return ListedPage(good, cursor if isinstance(cursor, str) else None)

    def _invalid(self, invalid: list[tuple[str, str]]) -> None:
        if not invalid:
            return
        request = self.progress.request
        if not self.lenient:
            shown = "; ".join(f"{_shorten(name, _NAME_SHOWN)!r}: {reason}" for name, reason in invalid[:5])
            more = f" (and {len(invalid) - 5} more)" if len(invalid) > 5 else ""
            raise PortalError(
                f"{self.who} listed {'an invalid tool' if len(invalid) == 1 else f'{len(invalid)} invalid tools'} "
                f"in {request}, which the MCP specification does not allow: {shown}{more}. Fix the server, "
                f"or use --lenient to skip {'it' if len(invalid) == 1 else 'them'} (they are listed as skipped "
                f"on the portal's index page)."
            )
        for name, reason in invalid:
            self.skipped.append({"name": _shorten(name, _NAME_KEPT), "reason": _shorten(reason, 500)})
            self.warnings.append(
                f"skipped the invalid tool {_shorten(name, _NAME_SHOWN)!r} listed by {self.who} in {request}: {reason}"
            )

    def unique(self, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The tools with each name once; a repeated name is an error, or with --lenient a warning."""
        counts = Counter(t["name"] for t in tools)
        duplicates = sorted(n for n, count in counts.items() if count > 1)
        if not duplicates:
            return tools
        listed = ", ".join(repr(_shorten(d, _NAME_SHOWN)) for d in duplicates[:10])
        if not self.lenient:
            raise PortalError(
                f"{self.who} listed the tool name(s) {listed} more than once in "
                f"tools/list. Tool names must be unique; fix the server, or use --lenient to keep the first "
                f"listing of each."
            )
        for name in duplicates:
            self.skipped.append(
                {"name": _shorten(name, _NAME_KEPT), "reason": "listed more than once; only the first is documented"}
            )
        self.warnings.append(
            f"{self.who} listed the tool name(s) {listed} more than once in tools/list; kept the first listing of each."
        )
        seen: set[str] = set()
        first: list[dict[str, Any]] = []
        for tool in tools:
            if tool["name"] not in seen:
                seen.add(tool["name"])
                first.append(tool)
        return first


_ABSENT_CODES = {METHOD_NOT_FOUND: "Method not found", INVALID_PARAMS: "Invalid params"}
"""Error codes that, on the first page of an optional list, mean the server has none to list."""


class _ListAbsent(Exception):
    """The first page of an optional list was refused with one of :data:`_ABSENT_CODES`."""

    def __init__(self, error: MCPError) -> None:
        super().__init__(error.message)
        self.error = error


class _OptionalLists:
    """``prompts/list``, ``resources/list`` and ``resources/templates/list``, which a server may lack.

    Many servers declare a capability but serve only part of it: ``mcp-server-sqlite`` and
    ``mcp-server-kubernetes`` declare ``resources`` and answer ``resources/templates/list`` with
    -32601 (Method not found).  Such a refusal of the *first* page means "none": the list is
    recorded empty and a warning names the endpoint and the method.  Any other failure, or one on
    a later page, is still an error; ``tools/list`` is never optional (see :class:`ToolLister`).
    """

    def __init__(self, client: Client, limits: Limits, progress: Underway, who: str) -> None:
        self.client = client
        self.limits = limits
        self.progress = progress
        self.who = who
        self.warnings: list[str] = []

    async def walk(self, method: str, capability: str) -> list[dict[str, Any]]:
        async def fetch(cursor: str | None) -> ListedPage:
            try:
                raw, result = await raw_page(self.client, method, cursor)
            except MCPError as exc:
                if cursor is None and exc.code in _ABSENT_CODES:
                    raise _ListAbsent(exc) from exc
                raise
            return ListedPage(faithful_items(raw, result, method), result.next_cursor)

        try:
            return await walk_pages(method, fetch, self.limits, self.progress, self.who)
        except _ListAbsent as absent:
            code = absent.error.code
            self.warnings.append(
                f"{self.who} declares the {capability} capability but answered {method} with "
                f"{code} ({_ABSENT_CODES[code]}); documented it as having no "
                f"{LISTS[method][3].replace('_', ' ')}."
            )
            return []


_REPEATS = {
    # section: (request, what must be unique, the field holding it)
    "prompts": ("prompts/list", "prompt name", "name"),
    "resources": ("resources/list", "resource URI", "uri"),
    "resource_templates": ("resources/templates/list", "resource template URI template", "uriTemplate"),
}


def first_of_each(
    items: list[dict[str, Any]], section: str, who: str, lenient: bool, warnings: list[str]
) -> list[dict[str, Any]]:
    """The prompts, resources or templates of one endpoint, each key once, as :meth:`ToolLister.unique` does
    for tools: a repeated key is an error, or with --lenient a warning (the first listing is kept)."""
    request, what, key = _REPEATS[section]
    keys = [str(item.get(key)) for item in items]
    repeated = [k for k, n in Counter(keys).items() if n > 1]
    if not repeated:
        return items
    listed = ", ".join(repr(_shorten(k, _NAME_SHOWN)) for k in repeated[:10])
    if not lenient:
        raise PortalError(
            f"{who} listed the {what}(s) {listed} more than once in {request}. Each has one page, so they "
            f"must be unique; fix the server, or use --lenient to keep the first listing of each."
        )
    warnings.append(f"{who} listed the {what}(s) {listed} more than once in {request}; kept the first listing of each.")
    first = {k: i for i, k in reversed(list(enumerate(keys)))}
    return [item for i, item in enumerate(items) if first[keys[i]] == i]


async def optional_lists(
    client: Client, limits: Limits, progress: Underway, who: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]], list[str]]:
    """The prompts, resources and resource templates, for the capabilities the server declares, as sent.

    Returns ``(prompts, resources, templates, warnings)``; the warnings name each optional list
    the server declared but does not serve (see :class:`_OptionalLists`).
    """
    caps = client.server_capabilities
    prompts: list[dict[str, Any]] = []
    resources: list[dict[str, Any]] = []
    templates: list[dict[str, Any]] = []
    optional = _OptionalLists(client, limits, progress, who)
    if caps.prompts is not None:
        prompts = await optional.walk("prompts/list", "prompts")
    if caps.resources is not None:
        resources = await optional.walk("resources/list", "resources")
        templates = await optional.walk("resources/templates/list", "resources")
    return prompts, resources, templates, optional.warnings
