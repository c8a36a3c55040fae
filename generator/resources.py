"""Where the shipped ``templates/`` and ``locales/`` live.

In a wheel they are copied into the package (see ``pyproject.toml``); in a source
checkout or an editable install they sit at the repository root.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """The directory holding the shipped *name* (``templates`` or ``locales``)."""
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"mcp-portal is installed without its {name}/ directory; reinstall the package")
