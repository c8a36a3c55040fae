"""Sessions with an MCP server through the official SDK: transports, headers, the raw-reply tap.

One :class:`mcp.Client` per endpoint: a stdio child process with an allow-listed environment, or
Streamable HTTP with its headers expanded from ``${VAR}`` and registered as secrets before any
byte is sent, and every reply bounded in size once decoded (:mod:`generator.connect.bounded`).
The transport is tapped (:class:`RawTools`) so that a ``tools/list`` page the SDK rejects as a
whole can still be read tool by tool by :mod:`generator.connect.listing`.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, cast

import anyio
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client import Transport
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCRequest, JSONRPCResponse
from pydantic import BaseModel

from generator.config.checks import URL_EXAMPLE, url_problem
from generator.config.portal import Limits, ServerSpec
from generator.config.variables import expand, variables_in
from generator.connect.bounded import BoundedTransport
from generator.connect.failures import Underway
from generator.connect.secrets import Redactor
from generator.connect.stderr_log import StderrLog
from generator.errors import PortalError

_SERVER_FIELDS = ("name", "title", "version", "description", "websiteUrl", "icons")


def wire(model: BaseModel) -> dict[str, Any]:
    """The wire JSON of an SDK model (camelCase, no nulls)."""
    data: dict[str, Any] = model.model_dump(by_alias=True, mode="json", exclude_none=True)
    return data


class RawTools:
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
    """A read stream that shows each message to :class:`RawTools` on its way to the SDK."""

    def __init__(self, inner: Any, tap: RawTools) -> None:
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

    def __init__(self, inner: Any, tap: RawTools) -> None:
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


def _tapped(transport: AbstractAsyncContextManager[Any], tap: RawTools) -> Transport:
    @asynccontextmanager
    async def wrapped() -> AsyncIterator[tuple[_TapRead, _TapWrite]]:
        async with transport as (read, write):
            yield _TapRead(read, tap), _TapWrite(write, tap)

    return cast(Transport, wrapped())


@asynccontextmanager
async def _closing(http: httpx2.AsyncClient, transport: AbstractAsyncContextManager[Any]) -> AsyncIterator[Any]:
    """*transport*, then *http* closed after it: the SDK leaves open a client it was given."""
    async with http, transport as streams:
        yield streams


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
        names = ", ".join("${" + v + "}" for v in variables_in(template))
        where, check = (f" (after expanding {names})", "the variable's value") if names else ("", "the value")
        raise PortalError(
            f"The header {name} contains a line break or another control character{where}, which HTTP does not "
            f"allow. Check {check}: it may hold two lines, or a file's contents."
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


def open_client(
    spec: ServerSpec,
    limits: Limits,
    redactor: Redactor,
    errlog: StderrLog | None,
    progress: Underway,
    tap: RawTools,
) -> Client:
    """The SDK client for *spec* (not yet connected); every secret it will send is registered with *redactor*."""
    redactor.add(secret.value for secret in spec.literal_secrets)  # kept by --allow-literal-secrets
    if spec.url:
        headers = {name: _header_value(name, value, redactor) for name, value in spec.headers}
        url = _server_url(spec, spec.url, redactor)

        async def note_status(response: httpx2.Response) -> None:
            if response.request.method == "POST":
                progress.http_status = response.status_code
                progress.in_session = "mcp-session-id" in response.request.headers

        # Every reply is decoded and bounded by BoundedTransport, so a compressed reply cannot grow past
        # --max-reply-bytes in memory; the error names that limit when one tries (progress.reply_too_large).
        bounded = BoundedTransport(limits.max_reply_bytes, progress.note_reply_too_large)
        http = httpx2.AsyncClient(
            headers=headers,
            timeout=limits.request_timeout,
            event_hooks={"response": [note_status]},
            transport=bounded,
        )
        transport = _closing(http, streamable_http_client(url, http_client=http))
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
    if errlog is None:  # introspection opens one for every stdio server; without it stderr would be lost
        raise TypeError("a stdio server needs an error log")
    return Client(
        _tapped(stdio_client(params, errlog=errlog.file), tap),
        mode="auto",
        read_timeout_seconds=limits.request_timeout,
        cache=None,
        message_handler=progress.on_message,
    )


def server_identity(client: Client) -> dict[str, Any]:
    """What the server says about itself in ``server/discover`` or ``initialize``, as wire JSON."""
    session = client.session
    result = session.discover_result or session.initialize_result
    info = client.server_info
    server: dict[str, Any] = {}
    if info is not None:
        sent = wire(info)
        server = {k: sent[k] for k in _SERVER_FIELDS if k in sent}
    server["capabilities"] = wire(client.server_capabilities)
    if client.instructions:
        server["instructions"] = client.instructions
    meta = getattr(result, "meta", None)
    if meta:
        server["_meta"] = dict(meta)
    return server
