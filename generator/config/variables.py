"""``${VAR}`` references in configuration values: found, checked and expanded.

Header values, stdio arguments and URLs may name environment variables instead of
holding secrets; they are expanded only when connecting, and what they expand to is
registered with :mod:`generator.connect.secrets` for redaction.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from generator.errors import PortalError

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def expand(text: str, environ: Mapping[str, str] | None = None, *, what: str) -> str:
    """Replace every ``${VAR}`` in *text* with the variable's value.

    A variable that is not set, or set but empty (or blank), is an error rather than an empty string,
    because an empty token fails later with a far less helpful message: the server's 401, read as a
    refused token. CI passes a missing secret as an empty variable (GitHub Actions does, in a pull
    request from a fork).
    """
    env = os.environ if environ is None else environ

    def sub(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in env:
            raise PortalError(
                f"{what} refers to the environment variable {name}, which is not set. "
                f"Export {name} before running mcp-portal, or remove the reference."
            )
        if not env[name].strip():
            raise PortalError(
                f"{what} refers to the environment variable {name}, which is set but empty. In CI, a secret "
                f"that is missing or not given to this job (GitHub Actions gives none to a pull request from a "
                f"fork) arrives empty: set it, or skip the step when it is empty."
            )
        return env[name]

    return _VAR.sub(sub, text)


def expand_or(text: str, placeholder: str, environ: Mapping[str, str] | None = None) -> str:
    """*text* with each set ``${VAR}`` expanded and each unset (or empty) one replaced by *placeholder*.

    For checking the shape of a value (a URL) before the variables it needs must be set: a variable
    that is empty is refused by :func:`expand`, with words about the variable, not about the shape.
    """
    env = os.environ if environ is None else environ

    def value(match: re.Match[str]) -> str:
        found = env.get(match.group(1), "")
        return found if found.strip() else placeholder

    return _VAR.sub(value, text)


def variables_in(text: str) -> list[str]:
    """Names of the ``${VAR}`` references in *text*, in order."""
    return _VAR.findall(text)
