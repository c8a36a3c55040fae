"""Why an introspection failed, in one paragraph naming the server, the request and what to do.

What this module knows: :class:`Underway` (the request under way, the last HTTP
status and whether it was in a session, the first non-JSON-RPC output), how the SDK
and its transports report failures (timeouts, missing programs, HTTP status
stand-ins, closed connections, invalid replies), which errors the SDK makes up
rather than the server sends (:func:`made_up`: a web page, a redirect, no answer),
and the server's last stderr lines (with what they say of an HTTP server started
over stdio).

What it does not know: how to connect, list or page (that is
:mod:`generator.connect.introspect`, the only module that speaks MCP), nor secrets: the
caller redacts the paragraph.  It never raises; it only describes.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import httpx2
from mcp import MCPError
from mcp_types import (
    CONNECTION_CLOSED,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    REQUEST_TIMEOUT,
)
from pydantic import ValidationError

from generator.config.portal import Limits, ServerSpec
from generator.connect.secrets import Redactor
from generator.errors import certificate_advice

if TYPE_CHECKING:
    from generator.connect.stderr_log import StderrLog


HANDSHAKE = "the connection handshake (server/discover or initialize)"


@dataclass
class Underway:
    """What we were doing when something failed, for the error paragraph."""

    request: str = HANDSHAKE
    http_status: int | None = None
    """Status of the last HTTP POST: the SDK turns a 4xx/5xx reply into a generic MCPError."""
    in_session: bool = False
    """Whether the last HTTP POST carried the session id the server gave (``Mcp-Session-Id``)."""
    bad_output: str | None = None
    """The first thing the server sent that was not MCP JSON-RPC (stdout garbage)."""
    reply_too_large: bool = False
    """An HTTP reply passed ``--max-reply-bytes`` once decoded and was cut off."""

    def note_reply_too_large(self) -> None:
        """Called by :class:`generator.connect.bounded.BoundedTransport` when it cuts a reply off."""
        self.reply_too_large = True

    async def on_message(self, message: object) -> None:
        # The SDK hands transport faults (unparseable lines) to the message handler.
        if isinstance(message, ValidationError) and self.bad_output is None:
            errors = message.errors()
            shown = errors[0].get("input") if errors else None
            if errors and "recursion limit" in errors[0].get("msg", ""):
                self.bad_output = (
                    "a message nested deeper than the MCP SDK's JSON parser accepts (about 200 levels), "
                    f"starting {str(shown)[:80]!r}"
                )
                return
            self.bad_output = f"for example {str(shown)[:120]!r}" if shown is not None else "unparseable JSON"
        elif isinstance(message, Exception) and self.bad_output is None:
            self.bad_output = type(message).__name__


# The MCPError messages the SDK's Streamable HTTP client makes up for a bare HTTP error status.
_HTTP_STAND_INS = ("Server returned an error response", "Not Found")
# The message of the MCPError the SDK raises when its own request timeout passes (its dispatchers').
_SDK_TIMEOUT = re.compile(r"Request '[^']*' timed out|Timed out after \S+ waiting for '[^']*'")


def no_answer(code: int, message: str) -> bool:
    """Whether an MCPError of *code* and *message* is the SDK's own word that no answer came (its request
    timeout passed, or the connection closed), not an error the server answered with. The code alone cannot
    say: -32001 is the SDK's timeout and, in the range JSON-RPC leaves to servers, a common "Unauthorized"."""
    return (code == REQUEST_TIMEOUT and _SDK_TIMEOUT.fullmatch(message) is not None) or (
        code == CONNECTION_CLOSED and message == "Connection closed"
    )


def leaf(exc: BaseException) -> BaseException:
    """The first real error inside (possibly nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


_FRAME = re.compile(r"\s+at |\s*File \"|\s+\^|\s{4}|\s*Traceback \(|\s*\.\.\. \d+ more")
"""A line of a stack trace (JavaScript ``    at f (x.js:1:2)``, Python ``  File "x.py"``, Java
``... 3 more``), as opposed to the line that says what went wrong."""

_CAUSE = re.compile(
    r"(?:panic: |fatal error: |Exception in thread |Uncaught |[A-Za-z_$][\w$.]*(?:Error|Exception)(?: \[[\w-]+\])?: )"
)
"""A line that says why a program died: Go's ``panic: ...`` and ``fatal error: ...``, Java's ``Exception in
thread ...``, and the ``TypeError: ...`` or ``Error [ERR_X]: ...`` line of a JavaScript or Python error."""


def stderr_tail(log: StderrLog | None, redactor: Redactor) -> str:
    """The last lines the server wrote to stderr: often the real reason it died. A crash report leads
    with the line that names its cause (:func:`_cause`: Go's ``panic: ...``, Node's ``Error: ...``, the
    last line of a Python traceback), then the last lines; otherwise, when those are stack frames, the
    line above them leads."""
    if log is None:
        return ""
    lines = [line.rstrip() for line in log.tail().splitlines() if line.strip()]
    if not lines:
        return ""
    last = lines[-3:]
    cause = _cause(lines)
    if cause is not None:
        last = lines[cause:] if cause >= len(lines) - 3 else [lines[cause], "…", *last]
    elif all(_FRAME.match(line) for line in last):
        error = next((line for line in reversed(lines[:-3]) if not _FRAME.match(line)), None)
        if error is not None:
            last = [error, "…", *last]
    tail = " | ".join(line.strip()[:200] for line in last)
    return f" The server's last words on stderr: {redactor.redact(tail)!s}"


_SERVES_HTTP = re.compile(
    r"\b(?:running|listening|serving|started|available|ready)\b.{0,60}?"
    r"\bhttps?://(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1?\])[:/\s]",
    re.I,
)
"""A log line saying a program listens on a local HTTP address (``Uvicorn running on http://127.0.0.1:8000``);
a web address a server merely names (its homepage, its docs) is no sign that it listens."""


def serves_http(log: StderrLog | None, progress: Underway, redactor: Redactor) -> str:
    """A hint for a stdio server whose handshake failed while its stderr says it listens on an HTTP address:
    the command starts a Streamable HTTP server, which ``--url`` reaches; nothing comes over stdio."""
    if log is None or progress.request != HANDSHAKE:
        return ""
    said = next((line.strip() for line in log.tail().splitlines() if _SERVES_HTTP.search(line[:1000])), None)
    if said is None:
        return ""
    return (
        f" It seems to serve HTTP, not stdio: it wrote {redactor.redact(said[:200])!r}. Start it yourself and give "
        f"its MCP endpoint at that address (often /mcp) to --url, or find the option that makes it use stdio."
    )


def empty_env(spec: ServerSpec) -> str:
    """A note naming the ``--env`` variables of a stdio server that are set but empty: how CI passes a missing
    secret, and often why such a server fails (it then reports a missing key in words of its own)."""
    empty = [name for name in spec.env if not os.environ.get(name, "x").strip()]
    if not empty:
        return ""
    names = ", ".join(empty)
    return (
        f" Note: {names}, passed with --env, {'is' if len(empty) == 1 else 'are'} set but empty, as CI passes a "
        f"secret that is missing or not given to this job."
    )


def _cause(lines: list[str]) -> int | None:
    """The index of the line that names why the program died, in the last crash report among *lines*: the
    last line :data:`_CAUSE` matches, or the exception line closing a Python traceback (the first line
    after ``Traceback (most recent call last):`` that is not indented). None when there is no such line."""
    for index in range(len(lines) - 1, -1, -1):
        if _CAUSE.match(lines[index]):
            return index
        if lines[index].startswith("Traceback (most recent call last):"):
            return next((i for i in range(index + 1, len(lines)) if not lines[i][:1].isspace()), None)
    return None


def explain(exc: BaseException, spec: ServerSpec, progress: Underway, limits: Limits) -> str:
    """One paragraph saying why introspecting *spec* failed with *exc*, and what to do about it.

    Tried in order: a reply cut off at ``--max-reply-bytes``, a timeout or a server that could not be
    started, an HTTP or network failure, then a protocol failure (an MCP error, an invalid reply, a
    broken connection).
    """
    who = spec.describe()
    if progress.reply_too_large:  # whatever the SDK made of the cut-off reply, this is why it failed
        return _too_large(who, progress.request, limits)
    return (
        _not_started(exc, spec, progress, limits)
        or _unreachable(exc, spec, progress)
        or _protocol_failure(exc, who, progress.request)
    )


def _too_large(who: str, what: str, limits: Limits) -> str:
    """The paragraph for a reply that passed ``--max-reply-bytes`` once decoded."""
    size = limits.max_reply_bytes
    return (
        f"{who} sent a reply to {what} that grew past {size} bytes ({size / 2**20:.3g} MiB) once decompressed, "
        f"so mcp-portal stopped reading it (the limit is --max-reply-bytes, or `max_reply_bytes` under `limits:` "
        f"in portal.yaml). A reply this large is more likely a decompression bomb or the wrong URL than a list "
        f"of tools: check the URL and the server; if its replies really are this large, raise --max-reply-bytes."
    )


def _not_started(exc: BaseException, spec: ServerSpec, progress: Underway, limits: Limits) -> str | None:
    """The paragraph for a timeout, or for a stdio server that could not be started; else None."""
    who = spec.describe()
    what = progress.request
    timed_out = (
        isinstance(exc, TimeoutError | httpx2.TimeoutException)  # over HTTP, httpx's own timeout may fire first
        or (isinstance(exc, MCPError) and exc.code == REQUEST_TIMEOUT and no_answer(exc.code, exc.message))
    )
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
    return None


_SESSION_GONE = (
    "{who} answered {what} with HTTP 404 for the session it had opened (Mcp-Session-Id): the session is gone. "
    "A server that restarted answers so, as do several instances behind a load balancer that share no sessions: "
    "keep each client on one instance (sticky sessions), or run the server stateless, then run again."
)


def _unreachable(exc: BaseException, spec: ServerSpec, progress: Underway) -> str | None:
    """The paragraph for an HTTP error status or a network failure; else None."""
    who = spec.describe()
    what = progress.request
    if isinstance(exc, MCPError) and progress.in_session and progress.http_status == 404:
        gone = exc.code != METHOD_NOT_FOUND  # a 404 may carry "Method not found" for the one request instead
        return _SESSION_GONE.format(who=who, what=what) if gone else None
    status = None
    if isinstance(exc, httpx2.HTTPStatusError):
        status = exc.response.status_code
    elif isinstance(exc, MCPError) and (progress.http_status or 0) >= 400 and exc.message in _HTTP_STAND_INS:
        status = progress.http_status
    if status is not None:
        unauthorized = (
            "The server did not accept the credentials sent (--header, or `headers:` in portal.yaml): check that "
            "the token is current and meant for this server."
            if spec.headers
            else "The server wants authentication: pass a token with --header 'Authorization: Bearer ${TOKEN}'."
        )
        hint = {
            401: unauthorized,
            403: "The credentials were refused: check the token's scopes.",
            404: "Nothing answers at that path: check the URL (many servers use /mcp or /mcp/).",
            405: "That URL does not take the POST requests of Streamable HTTP. An endpoint such as /sse is "
            "usually the legacy HTTP+SSE transport (MCP before 2025-03-26), which mcp-portal does not speak: "
            "give the server's Streamable HTTP endpoint (often /mcp), or start the server with --stdio.",
            429: "The server is limiting how often it may be asked: wait, then run again.",
            **dict.fromkeys(
                (502, 503, 504),
                "A gateway, or the server behind it, is not available: check that the server is "
                "running, then run again.",
            ),
        }.get(status, "Check the URL and the server's logs.")
        return f"{who} answered {what} with HTTP {status}. {hint}"
    if isinstance(exc, httpx2.TransportError | OSError):
        advice = certificate_advice(exc) or "Check that the server is running and the URL is right."
        return f"{who} could not be reached during {what} ({type(exc).__name__}: {exc}). {advice}"
    return None


def _protocol_failure(exc: BaseException, who: str, what: str) -> str:
    """The paragraph for a failure inside the conversation: a closed connection, an MCP error, an invalid reply."""
    if isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED and no_answer(exc.code, exc.message):
        return (
            f"{who} closed the connection during {what}: the process exited or stopped speaking MCP. "
            f"Run the command by hand to see why, and check that it serves MCP on stdout."
        )
    if isinstance(exc, MCPError):
        return _http_stand_in(exc, who, what) or _mcp_error(exc, who, what)
    if isinstance(exc, ValidationError):
        errors = exc.errors()
        loc = ".".join(str(p) for p in errors[0]["loc"]) if errors else ""
        msg = errors[0]["msg"] if errors else str(exc)
        return (
            f"{who} sent a reply to {what} that is not valid MCP ({loc}: {msg}). "
            f"Fix the server; --lenient cannot help, because the reply itself (not one tool) is broken."
        )
    return (
        f"{who} stopped responding or broke the protocol during {what} "
        f"({type(exc).__name__}: {str(exc)[:300] or 'connection closed'}). Check that the command starts "
        f"an MCP server speaking on stdout, and look at its logs."
    )


_CHECK_URL = (
    "Check that the URL is the server's MCP endpoint (often /mcp), not a web page or another API, and that no "
    "proxy in between rewrites or cuts its replies."
)
_SDK_HTTP_FAULTS = (
    # (the code and the message the SDK's Streamable HTTP client makes up, what the reply was and what to do)
    (INVALID_REQUEST, re.compile(r"Unexpected content type: ([^;]*)"),
     "a reply of Content-Type {0}, where MCP answers with JSON or an event stream. " + _CHECK_URL),
    (PARSE_ERROR, re.compile(r"Failed to parse JSON response: "), "JSON that is not a JSON-RPC message. " + _CHECK_URL),
    (PARSE_ERROR, re.compile(r"Failed to parse SSE message: "),
     "an event stream whose events are not JSON-RPC messages. " + _CHECK_URL),
    (CONNECTION_CLOSED, re.compile(r"SSE stream ended without a response"),
     "an event stream that ended without the answer. " + _CHECK_URL),
    (INVALID_REQUEST, re.compile(r"server answered a request with 202 Accepted"),
     "202 Accepted, which never carries an answer. " + _CHECK_URL),
    (INVALID_REQUEST, re.compile(r"Redirect to (\S+) not followed"),
     "a redirect to {0}, which mcp-portal does not follow (the request, and any credentials, would go "
     "elsewhere). If that is the server's MCP endpoint, give it as --url."),
)  # fmt: skip


def made_up(code: int, message: str) -> bool:
    """Whether an MCPError of *code* and *message* is one the SDK made up, never one the server sent: no answer
    came (:func:`no_answer`), or the HTTP reply was no MCP at all (a web page, a redirect...)."""
    return no_answer(code, message) or any(c == code and p.match(message) for c, p, _ in _SDK_HTTP_FAULTS)


def _http_stand_in(exc: MCPError, who: str, what: str) -> str | None:
    """The paragraph for an error the SDK's HTTP client made up for a reply that is not MCP; else None.

    Such an error carries a JSON-RPC code, but the server never sent it: shown as the server's error
    ("code -32600: Unexpected content type: text/html"), with advice about credentials, it hid that the
    URL was a web page, or redirected."""
    for code, pattern, reply in _SDK_HTTP_FAULTS:
        found = pattern.match(exc.message) if exc.code == code else None
        if found is not None:
            shown = [group.strip()[:200] or "(none)" for group in found.groups()]
            return f"{who} answered {what} with {reply.format(*shown)}"
    return None


def _mcp_error(exc: MCPError, who: str, what: str) -> str:
    """The paragraph for a JSON-RPC error the server answered with."""
    if exc.code == METHOD_NOT_FOUND:
        return f"{who} answered {what} with -32601 (Method not found): it does not serve that request. " + (
            "A portal documents tools, so the server must answer tools/list; check that this is the right "
            "server and that it is recent enough."
            if what.startswith("tools/list")
            else "It served the list's first page, so this is a server bug; report it to the server's authors."
        )
    if exc.code == INVALID_PARAMS:
        return (
            f"{who} answered {what} with -32602 (Invalid params: {exc.message[:300]}), refusing a request "
            f"the MCP specification defines (a list request with at most a cursor it sent itself). "
            f"This is a server bug; report it to the server's authors."
        )
    return (
        f"{who} answered {what} with an error (code {exc.code}: {exc.message[:300]}). "
        f"Check the server's logs; if it needs credentials, pass them with --env or --header."
    )
