"""Tool calls through the SDK, for ``serve --try-it``: a panel's request, answered as JSON-RPC.

The endpoint is one the configuration names, never an address taken from the request. The client
is the one introspection uses (:func:`generator.connect.session.open_client`): bounded replies,
headers expanded from ``${VAR}``, a stdio server's allow-listed environment. An error's text is
redacted of every secret that client was given. The answer has the shape of a JSON-RPC response,
so the panel reads it as it reads a server's own.

:class:`Caller` keeps one session per endpoint open between calls (a stdio server is started once,
an HTTP session handshakes once), so a call costs one round trip, not a server's start. Its event
loop runs in a thread of its own; each endpoint's session lives in one task of that loop (an SDK
client is entered and left in the same task), which takes the calls one at a time. A session that
fails is closed and the next call opens a new one.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

import anyio
from anyio.from_thread import BlockingPortal, start_blocking_portal
from anyio.streams.memory import MemoryObjectReceiveStream as ObjectReceiveStream
from anyio.streams.memory import MemoryObjectSendStream as ObjectSendStream
from mcp import MCPError

from generator.config.portal import Limits, ServerSpec
from generator.connect.failures import Underway, explain, leaf, made_up, stderr_tail
from generator.connect.secrets import Redactor
from generator.connect.session import RawTools, open_client, wire
from generator.connect.stderr_log import StderrLog

INTERNAL_ERROR = -32603
"""The JSON-RPC code of an answer that did not come from the server (it could not be reached, say)."""


@dataclass(frozen=True)
class Answer:
    """A call's JSON-RPC answer and how long the call itself took (the session's opening not included)."""

    message: dict[str, Any]
    seconds: float


def _failure(exc: BaseException, spec: ServerSpec, progress: Underway, limits: Limits, redactor: Redactor,
             errlog: Any) -> dict[str, Any]:  # fmt: skip
    """The JSON-RPC error for *exc*, redacted of every secret the client was given: the server's own error as it
    sent it, else (a timeout, a reply that was no MCP, an error the SDK made up) a paragraph saying what happened."""
    first = leaf(exc)
    if isinstance(first, MCPError) and not made_up(first.error.code, first.error.message):
        error = {"code": first.error.code, "message": redactor.redact(first.error.message)}
    else:
        message = explain(first, spec, progress, limits) + stderr_tail(errlog, redactor)
        error = {"code": INTERNAL_ERROR, "message": redactor.redact(message)}
    return {"jsonrpc": "2.0", "id": 1, "error": error}


Request = tuple[str, dict[str, Any], ObjectSendStream[Answer]]


@dataclass
class _Session:
    """One endpoint's open session: the stream its task reads calls from."""

    send: ObjectSendStream[Request]
    alive: bool = True


async def _serve_session(
    spec: ServerSpec, limits: Limits, calls: ObjectReceiveStream[Request], state: _Session
) -> None:
    """Open a session with *spec* and answer every call that arrives, until one fails the session."""
    progress = Underway()
    redactor = Redactor()
    pending: Request | None = None
    with ExitStack() as files:
        # A stdio server's stderr, for the error paragraph; closed with the session.
        errlog = files.enter_context(contextlib.closing(StderrLog())) if spec.url is None else None
        try:
            async with open_client(spec, limits, redactor, errlog, progress, RawTools()) as client:
                async for pending in calls:
                    name, arguments, reply = pending
                    progress.request = f"tools/call {name}"
                    began = time.perf_counter()
                    with anyio.fail_after(limits.total_timeout):
                        try:
                            result = await client.call_tool(name, arguments)
                        except MCPError as exc:  # the server's own error: the session stays open
                            answer = _failure(exc, spec, progress, limits, redactor, errlog)
                        else:
                            answer = {"jsonrpc": "2.0", "id": 1, "result": wire(result)}
                    await reply.send(Answer(answer, time.perf_counter() - began))
                    pending = None
        except (Exception, BaseExceptionGroup) as exc:  # boundary: any SDK or transport failure becomes the answer
            state.alive = False
            failed = Answer(_failure(exc, spec, progress, limits, redactor, errlog), 0.0)
            waiting = [pending] if pending is not None else []
            while True:  # the calls already queued for this session get the same answer
                try:
                    waiting.append(calls.receive_nowait())
                except (anyio.WouldBlock, anyio.EndOfStream, anyio.ClosedResourceError):
                    break
            for _, _, reply in waiting:
                await reply.send(failed)
        finally:
            state.alive = False
            calls.close()


@dataclass
class Caller:
    """Calls tools on the configured endpoints, keeping each endpoint's session open between calls.

    Use as a context manager: leaving it closes every session (a stdio server is stopped).
    """

    limits: Limits
    _portal: BlockingPortal | None = None
    _exit: Callable[[], object] | None = None
    _sessions: dict[str, _Session] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __enter__(self) -> Caller:
        manager = start_blocking_portal()
        self._portal = manager.__enter__()
        self._exit = lambda: manager.__exit__(None, None, None)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._portal is not None:
            self._portal.call(self._portal.stop, True)  # cancels every session's task: each client closes
        if self._exit is not None:
            self._exit()
        self._portal = None

    def call(self, spec: ServerSpec, name: str, arguments: dict[str, Any]) -> Answer:
        """Call *name* with *arguments* on *spec*'s endpoint, in its open session (opened when there is none)."""
        portal = self._portal
        if portal is None:
            raise RuntimeError("Caller.call outside its with-block")
        with self._lock:
            session = self._sessions.get(spec.name)
            if session is None or not session.alive:
                send, receive = anyio.create_memory_object_stream[Request](16)
                session = self._sessions[spec.name] = _Session(send)
                portal.start_task_soon(_serve_session, spec, self.limits, receive, session)
        answer: Answer = portal.call(self._ask, session, name, arguments)
        return answer

    async def _ask(self, session: _Session, name: str, arguments: dict[str, Any]) -> Answer:
        reply_send, reply_receive = anyio.create_memory_object_stream[Answer](1)
        try:
            await session.send.send((name, arguments, reply_send))
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            session.alive = False
            message = "The session with the server ended just now: send the call again."
            return Answer({"jsonrpc": "2.0", "id": 1, "error": {"code": INTERNAL_ERROR, "message": message}}, 0.0)
        with anyio.fail_after(self.limits.total_timeout + 5):
            async with reply_receive:
                return await reply_receive.receive()


def call_tool(spec: ServerSpec, limits: Limits, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Call *name* with *arguments* on the endpoint *spec*, in a session of its own; the JSON-RPC answer."""
    with Caller(limits) as caller:
        return caller.call(spec, name, arguments).message
