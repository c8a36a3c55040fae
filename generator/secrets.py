"""Expansion and redaction of secrets.

Header values and stdio arguments may contain ``${VAR}``; the value is read from
the environment at connection time and never stored.  Every string the tool
writes to the user (errors, logs) first goes through :func:`Redactor.redact`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from generator.errors import PortalError

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
MASK = "***"


def expand(text: str, environ: Mapping[str, str] | None = None, *, what: str) -> str:
    """Replace every ``${VAR}`` in *text* with the variable's value.

    A variable that is not set is an error rather than an empty string, because an
    empty token fails later with a far less helpful message.
    """
    env = os.environ if environ is None else environ

    def sub(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in env:
            raise PortalError(
                f"{what} refers to the environment variable {name}, which is not set. "
                f"Export {name} before running mcp-portal, or remove the reference."
            )
        return env[name]

    return _VAR.sub(sub, text)


def variables_in(text: str) -> list[str]:
    """Names of the ``${VAR}`` references in *text*, in order."""
    return _VAR.findall(text)


@dataclass
class Redactor:
    """Masks known secret values in any text shown to the user."""

    secrets: set[str] = field(default_factory=set)

    def add(self, values: Iterable[str]) -> None:
        # Very short values would mask ordinary words; they are not credentials anyway.
        self.secrets.update(v for v in values if len(v) >= 4)

    def redact(self, text: str) -> str:
        for secret in sorted(self.secrets, key=len, reverse=True):
            text = text.replace(secret, MASK)
        return text
