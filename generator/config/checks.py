"""Checks of single configuration values, shared by ``portal.yaml`` and the command line.

Each checker takes the raw value, the name the user wrote (``limits.max_pages`` in the
file, ``--max-pages`` on the command line) and a :class:`Collector`; it returns the
accepted value, or None after recording one problem. Because the file and the command
line run the same checker, a value gets the same message wherever it was given.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any
from urllib.parse import urlsplit

from generator.config.variables import expand_or
from generator.labels import label_problem


class Collector:
    """Gathers problems with their keys so all of them are reported at once (config file and command line)."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def add(self, key: str, problem: str) -> None:
        """Record that ``key`` has ``problem`` (a phrase such as "must be a non-empty string")."""
        self.problems.append(f"`{key}` {problem}")

    def unknown(self, prefix: str, data: dict[str, Any], allowed: set[str]) -> None:
        """Record every key of ``data`` that is not in ``allowed``, naming the known ones."""
        for key in sorted(set(data) - allowed, key=str):
            self.add(f"{prefix}{key}", f"is not a known key (known: {', '.join(sorted(allowed))})")

    def text(self, key: str, value: Any) -> str | None:
        """``value`` if it is a non-empty string; None (and a problem unless it was absent) otherwise."""
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            self.add(key, "must be a non-empty string")
            return None
        return value


URL_EXAMPLE = "http://127.0.0.1:8000/mcp/"


def url_problem(url: str) -> str | None:
    """Why *url* is not a usable http(s) URL, or None when it is.

    ``${VAR}`` references are expanded first (an unset one stands in as ``0``: it is reported
    when connecting), so ``http://127.0.0.1:${PORT}/mcp/`` is checked as the URL it becomes.
    The reasons never quote the expanded URL, which may carry credentials.
    """
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in url.strip()):
        return "it contains spaces or control characters"
    candidate = expand_or(url.strip(), "0")
    try:
        parts = urlsplit(candidate)
        parts.port  # noqa: B018 - reading it validates the port
    except ValueError as exc:
        if "Port" in str(exc) or "port" in str(exc):
            return "its port is not a number from 0 to 65535"
        return "it cannot be parsed as a URL (is a [ of an IPv6 address left unclosed?)"
    if parts.scheme not in ("http", "https"):
        return "it must start with http:// or https://"
    if not parts.hostname:
        return "it has no host"
    return None


_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
"""An HTTP field name (RFC 9110's ``token``): what any HTTP client refuses to send otherwise."""


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def env_name_problem(name: str) -> str | None:
    """Why *name* cannot name an environment variable passed to a stdio server; None when it can. The text is
    never quoted: given where a name belongs, it may be a value, a secret (``--env TOKEN=...``)."""
    if _ENV_NAME.fullmatch(name):
        return None
    variable = name.partition("=")[0]
    if "=" in name and _ENV_NAME.fullmatch(variable):
        return (
            f"takes the name of a variable to pass on, not NAME=VALUE: export {variable} first, then give {variable} "
            f"alone (a value written here would show in process lists and CI logs, so it is not shown)"
        )
    return (
        "holds something that is not the name of an environment variable (letters, digits and _, not starting "
        "with a digit); it is not shown, in case it is a value"
    )


def header_name_problem(name: str) -> str | None:
    """Why *name* cannot be sent as an HTTP header's name, or None when it can; of the name it quotes the first
    word only. (A value is checked once its ``${VAR}`` references are expanded, on connecting:
    :mod:`generator.connect.session`.)"""
    if _HEADER_NAME.fullmatch(name):
        return None
    # Only its first word is shown: what follows a blank may be a value ("Authorization Bearer TOKEN").
    first, *rest = name.split(maxsplit=1) or [""]  # an empty or blank name has no word at all
    return (
        f"the header name {json.dumps(first + (' ...' if rest else ''))[:80]} is not a valid HTTP header name "
        f"(letters, digits and !#$%&'*+-.^_`|~ only: no spaces, colons or other characters)"
    )


def text(value: Any, key: str, collect: Collector) -> str | None:
    """A non-empty string (a title, a path, a ``_meta`` key)."""
    return collect.text(key, value)


def flag(value: Any, key: str, collect: Collector) -> bool | None:
    """``true`` or ``false``."""
    if isinstance(value, bool):
        return value
    collect.add(key, "must be true or false")
    return None


def has_credentials(url: str) -> bool:
    """Whether *url* holds a user name or password (``https://bot:TOKEN@host/``): a URL the site publishes must not."""
    return "@" in urlsplit(url).netloc


def site_url(value: Any, key: str, collect: Collector) -> str | None:
    """The site's public address: an absolute http(s) URL, always ending in ``/``."""
    base = collect.text(key, value)
    if base is None:
        return None
    if url_problem(base):
        collect.add(key, "must be an absolute http(s) URL such as https://docs.example.com/mcp/")
        return None
    if has_credentials(base):  # never quoted: it may be a password
        collect.add(key, "must not hold a user name or password: every page of the public site shows it")
        return None
    parts = urlsplit(base)
    if parts.query or parts.fragment or base.endswith(("?", "#")):
        collect.add(key, "must be the site's address without ?query or #fragment: each page's path is added to it")
        return None
    return base if base.endswith("/") else base + "/"


def locales(value: Any, key: str, collect: Collector) -> tuple[str, ...] | None:
    """``en,ru`` or a YAML list; each code must look like a locale tag. Repeats are dropped."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list) or not items:
        collect.add(key, "must be a list of locale codes such as [en, ru, ar]")
        return None
    given = [str(item).strip() for item in items]
    if not any(given):  # `--locales "$LOCALES"` with the variable unset, or only commas
        collect.add(key, "names no locale: give codes such as en,ru,ar")
        return None
    if not all(given):  # `en,,ru`: said once, not once per gap
        where = " (a comma with nothing on one side)" if isinstance(value, str) else ""
        collect.add(key, f"has an empty locale code{where}")
    codes: list[str] = []
    for code in filter(None, given):
        if not code.replace("_", "-").replace("-", "").isalnum():
            collect.add(key, f"has an invalid locale code {code!r}")
        elif code not in codes:
            codes.append(code)
    return tuple(codes) if all(given) else None


def names(value: Any, key: str, collect: Collector) -> tuple[str, ...] | None:
    """``a,b`` or a YAML list of non-empty names (tool names); repeats are dropped."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(item, str) and item.strip() for item in items):
        collect.add(key, "must be a list of tool names such as [search_chat, file_defect]")
        return None
    return tuple(dict.fromkeys(item.strip() for item in items))


_LANGUAGE_TAG = re.compile(r"[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8}){0,8}")


def language(value: Any, key: str, collect: Collector) -> str | None:
    """A BCP 47 language tag such as ``en``, ``de`` or ``pt-BR``."""
    if isinstance(value, str) and _LANGUAGE_TAG.fullmatch(value.strip()):
        return value.strip()
    collect.add(key, "must be a language tag such as en, de or pt-BR")
    return None


def capability_rule(value: Any, key: str, collect: Collector) -> str | None:
    """``server``, ``fingerprint`` or ``meta:KEY``."""
    if value in ("server", "fingerprint"):
        return str(value)
    if isinstance(value, str) and value.startswith("meta:") and len(value) > 5:
        return value
    collect.add(key, "must be `server`, `fingerprint` or `meta:KEY`")
    return None


def count(value: Any, key: str, collect: Collector) -> int | None:
    """A positive whole number."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        collect.add(key, "must be a positive whole number")
        return None
    return value


def seconds(value: Any, key: str, collect: Collector) -> float | None:
    """A positive number of seconds (fractions allowed), finite: a limit that is NaN or infinite bounds nothing."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
        collect.add(
            key, "must be a positive number" + (", not NaN or infinity" if value != value or value == math.inf else "")
        )
        return None
    return value


def version_label(value: Any, key: str, collect: Collector) -> str | None:
    """A version label (:func:`label_problem`), such as ``2.5.0``."""
    problem = label_problem(value) if isinstance(value, str) else "it is not text"
    if problem is not None:
        collect.add(key, f"cannot name a version's directory: {problem}; use a label such as 2.5.0")
        return None
    return str(value)
