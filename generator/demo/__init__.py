"""The bundled Teamspace demo MCP server, used by examples, tests and the sample portal.

``python -m generator.demo`` serves it over stdio; ``python -m generator.demo --http``
serves the ``full`` and ``readonly`` profiles over Streamable HTTP at the paths in
:data:`PROFILES`. All data is fake and fixed, so every run answers the same.
"""

from __future__ import annotations

from generator.demo.server import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    PROFILES,
    SERVER_NAME,
    SERVER_VERSION,
    build_http_app,
    build_server,
    main,
)
from generator.demo.tools import tool_names

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "PROFILES",
    "SERVER_NAME",
    "SERVER_VERSION",
    "build_http_app",
    "build_server",
    "main",
    "tool_names",
]
