"""Entry point of ``python -m generator.demo`` (stdio by default, ``--http`` for Streamable HTTP)."""

from __future__ import annotations

from generator.demo.server import main

if __name__ == "__main__":
    raise SystemExit(main())
