"""``python -m generator`` is the same as the ``mcp-portal`` command."""

from __future__ import annotations

from generator.cli import run

if __name__ == "__main__":
    run()
