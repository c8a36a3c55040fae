"""The bundled demo as a product team would document it: three endpoints and its settings.

``mcp-portal build`` with no server documents the demo; this module turns the demo's
plain settings (:mod:`generator.demo.settings`) into server specs and a configuration.
It lives with the commands because it wires a server to the pipeline; the demo server
itself imports nothing from the pipeline.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from generator.config.portal import PortalConfig, ServerSpec
from generator.config.registry import Registry
from generator.demo import settings
from generator.snapshot.snapshot import Snapshot

DEMO_PUBLIC_HTTP = f"http://{settings.DEFAULT_HOST}:{settings.DEFAULT_PORT}"
"""Where ``python -m generator.demo --http`` listens by default: the address the demo portal shows."""


def demo_server() -> ServerSpec:
    """The bundled demo server over stdio, with this very interpreter."""
    # The child gets only an allow-listed environment, so point it at this very package:
    # that works from a wheel, an editable install and a plain source checkout alike.
    package_root = str(Path(__file__).resolve().parent.parent.parent)
    return ServerSpec(
        command=(sys.executable, "-m", "generator.demo"),
        fixed_env=(("PYTHONPATH", package_root),),
        label=DEMO_LABEL,
    )


DEMO_LABEL = "python -m generator.demo"
"""How the demo's stdio command is shown, and recorded as its endpoint's address."""


def is_bundled_demo(snapshot: Snapshot) -> bool:
    """Whether *snapshot* was taken of the bundled demo by mcp-portal itself.

    Its server name alone is not enough (anyone may name a server ``teamspace-demo``): the
    demo's stdio endpoint is recorded as ``python -m generator.demo``, which only
    :func:`demo_server` writes.
    """
    return snapshot.server.get("name") == settings.SERVER_NAME and any(
        record.transport == "stdio" and record.address == DEMO_LABEL for record in snapshot.endpoints
    )


def demo_config(config: PortalConfig) -> PortalConfig:
    """*config* with the demo's own settings filled in where it leaves them unset.

    The demo declares its capabilities and API operations in tool ``_meta`` and ships the
    OpenAPI document of its (fictional) HTTP API, so the demo portal shows every section; its registry
    name and short description give it a ``server.json`` and a Server Card.
    """
    registry = config.registry or Registry(name=settings.REGISTRY_NAME, description=settings.REGISTRY_DESCRIPTION)
    return replace(
        config,
        scope_meta_key=config.scope_meta_key or settings.CAPABILITY_META_KEY,
        openapi=config.openapi or str(settings.OPENAPI),
        operation_meta_key=config.operation_meta_key or settings.OPERATION_META_KEY,
        registry=registry,
    )


def demo_endpoints(http_base: str) -> tuple[ServerSpec, ...]:
    """The demo's three endpoints: stdio and the two HTTP profiles served at *http_base*.

    The HTTP server we introspect listens on a free port, but readers see the address
    ``python -m generator.demo --http`` uses by default.
    """
    stdio = replace(demo_server(), name="stdio", profile="full")
    return (
        stdio,
        ServerSpec(url=f"{http_base}/mcp/", name="http", profile="full", public=f"{DEMO_PUBLIC_HTTP}/mcp/"),
        ServerSpec(
            url=f"{http_base}/mcp/readonly/",
            name="readonly",
            profile="readonly",
            public=f"{DEMO_PUBLIC_HTTP}/mcp/readonly/",
        ),
    )
