"""The bundled Teamspace demo MCP server, used by examples, tests and the sample portal.

``python -m generator.demo`` serves it over stdio; ``python -m generator.demo --http``
serves the ``full`` and ``readonly`` profiles over Streamable HTTP at the paths in
:data:`generator.demo.server.PROFILES`. All data is fake and fixed, so every run answers the same.
"""
