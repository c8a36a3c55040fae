"""The bare baseline of ``mcp-portal introspect``: walk ``tools/list`` with the SDK's client, nothing else.

    python bench/sdk_list_tools.py "python bench/scale_server.py --tools 1000"

Starts the server over stdio (the command is split like a shell would), follows
``next_cursor`` until the last page and prints how many tools it saw and how many pages
that took. ``bench/bench_scale.py`` times it as a child process, next to
``mcp-portal introspect`` of the same server, so the difference is what the generator
adds on top of the SDK (validation, snapshot writing, its own imports).
"""

from __future__ import annotations

import shlex
import sys

import anyio
from mcp import Client, StdioServerParameters


async def list_all(command: str) -> tuple[int, int]:
    """Connect to the stdio server *command* and page through every tool; (tools, pages)."""
    argv = shlex.split(command)
    params = StdioServerParameters(command=argv[0], args=argv[1:])
    tools = pages = 0
    async with Client(params, mode="auto") as client:
        cursor: str | None = None
        while True:
            page = await client.list_tools(cursor=cursor)
            tools += len(page.tools)
            pages += 1
            cursor = page.next_cursor
            if not cursor:
                return tools, pages


def main(argv: list[str]) -> int:
    """``sdk_list_tools.py COMMAND``: print "N tools in P pages"."""
    if len(argv) != 1:
        print('usage: python bench/sdk_list_tools.py "SERVER COMMAND"', file=sys.stderr)
        return 2
    tools, pages = anyio.run(list_all, argv[0])
    print(f"{tools} tools in {pages} pages")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
