"""What the author says of the server for registries (``registry:`` in ``portal.yaml``), one option each.

``server.json`` (the MCP registry's entry) and the Server Card need a few facts a server never says: a
reverse-DNS name (unless the server's own name is one), a description of at most 100 characters (unless the
server's fits), the source repository, the package that runs it. Part of the single table of settings in
:mod:`generator.config.options` (which lists the ``registry`` key); :mod:`generator.model.discovery` uses them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any

from generator.config import checks
from generator.config.checks import Collector
from generator.config.option import Check, Option, from_file

REVERSE_DNS = re.compile(r"[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+")
"""A registry name: a reverse-DNS namespace, one slash, the server's name (the registry's own pattern)."""
PACKAGE_TYPES = ("npm", "pypi", "nuget", "oci", "mcpb")
MAX_DESCRIPTION = 100


def registry_name(value: Any, key: str, collect: Collector) -> str | None:
    """A reverse-DNS name such as ``io.github.acme/weather``, 3 to 200 characters."""
    if isinstance(value, str) and 3 <= len(value) <= 200 and REVERSE_DNS.fullmatch(value):
        return value
    collect.add(key, "must be a reverse-DNS name with one slash, such as io.github.acme/weather")
    return None


def short_text(value: Any, key: str, collect: Collector) -> str | None:
    """A non-empty string of at most 100 characters (the registry's limit for a description)."""
    text = collect.text(key, value)
    if text is not None and len(text) > MAX_DESCRIPTION:
        collect.add(key, f"must be at most {MAX_DESCRIPTION} characters (it has {len(text)})")
        return None
    return text


def web_url(value: Any, key: str, collect: Collector) -> str | None:
    """An absolute http(s) URL."""
    text = collect.text(key, value)
    if text is not None and checks.url_problem(text):
        collect.add(key, "must be an absolute http(s) URL such as https://github.com/acme/weather-mcp")
        return None
    if text is not None and checks.has_credentials(text):  # a clone URL with its token, say
        collect.add(key, "must not hold a user name or password: server.json and the Server Card publish it")
        return None
    return text


def package_type(value: Any, key: str, collect: Collector) -> str | None:
    """One of the registry's package types."""
    if value in PACKAGE_TYPES:
        return str(value)
    collect.add(key, f"must be one of {', '.join(PACKAGE_TYPES)}")
    return None


def _option(name: str, type_doc: str, meaning: str, check: Check) -> Option:
    return Option(key=f"registry.{name}", field=name, default=None, type_doc=type_doc, meaning=meaning, check=check)


REGISTRY: tuple[Option, ...] = (
    _option(
        "name",
        "reverse-DNS name",
        "the server's name in registries, such as `io.github.acme/weather` (default: the server's own name, "
        "when it is one)",
        registry_name,
    ),
    _option(
        "description",
        "string, at most 100 characters",
        "what the server does, for registries (default: the server's description, when it has at most 100 characters)",
        short_text,
    ),
    _option("repository", "http(s) URL", "the server's source repository", web_url),
    _option(
        "repository_source",
        "string",
        "the repository's host, such as `github` (default: `github` or `gitlab` from the URL's host)",
        checks.text,
    ),
    _option("package_type", "`npm`, `pypi`, `nuget`, `oci` or `mcpb`", "the registry of the package", package_type),
    _option("package", "string", "the package that runs the server over stdio: its name, image or URL", checks.text),
    _option("package_version", "string", "the package's version (npm, PyPI, NuGet)", checks.text),
)


@dataclass(frozen=True)
class Registry:
    """The ``registry:`` settings; every one is optional."""

    name: str | None = None
    description: str | None = None
    repository: str | None = None
    repository_source: str | None = None
    package_type: str | None = None
    package: str | None = None
    package_version: str | None = None

    def __bool__(self) -> bool:
        return any(getattr(self, f.name) is not None for f in fields(self))


def load_registry(data: Any, collect: Collector) -> Registry:
    """The ``registry:`` mapping of ``portal.yaml``; problems go to *collect*."""
    if not isinstance(data, dict):
        collect.add("registry", "must be a mapping of keys such as `name` and `repository`")
        return Registry()
    collect.unknown("registry.", data, {o.name for o in REGISTRY})
    values = from_file(data, collect, REGISTRY)
    if ("package" in values) != ("package_type" in values):
        collect.add("registry.package", "and `registry.package_type` go together: give both, or neither")
    return Registry(**values)
