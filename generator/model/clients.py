"""Ready-to-paste MCP client configuration for one endpoint, built from its real facts.

Each snippet is in the format its client reads; every format was checked against these sources:

* **Claude Desktop** reads ``claude_desktop_config.json``: ``mcpServers`` maps a name to
  ``{"command", "args", "env"}``, and the file only launches local stdio servers.  Remote servers are
  added under Settings → Connectors ("custom connectors using remote MCP",
  support.claude.com/en/articles/11175166), so an HTTP endpoint gets no Claude Desktop snippet.
  No variable expansion is documented, so values are visible placeholders.
* **Claude Code** (code.claude.com/docs/en/mcp): project ``.mcp.json`` with ``mcpServers``; stdio
  ``{"command", "args", "env"}``, HTTP ``{"type": "http", "url", "headers"}``; ``${VAR}`` is expanded
  in ``command``, ``args``, ``env``, ``url`` and ``headers``.  CLI: ``claude mcp add --transport http
  NAME URL --header "Name: value"`` and ``claude mcp add --transport stdio NAME --env K=V -- cmd args``.
  ``--env`` is variadic and swallows a server name written after it (anthropics/claude-code#23365,
  #46121, #62332), so NAME comes first, as in ``claude mcp add --help``.  The CLI stores values
  literally (#17791), so the shell command carries placeholders rather than ``${VAR}``.
* **VS Code** (code.visualstudio.com/docs/copilot/reference/mcp-configuration): ``.vscode/mcp.json``
  with ``servers`` (``{"type": "stdio", "command", "args", "env"}`` or ``{"type": "http", "url",
  "headers"}``) and ``inputs`` (``{"type": "promptString", "id", "description", "password"}``),
  referenced as ``${input:id}`` in ``env`` and ``headers``.
* **Cursor** (docs.cursor.com/context/mcp): ``.cursor/mcp.json`` or ``~/.cursor/mcp.json`` with
  ``mcpServers``; stdio ``{"command", "args", "env"}``, remote ``{"url", "headers"}``;
  ``${env:NAME}`` is interpolated in ``command``, ``args``, ``env``, ``url`` and ``headers``.

One-click install links carry exactly the entry the snippet shows (:func:`install_links`):

* **VS Code** (code.visualstudio.com/docs/copilot/guides/mcp-developer-guide, "MCP URL handler"):
  ``vscode:mcp/install?`` + ``encodeURIComponent(JSON.stringify(obj))``, where *obj* is what
  ``code --add-mcp`` takes: the server entry with its ``name``, and the ``inputs`` it refers to (VS Code's
  handler reads ``{name, inputs, ...config}``); ``vscode-insiders:`` for the Insiders build. The
  ``https://insiders.vscode.dev/redirect/mcp/install`` form seen in READMEs is not in VS Code's docs.
* **Cursor** (cursor.com/docs/mcp/install-links): ``cursor://anysphere.cursor-deeplink/mcp/install?name=NAME
  &config=BASE64``, the base64 of the ``mcp.json`` entry (without the ``mcpServers`` wrapper) as JSON.

Claude Desktop and Claude Code document no install link for a server entry: their snippets are copied.

Everything here is untrusted text: JSON is made by :func:`json.dumps` and shell by
:func:`shlex.join`, never by concatenation, and a header value with no ``${VAR}`` is a secret that
is replaced by ``<Name value>`` and never echoed.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shlex
import unicodedata
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

STDIO = "stdio"
HTTP = "streamable-http"
CLIENTS = ("claude-desktop", "claude-code", "claude-code-cli", "vscode", "cursor")
DEFAULT_KEY = "mcp-server"
MAX_KEY = 64

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")  # the same ${VAR} the generator itself expands
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_UPPER_IDENT = re.compile(r"[A-Z_][A-Z0-9_]*")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass(frozen=True)
class EndpointFacts:
    """What a client needs to reach one endpoint; header values are templates, never secrets."""

    name: str
    transport: str
    url: str | None = None
    command: tuple[str, ...] = ()
    env: tuple[str, ...] = ()
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class InstallLink:
    """A link that opens a client and offers to add the server: its target, and the entry it carries."""

    client: str
    """``vscode``, ``vscode-insiders`` or ``cursor``."""
    url: str
    config: dict[str, Any]
    """What the link carries, decoded: the same entry the client's snippet shows."""


@dataclass(frozen=True)
class Snippet:
    """One block of configuration for one client, and where it goes (``file`` is None for a command)."""

    client: str
    file: str | None
    language: str
    text: str
    links: tuple[InstallLink, ...] = ()
    """One-click install links that add the same entry, where the client documents a link format."""


def server_key(name: str) -> str:
    """A config key safe in every client and shell: lowercase ``[a-z0-9-]``, at most 64 characters.

    Accents are folded (``café`` → ``cafe``); any other run of characters becomes one ``-``.
    Idempotent, and never empty.
    """
    folded = "".join(c for c in unicodedata.normalize("NFKD", name.lower()) if not unicodedata.combining(c))
    key = re.sub(r"[^a-z0-9]+", "-", folded).strip("-")[:MAX_KEY].strip("-")
    return key or DEFAULT_KEY


def _input_id(name: str) -> str:
    """The VS Code input id for a variable: ``TEAMSPACE_TOKEN`` → ``teamspace-token``.

    Upper-case names map one to one; any other name gets a short hash so two ids never clash.
    """
    if _UPPER_IDENT.fullmatch(name):
        return name.lower().replace("_", "-")
    stem = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40].strip("-") or "var"
    return f"{stem}-{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"


def env_placeholder(name: str, client: str = "claude-desktop") -> str:
    """How the value of variable *name* is written in *client*'s configuration.

    Claude Code ``.mcp.json`` expands ``${NAME}``, Cursor ``${env:NAME}``, and VS Code prompts for
    ``${input:id}`` (declared in ``inputs``).  Claude Desktop and the ``claude mcp add`` command
    expand nothing, and a name that is not an identifier cannot be expanded, so those get a visible
    ``<your NAME>`` for the reader to fill in.
    """
    if client not in CLIENTS:
        raise ValueError(f"unknown client {client!r}; expected one of {', '.join(CLIENTS)}")
    if client == "vscode":
        return f"${{input:{_input_id(name)}}}"
    if _IDENT.fullmatch(name) and client == "claude-code":
        return f"${{{name}}}"
    if _IDENT.fullmatch(name) and client == "cursor":
        return f"${{env:{name}}}"
    return f"<your {name}>"


def _header_value(header: str, template: str, client: str | None) -> str:
    """A header value for *client*, or the reader-facing pattern when *client* is None."""
    if not _VAR.search(template):
        return f"<{header} value>"  # a literal value is a secret: never echo it
    if client is None:
        return template
    return _VAR.sub(lambda match: env_placeholder(match.group(1), client), template)


def auth_pattern(facts: EndpointFacts) -> tuple[tuple[str, str], ...]:
    """The headers to show readers as (name, value template), secrets replaced; empty for stdio."""
    if facts.transport != HTTP:
        return ()
    return tuple((name, _header_value(name, value, None)) for name, value in facts.headers)


def _headers(facts: EndpointFacts, client: str) -> dict[str, str]:
    return {name: _header_value(name, value, client) for name, value in facts.headers}


def _stdio_entry(facts: EndpointFacts, client: str, *, typed: bool = False) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "stdio"} if typed else {}
    entry["command"] = facts.command[0]
    entry["args"] = list(facts.command[1:])
    if facts.env:
        entry["env"] = {name: env_placeholder(name, client) for name in facts.env}
    return entry


def _http_entry(facts: EndpointFacts, client: str, *, typed: bool = True) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "http"} if typed else {}
    entry["url"] = facts.url
    if headers := _headers(facts, client):
        entry["headers"] = headers
    return entry


def _vscode_inputs(facts: EndpointFacts) -> list[dict[str, Any]]:
    """One password prompt per variable, in order of first use."""
    if facts.transport == STDIO:
        names = list(facts.env)
    else:
        names = [match.group(1) for _, value in facts.headers for match in _VAR.finditer(value)]
    inputs: dict[str, dict[str, Any]] = {}
    for name in names:
        ident = _input_id(name)
        inputs.setdefault(ident, {"type": "promptString", "id": ident, "description": name, "password": True})
    return list(inputs.values())


def _cli(facts: EndpointFacts, key: str) -> str:
    argv = ["claude", "mcp", "add", "--transport"]
    if facts.transport == STDIO:
        argv += ["stdio", key]
        for name in dict.fromkeys(facts.env):
            argv += ["--env", f"{name}={env_placeholder(name, 'claude-code-cli')}"]
        argv += ["--", *facts.command]
    elif facts.url is None:
        raise TypeError("an HTTP endpoint needs its URL")
    else:
        argv += ["http", key, facts.url]
        for name, value in _headers(facts, "claude-code-cli").items():
            argv += ["--header", f"{name}: {value}"]
    return shlex.join(argv)


def _json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)


def _compact(data: dict[str, Any]) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def install_links(
    client: str, key: str, entry: dict[str, Any], inputs: list[dict[str, Any]]
) -> tuple[InstallLink, ...]:
    """The install links of *client* (``vscode`` or ``cursor``) for the server *key* with the *entry* its
    snippet shows. Every character but letters, digits and ``-_.~`` is percent-encoded, so a link is safe
    as it is in an HTML attribute and a Markdown link target."""
    if client == "vscode":
        carried = {"name": key, **entry, **({"inputs": inputs} if inputs else {})}
        query = quote(_compact(carried), safe="")
        return tuple(
            InstallLink(scheme, f"{scheme}:mcp/install?{query}", carried) for scheme in ("vscode", "vscode-insiders")
        )
    if client == "cursor":
        config = base64.b64encode(_compact(entry).encode("utf-8")).decode("ascii")
        url = (
            f"cursor://anysphere.cursor-deeplink/mcp/install?name={quote(key, safe='')}&config={quote(config, safe='')}"
        )
        return (InstallLink("cursor", url, entry),)
    return ()


def _check(facts: EndpointFacts) -> None:
    if facts.transport == STDIO:
        if not facts.command:
            raise ValueError(f"stdio endpoint {facts.name!r} has no command")
    elif facts.transport == HTTP:
        # A scheme also keeps the URL from reading as an option to `claude mcp add`.
        if not facts.url or not _SCHEME.match(facts.url):
            raise ValueError(f"streamable-http endpoint {facts.name!r} needs an absolute URL, got {facts.url!r}")
    else:
        raise ValueError(f"endpoint {facts.name!r} has unknown transport {facts.transport!r}")


def snippets(facts: EndpointFacts, key: str) -> tuple[Snippet, ...]:
    """Configuration for every client, in the order of :data:`CLIENTS`.

    *key* names the server entry and is passed through :func:`server_key` (a no-op on its output).
    Claude Desktop is absent for an HTTP endpoint: it adds remote servers only as Connectors.
    Raises ValueError for facts no client could use (no command, no absolute URL, unknown transport).
    """
    _check(facts)
    key = server_key(key)
    out: list[Snippet] = []
    if facts.transport == STDIO:
        desktop = {"mcpServers": {key: _stdio_entry(facts, "claude-desktop")}}
        out.append(Snippet("claude-desktop", "claude_desktop_config.json", "json", _json(desktop)))
        code, vscode, cursor = (
            _stdio_entry(facts, "claude-code"),
            _stdio_entry(facts, "vscode", typed=True),
            _stdio_entry(facts, "cursor"),
        )
    else:
        code, vscode, cursor = (
            _http_entry(facts, "claude-code"),
            _http_entry(facts, "vscode"),
            _http_entry(facts, "cursor", typed=False),
        )
    out.append(Snippet("claude-code", ".mcp.json", "json", _json({"mcpServers": {key: code}})))
    out.append(Snippet("claude-code-cli", None, "shell", _cli(facts, key)))
    workspace: dict[str, Any] = {}
    if inputs := _vscode_inputs(facts):
        workspace["inputs"] = inputs
    workspace["servers"] = {key: vscode}
    vscode_links = install_links("vscode", key, vscode, inputs)
    out.append(Snippet("vscode", ".vscode/mcp.json", "json", _json(workspace), vscode_links))
    cursor_links = install_links("cursor", key, cursor, [])
    out.append(Snippet("cursor", ".cursor/mcp.json", "json", _json({"mcpServers": {key: cursor}}), cursor_links))
    return tuple(out)
