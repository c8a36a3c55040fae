"""How to call an endpoint by hand: its address, auth header pattern, protocol era, and the exact
requests an agent can copy (``curl`` over Streamable HTTP, newline-delimited JSON-RPC over stdio).

Two protocol eras exist, and the sequence follows the one the endpoint negotiated when the portal
was generated (``EndpointRecord.protocol_version``):

* **2026-07-28 and later** (sessionless): every request stands alone.  There is no ``initialize``
  and no ``Mcp-Session-Id``; a request carries its protocol version and client capabilities in
  ``params._meta`` (``io.modelcontextprotocol/protocolVersion``, ``.../clientCapabilities``) and,
  over HTTP, mirrors them in the ``MCP-Protocol-Version``, ``Mcp-Method`` and ``Mcp-Name`` headers
  (and ``Mcp-Param-*`` for arguments whose schema carries ``x-mcp-header``).  The server checks
  that the headers match the body.
* **2025-11-25 and earlier** (session): ``initialize``, then ``notifications/initialized``, then
  the call.  Over HTTP the server answers ``initialize`` with an ``Mcp-Session-Id`` header that goes
  on every later request, with ``MCP-Protocol-Version``.

Every sequence shown is executed against the bundled demo by ``tests/test_sequences.py``, in both
eras and over both transports.  Only a tool whose example arguments validate, and which does not
require task-augmented execution, gets one: a page must not show a call that cannot work.

Everything here is untrusted text: JSON is made by :func:`json.dumps` (ASCII only, so no bidi or
control character reaches a terminal), shell words by :func:`shlex.quote`, and an auth header
keeps only its ``${VAR}`` references (:func:`generator.model.clients.auth_pattern`), never a value.
"""

from __future__ import annotations

import base64
import ipaddress
import json
import re
import shlex
from dataclasses import dataclass
from itertools import chain
from typing import Any, Protocol
from urllib.parse import urlsplit

from generator.schema.examples import Example

MODERN = "2026-07-28"
"""The first protocol revision without the ``initialize`` handshake and without sessions."""
LEGACY_FALLBACK = "2025-11-25"
"""The revision a sequence asks for when the endpoint's own version is not a dated revision."""
ACCEPT = "application/json, text/event-stream"
PROTOCOL_META = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO = {"name": "mcp-portal-example", "version": "1.0"}
"""The client a sequence introduces itself as: the same over stdio and HTTP, and honest about where it came from."""

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_VAR = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")
_HEADER_SAFE = re.compile(r"[\x20-\x7E]*")
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_LOCAL_NAMES = ("localhost", "localhost.localdomain")


class CallableTool(Protocol):
    """What a sequence needs of a tool (:class:`generator.model.tool.ToolDoc` has it)."""

    @property
    def name(self) -> str: ...

    @property
    def example_request(self) -> str | None: ...

    @property
    def example_args(self) -> Example: ...

    @property
    def input_schema(self) -> Any: ...

    @property
    def task_support(self) -> str: ...

    @property
    def access(self) -> Any: ...


class ToolFinder(Protocol):
    """What :meth:`EndpointCall.pick` needs of the site (:class:`generator.model.site.SiteModel`)."""

    def tool_named(self, name: str) -> Any: ...


def is_sessionless(protocol_version: str) -> bool:
    """Whether *protocol_version* is of the sessionless era (2026-07-28 or a later dated revision)."""
    return bool(_DATE.fullmatch(protocol_version)) and protocol_version >= MODERN


def is_loopback(host: str) -> bool:
    """Whether *host* (a URL's host or a ``--host``) is this machine only: ``localhost`` or a loopback address."""
    host = host.strip("[]").rstrip(".").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_local(url: str) -> bool:
    """Whether *url* names this machine or a private network (loopback, private, link-local, ``localhost``)."""
    host = (urlsplit(url).hostname or "").rstrip(".").lower()
    if host in _LOCAL_NAMES or host.endswith(".localhost") or host.endswith(".local"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local or address.is_unspecified


def header_value(value: str) -> str:
    """A header value as MCP mirrors it: verbatim when plain printable ASCII, else ``=?base64?…?=``."""
    if _HEADER_SAFE.fullmatch(value) and value == value.strip() and not value.startswith("=?base64?"):
        return value
    return f"=?base64?{base64.b64encode(value.encode('utf-8', 'surrogatepass')).decode('ascii')}?="


def _shell_dq(text: str) -> str:
    """*text* in shell double quotes: every ``${VAR}`` still expands, nothing else does."""
    out, last = [], 0
    for match in _VAR.finditer(text):
        out.append(re.sub(r'([\\"`$])', r"\\\1", text[last : match.start()]))
        out.append(match.group(0))
        last = match.end()
    out.append(re.sub(r'([\\"`$])', r"\\\1", text[last:]))
    return '"' + "".join(out) + '"'


def _compact(data: Any) -> str:
    return json.dumps(data, ensure_ascii=True, separators=(",", ":"))


def _param_headers(schema: Any, arguments: Any) -> list[tuple[str, str]]:
    """``Mcp-Param-<token>`` for each argument whose property (reached through ``properties``) carries
    ``x-mcp-header``, as a 2026-07-28 server requires them; rendered as the SDK renders them."""
    found: list[tuple[str, str]] = []

    def walk(node: Any, value: Any) -> None:
        if not isinstance(node, dict) or not isinstance(value, dict):
            return
        properties = node.get("properties")
        for key, sub in properties.items() if isinstance(properties, dict) else ():
            if not isinstance(sub, dict) or key not in value or value[key] is None:
                continue
            token = sub.get("x-mcp-header")
            item = value[key]
            if isinstance(token, str) and _TOKEN.fullmatch(token) and not isinstance(item, dict | list):
                rendered = ("true" if item else "false") if isinstance(item, bool) else str(item)
                found.append((f"Mcp-Param-{token}", header_value(rendered)))
            walk(sub, item)

    walk(schema, arguments)
    return found


@dataclass(frozen=True)
class CallSequence:
    """A copy-paste sequence: ``sh`` (curl) or ``jsonl`` (lines for a stdio server's input)."""

    language: str
    text: str
    sessionless: bool
    tool: str


@dataclass(frozen=True)
class EndpointCall:
    """One endpoint as a caller needs it. Built by ``EndpointDoc.call``; no secret ever reaches it."""

    transport: str
    address: str
    protocol_version: str
    auth: tuple[tuple[str, str], ...] = ()
    """Header name and value pattern (``Bearer ${TOKEN}``), secrets already replaced."""
    env: tuple[str, ...] = ()
    offered: tuple[str, ...] = ()
    """The tools this endpoint lists exactly as the site documents them (no variant)."""

    @property
    def is_http(self) -> bool:
        return self.transport == "streamable-http"

    @property
    def url(self) -> str | None:
        """The full URL an HTTP client posts to (the configured ``public`` address when there was one)."""
        return self.address if self.is_http else None

    @property
    def local(self) -> bool:
        """True when the URL names a loopback or private address: the public URL is not known."""
        return self.is_http and is_local(self.address)

    @property
    def sessionless(self) -> bool:
        """True for the 2026-07-28 era: one self-contained request, no handshake, no session."""
        return is_sessionless(self.protocol_version)

    @property
    def era(self) -> str:
        """``sessionless`` or ``session`` (catalog keys ``call.era.*``)."""
        return "sessionless" if self.sessionless else "session"

    @property
    def handshake_version(self) -> str:
        """The ``protocolVersion`` an ``initialize`` asks for: the endpoint's own, when it is dated."""
        return self.protocol_version if _DATE.fullmatch(self.protocol_version) else LEGACY_FALLBACK

    def pick(self, site: ToolFinder) -> Any:
        """The tool a connecting page demonstrates: the first read-only one with a working call, else the first."""
        tools = [tool for tool in map(site.tool_named, self.offered) if tool is not None]
        read_only = [tool for tool in tools if getattr(tool.access, "level", None) == "read-only"]
        others = [tool for tool in tools if getattr(tool.access, "level", None) != "read-only"]
        # Lazily, read-only tools first: an example is worked out only until one call works, not
        # for every tool (at 1,000 tools that is seconds, and a rebuild takes the pages from the cache).
        return next((tool for tool in chain(read_only, others) if _can_call(tool)), None)

    def sequence(self, tool: CallableTool) -> CallSequence | None:
        """The exact calls of *tool* with its example arguments, or None when no call can be shown."""
        if not _can_call(tool) or tool.name not in self.offered:
            return None
        arguments = tool.example_args.value
        params = {"name": tool.name, "arguments": arguments}
        return self.request_sequence("tools/call", params, tool.name, _param_headers(tool.input_schema, arguments))

    def request_sequence(
        self, method: str, params: dict[str, Any], name: str, headers: list[tuple[str, str]] | None = None
    ) -> CallSequence:
        """The exact messages that send one request (*method*, *params*) in this endpoint's era: alone
        (2026-07-28), or after the ``initialize`` handshake in a session. *name* is what the request
        names (a tool, a prompt, a resource URI: the ``Mcp-Name`` header); *headers*, any
        ``Mcp-Param-*`` headers a tool's arguments call for."""
        if self.is_http:
            if self.sessionless:
                text = self._curl_modern(method, params, name, headers or [])
            else:
                text = self._curl_session(method, params)
            return CallSequence("sh", text, self.sessionless, name)
        return CallSequence("jsonl", self._lines(method, params), self.sessionless, name)

    def _request(self, method: str, params: dict[str, Any], request_id: int) -> dict[str, Any]:
        if self.sessionless:
            params = {**params, "_meta": {PROTOCOL_META: self.protocol_version, CAPABILITIES_META: {}}}
        return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}

    def _initialize(self) -> dict[str, Any]:
        params = {"protocolVersion": self.handshake_version, "capabilities": {}, "clientInfo": CLIENT_INFO}
        return {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}

    def _lines(self, method: str, params: dict[str, Any]) -> str:
        if self.sessionless:
            return _compact(self._request(method, params, 1))
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        return "\n".join(_compact(m) for m in (self._initialize(), initialized, self._request(method, params, 2)))

    def _curl(
        self,
        headers: list[tuple[str, str]],
        body: dict[str, Any] | None,
        extra: str = "",
        *,
        session: bool = False,
        method: str = "POST",
    ) -> list[str]:
        """One ``curl`` request as continued lines; ``$SESSION`` and the auth ``${VAR}`` stay expandable."""
        lines = [f'curl -sS -X {method} "$MCP_URL"{extra}']
        fixed = [("Content-Type", "application/json"), ("Accept", ACCEPT)] if body is not None else []
        for name, value in fixed + headers:
            lines.append(f"  -H {shlex.quote(f'{name}: {value}')}")
        if session:
            lines.append('  -H "Mcp-Session-Id: $SESSION"')
        for name, value in self.auth:
            lines.append(f"  -H {_shell_dq(f'{name}: {value}')}")
        if body is not None:
            lines.append(f"  -d {shlex.quote(_compact(body))}")
        return [line + " \\" for line in lines[:-1]] + [lines[-1]]

    def _start(self) -> list[str]:
        return [f"MCP_URL={shlex.quote(self.address)}"]

    def _curl_modern(self, method: str, params: dict[str, Any], name: str, extra: list[tuple[str, str]]) -> str:
        headers = [
            ("MCP-Protocol-Version", self.protocol_version),
            ("Mcp-Method", method),
            ("Mcp-Name", header_value(name)),
            *extra,
        ]
        return "\n".join(self._start() + self._curl(headers, self._request(method, params, 1)))

    def _curl_session(self, method: str, params: dict[str, Any]) -> str:
        version = [("MCP-Protocol-Version", self.handshake_version)]
        init = self._curl([], self._initialize(), extra=" -D - -o /dev/null")
        init[0] = "SESSION=$(" + init[0]
        init[-1] += " \\"
        init.append("  | awk 'tolower($1) == \"mcp-session-id:\" { print $2 }' | tr -d '\\r')")
        notify = self._curl(version, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session=True)
        call = self._curl(version, self._request(method, params, 2), session=True)
        end = self._curl(version, None, session=True, method="DELETE")
        return "\n".join(
            [
                *self._start(),
                "# 1. initialize: keep the Mcp-Session-Id the server answers with",
                *init,
                "# 2. notifications/initialized",
                *notify,
                f"# 3. {method}",
                *call,
                "# 4. end the session (a 405 reply means the server keeps no session to end: harmless)",
                *end,
            ]
        )


def _can_call(tool: CallableTool) -> bool:
    """A tool gets a sequence only with arguments that validate, and when it does not require a task."""
    return tool.example_request is not None and tool.example_args.ok and tool.task_support != "required"
