"""A stdio program that answers every request with JSON-RPC error -32001, as a server refusing its credentials.

    API_TOKEN=... python -m tests.servers.refusing_server

-32001 lies in the range JSON-RPC leaves to servers, and servers use it for "Unauthorized"; the MCP SDK
uses the same code for its own request timeout. The message quotes the token the program was given, as
a careless server does, so a test can check that it never reaches what mcp-portal prints
(tests/test_introspect.py). Standard library only: a deliberately broken server no SDK would write.
"""

from __future__ import annotations

import json
import os
import sys


def main() -> None:
    """Answer each request read from stdin with the error, until the client closes stdin."""
    for line in sys.stdin:
        message = json.loads(line)
        if "id" in message and "method" in message:
            error = {"code": -32001, "message": f"Unauthorized: the token {os.environ.get('API_TOKEN')} was refused"}
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error}) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
