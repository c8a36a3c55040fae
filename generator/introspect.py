"""Connect to an MCP server with the official SDK and freeze what it says.

This is the only module that speaks MCP.  It walks every page of ``tools/list``
(and prompts, resources and templates when the server declares them), bounds the
time and the number of pages a server can cost, and turns every failure into one
paragraph naming the server, the request and what to do.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TextIO, TypeVar

import anyio
import httpx2
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import REQUEST_TIMEOUT
from pydantic import BaseModel, ValidationError

from generator.config import Limits, ServerSpec
from generator.errors import PortalError
from generator.secrets import Redactor, expand
from generator.snapshot import Snapshot, fingerprint, resolve_capability_version

T = TypeVar("T")

_SERVER_FIELDS = ("name", "title", "version", "description", "websiteUrl", "icons")


def _wire(model: BaseModel) -> dict[str, Any]:
    """The wire JSON of an SDK model (camelCase, no nulls)."""
    data: dict[str, Any] = model.model_dump(by_alias=True, mode="json", exclude_none=True)
    return data


@dataclass
class _Progress:
    """What we were doing when something failed, for the error paragraph."""

    request: str = "the connection handshake (server/discover or initialize)"
    http_status: int | None = None
    """Status of the last HTTP POST: the SDK turns a 4xx/5xx reply into a generic MCPError."""
    bad_output: str | None = None
    """The first thing the server sent that was not MCP JSON-RPC (stdout garbage)."""

    async def on_message(self, message: object) -> None:
        # The SDK hands transport faults (unparseable lines) to the message handler.
        if isinstance(message, ValidationError) and self.bad_output is None:
            errors = message.errors()
            shown = errors[0].get("input") if errors else None
            self.bad_output = f"for example {str(shown)[:120]!r}" if shown is not None else "unparseable JSON"
        elif isinstance(message, Exception) and self.bad_output is None:
            self.bad_output = type(message).__name__


# The MCPError messages the SDK's Streamable HTTP client makes up for a bare HTTP error status.
_HTTP_STAND_INS = ("Server returned an error response", "Not Found")


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside (possibly nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _stderr_tail(log: TextIO | None, redactor: Redactor) -> str:
    """The last lines the server wrote to stderr: often the real reason it died."""
    if log is None:
        return ""
    try:
        log.flush()
        log.seek(0)
        lines = [line.rstrip() for line in log.read().splitlines() if line.strip()]
    except (OSError, ValueError):
        return ""
    if not lines:
        return ""
    tail = " | ".join(line[:200] for line in lines[-3:])
    return f" The server's last words on stderr: {redactor.redact(tail)!s}"


def _explain(exc: BaseException, spec: ServerSpec, progress: _Progress, limits: Limits) -> str:
    who = spec.describe()
    what = progress.request
    timed_out = isinstance(exc, TimeoutError) or (isinstance(exc, MCPError) and exc.code == REQUEST_TIMEOUT)
    if timed_out and progress.bad_output:
        return (
            f"{who} wrote output that is not MCP JSON-RPC during {what} ({progress.bad_output}) and never "
            f"answered. An MCP server must write only JSON-RPC messages to stdout; logs belong on stderr."
        )
    if timed_out:
        return (
            f"{who} did not finish {what} in time (limits: {limits.request_timeout:g} s per request, "
            f"{limits.total_timeout:g} s in all). Check that it is an MCP server and responsive, or raise "
            f"--request-timeout / --total-timeout."
        )
    if isinstance(exc, FileNotFoundError):
        return (
            f"{who} could not be started: the program {spec.command[0]!r} was not found. "
            f"Install it or give its full path in --stdio."
        )
    if isinstance(exc, OSError) and spec.url is None:
        return f"{who} could not be started ({exc.strerror or exc}). Check the command and its permissions."
    status = None
    if isinstance(exc, httpx2.HTTPStatusError):
        status = exc.response.status_code
    elif isinstance(exc, MCPError) and (progress.http_status or 0) >= 400 and exc.message in _HTTP_STAND_INS:
        status = progress.http_status
    if status is not None:
        hint = {
            401: "The server wants authentication: pass a token with --header 'Authorization: Bearer ${TOKEN}'.",
            403: "The credentials were refused: check the token's scopes.",
            404: "Nothing answers at that path: check the URL (many servers use /mcp or /mcp/).",
        }.get(status, "Check the URL and the server's logs.")
        return f"{who} answered {what} with HTTP {status}. {hint}"
    if isinstance(exc, httpx2.TransportError | OSError):
        return (
            f"{who} could not be reached during {what} ({type(exc).__name__}: {exc}). "
            f"Check that the server is running and the URL is right."
        )
    if isinstance(exc, MCPError) and exc.message == "Connection closed":
        return (
            f"{who} closed the connection during {what}: the process exited or stopped speaking MCP. "
            f"Run the command by hand to see why, and check that it serves MCP on stdout."
        )
    if isinstance(exc, MCPError):
        return (
            f"{who} answered {what} with an error (code {exc.code}: {exc.message[:300]}). "
            f"Check the server's logs; if it needs credentials, pass them with --env or --header."
        )
    if isinstance(exc, ValidationError):
        errors = exc.errors()
        loc = ".".join(str(p) for p in errors[0]["loc"]) if errors else ""
        msg = errors[0]["msg"] if errors else str(exc)
        return (
            f"{who} sent a reply to {what} that is not valid MCP ({loc}: {msg}). "
            f"Fix the server, or use --lenient to skip invalid tools."
        )
    return (
        f"{who} stopped responding or broke the protocol during {what} "
        f"({type(exc).__name__}: {str(exc)[:300] or 'connection closed'}). Check that the command starts "
        f"an MCP server speaking on stdout, and look at its logs."
    )


async def _walk(
    name: str,
    fetch: Callable[[str | None], Awaitable[Any]],
    items_attr: str,
    limits: Limits,
    progress: _Progress,
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


def _client(spec: ServerSpec, limits: Limits, redactor: Redactor, errlog: TextIO | None, progress: _Progress) -> Client:
    if spec.url:
        headers = {}
        for name, value in spec.headers:
            real = expand(value, what=f"The header {name}")
            redactor.add([real])
            headers[name] = real
        url = expand(spec.url, what="The server URL")

        async def note_status(response: httpx2.Response) -> None:
            if response.request.method == "POST":
                progress.http_status = response.status_code

        http = httpx2.AsyncClient(
            headers=headers, timeout=limits.request_timeout, event_hooks={"response": [note_status]}
        )
        transport = streamable_http_client(url, http_client=http)
        return Client(
            transport,
            mode="auto",
            read_timeout_seconds=limits.request_timeout,
            cache=None,
            message_handler=progress.on_message,
        )
    env = dict(spec.fixed_env)
    for name in spec.env:
        if name not in os.environ:
            raise PortalError(
                f"--env {name} asks to pass the environment variable {name} to the server, but it is not "
                f"set. Export it first, or drop --env {name}."
            )
        env[name] = os.environ[name]
        redactor.add([env[name]])
    argv = [expand(a, what="The server command") for a in spec.command]
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env or None, cwd=spec.cwd)
    assert errlog is not None
    return Client(
        stdio_client(params, errlog=errlog),
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


async def _introspect(
    spec: ServerSpec,
    limits: Limits,
    capability_rule: str,
    progress: _Progress,
    redactor: Redactor,
    errlog: TextIO | None,
) -> Snapshot:
    who = spec.describe()
    async with _client(spec, limits, redactor, errlog, progress) as client:
        server = _server_identity(client)
        caps = client.server_capabilities
        progress.request = "tools/list"
        tools = await _walk("tools/list", lambda c: client.list_tools(cursor=c), "tools", limits, progress, who)
        wire_tools = [_wire(t) for t in tools]
        names = [t["name"] for t in wire_tools]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise PortalError(
                f"{who} listed the tool name(s) {', '.join(repr(d) for d in duplicates)} more than once in "
                f"tools/list. Tool names must be unique; fix the server."
            )
        prompts: list[Any] = []
        resources: list[Any] = []
        templates: list[Any] = []
        if caps.prompts is not None:
            prompts = await _walk(
                "prompts/list", lambda c: client.list_prompts(cursor=c), "prompts", limits, progress, who
            )
        if caps.resources is not None:
            resources = await _walk(
                "resources/list", lambda c: client.list_resources(cursor=c), "resources", limits, progress, who
            )
            templates = await _walk(
                "resources/templates/list",
                lambda c: client.list_resource_templates(cursor=c),
                "resource_templates",
                limits,
                progress,
                who,
            )
        progress.request = "closing the connection"
        version = client.protocol_version
    tools_fp = fingerprint(wire_tools)
    return Snapshot(
        protocol_version=version,
        server=server,
        tools=tuple(wire_tools),
        capability_version=resolve_capability_version(capability_rule, server, tools_fp),
        transport=spec.transport,
        endpoint=spec.public_endpoint(),
        prompts=tuple(_wire(p) for p in prompts),
        resources=tuple(_wire(r) for r in resources),
        resource_templates=tuple(_wire(t) for t in templates),
    )


def introspect(spec: ServerSpec, limits: Limits, capability_rule: str = "server") -> Snapshot:
    """Connect, list everything, disconnect; raise :class:`PortalError` on any failure."""
    progress = _Progress()
    redactor = Redactor()
    # Closed in the finally below; a with-block would not fit the optional stderr capture.
    errlog = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") if spec.url is None else None  # noqa: SIM115

    async def bounded() -> Snapshot:
        with anyio.fail_after(limits.total_timeout):
            return await _introspect(spec, limits, capability_rule, progress, redactor, errlog)

    try:
        return anyio.run(bounded)
    except PortalError as exc:
        raise PortalError(redactor.redact(exc.message)) from None
    except (Exception, BaseExceptionGroup) as exc:  # boundary: any SDK or transport failure
        leaf = _leaf(exc)
        if isinstance(leaf, PortalError):
            raise PortalError(redactor.redact(leaf.message)) from exc
        message = _explain(leaf, spec, progress, limits) + _stderr_tail(errlog, redactor)
        raise PortalError(redactor.redact(message)) from exc
    finally:
        if errlog is not None:
            errlog.close()


def run_sync(func: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine function to completion (a small seam for tests)."""
    return anyio.run(func)
