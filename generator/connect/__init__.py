"""Stage 3, connecting: sessions with the official ``mcp`` SDK, listing with cursors,
failures explained, secrets expanded and redacted, and endpoints merged into one snapshot.

The only stage that speaks MCP.  Knows nothing of HTML or locales.
"""
