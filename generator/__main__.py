"""``python -m generator`` is the same as the ``mcp-portal`` command."""

from __future__ import annotations

from generator.commands.cli import run

if __name__ == "__main__":
    run()
