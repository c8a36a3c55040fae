"""``mcp-portal serve --try-it``: a preview whose Try it panels call the documented server through
this process, on every endpoint, stdio included.

The preview listens at once and prints its address (:data:`START_PATH`, the run token in the
fragment); meanwhile, in a thread, the server is introspected (the configuration's endpoints, or the
bundled demo, whose HTTP server then runs until the preview stops) and the site is built into a
temporary directory with ``try_it`` on and every panel pointed at
:data:`~generator.model.try_it.PROXY_PATH`, a progress line on stderr for each stage. Until the site
is ready the start address answers a page that says so and reloads; then it leads to the first tool
page with a panel. :class:`TryItProxy` answers the panels' calls, through one session per endpoint
that stays open (:class:`generator.connect.calling.Caller`), and says in ``Server-Timing`` how long
the call itself took.

The proxy is for the person at this machine only:

* it listens on a loopback address (any other is refused before anything starts), answers only
  its own ``Host`` (the preview's check) and, when a browser sends one, only its own ``Origin``;
* every call carries this run's random token in the :data:`RUN_HEADER` header. The address the
  command prints holds it in its fragment, which no request sends; the panel keeps it in the tab's
  ``sessionStorage``. It is this preview's key, not a secret of the server's: the server's own
  headers and environment stay in this process and never reach the page;
* it calls only a tool whose page has a panel, on the endpoint that page names, through the SDK;
  no address is ever taken from the request.
"""

from __future__ import annotations

import argparse
import dataclasses
import hmac
import html
import json
import secrets
import signal
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from generator.commands.arguments import config_from_args
from generator.commands.build import site_files
from generator.commands.obtain import servers_to_document
from generator.commands.serve import START_PATH, serve
from generator.commands.watch import signals_held
from generator.config.portal import ServerSpec
from generator.errors import UsageError
from generator.jsonutil import RepeatedKey, loads_unique
from generator.model.calls import is_loopback
from generator.model.gather import gather
from generator.model.try_it import PROXY_PATH
from generator.publish.write import publish
from generator.snapshot.snapshot import frozen
from generator.text import for_terminal

NO_TOKEN = "This call lacks the run token of this preview: open the address `serve --try-it` printed.\n"
RUN_HEADER = "Mcp-Portal-Run"
"""The request header that carries this run's token."""


@dataclass
class TryItProxy:
    """Answers a panel's ``POST PROXY_PATH<endpoint>`` with the server's answer, as JSON-RPC.

    Made before the site is built: :meth:`ready` gives it the endpoints and the tools with a panel."""

    token: str
    caller: Any
    """The :class:`~generator.connect.calling.Caller` that keeps each endpoint's session open."""
    endpoints: Mapping[str, ServerSpec] = dataclasses.field(default_factory=dict)
    allowed: Mapping[str, frozenset[str]] = dataclasses.field(default_factory=dict)
    """For each endpoint's name, the tools whose pages have a panel that calls it."""
    start: str | None = None
    """The page to open once the site is built (None until then)."""
    state: str = "Connecting to the server…"
    """What the preview is doing, for the start page while the site is built."""

    def ready(self, endpoints: Mapping[str, ServerSpec], allowed: Mapping[str, frozenset[str]], start: str) -> None:
        """The site is built: calls may now be answered, and the start address leads to *start*."""
        self.endpoints, self.allowed = endpoints, allowed
        self.start = start

    def start_page(self) -> tuple[int, dict[str, str], bytes]:
        """:data:`START_PATH`: a page that says what the preview is doing and reloads, until the site is
        built; then a redirect to the first panel (the fragment, with the run token, follows it)."""
        if self.start is not None:
            return 303, {"Location": self.start}, b""
        text = html.escape(self.state)
        page = (
            '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="1">'
            f"<title>{text}</title></head><body><main><h1>{text}</h1><p>This page opens the preview when it is ready."
            "</p></main></body></html>"
        )
        return 200, {"Content-Type": "text/html; charset=utf-8"}, page.encode()

    def reply(
        self, path: str, headers: Mapping[str, str], body: bytes, own_origins: set[str]
    ) -> tuple[int, str, dict[str, str]]:
        """The status, body and extra headers for one call: the server's answer (200, JSON, with the call's
        own time in ``Server-Timing``), or why there is none (text)."""
        if not hmac.compare_digest(headers.get(RUN_HEADER, "").encode(), self.token.encode()):
            return (
                403,
                "This call lacks the run token of this preview: open the address `serve --try-it` printed.\n",
                {},
            )
        origin = headers.get("Origin")
        if origin is not None and origin not in own_origins:
            return 403, "Only this preview's own pages may call its proxy.\n", {}
        if headers.get("Content-Type", "").split(";")[0].strip().lower() != "application/json":
            return 415, "A call is JSON: Content-Type: application/json.\n", {}
        endpoint = unquote(path[len(PROXY_PATH) :])
        spec = self.endpoints.get(endpoint)
        if spec is None:
            return 404, "No such endpoint in this preview.\n", {}
        try:
            call = loads_unique(body)
        except RepeatedKey:
            return 400, "The call names a key twice in one object: JSON leaves which value counts.\n", {}
        except RecursionError:  # Python's parser recurses per level: a body nested this deep is no call
            return 400, "The call is nested too deeply to be a tool call.\n", {}
        except ValueError:
            return 400, "The call is not JSON.\n", {}
        name = call.get("name") if isinstance(call, dict) else None
        arguments = call.get("arguments") if isinstance(call, dict) else None
        if not isinstance(name, str) or not isinstance(arguments, dict):
            return 400, 'A call is {"name": "<tool>", "arguments": {...}}.\n', {}
        if name not in self.allowed.get(endpoint, frozenset()):
            return 403, "That tool has no Try it panel on this endpoint.\n", {}
        answer = self.caller.call(spec, name, arguments)
        timing = {"Server-Timing": f"call;dur={answer.seconds * 1000:.1f}"}
        return 200, json.dumps(answer.message, ensure_ascii=True), timing


def serve_try_it(args: argparse.Namespace, say: Any) -> int:
    """``serve --try-it``: listen at once, build the preview in the background, then answer its calls until
    interrupted."""
    if not is_loopback(args.host):
        raise UsageError(f"serve --try-it listens on this machine only: use --host 127.0.0.1 (not {args.host}).")
    config = config_from_args(args)
    # Imported here: the SDK takes a second to import, and the address is printed first.
    from generator.connect.calling import Caller

    stop = threading.Event()
    failed: list[BaseException] = []
    with tempfile.TemporaryDirectory(prefix="mcp-portal-try-it-") as tmp, Caller(config.limits) as caller:
        site = Path(tmp) / "site"
        site.mkdir()
        proxy = TryItProxy(token=secrets.token_urlsafe(32), caller=caller)
        builder: threading.Thread | None = None

        def start_building(server: Any) -> None:
            def build() -> None:
                # The servers this thread starts inherit its signal mask: they must stop on SIGTERM.
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
                try:
                    _build(config, site, proxy, say, stop)
                except BaseException as exc:  # the serving thread stops and raises it
                    failed.append(exc)
                    server.shutdown()

            nonlocal builder
            # A stop (Ctrl+C, SIGTERM) waits until the thread has started, so the stop can always join it.
            with signals_held():
                thread = threading.Thread(target=build, name="try-it-build", daemon=True)
                thread.start()
                builder = thread

        start = f"{START_PATH.lstrip('/')}#try-it={proxy.token}"
        try:
            serve(site, host=args.host, port=args.port, proxy=proxy, start=start, meanwhile=start_building)
        finally:
            stop.set()  # the build's servers (the demo's) stop with the preview
            if builder is not None:
                builder.join(timeout=30)
    if failed:
        raise failed[0]
    return 0


def _build(config: Any, site: Path, proxy: TryItProxy, say: Any, stop: threading.Event) -> None:
    """Introspect, build the preview into *site* and hand the proxy its endpoints, saying each stage on
    stderr; then keep the servers the build started (the demo's) running until *stop*."""
    from generator.connect.introspect import introspect_all

    with servers_to_document(config) as (specs, config):
        say("Try it: reading the server's tools…", err=True)
        snapshot = frozen(introspect_all(specs, config.limits, config.capability_version))
        if stop.is_set():  # the preview stopped while the server was read: nothing to build for
            return
        config = dataclasses.replace(config, try_it=True, try_it_proxy=True, search=False, base_url=None)
        proxy.state = "Building the pages…"
        say("Try it: building the preview's pages…", err=True)
        files, warnings = site_files(snapshot, config)
        for warning in warnings:
            say(f"warning: {warning}", err=True)
        model = gather(snapshot, config).model
        panels = model.try_it_panels
        allowed: dict[str, set[str]] = {}
        for panel in panels:
            allowed.setdefault(panel.endpoint, set()).add(panel.tool)
        first = model.tool_named(panels[0].tool) if panels else None
        start = f"/{config.locales[0]}/" + (f"tools/{first.slug}/" if first is not None else "")
        publish(site, files)
        proxy.ready(
            {spec.name: spec for spec in specs}, {name: frozenset(tools) for name, tools in allowed.items()}, start
        )
        say(
            for_terminal(
                f"Try it: ready. {len(panels)} tool page(s) have the panel; each call goes through this preview."
            )
        )
        stop.wait()
