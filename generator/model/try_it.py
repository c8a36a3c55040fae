"""The Try it panel of a tool page: which tools get one, where it sends, and what its script is told.

A panel is offered only where a call from a reader's browser can be made safely:

* the site enables it (``try_it``), and the tool declares ``readOnlyHint: true`` or the author lists
  it in ``try_it_tools`` (such a tool asks for a confirmation that names what the server declares);
* an HTTP endpoint offers the tool as the page documents it, at an ``https://`` address, or at a
  loopback ``http://`` one (a server on the reader's own machine), with no ``${VAR}`` left in it;
* the tool does not require task-augmented execution (the panel makes a plain ``tools/call``).

Under ``serve --try-it`` (:data:`PROXY_PATH`) every endpoint qualifies, stdio included: the panel
posts to the preview's own proxy, which calls the endpoint through the SDK with the configured
auth, so the page holds no secret field and connects to its own origin only.

:meth:`TryIt.data` is everything the panel's script needs, as JSON: the endpoint, the era and its
protocol version, the auth headers as patterns (``Bearer ${TOKEN}``, never a value), the example
arguments and both schemas.  The page embeds it as a JSON data block; nothing on the page calls the
server until the reader presses Send.  Server text stays data: the script shows it as text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

from generator.model.calls import ACCEPT, CAPABILITIES_META, CLIENT_INFO, PROTOCOL_META, EndpointCall, is_loopback

PROXY_PATH = "/.mcp-portal/try-it/"
"""Where ``serve --try-it`` answers a panel's call: this path, then the endpoint's name."""
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def panel_origin(url: str) -> str | None:
    """The origin a panel may send to for *url*, or None when no page should call it from a browser.

    ``https://`` anywhere, or ``http://`` on the reader's own machine (``127.0.0.1``, ``[::1]``,
    ``localhost``), which browsers treat as secure. A URL that still holds ``${VAR}``, a user name or
    a password is refused: the address a page sends to must be the one it shows.
    """
    if "${" in url:
        return None
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    if not host or parts.username is not None or parts.password is not None:
        return None
    if parts.scheme == "https" or (parts.scheme == "http" and is_loopback(host)):
        shown = f"[{host}]" if ":" in host else host
        return f"{parts.scheme}://{shown}" + (f":{port}" if port is not None else "")
    return None


@dataclass(frozen=True)
class TryIt:
    """One tool's panel: the endpoint it calls and what the reader must confirm first."""

    tool: str
    endpoint: str
    """The endpoint's name (``serve --try-it`` calls it by name)."""
    call: EndpointCall
    origin: str | None
    """The origin the page may connect to; None through the preview's proxy (the page's own origin)."""
    arguments: Any
    input_schema: Any
    output_schema: Any
    confirm: tuple[str, ...]
    """What the server declares that calls for a confirmation (``writes``, ``destructive``,
    ``open-world``); empty for a tool declared read-only."""

    @property
    def proxied(self) -> bool:
        return self.origin is None

    @property
    def url(self) -> str:
        """Where the panel posts: the endpoint's URL, or the preview's proxy path for the endpoint."""
        return f"{PROXY_PATH}{quote(self.endpoint, safe='')}" if self.proxied else self.call.address

    @property
    def variables(self) -> tuple[str, ...]:
        """The ``${VAR}`` names of the endpoint's auth headers: one secret field each, in order (none
        through the proxy, which sends the configured headers itself)."""
        if self.proxied:
            return ()
        found: list[str] = []
        for _, pattern in self.call.auth:
            for name in _VAR.findall(pattern):
                if name not in found:
                    found.append(name)
        return tuple(found)

    @property
    def protocol_version(self) -> str:
        """The version the panel's requests carry: the endpoint's own, or the one ``initialize`` asks for."""
        return self.call.protocol_version if self.call.sessionless else self.call.handshake_version

    @property
    def arguments_text(self) -> str:
        """The arguments the form starts with, as indented JSON (ASCII only: no bidi or hidden character)."""
        return json.dumps(self.arguments, indent=2, ensure_ascii=True)

    def data(self, text: dict[str, str]) -> dict[str, Any]:
        """What the panel's script is told, with the locale's *text* for its messages (JSON; the page
        escapes it for a ``<script>`` data block)."""
        return {
            "tool": self.tool,
            "url": self.url,
            "proxy": self.proxied,
            "sessionless": self.call.sessionless,
            "protocolVersion": self.protocol_version,
            "auth": [] if self.proxied else [[name, pattern] for name, pattern in self.call.auth],
            "arguments": self.arguments,
            "inputSchema": self.input_schema,
            "outputSchema": self.output_schema,
            "confirm": list(self.confirm),
            "accept": ACCEPT,
            "clientInfo": CLIENT_INFO,
            "meta": [PROTOCOL_META, CAPABILITIES_META],
            "text": text,
        }


def try_it(tool: Any, listed: tuple[str, ...], *, proxy: bool = False) -> TryIt | None:
    """The panel of *tool* (a :class:`generator.model.tool.ToolDoc`), or None when it gets none.

    *listed* are the tools the author allows although they are not declared read-only; with *proxy*
    (``serve --try-it``) the first endpoint that offers the tool is called through the preview.
    """
    read_only = tool.access.hint("readOnlyHint")
    declared_read_only = read_only.declared and read_only.value is True
    if not declared_read_only and tool.name not in listed:
        return None
    if tool.task_support == "required":
        return None
    for endpoint in tool.callers:
        call: EndpointCall = endpoint.call
        origin = panel_origin(call.address) if call.is_http else None
        if (origin is None and not proxy) or tool.name not in call.offered:
            continue
        confirm: tuple[str, ...] = ()
        if not declared_read_only:
            confirm = (str(tool.access.level),)
            if tool.access.hint("openWorldHint").value:
                confirm += ("open-world",)
        arguments = tool.example_args.value if tool.example_args.ok else {}
        where = None if proxy else origin
        return TryIt(tool.name, endpoint.name, call, where, arguments, tool.input_schema, tool.output_schema, confirm)
    return None
