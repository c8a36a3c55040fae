"""A program that writes lines that are not JSON-RPC to stdout instead of speaking MCP, then reads stdin to its end.

    python -m tests.servers.garbage_server

It imports nothing but the standard library, so its garbage arrives within a few milliseconds of its
start, even on a loaded machine: a test can give the handshake a short timeout and still be sure the
garbage came first (tests/test_introspect.py, tests/test_hostile.py).
"""

from __future__ import annotations

import sys

LINES = ("hello, I am not an MCP server", "{not json", "Traceback? no, just noise")


def main() -> None:
    """Write :data:`LINES`, then read (and ignore) stdin until the client closes it, as a stdio program does."""
    for line in LINES:
        sys.stdout.write(line + "\n")
    sys.stdout.flush()
    while sys.stdin.buffer.read(65536):
        pass


if __name__ == "__main__":
    main()
