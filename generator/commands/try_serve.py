"""``mcp-portal serve --try-it``: a preview whose Try it panels call the documented server through
this process, on every endpoint, stdio included.

In order: the server is introspected (the configuration's endpoints, or the bundled demo, whose
HTTP server then runs until the preview stops); the site is built into a temporary directory with
``try_it`` on and every panel pointed at :data:`~generator.model.try_it.PROXY_PATH`; and it is
served on loopback, with :class:`TryItProxy` answering the panels' calls.

The proxy is for the person at this machine only:

* it listens on a loopback address (any other is refused before anything starts), answers only
  its own ``Host`` (the preview's check) and, when a browser sends one, only its own ``Origin``;
* every call carries this run's random token in the :data:`RUN_HEADER` header. The address the
  command prints holds it in its fragment, which no request sends; the panel keeps it in the tab's
  ``sessionStorage``. It is this preview's key, not a secret of the server's: the server's own
  headers and environment stay in this process and never reach the page;
* it calls only a tool whose page has a panel, on the endpoint that page names, through the SDK
  (:func:`generator.connect.calling.call_tool`); no address is ever taken from the request.
"""

from __future__ import annotations

import argparse
import dataclasses
import hmac
import json
import secrets
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from generator.commands.arguments import config_from_args
from generator.commands.build import site_files
from generator.commands.obtain import servers_to_document
from generator.commands.serve import serve
from generator.config.portal import Limits, ServerSpec
from generator.errors import UsageError
from generator.jsonutil import RepeatedKey, loads_unique
from generator.model.calls import is_loopback
from generator.model.gather import gather
from generator.model.try_it import PROXY_PATH
from generator.publish.write import publish
from generator.snapshot.snapshot import frozen
from generator.text import for_terminal

RUN_HEADER = "Mcp-Portal-Run"
"""The request header that carries this run's token."""


@dataclass(frozen=True)
class TryItProxy:
    """Answers a panel's ``POST PROXY_PATH<endpoint>`` with the server's answer, as JSON-RPC."""

    token: str
    endpoints: Mapping[str, ServerSpec]
    allowed: Mapping[str, frozenset[str]]
    """For each endpoint's name, the tools whose pages have a panel that calls it."""
    limits: Limits

    def reply(self, path: str, headers: Mapping[str, str], body: bytes, own_origins: set[str]) -> tuple[int, str]:
        """The status and body for one call: the server's answer (200, JSON), or why there is none (text)."""
        if not hmac.compare_digest(headers.get(RUN_HEADER, "").encode(), self.token.encode()):
            return 403, "This call lacks the run token of this preview: open the address `serve --try-it` printed.\n"
        origin = headers.get("Origin")
        if origin is not None and origin not in own_origins:
            return 403, "Only this preview's own pages may call its proxy.\n"
        if headers.get("Content-Type", "").split(";")[0].strip().lower() != "application/json":
            return 415, "A call is JSON: Content-Type: application/json.\n"
        endpoint = unquote(path[len(PROXY_PATH) :])
        spec = self.endpoints.get(endpoint)
        if spec is None:
            return 404, "No such endpoint in this preview.\n"
        try:
            call = loads_unique(body)
        except RepeatedKey:
            return 400, "The call names a key twice in one object: JSON leaves which value counts.\n"
        except RecursionError:  # Python's parser recurses per level: a body nested this deep is no call
            return 400, "The call is nested too deeply to be a tool call.\n"
        except ValueError:
            return 400, "The call is not JSON.\n"
        name = call.get("name") if isinstance(call, dict) else None
        arguments = call.get("arguments") if isinstance(call, dict) else None
        if not isinstance(name, str) or not isinstance(arguments, dict):
            return 400, 'A call is {"name": "<tool>", "arguments": {...}}.\n'
        if name not in self.allowed.get(endpoint, frozenset()):
            return 403, "That tool has no Try it panel on this endpoint.\n"
        # Imported here: the SDK takes a second to import, and only a call needs it.
        from generator.connect.calling import call_tool

        return 200, json.dumps(call_tool(spec, self.limits, name, arguments), ensure_ascii=True)


def serve_try_it(args: argparse.Namespace, say: Any) -> int:
    """``serve --try-it``: build the preview, then serve it with the proxy until interrupted."""
    if not is_loopback(args.host):
        raise UsageError(f"serve --try-it listens on this machine only: use --host 127.0.0.1 (not {args.host}).")
    from generator.connect.introspect import introspect_all

    with servers_to_document(config_from_args(args)) as (specs, config):
        snapshot = frozen(introspect_all(specs, config.limits, config.capability_version))
        config = dataclasses.replace(config, try_it=True, try_it_proxy=True, search=False, base_url=None)
        files, warnings = site_files(snapshot, config)
        for warning in warnings:
            say(f"warning: {warning}", err=True)
        model = gather(snapshot, config).model
        panels = model.try_it_panels
        allowed: dict[str, set[str]] = {}
        for panel in panels:
            allowed.setdefault(panel.endpoint, set()).add(panel.tool)
        proxy = TryItProxy(
            token=secrets.token_urlsafe(32),
            endpoints={spec.name: spec for spec in specs},
            allowed={name: frozenset(tools) for name, tools in allowed.items()},
            limits=config.limits,
        )
        first = model.tool_named(panels[0].tool) if panels else None
        start = f"{config.locales[0]}/" + (f"tools/{first.slug}/" if first is not None else "")
        with tempfile.TemporaryDirectory(prefix="mcp-portal-try-it-") as tmp:
            site = Path(tmp) / "site"
            publish(site, files)
            say(
                for_terminal(f"Try it: {len(panels)} tool page(s) have the panel; each call goes through this preview.")
            )
            serve(site, host=args.host, port=args.port, proxy=proxy, start=f"{start}#try-it={proxy.token}")
    return 0
