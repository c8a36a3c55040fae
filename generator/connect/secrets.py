"""Redaction of secrets.

Header values, stdio arguments and URLs may contain ``${VAR}``
(:mod:`generator.config.variables`); the value is read from the environment at
connection time and never stored.  Every string the tool
writes to the user (errors, warnings, ``--debug`` tracebacks and SDK log lines)
first goes through :meth:`Redactor.redact`.

A secret rarely comes back verbatim: an HTTP library quotes a header value as
``b'Bearer tok\\r\\n'``, a server echoes it JSON-escaped or URL-encoded, Basic
auth sends it base64-encoded.  :meth:`Redactor.add` therefore records every form
the value can take (see :func:`forms`), and :meth:`Redactor.redact` masks them
all in one pass, longest first.

One :class:`Redactor` per command run (:func:`start_session`) collects every
secret any connection registered, so ``main`` can redact what it prints last:
the error paragraph and, with ``--debug``, the traceback.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import re
import sys
from collections.abc import Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field
from urllib.parse import quote, quote_plus, unquote, urlsplit

MASK = "***"
MIN_SECRET = 4
"""Shorter values would mask ordinary words; they are not credentials anyway."""


def _escapes(value: str) -> set[str]:
    """How *value* looks inside a Python repr, a bytes repr, a JSON string and a URL."""
    found = {
        repr(value)[1:-1],
        repr(value.encode("utf-8", "backslashreplace"))[2:-1],
        value.encode("unicode_escape").decode("ascii"),
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=False)[1:-1],
        quote(value, safe=""),
        quote(value),
        quote_plus(value),
    }
    # Percent-escapes are case-insensitive: %2f is %2F.
    found |= {re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), f) for f in found if "%" in f}
    return found


def _base64(value: str) -> set[str]:
    raw = value.encode("utf-8", "surrogateescape")
    return {base64.b64encode(raw).decode("ascii"), base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")}


def _basic_halves(value: str) -> set[str]:
    """``user:pass`` (and each half) when *value* is ``Basic <base64>`` or a bare base64 pair."""
    token = value.strip()
    if token[:6].lower() == "basic ":
        token = token[6:].strip()
    if len(token) < MIN_SECRET or not re.fullmatch(r"[A-Za-z0-9+/]+=*", token):
        return set()
    try:
        decoded = base64.b64decode(token, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return set()
    user, sep, password = decoded.partition(":")
    return {decoded, user, password} if sep else set()


def forms(value: str) -> set[str]:
    """Every form of *value* worth masking: raw, stripped, escaped, encoded, and Basic-auth parts."""
    bases = {value, value.strip()}
    bases |= _basic_halves(value)
    bases = {b for b in bases if len(b) >= MIN_SECRET}
    found: set[str] = set(bases)
    for base in bases:
        escaped = _escapes(base)
        found |= escaped
        found |= _base64(base)
        # Escaped twice: a repr inside a JSON error body, a JSON string inside a repr.
        for once in escaped:
            found |= {json.dumps(once)[1:-1], repr(once)[1:-1]}
    return {f for f in found if len(f) >= MIN_SECRET}


@dataclass
class Redactor:
    """Masks known secret values, in every form they may take, in any text shown to the user."""

    secrets: set[str] = field(default_factory=set)
    _pattern: re.Pattern[str] | None = field(default=None, init=False, repr=False, compare=False)

    def add(self, values: Iterable[str]) -> None:
        """Remember *values* (each in all its :func:`forms`); the run's session redactor learns them too."""
        new = {form for v in values if len(v.strip()) >= MIN_SECRET for form in forms(v)}
        if not new - self.secrets:
            return
        self.secrets |= new
        self._pattern = None
        session = _SESSION.get()
        if session is not None and session is not self:
            session.add_forms(new)

    def add_forms(self, found: set[str]) -> None:
        """Remember already-expanded forms (from another redactor)."""
        if found - self.secrets:
            self.secrets |= found
            self._pattern = None

    def add_basic(self, user: str, password: str) -> None:
        """Credentials sent as HTTP Basic auth: each half, and the base64 of ``user:password``."""
        pair = f"{user}:{password}"
        self.add([password, pair, base64.b64encode(pair.encode("utf-8")).decode("ascii")])
        if len(user) >= MIN_SECRET:
            self.add([user])

    def add_url(self, url: str) -> None:
        """The credentials a URL carries: its userinfo (sent as Basic auth)."""
        try:
            parts = urlsplit(url)
        except ValueError:
            return
        if parts.password is not None or parts.username:
            self.add_basic(unquote(parts.username or ""), unquote(parts.password or ""))

    def redact(self, text: str) -> str:
        """*text* with every known form of every secret replaced by ``***``."""
        if not self.secrets:
            return text
        if self._pattern is None:
            ordered = sorted(self.secrets, key=lambda s: (-len(s), s))
            self._pattern = re.compile("|".join(re.escape(s) for s in ordered))
        return self._pattern.sub(MASK, text)

    def redact_json(self, value: object) -> object:
        """*value*, plain JSON from a server, with every string in it (keys included) :meth:`redact`-ed."""
        if not self.secrets:
            return value
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, list):
            return [self.redact_json(item) for item in value]
        if isinstance(value, dict):
            return {self.redact(str(key)): self.redact_json(item) for key, item in value.items()}
        return value


_SESSION: ContextVar[Redactor | None] = ContextVar("mcp_portal_redactor", default=None)


def start_session() -> Redactor:
    """A fresh redactor for this command run; every :class:`Redactor` created in it reports to it."""
    session = Redactor()
    _SESSION.set(session)
    return session


def session_redactor() -> Redactor:
    """The current run's redactor (an empty one outside a run)."""
    return _SESSION.get() or Redactor()


class RedactingFormatter(logging.Formatter):
    """Formats a log record (message and traceback) and masks the run's secrets in it."""

    def format(self, record: logging.LogRecord) -> str:
        return session_redactor().redact(super().format(record))


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is at the time (tests replace it)."""

    def emit(self, record: logging.LogRecord) -> None:
        self.setStream(sys.stderr)
        super().emit(record)


_LOG_HANDLER = _StderrHandler()
_LOG_HANDLER.setLevel(logging.WARNING)  # what Python's last-resort handler would show, now redacted
_LOG_HANDLER.setFormatter(RedactingFormatter("%(levelname)s %(name)s: %(message)s"))


def redact_logs(logger: logging.Logger) -> None:
    """Send *logger*'s records (``--debug``) to stderr through :class:`RedactingFormatter`, once."""
    if _LOG_HANDLER not in logger.handlers:
        logger.addHandler(_LOG_HANDLER)
