"""Errors a user can act on.

Every failure the user can fix is raised as a :class:`PortalError` carrying one
paragraph: what failed and what to do. The CLI prints that paragraph and exits
with the error's code; tracebacks are shown only with ``--debug``.
"""

from __future__ import annotations


class PortalError(Exception):
    """A failure with a one-paragraph, user-facing explanation (exit code 1)."""

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UsageError(PortalError):
    """The command line or its combination of options is wrong (exit code 2)."""

    exit_code = 2


class ConfigError(PortalError):
    """``portal.yaml`` is missing, unreadable or invalid (exit code 1).

    Holds every problem found, each with the key it concerns, so the user can
    fix them all in one pass.
    """

    def __init__(self, source: str, problems: list[str], fix: str = "Fix these keys and run again.") -> None:
        listing = "; ".join(problems)
        super().__init__(f"The configuration in {source} is invalid: {listing}. {fix}")
        self.problems = problems
