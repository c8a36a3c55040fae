"""Connect to an MCP server with the official SDK and freeze what it says.

This is the only module that speaks MCP.  It walks every page of ``tools/list``
(and prompts, resources and templates when the server declares them), bounds the
time and the number of pages a server can cost, and turns every failure into one
paragraph naming the server, the request and what to do (the paragraph itself is
written by :mod:`generator.connect.failures`).
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any, TextIO, cast

import anyio
import httpx2
import mcp_types
from mcp import Client, MCPError, StdioServerParameters
from mcp.client._transport import Transport
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.inbound import find_invalid_x_mcp_header
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_PARAMS, METHOD_NOT_FOUND, JSONRPCRequest, JSONRPCResponse
from mcp_types import methods as mcp_methods
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, ValidationError

from generator.config.portal import URL_EXAMPLE, Limits, ServerSpec, url_problem
from generator.config.variables import expand, variables_in
from generator.connect.failures import Progress, explain, leaf, stderr_tail
from generator.connect.merge import merge
from generator.connect.secrets import Redactor
from generator.errors import PortalError
from generator.snapshot.snapshot import Snapshot, endpoint_record, fingerprint, resolve_capability_version

_SERVER_FIELDS = ("name", "title", "version", "description", "websiteUrl", "icons")
_NAME_SHOWN = 80
"""Characters of an invalid tool's name quoted in a message (a name can be megabytes long)."""
_NAME_KEPT = 200
"""Characters of a skipped tool's name recorded in the snapshot."""


def _wire(model: BaseModel) -> dict[str, Any]:
    """The wire JSON of an SDK model (camelCase, no nulls)."""
    data: dict[str, Any] = model.model_dump(by_alias=True, mode="json", exclude_none=True)
    return data


async def _walk(
    name: str,
    fetch: Callable[[str | None], Awaitable[Any]],
    items_attr: str,
    limits: Limits,
    progress: Progress,
    who: str,
) -> list[Any]:
    """Every item of a paginated list, in the server's order, with loop and size guards."""
    items: list[Any] = []
    seen: set[str] = set()
    cursor: str | None = None
    for page_number in range(1, limits.max_pages + 1):
        progress.request = f"{name} (page {page_number})"
        page = await fetch(cursor)
        items.extend(getattr(page, items_attr))
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


class _RawTools:
    """Keeps the raw JSON of the latest ``tools/list`` reply.

    The SDK validates a whole ``tools/list`` page at once, so one invalid tool makes the page fail
    without saying which.  This tap on the transport keeps what the server actually sent, so each
    tool can be checked on its own and an invalid one named.  Nothing else is read or changed.
    """

    def __init__(self) -> None:
        self.request_ids: set[str | int] = set()
        self.last: dict[str, Any] | None = None

    def sent(self, item: object) -> None:
        message = item.message if isinstance(item, SessionMessage) else None
        if isinstance(message, JSONRPCRequest) and message.method == "tools/list":
            self.request_ids.add(message.id)

    def received(self, item: object) -> None:
        message = item.message if isinstance(item, SessionMessage) else None
        if isinstance(message, JSONRPCResponse) and message.id in self.request_ids:
            self.request_ids.discard(message.id)
            self.last = message.result


class _TapRead:
    """A read stream that shows each message to :class:`_RawTools` on its way to the SDK."""

    def __init__(self, inner: Any, tap: _RawTools) -> None:
        self._inner = inner
        self._tap = tap

    def __getattr__(self, name: str) -> Any:  # e.g. ``last_context``
        return getattr(self._inner, name)

    async def receive(self) -> Any:
        item = await self._inner.receive()
        self._tap.received(item)
        return item

    def __aiter__(self) -> _TapRead:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _TapRead:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        result: bool | None = await self._inner.__aexit__(*exc)
        return result


class _TapWrite:
    """A write stream that notes the ids of ``tools/list`` requests."""

    def __init__(self, inner: Any, tap: _RawTools) -> None:
        self._inner = inner
        self._tap = tap

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def send(self, item: Any, /) -> None:
        self._tap.sent(item)
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _TapWrite:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        result: bool | None = await self._inner.__aexit__(*exc)
        return result


def _tapped(transport: AbstractAsyncContextManager[Any], tap: _RawTools) -> Transport:
    @asynccontextmanager
    async def wrapped() -> AsyncIterator[tuple[_TapRead, _TapWrite]]:
        async with transport as (read, write):
            yield _TapRead(read, tap), _TapWrite(write, tap)

    return cast(Transport, wrapped())


def _header_value(name: str, template: str, redactor: Redactor) -> str:
    """The header's value with ``${VAR}`` expanded, registered as a secret, and fit to send.

    Surrounding whitespace is dropped, as HTTP itself does (RFC 9110, 5.5): a token read from
    a file often ends in a newline.  A line break or non-ASCII character inside is refused
    here with a message naming the header, never the value.
    """
    real = expand(template, what=f"The header {name}")
    redactor.add([real])
    value = real.strip(" \t\r\n")
    if any((ord(c) < 32 and c != "\t") or ord(c) == 127 for c in value):
        raise PortalError(
            f"The header {name} contains a line break or another control character (after expanding "
            f"{', '.join('${' + v + '}' for v in variables_in(template)) or 'nothing'}), which HTTP does not allow. "
            f"Check the variable's value: it may hold two lines, or a file's contents."
        )
    if not value.isascii():
        raise PortalError(
            f"The header {name} contains non-ASCII characters, which HTTP headers cannot carry. "
            f"Check the value (a pasted token may hold a typographic quote or a non-breaking space)."
        )
    return value


def _server_url(spec: ServerSpec, template: str, redactor: Redactor) -> str:
    """``spec``'s URL ``template`` with ``${VAR}`` expanded; credentials it carries are registered as secrets first."""
    # Variables in the userinfo, query or fragment may be secrets; those in the host, port or path
    # are addresses (shown unexpanded anyway), and masking a port number would only confuse.
    rest = template.partition("://")[2]
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    query = re.search(r"[?#].*", rest)
    private = authority.rpartition("@")[0] + (query.group(0) if query else "")
    redactor.add(os.environ.get(name, "") for name in variables_in(private))
    url = expand(template, what="The server URL").strip()
    redactor.add_url(url)
    problem = url_problem(url)
    if problem:
        raise PortalError(
            f"The URL of {spec.describe()} is not valid once its variables are expanded: {problem}. "
            f"Check the values of the variables it uses; it must become a URL such as {URL_EXAMPLE}."
        )
    return url


def _client(
    spec: ServerSpec,
    limits: Limits,
    redactor: Redactor,
    errlog: TextIO | None,
    progress: Progress,
    tap: _RawTools,
) -> Client:
    if spec.url:
        headers = {name: _header_value(name, value, redactor) for name, value in spec.headers}
        url = _server_url(spec, spec.url, redactor)

        async def note_status(response: httpx2.Response) -> None:
            if response.request.method == "POST":
                progress.http_status = response.status_code

        http = httpx2.AsyncClient(
            headers=headers, timeout=limits.request_timeout, event_hooks={"response": [note_status]}
        )
        transport = streamable_http_client(url, http_client=http)
        return Client(
            _tapped(transport, tap),
            mode="auto",
            read_timeout_seconds=limits.request_timeout,
            cache=None,
            message_handler=progress.on_message,
        )
    env = dict(spec.fixed_env)
    for name in spec.env:
        if name not in os.environ:
            raise PortalError(
                f"{spec.describe()[0].upper()}{spec.describe()[1:]} needs the environment variable {name} "
                f"(--env {name}, or `env` in portal.yaml), but it is not set. Export it first, or stop passing it."
            )
        env[name] = os.environ[name]
        redactor.add([env[name]])
    argv = [expand(a, what="The server command") for a in spec.command]
    # A ${VAR} expanded into an argument may be a secret: mask it wherever it could show up.
    redactor.add(os.environ[name] for arg in spec.command for name in variables_in(arg))
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env or None, cwd=spec.cwd)
    if errlog is None:  # _introspect opens one for every stdio server; without it stderr would be lost
        raise TypeError("a stdio server needs an error log")
    return Client(
        _tapped(stdio_client(params, errlog=errlog), tap),
        mode="auto",
        read_timeout_seconds=limits.request_timeout,
        cache=None,
        message_handler=progress.on_message,
    )


def _server_identity(client: Client) -> dict[str, Any]:
    session = client.session
    result = session.discover_result or session.initialize_result
    info = client.server_info
    server: dict[str, Any] = {}
    if info is not None:
        wire = _wire(info)
        server = {k: wire[k] for k in _SERVER_FIELDS if k in wire}
    server["capabilities"] = _wire(client.server_capabilities)
    if client.instructions:
        server["instructions"] = client.instructions
    meta = getattr(result, "meta", None)
    if meta:
        server["_meta"] = dict(meta)
    return server


@dataclass
class _ToolPage:
    tools: list[dict[str, Any]]
    next_cursor: str | None


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


class _ToolLister:
    """``tools/list`` through the SDK, naming (or, with --lenient, skipping) each invalid tool."""

    def __init__(self, client: Client, tap: _RawTools, who: str, progress: Progress, lenient: bool) -> None:
        self.client = client
        self.tap = tap
        self.who = who
        self.progress = progress
        self.lenient = lenient
        self.skipped: list[dict[str, Any]] = []
        self.warnings: list[str] = []

    async def page(self, cursor: str | None) -> _ToolPage:
        self.tap.last = None
        try:
            result = await self.client.list_tools(cursor=cursor)
        except ValidationError as exc:
            raw = self.tap.last
            if raw is None or not all(e["loc"][:1] == ("tools",) and len(e["loc"]) > 1 for e in exc.errors()):
                raise  # the page itself is broken, not one tool: reported as such by explain()
            return self._salvage(raw, exc)
        tools = [_wire(t) for t in result.tools]
        # At 2026-07-28 the SDK drops, with only a log line, tools whose x-mcp-header is invalid.
        # A documentation portal must not lose a tool silently: treat it like any invalid tool.
        if self.tap.last is not None and isinstance(self.tap.last.get("tools"), list):
            kept = {t.name for t in result.tools}
            invalid = [
                (_tool_label(item, i), find_invalid_x_mcp_header(item.get("inputSchema")) or "dropped by the MCP SDK")
                for i, item in enumerate(self.tap.last["tools"])
                if isinstance(item, dict) and item.get("name") not in kept
            ]
            self._invalid(invalid)
        return _ToolPage(tools, result.next_cursor)

    def _salvage(self, raw: dict[str, Any], exc: ValidationError) -> _ToolPage:
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
            good.append(_wire(tool))
        if not invalid:
            raise exc  # every tool passes alone, so the page as a whole is what is wrong
        self._invalid(invalid)
        cursor = rest.get("nextCursor")
        return _ToolPage(good, cursor if isinstance(cursor, str) else None)

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
        names = [t["name"] for t in tools]
        duplicates = sorted({n for n in names if names.count(n) > 1})
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
    a later page, is still an error; ``tools/list`` is never optional (see :class:`_ToolLister`).
    """

    def __init__(self, limits: Limits, progress: Progress, who: str) -> None:
        self.limits = limits
        self.progress = progress
        self.who = who
        self.warnings: list[str] = []

    async def walk(
        self, method: str, list_page: Callable[..., Awaitable[Any]], items_attr: str, capability: str
    ) -> list[Any]:
        async def fetch(cursor: str | None) -> Any:
            try:
                return await list_page(cursor=cursor)
            except MCPError as exc:
                if cursor is None and exc.code in _ABSENT_CODES:
                    raise _ListAbsent(exc) from exc
                raise

        try:
            return await _walk(method, fetch, items_attr, self.limits, self.progress, self.who)
        except _ListAbsent as absent:
            code = absent.error.code
            self.warnings.append(
                f"{self.who} declares the {capability} capability but answered {method} with "
                f"{code} ({_ABSENT_CODES[code]}); documented it as having no "
                f"{items_attr.replace('_', ' ')}."
            )
            return []


_REPEATS = {
    # section: (request, what must be unique, the field holding it)
    "prompts": ("prompts/list", "prompt name", "name"),
    "resources": ("resources/list", "resource URI", "uri"),
    "resource_templates": ("resources/templates/list", "resource template URI template", "uriTemplate"),
}


def _first_of_each(
    items: list[dict[str, Any]], section: str, who: str, lenient: bool, warnings: list[str]
) -> list[dict[str, Any]]:
    """The prompts, resources or templates of one endpoint, each key once, as :meth:`_ToolLister.unique` does
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


@dataclass
class _Listing:
    """What one session with a server said, before its optional lists are checked for repeats."""

    server: dict[str, Any]
    version: str
    supported: list[str]
    tools: list[dict[str, Any]]
    skipped: list[dict[str, Any]]
    prompts: list[Any]
    resources: list[Any]
    templates: list[Any]


async def _optional_lists(
    client: Client, limits: Limits, progress: Progress, who: str
) -> tuple[list[Any], list[Any], list[Any], list[str]]:
    """The prompts, resources and resource templates, for the capabilities the server declares.

    Returns ``(prompts, resources, templates, warnings)``; the warnings name each optional list
    the server declared but does not serve (see :class:`_OptionalLists`).
    """
    caps = client.server_capabilities
    prompts: list[Any] = []
    resources: list[Any] = []
    templates: list[Any] = []
    optional = _OptionalLists(limits, progress, who)
    if caps.prompts is not None:
        prompts = await optional.walk("prompts/list", client.list_prompts, "prompts", "prompts")
    if caps.resources is not None:
        resources = await optional.walk("resources/list", client.list_resources, "resources", "resources")
        templates = await optional.walk(
            "resources/templates/list",
            client.list_resource_templates,
            "resource_templates",
            "resources",
        )
    return prompts, resources, templates, optional.warnings


async def _list_everything(
    spec: ServerSpec,
    limits: Limits,
    progress: Progress,
    redactor: Redactor,
    errlog: TextIO | None,
    lenient: bool,
    warnings: list[str],
) -> _Listing:
    """One session: the handshake, every tool, then the optional lists; warnings go to *warnings*, redacted."""
    who = spec.describe()
    tap = _RawTools()
    async with _client(spec, limits, redactor, errlog, progress, tap) as client:
        server = _server_identity(client)
        progress.request = "tools/list"
        lister = _ToolLister(client, tap, who, progress, lenient)
        tools = await _walk("tools/list", lister.page, "tools", limits, progress, who)
        wire_tools = lister.unique(tools)
        warnings.extend(redactor.redact(w) for w in lister.warnings)
        prompts, resources, templates, optional_warnings = await _optional_lists(client, limits, progress, who)
        warnings.extend(redactor.redact(w) for w in optional_warnings)
        progress.request = "closing the connection"
        version = client.protocol_version
        discovered = client.session.discover_result
        # A 2026-era server lists every revision it speaks; an initialize handshake names only one.
        supported = [str(v) for v in (discovered.supported_versions or [])] if discovered is not None else []
    return _Listing(server, version, supported, wire_tools, lister.skipped, prompts, resources, templates)


def _freeze(
    spec: ServerSpec, capability_rule: str, listing: _Listing, redactor: Redactor, lenient: bool, warnings: list[str]
) -> Snapshot:
    """The snapshot of one endpoint: each prompt, resource and template key once, and its endpoint record."""
    who = spec.describe()
    wire_tools = listing.tools
    found: list[str] = []
    wire_prompts = _first_of_each([_wire(p) for p in listing.prompts], "prompts", who, lenient, found)
    wire_resources = _first_of_each([_wire(r) for r in listing.resources], "resources", who, lenient, found)
    wire_templates = _first_of_each([_wire(t) for t in listing.templates], "resource_templates", who, lenient, found)
    warnings.extend(redactor.redact(w) for w in found)
    record = endpoint_record(
        spec.name,
        spec.profile,
        spec.transport,
        spec.public_endpoint(),
        listing.version,
        wire_tools,
        auth=[list(pair) for pair in spec.auth_template()],
        env=list(spec.env),
        supported_versions=listing.supported,
        prompts=[str(p.get("name")) for p in wire_prompts],
        resources=[str(r.get("uri")) for r in wire_resources],
        resource_templates=[str(t.get("uriTemplate")) for t in wire_templates],
    )
    return Snapshot(
        protocol_version=listing.version,
        server=listing.server,
        tools=tuple(wire_tools),
        capability_version=resolve_capability_version(capability_rule, listing.server, fingerprint(wire_tools)),
        transport=spec.transport,
        endpoint=spec.public_endpoint(),
        prompts=tuple(wire_prompts),
        resources=tuple(wire_resources),
        resource_templates=tuple(wire_templates),
        skipped_tools=tuple(listing.skipped),
        endpoints=(record,),
    )


async def _introspect(
    spec: ServerSpec,
    limits: Limits,
    capability_rule: str,
    progress: Progress,
    redactor: Redactor,
    errlog: TextIO | None,
    lenient: bool,
    warnings: list[str],
) -> Snapshot:
    """List everything one endpoint offers and freeze it; with *lenient*, invalid or repeated entries are
    skipped with a warning appended to *warnings* instead of failing."""
    listing = await _list_everything(spec, limits, progress, redactor, errlog, lenient, warnings)
    return _freeze(spec, capability_rule, listing, redactor, lenient, warnings)


def introspect(
    spec: ServerSpec,
    limits: Limits,
    capability_rule: str = "server",
    *,
    lenient: bool = False,
    warnings: list[str] | None = None,
) -> Snapshot:
    """Connect, list everything, disconnect; raise :class:`PortalError` on any failure.

    A tool that breaks the MCP spec (or a repeated tool name) is an error naming it; with
    *lenient* it is skipped, recorded in the snapshot's ``skipped_tools`` and reported as a
    warning.  Warnings (redacted) are appended to *warnings* when given, else dropped.
    """
    return introspect_all((spec,), limits, capability_rule, lenient=lenient, warnings=warnings)


def introspect_all(
    specs: Sequence[ServerSpec],
    limits: Limits,
    capability_rule: str = "server",
    *,
    lenient: bool = False,
    warnings: list[str] | None = None,
) -> Snapshot:
    """Introspect every endpoint concurrently and fold them into one snapshot (see :mod:`generator.connect.merge`).

    Each endpoint gets its own time budget (``total_timeout``), running side by side, so
    several endpoints cost about as long as the slowest. The first failure stops the rest
    and is reported naming its endpoint.  *lenient* and *warnings* are as for :func:`introspect`;
    warnings found before a failure stay in *warnings*, so the caller can still show them.
    """
    found: list[str] = [] if warnings is None else warnings
    results: list[Snapshot | None] = [None] * len(specs)

    async def run_all() -> None:
        async with anyio.create_task_group() as group:
            for index, spec in enumerate(specs):
                group.start_soon(_one, index, spec)

    async def _one(index: int, spec: ServerSpec) -> None:
        results[index] = await _introspect_one(spec, limits, lenient, found)

    try:
        anyio.run(run_all)
    except (Exception, BaseExceptionGroup) as exc:
        first = leaf(exc)
        if isinstance(first, PortalError):
            raise PortalError(first.message) from exc
        raise  # pragma: no cover - _introspect_one turns every failure into a PortalError
    parts = [snap for snap in results if snap is not None]
    return merge(parts, capability_rule)


async def _introspect_one(spec: ServerSpec, limits: Limits, lenient: bool, warnings: list[str]) -> Snapshot:
    """One endpoint, bounded in time; every failure becomes one paragraph naming it."""
    progress = Progress()
    redactor = Redactor()
    # Closed in the finally below; a with-block would not fit the optional stderr capture.
    errlog = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") if spec.url is None else None  # noqa: SIM115
    try:
        with anyio.fail_after(limits.total_timeout):
            return await _introspect(spec, limits, "fingerprint", progress, redactor, errlog, lenient, warnings)
    except PortalError as exc:
        raise PortalError(redactor.redact(exc.message)) from None
    except (Exception, BaseExceptionGroup) as exc:  # boundary: any SDK or transport failure
        first = leaf(exc)
        if isinstance(first, PortalError):
            raise PortalError(redactor.redact(first.message)) from exc
        message = explain(first, spec, progress, limits) + stderr_tail(errlog, redactor)
        raise PortalError(redactor.redact(message)) from exc
    finally:
        if errlog is not None:
            errlog.close()
