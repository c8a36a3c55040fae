"""mcp-portal: turn a running MCP server into a localized documentation portal.

The pipeline runs one way: ``introspect`` (speaks MCP) -> ``snapshot`` (frozen JSON)
-> ``model`` (pages, rows, examples) -> ``render`` (Jinja2) -> ``publish`` (files).
"""

from __future__ import annotations

__version__ = "0.1.0"
