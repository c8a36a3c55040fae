"""Calls on the server for ``--prove``: each example sent as it is printed, the answers kept as they came.

One session per endpoint, opened with the client introspection uses
(:func:`generator.connect.session.open_client`: the same transports, headers, allow-listed environment,
reply-size bound and per-request timeout), for every call that endpoint is asked to make. At most
:data:`AT_ONCE` calls are under way at a time, and the whole session is bound by ``prove_timeout``;
what is not answered by then is left out, and the endpoint's ``problem`` says why.

Each :class:`Ask` carries the requests to try in order (the page's example first, then other
candidates). The next is sent only when the server refused the one before: a JSON-RPC error, or a
result with ``isError: true``. No answer at all (a timeout, a closed connection) ends the item.

This module only calls and keeps; what the calls are (which tools, which arguments) and what the
answers mean (the output schema's verdict) are decided by :mod:`generator.commands.prove`. Every
answer is returned as the server sent it; the caller redacts it with :attr:`EndpointAnswers.redactor`
before recording it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
from mcp import Client, MCPError
from pydantic import TypeAdapter, ValidationError

from generator.config.portal import Limits, ServerSpec
from generator.connect.failures import Underway, explain, leaf, made_up, stderr_tail
from generator.connect.secrets import Redactor
from generator.connect.session import RawTools, open_client, server_identity
from generator.connect.stderr_log import StderrLog
from generator.text import counted

AT_ONCE = 4
"""Calls under way at once on one endpoint."""

_RAW: TypeAdapter[dict[str, Any]] = TypeAdapter(dict[str, Any])
"""The result as the server sent it (after the SDK checked it against the protocol): the SDK's
``call_tool`` would also check it against the output schema and raise, and the verdict is ours to record."""

Answer = dict[str, Any]
"""``{"result": ...}``, ``{"error": {"code", "message"}}`` or ``{"unanswered": "why"}``."""


@dataclass(frozen=True)
class Ask:
    """One thing to prove: *method* (``tools/call``, ``prompts/get``, ``resources/read``) with the
    params of each request to try, in order; *section* and *key* name it in the snapshot's proofs."""

    section: str
    key: str
    method: str
    requests: tuple[dict[str, Any], ...]


@dataclass
class Answered:
    """What the server answered to one :class:`Ask`: each request sent, with its answer, in order."""

    ask: Ask
    attempts: list[tuple[dict[str, Any], Answer]] = field(default_factory=list)


@dataclass
class EndpointAnswers:
    """Everything one endpoint answered, and how it was reached."""

    spec: ServerSpec
    protocol_version: str = ""
    server: dict[str, str] = field(default_factory=dict)
    answered: list[Answered] = field(default_factory=list)
    probe: tuple[dict[str, Any], Answer] | None = None
    problem: str | None = None
    """Why some or all asks were not answered (the session could not be opened, the time ran out)."""
    redactor: Redactor = field(default_factory=Redactor)
    """Every secret the session sent: the caller masks the recorded answers with it."""


def refused(answer: Answer) -> bool:
    """Whether the server refused the request: a JSON-RPC error, or a tool result with ``isError: true``."""
    if "error" in answer:
        return True
    result = answer.get("result")
    return isinstance(result, dict) and result.get("isError") is True


def prove_all(
    work: Sequence[tuple[ServerSpec, Sequence[Ask], Sequence[dict[str, Any]]]], limits: Limits
) -> list[EndpointAnswers]:
    """For each (endpoint, asks, probes), one session making those calls; endpoints side by side, each
    within its own ``prove_timeout``. Of the probes (``{"name": tool, "argument": name, "value": a value
    of a type its schema forbids}``) the first whose tool accepted its example is sent, with that value in
    the accepted arguments: a refusal then comes from the bad argument, not from the tool being
    unavailable. Never raises for what a server does: a failure is the endpoint's
    :attr:`~EndpointAnswers.problem`."""
    results = [EndpointAnswers(spec) for spec, _, _ in work]

    async def run_all() -> None:
        async with anyio.create_task_group() as group:
            for found, (_, asks, probes) in zip(results, work, strict=True):
                group.start_soon(_endpoint, found, asks, probes, limits)

    anyio.run(run_all)
    return results


async def _endpoint(
    found: EndpointAnswers, asks: Sequence[Ask], probes: Sequence[dict[str, Any]], limits: Limits
) -> None:
    """One endpoint's session: every ask, then a probe; whatever happens is noted in *found*."""
    spec, progress = found.spec, Underway()
    # Closed in the finally below; a with-block would not fit the optional stderr capture.
    errlog = StderrLog() if spec.url is None else None
    try:
        with anyio.move_on_after(limits.prove_timeout) as scope:
            async with open_client(spec, limits, found.redactor, errlog, progress, RawTools()) as client:
                found.protocol_version = client.protocol_version
                identity = server_identity(client)
                found.server = {k: v for k, v in identity.items() if k in ("name", "version") and isinstance(v, str)}
                if any(ask.method == "tools/call" for ask in asks):
                    await _absorb_listing(client, limits)
                limiter = anyio.CapacityLimiter(AT_ONCE)
                async with anyio.create_task_group() as group:
                    for ask in asks:
                        group.start_soon(_one, client, ask, found, limiter)
                probe = _probe(found.answered, probes)
                if probe is not None:
                    progress.request = f"tools/call {probe['name']}"
                    found.probe = (probe, await _send(client, "tools/call", probe))
        if scope.cancelled_caught:
            done = sum(1 for a in found.answered if a.attempts)
            found.problem = (
                f"the calls stopped after {limits.prove_timeout:g} s (--prove-timeout); {done} of "
                f"{counted(len(asks), 'example')} {'was' if done == 1 else 'were'} answered by then"
            )
    except (Exception, BaseExceptionGroup) as exc:  # boundary: the session failed; the build goes on
        first = leaf(exc)
        message = explain(first, spec, progress, limits) + stderr_tail(errlog, found.redactor)
        found.problem = found.redactor.redact(message)
    finally:
        if errlog is not None:
            errlog.close()
    found.answered = [a for a in found.answered if a.attempts]  # an ask cut off before its first answer


def _probe(answered: list[Answered], probes: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The ``tools/call`` params of the first probe whose tool accepted its example: the accepted
    arguments with the probe's ``argument`` set to its ``value`` (of a type the schema forbids)."""
    working = {a.ask.key: a.attempts[-1][0] for a in answered if a.ask.method == "tools/call" and _accepted(a)}
    for probe in probes:
        request = working.get(probe["name"])
        if request is not None:
            arguments = dict(request.get("arguments") or {})
            arguments[probe["argument"]] = probe["value"]
            return {"name": probe["name"], "arguments": arguments}
    return None


def _accepted(answered: Answered) -> bool:
    """Whether the last request of *answered* got an answer that is no refusal."""
    return (
        bool(answered.attempts)
        and not refused(answered.attempts[-1][1])
        and "unanswered" not in answered.attempts[-1][1]
    )


async def _absorb_listing(client: Client, limits: Limits) -> None:
    """List the tools once, as a client does before calling them: a 2026-era session sends the
    ``Mcp-Param-*`` headers a tool's schema asks for only after it has seen the tool. Best effort: a
    listing the SDK rejects (it was read tool by tool at introspection) only loses those headers."""
    cursor: str | None = None
    try:
        for _ in range(limits.max_pages):
            page = await client.list_tools(cursor=cursor)
            cursor = page.next_cursor
            if not cursor:
                return
    except (MCPError, ValidationError, RuntimeError):
        return


async def _one(client: Client, ask: Ask, found: EndpointAnswers, limiter: anyio.CapacityLimiter) -> None:
    """Send *ask*'s requests in order until one is not refused (or one gets no answer)."""
    answered = Answered(ask)
    found.answered.append(answered)  # in the order started; the caller sorts by name
    async with limiter:
        for request in ask.requests:
            answer = await _send(client, ask.method, request)
            answered.attempts.append((request, answer))
            if "unanswered" in answer or not refused(answer):
                return


async def _send(client: Client, method: str, params: dict[str, Any]) -> Answer:
    """One request through the session; its result or JSON-RPC error as the server sent it."""
    try:
        request = _request(method, params)
    except ValidationError:
        return {"unanswered": "the MCP SDK could not send this request (its params break the protocol's types)"}
    try:
        return {"result": await client.session.send_request(request, _RAW)}
    except MCPError as exc:
        error = exc.error
        if made_up(error.code, error.message):  # the server said nothing of the kind: not its answer
            return {"unanswered": error.message}
        return {"error": {"code": error.code, "message": error.message}}
    except ValidationError:
        return {"unanswered": "the answer does not follow the MCP specification, so the SDK refused it"}


def _request(method: str, params: dict[str, Any]) -> Any:
    """The SDK request for *method* with *params* (``tools/call``, ``prompts/get`` or ``resources/read``)."""
    if method == "tools/call":
        return types.CallToolRequest(params=types.CallToolRequestParams(**params))
    if method == "prompts/get":
        return types.GetPromptRequest(params=types.GetPromptRequestParams(**params))
    return types.ReadResourceRequest(params=types.ReadResourceRequestParams(**params))
