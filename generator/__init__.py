"""mcp-portal: turn a running MCP server into a localized documentation portal.

The pipeline runs one way: ``connect`` (speaks MCP) -> ``snapshot`` (frozen JSON) -> ``model``
(pages, rows, examples) -> ``render`` (Jinja2) -> ``publish`` (files). ``docs/architecture.md``
maps every stage package.
"""

__version__ = "0.1.0"
