"""Build the Teamspace demo MCP server and serve it over stdio or Streamable HTTP.

One registration path (:func:`build_server`) builds both profiles: ``full`` has
every tool, ``readonly`` only the tools whose ``readOnlyHint`` is true. Over HTTP
both profiles are served by one Starlette app (see :func:`build_http_app`), each
at its own path, with both Streamable HTTP session managers running in the app's
lifespan.
"""

from __future__ import annotations

import argparse
import hmac
import os
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from mcp.server.mcpserver import MCPServer, UserMessage
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import Annotations
from pydantic import Field
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from generator.demo import data
from generator.demo.behaviour import Behaviour, add_behaviour_options, handshake_only_stdin
from generator.demo.settings import DEFAULT_HOST, DEFAULT_PORT, SERVER_NAME
from generator.demo.tools import TOOL_SPECS, build_tools

SERVER_TITLE = "Teamspace (demo)"
SERVER_VERSION = "2.4.0"
SERVER_DESCRIPTION = (
    "A demo of Teamspace, a fictional team workspace: search the chat archive, browse research "
    "conversations, file defects and manage documents. All data is fake and fixed."
)
SERVER_INSTRUCTIONS = (
    "Use search_chat and query_research_conversations to find what the team said and researched; "
    "they never change anything. Call my_capabilities when a call is refused, to see which capability "
    "is missing. file_defect creates a new defect on every call, so search first, and delete_document "
    "cannot be undone, so confirm with the user before calling it."
)

#: URL path of each profile when served over Streamable HTTP.
PROFILES: dict[str, str] = {"full": "/mcp/", "readonly": "/mcp/readonly/"}
CORS_REQUEST_HEADERS = (
    "Accept",
    "Authorization",
    "Content-Type",
    "Last-Event-ID",
    "MCP-Protocol-Version",
    "Mcp-Method",
    "Mcp-Name",
    "Mcp-Session-Id",
)
"""The request headers a page on another origin sends to an MCP endpoint (a portal's Try it panel)."""
CORS_EXPOSED_HEADERS = ("Mcp-Session-Id", "MCP-Protocol-Version")
"""The reply headers such a page must be able to read: the session a legacy-era ``initialize`` opens."""


LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]

HANDBOOK = """\
# Teamspace handbook

Teamspace keeps a team's conversations, research and documents in one workspace.

## Chats
Channels start with `#` (for example `#release`); direct messages have no channel name.
Messages are kept for two years, then archived.

## Research conversations
A research conversation is grounded in a project and pinned evidence. It stays available
for 90 days unless its evidence is deleted, its sharing changes, or it is archived.

## Defects
File defects with a clear title, the steps to reproduce and links to the chat messages
that show the problem. Severity runs from `low` (cosmetic) to `critical` (data loss or
outage).

## Capabilities
Tokens carry capabilities such as `read_all`, `research_read`, `defects_write` and
`documents_delete`. Ask a workspace admin for a missing one.
"""


def triage_defect(
    defect: Annotated[str, Field(description="Defect number such as DEF-1042, or a one-line summary.")],
    audience: Annotated[
        str, Field(description="Who reads the triage note, for example engineering or support.")
    ] = "engineering",
) -> list[UserMessage]:
    """Render the triage prompt for one defect."""
    return [
        UserMessage(
            f"Triage the Teamspace defect {defect} for {audience}. Use search_chat to find the "
            "messages that report it, check whether it is a duplicate, then propose a severity "
            "(low, medium, high or critical) with one sentence of reasoning and the next step."
        )
    ]


def handbook() -> str:
    """Return the handbook text."""
    return HANDBOOK


def document_summary(document_id: str) -> str:
    """Return a fixed, fake summary of one document (the same for every call)."""
    number = data.stable_number(document_id)
    return (
        f"# Document {document_id}\n\nRevision {number % 7 + 1}, last edited by Chen Wei. "
        "Fake content from the Teamspace demo.\n"
    )


def build_server(
    profile: str = "full", *, log_level: LogLevel = "WARNING", behaviour: Behaviour | None = None
) -> MCPServer[Any]:
    """Build the demo server for ``profile`` (a key of :data:`PROFILES`), with the opt-in *behaviour*."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; expected one of {sorted(PROFILES)}")
    server: MCPServer[Any] = MCPServer(
        SERVER_NAME,
        title=SERVER_TITLE,
        description=SERVER_DESCRIPTION,
        instructions=SERVER_INSTRUCTIONS,
        website_url=data.WEBSITE_URL,
        version=SERVER_VERSION,
        tools=build_tools(read_only=profile == "readonly"),
        log_level=log_level,
        middleware=(behaviour or Behaviour()).middleware(),
    )
    server.prompt(
        name="triage_defect",
        title="Triage a defect",
        description="Ask the assistant to triage one defect using the chat archive.",
    )(triage_defect)
    server.resource(
        "teamspace://handbook",
        name="handbook",
        title="Teamspace handbook",
        description="How Teamspace organises chats, research, defects and capabilities.",
        mime_type="text/markdown",
        annotations=Annotations(audience=["user", "assistant"], priority=0.8, last_modified="2026-09-01T09:00:00Z"),
    )(handbook)
    server.resource(
        "teamspace://documents/{document_id}",
        name="document",
        title="Document summary",
        description="A short Markdown summary of one workspace document: its latest revision and editor.",
        mime_type="text/markdown",
        annotations=Annotations(audience=["assistant"], priority=0.4),
    )(document_summary)
    return server


async def _index(_request: Request) -> PlainTextResponse:
    lines = [f"{SERVER_TITLE} {SERVER_VERSION} - MCP over Streamable HTTP"]
    lines += [f"{profile}: {path}" for profile, path in PROFILES.items()]
    return PlainTextResponse("\n".join(lines) + "\n")


def build_http_app(
    host: str = DEFAULT_HOST,
    *,
    log_level: LogLevel = "WARNING",
    cors_origins: Sequence[str] = (),
    token: str | None = None,
    behaviour: Behaviour | None = None,
) -> Starlette:
    """Return one ASGI app serving every profile at its :data:`PROFILES` path.

    ``MCPServer.streamable_http_app()`` creates the server's session manager and an
    app whose lifespan runs it; a mounted sub-app's lifespan never runs, so the
    routes are lifted into one app whose lifespan runs every manager. Each path
    also answers without its trailing slash, so no client has to follow a redirect.

    *cors_origins* are the web origins (``https://docs.example.com``) whose pages may call the
    server from a browser: each is answered with the CORS headers (:data:`CORS_REQUEST_HEADERS`
    allowed, :data:`CORS_EXPOSED_HEADERS` exposed) and let through the SDK's Origin check. None by
    default: a page on another origin then cannot call the demo at all.

    With a *token*, every request to a profile needs ``Authorization: Bearer <token>`` (401 without
    it), so a portal can show, and its tests can try, an endpoint that needs auth.
    """
    routes: list[BaseRoute] = [Route("/", _index, methods=["GET"])]
    managers: list[StreamableHTTPSessionManager] = []
    security = _security(host, cors_origins) if cors_origins else None
    for profile, path in PROFILES.items():
        server = build_server(profile, log_level=log_level, behaviour=behaviour)
        sub_app = server.streamable_http_app(streamable_http_path=path, host=host, transport_security=security)
        managers.append(server.session_manager)
        for route in sub_app.routes:
            routes.append(route)
            if isinstance(route, Route) and route.path == path and path != "/":
                routes.append(Route(path.rstrip("/"), endpoint=route.endpoint))

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            for manager in managers:
                await stack.enter_async_context(manager.run())
            yield

    # The first middleware is the outermost: a preflight is answered before the token is asked for, and
    # a refusal for a missing token still carries the CORS headers a page needs to read it.
    middleware = [_cors(cors_origins)] if cors_origins else []
    if token is not None:
        middleware.append(Middleware(BearerToken, token=token, paths=tuple(PROFILES.values())))
    return Starlette(routes=routes, lifespan=lifespan, middleware=middleware)


def _security(host: str, cors_origins: Sequence[str]) -> TransportSecuritySettings:
    """The SDK's Host and Origin checks as it sets them for a loopback *host*, plus *cors_origins*."""
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*"] if host in ("127.0.0.1", "localhost", "::1") else [f"{host}:*"]
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*", *cors_origins]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)


def _cors(origins: Sequence[str]) -> Middleware:
    """CORS for exactly *origins*: the methods and headers of Streamable HTTP, no credentials (cookies)."""
    return Middleware(
        CORSMiddleware,
        allow_origins=list(origins),
        allow_methods=["GET", "POST", "DELETE"],
        allow_headers=list(CORS_REQUEST_HEADERS),
        expose_headers=list(CORS_EXPOSED_HEADERS),
        max_age=600,
    )


class BearerToken:
    """ASGI middleware: a request under one of *paths* without ``Authorization: Bearer <token>`` gets 401."""

    def __init__(self, app: ASGIApp, token: str, paths: tuple[str, ...]) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()
        self.paths = tuple(path.rstrip("/") for path in paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] != "OPTIONS" and scope["path"].rstrip("/") in self.paths:
            given = dict(scope["headers"]).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                refusal = PlainTextResponse(
                    "This demo was started with --token-env: send Authorization: Bearer <token>.\n",
                    status_code=401,
                    headers={"WWW-Authenticate": 'Bearer realm="demo"'},
                )
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


def build_parser() -> argparse.ArgumentParser:
    """Return the command-line parser of ``python -m generator.demo``."""
    parser = argparse.ArgumentParser(
        prog="python -m generator.demo",
        description=f"{SERVER_TITLE}: a demo MCP server with fake, fixed data. Serves stdio by default.",
    )
    parser.add_argument(
        "--http",
        action="store_true",
        help="serve Streamable HTTP instead of stdio: "
        + ", ".join(f"{p} profile at {path}" for p, path in PROFILES.items()),
    )
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"interface to bind with --http (default {DEFAULT_HOST})")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port to bind with --http (default {DEFAULT_PORT})"
    )
    parser.add_argument(
        "--profile",
        choices=sorted(PROFILES),
        default="full",
        help="profile to serve over stdio (default full); --http serves every profile",
    )
    parser.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="with --http, let pages of ORIGIN (e.g. https://docs.example.com) call the server from a browser: "
        "answer them with CORS headers (repeatable; none by default)",
    )
    parser.add_argument(
        "--token-env",
        metavar="NAME",
        help="with --http, require Authorization: Bearer <the value of the environment variable NAME> on every "
        "request to a profile (the token is read from the environment so that it never shows in a process list)",
    )
    add_behaviour_options(parser)
    parser.add_argument(
        "--log-level",
        choices=["debug", "info", "warning", "error"],
        default="warning",
        help="log level, written to stderr (default warning)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the demo server; return the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not 0 < args.port <= 65535:  # 0 is refused too: the address is printed before uvicorn binds
        parser.error(f"argument --port: {args.port} is not a port: give a number from 1 to 65535")
    level: LogLevel = args.log_level.upper()
    behaviour = Behaviour.from_options(args, tuple((s.fn.__name__, s.component) for s in TOOL_SPECS if s.component))
    if not args.http:
        if args.handshake_only:
            handshake_only_stdin()
        build_server(args.profile, log_level=level, behaviour=behaviour).run("stdio")
        return 0

    import uvicorn

    bad = [origin for origin in args.cors_origin if not _is_origin(origin)]
    if bad:
        print(
            f"--cors-origin {bad[0]!r} is not an origin: give scheme://host[:port], e.g. https://docs.example.com.",
            file=sys.stderr,
        )
        return 2
    token = None
    if args.token_env:
        token = os.environ.get(args.token_env, "")
        if not token:
            print(f"--token-env {args.token_env}: that environment variable is empty or not set.", file=sys.stderr)
            return 2
    app = build_http_app(args.host, log_level=level, cors_origins=args.cors_origin, token=token, behaviour=behaviour)
    host = f"[{args.host}]" if ":" in args.host else args.host  # an IPv6 address is bracketed in a URL
    for profile, path in PROFILES.items():
        print(f"{profile}: http://{host}:{args.port}{path}", file=sys.stderr, flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    return 0


def _is_origin(text: str) -> bool:
    """Whether *text* is a web origin as a browser sends it: ``http(s)://host[:port]``, nothing after."""
    parts = urlsplit(text)
    return parts.scheme in ("http", "https") and bool(parts.hostname) and text == f"{parts.scheme}://{parts.netloc}"
