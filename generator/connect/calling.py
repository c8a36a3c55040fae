"""One tool call through the SDK, for ``serve --try-it``: a panel's request, answered as JSON-RPC.

The endpoint is one the configuration names, never an address taken from the request. The client
is the one introspection uses (:func:`generator.connect.session.open_client`): bounded replies,
headers expanded from ``${VAR}``, a stdio server's allow-listed environment. An error's text is
redacted of every secret that client was given. The answer has the shape of a JSON-RPC response,
so the panel reads it as it reads a server's own.
"""

from __future__ import annotations

import tempfile
from typing import Any

import anyio
from mcp import MCPError

from generator.config.portal import Limits, ServerSpec
from generator.connect.failures import Underway, explain, leaf, stderr_tail
from generator.connect.secrets import Redactor
from generator.connect.session import RawTools, open_client, wire

INTERNAL_ERROR = -32603
"""The JSON-RPC code of an answer that did not come from the server (it could not be reached, say)."""


def call_tool(spec: ServerSpec, limits: Limits, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Call *name* with *arguments* on the endpoint *spec*, in a session of its own; the JSON-RPC answer."""
    return anyio.run(_call, spec, limits, name, arguments)


async def _call(spec: ServerSpec, limits: Limits, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    progress = Underway()
    progress.request = f"tools/call {name}"
    redactor = Redactor()
    # Closed in the finally below; a with-block would not fit the optional stderr capture.
    errlog = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") if spec.url is None else None  # noqa: SIM115
    try:
        with anyio.fail_after(limits.total_timeout):
            async with open_client(spec, limits, redactor, errlog, progress, RawTools()) as client:
                result = await client.call_tool(name, arguments)
        return {"jsonrpc": "2.0", "id": 1, "result": wire(result)}
    except (Exception, BaseExceptionGroup) as exc:  # boundary: any SDK or transport failure becomes the answer
        first = leaf(exc)
        if isinstance(first, MCPError):
            error = {"code": first.error.code, "message": redactor.redact(first.error.message)}
        else:
            message = explain(first, spec, progress, limits) + stderr_tail(errlog, redactor)
            error = {"code": INTERNAL_ERROR, "message": redactor.redact(message)}
        return {"jsonrpc": "2.0", "id": 1, "error": error}
    finally:
        if errlog is not None:
            errlog.close()
