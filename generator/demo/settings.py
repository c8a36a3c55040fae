"""What the portal needs to know about the demo, without importing the demo server.

Plain constants only: the build reads them to document the demo the way a product
team would configure its own portal, and importing them costs nothing (the server
module pulls in the SDK's server side and Starlette).
"""

from __future__ import annotations

from pathlib import Path

SERVER_NAME = "teamspace-demo"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
"""Where ``python -m generator.demo --http`` listens by default: the address the demo portal shows."""
CAPABILITY_META_KEY = "teamspace.example/capability"
"""The tool ``_meta`` key in which the demo declares the capability (scope) a tool needs."""
OPERATION_META_KEY = "teamspace.example/operation"
"""The tool ``_meta`` key in which the demo names the HTTP API operation behind a tool."""
OPENAPI = Path(__file__).resolve().parent / "openapi.yaml"
"""The OpenAPI document of the demo's (fictional) HTTP API, published with the demo portal."""
REGISTRY_NAME = "example.teamspace/teamspace-demo"
"""The demo's name in MCP registries: reverse-DNS of its website, teamspace.example (``registry.name``)."""
REGISTRY_DESCRIPTION = "A demo team workspace: search the chat archive, research, defects and documents."
"""What the demo does in at most 100 characters, for registries (its own description is longer)."""
