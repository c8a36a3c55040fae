"""Opt-in behaviours of the demo server, for tests and for trying a portal against a server that misbehaves.

None of these is on by default; each is a command-line option of ``python -m generator.demo``:

* ``--call-log FILE``: append one JSON line per call received (``tools/call``, ``prompts/get``,
  ``resources/read``), so a test can show what a client did and did not call;
* ``--handshake-only``: serve only the handshake era (``initialize``, protocol 2025-11-25 and before):
  ``server/discover`` is answered "method not found", as an older server answers it;
* ``--maintenance COMPONENT``: the tools that need COMPONENT (``search``, ``research``, ``documents``)
  answer every call with ``isError: true``, as a server does during maintenance;
* ``--changed-answers``: ``search_chat`` answers with ``found`` as a string, as a later release that
  changed its answers without changing its output schema would.

Each is a :class:`mcp.server.context.ServerMiddleware` on the SDK's server (the SDK's own extension
point), except the handshake era over stdio, where the SDK settles the era on the first message
before any middleware runs: there a thread in front of the SDK answers ``server/discover`` itself.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import MCPError
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp_types import METHOD_NOT_FOUND, CallToolResult, TextContent

COMPONENTS = ("search", "research", "documents")
"""The workspace components a tool can need (see ``ToolSpec.component``)."""

_LOGGED = ("tools/call", "prompts/get", "resources/read")


@dataclass(frozen=True)
class Behaviour:
    """The opt-in behaviours one demo server runs with (all off by default)."""

    call_log: Path | None = None
    handshake_only: bool = False
    maintenance: frozenset[str] = frozenset()
    changed_answers: bool = False
    needs: tuple[tuple[str, str], ...] = ()
    """(tool, component) for every tool that needs a component: which calls maintenance refuses."""

    @classmethod
    def from_options(cls, args: argparse.Namespace, needs: tuple[tuple[str, str], ...]) -> Behaviour:
        """The behaviours the options of :func:`add_behaviour_options` ask for; *needs* as :attr:`needs`."""
        return cls(
            call_log=args.call_log,
            handshake_only=args.handshake_only,
            maintenance=frozenset(args.maintenance),
            changed_answers=args.changed_answers,
            needs=needs,
        )

    def middleware(self) -> list[Any]:
        """The middleware that gives a server these behaviours, outermost first."""
        found: list[Any] = []
        if self.call_log is not None:
            found.append(CallLog(self.call_log))
        if self.handshake_only:
            found.append(HandshakeOnly())
        if self.maintenance:
            found.append(Maintenance({tool: part for tool, part in self.needs if part in self.maintenance}))
        if self.changed_answers:
            found.append(ChangedAnswers())
        return found


def add_behaviour_options(parser: argparse.ArgumentParser) -> None:
    """The command-line options of the behaviours (none is on by default)."""
    parser.add_argument(
        "--call-log",
        type=Path,
        metavar="FILE",
        help="append one JSON line to FILE for every call received (tools/call, prompts/get, resources/read)",
    )
    parser.add_argument(
        "--handshake-only",
        action="store_true",
        help="serve only the initialize handshake (protocol 2025-11-25 and before): server/discover is not found",
    )
    parser.add_argument(
        "--maintenance",
        action="append",
        default=[],
        choices=COMPONENTS,
        help="the tools that need this component answer every call with isError: true (repeatable)",
    )
    parser.add_argument(
        "--changed-answers",
        action="store_true",
        help="search_chat answers `found` as a string, as a release that changed its answers but not its "
        "outputSchema would (for testing `mcp-portal check --prove`)",
    )


class CallLog:
    """Appends ``{"method": ..., "params": ...}`` as one JSON line per call, before the call runs."""

    def __init__(self, path: Path) -> None:
        self.path = path

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method in _LOGGED and ctx.request_id is not None:
            params = {key: value for key, value in (ctx.params or {}).items() if key != "_meta"}
            line = json.dumps({"method": ctx.method, "params": params}, sort_keys=True) + "\n"
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line.encode("utf-8"))  # one write of an appended line: never torn by another process
            finally:
                os.close(fd)
        return await call_next(ctx)


class HandshakeOnly:
    """Answers ``server/discover`` with "method not found": a client then falls back to ``initialize``."""

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method == "server/discover":
            raise MCPError(METHOD_NOT_FOUND, "Method not found: server/discover")
        return await call_next(ctx)


class Maintenance:
    """Refuses every call of a tool whose component is in maintenance, with ``isError: true``."""

    def __init__(self, down: dict[str, str]) -> None:
        self.down = down

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        name = (ctx.params or {}).get("name")
        if ctx.method == "tools/call" and isinstance(name, str) and name in self.down:
            text = f"The {self.down[name]} component is in maintenance; {name} is unavailable until it ends."
            return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
        return await call_next(ctx)


class ChangedAnswers:
    """``search_chat`` answers ``found`` as a string, in its text and its ``structuredContent``."""

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method != "tools/call" or (ctx.params or {}).get("name") != "search_chat":
            return result
        # What reaches a middleware is the result as it will be sent: wire JSON.
        structured = result.get("structuredContent") if isinstance(result, dict) else None
        if not isinstance(result, dict) or not isinstance(structured, dict):
            return result
        changed = {**structured, "found": str(structured.get("found"))}
        return {**result, "structuredContent": changed, "content": [{"type": "text", "text": json.dumps(changed)}]}


def handshake_only_stdin() -> None:
    """Serve stdio as a server of the handshake era: ``server/discover`` answered "method not found".

    The SDK decides a stdio connection's era from its first message, before any middleware runs, so
    a thread reads the real stdin first: it answers each ``server/discover`` request on the real
    stdout itself and passes every other line on through a pipe that becomes the process's stdin.
    The answer is written before the SDK has written anything: a client waits for it before it
    sends ``initialize``.
    """
    real_in, wire_out = os.dup(0), os.dup(1)
    read_end, write_end = os.pipe()
    os.dup2(read_end, 0)
    os.close(read_end)

    def pump() -> None:
        with os.fdopen(real_in, "rb") as source, os.fdopen(write_end, "wb", buffering=0) as sink:
            for line in source:
                try:
                    message = json.loads(line)
                except ValueError:
                    message = None
                if isinstance(message, dict) and message.get("method") == "server/discover" and "id" in message:
                    error = {"code": METHOD_NOT_FOUND, "message": "Method not found: server/discover"}
                    reply = {"jsonrpc": "2.0", "id": message["id"], "error": error}
                    os.write(wire_out, (json.dumps(reply) + "\n").encode("utf-8"))
                    continue
                sink.write(line)

    threading.Thread(target=pump, name="handshake-only stdin", daemon=True).start()
