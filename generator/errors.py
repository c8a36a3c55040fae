"""Errors a user can act on.

Every failure the user can fix is raised as a :class:`PortalError` carrying one
paragraph: what failed and what to do. The CLI prints that paragraph and exits
with the error's code; tracebacks are shown only with ``--debug``.
"""

from __future__ import annotations

import errno
import os


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


def os_failure(exc: OSError, instead: str) -> str:
    """What *exc* says, naming the file it was about, then what to do (by its errno), ending with *instead*
    (e.g. ``"choose another --out"``): the close of a message about a file that could not be written or read."""
    name = exc.filename if isinstance(exc.filename, str) else None
    said = f"{exc.strerror or exc}: {name}" if name else f"{exc.strerror or exc}"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        advice = f"Free some space on its file system (or raise your quota), or {instead}."
    elif exc.errno == errno.EROFS:
        advice = f"Its file system is mounted read-only: {instead}."
    elif exc.errno in (errno.EMFILE, errno.ENFILE):
        advice = "Too few files may be open at once: raise the limit (e.g. ulimit -n 1024) and run again."
    elif exc.errno in (errno.EACCES, errno.EPERM) and name:
        # A file not made yet is refused by the directory that was to hold it.
        at = name if os.path.lexists(name) else os.path.dirname(name) or "."
        theirs = not_yours(at)
        advice = (
            f"{at} {theirs}: run as that user, or {instead}."
            if theirs
            else f"Check the permissions of {at} and of the directory that holds it, or {instead}."
        )
    else:
        advice = f"Check the path and its file system, or {instead}."
    return f"({said}). {advice}"


def not_yours(path: str | os.PathLike[str]) -> str | None:
    """``"belongs to uid 0, not to you (uid 1001)"`` when another user owns *path* (not followed through a link);
    None when you do, or when it cannot be examined (gone, say)."""
    try:
        owner = os.lstat(path).st_uid
    except OSError:
        return None
    return f"belongs to uid {owner}, not to you (uid {os.geteuid()})" if owner != os.geteuid() else None


def missing_directory() -> PortalError | None:
    """The error for a command run from a directory that has since been removed (a shell still in a folder a
    CI step deleted): a relative path then names nothing, and Python says only "No such file or directory"."""
    try:
        os.getcwd()
    except FileNotFoundError:
        return PortalError(
            "The current directory no longer exists (it was removed while this shell was in it), so a relative "
            "path names nothing. cd to a directory that exists, or give absolute paths, and run again."
        )
    return None


_CERTIFICATE_ADVICE = {
    10: "Its TLS certificate has expired: the server's operators must renew it.",
    62: "Its TLS certificate is for another host name: check the host in the URL.",
}
"""What to do about a certificate check that failed, by OpenSSL's verify code (X509_V_ERR_CERT_HAS_EXPIRED,
X509_V_ERR_HOSTNAME_MISMATCH); any other failure is an authority this machine does not trust."""
_UNTRUSTED = (
    "Its TLS certificate is not trusted here: if your organisation signs its own, point the environment variable "
    "SSL_CERT_FILE at a bundle (PEM) that holds its authority; mcp-portal reads it."
)


def certificate_advice(exc: BaseException) -> str | None:
    """What to do when *exc*, or an error it was raised from, is a failed check of a TLS certificate; else None.
    Said wherever mcp-portal reads HTTPS (a server's URL, a published portal's)."""
    import ssl  # here, not at the top: every command imports this module, and only an HTTPS failure needs ssl

    seen: BaseException | None = exc
    for _ in range(8):  # the chain httpx builds is short; a cycle must not loop
        if seen is None:
            return None
        if isinstance(seen, ssl.SSLCertVerificationError):
            return _CERTIFICATE_ADVICE.get(seen.verify_code, _UNTRUSTED)
        seen = seen.__cause__ or seen.__context__
    return None
