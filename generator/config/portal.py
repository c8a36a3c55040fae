"""Configuration: where the server is, how the portal looks, and the limits.

``portal.yaml`` is validated once, up front.  Every problem is collected with its
key, unknown keys are rejected, and the whole list is reported in one error, so a
user fixes the file in one pass (the lesson from mkdocs' option descriptors).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from generator.config.variables import expand_or
from generator.errors import ConfigError

DEFAULT_LOCALES = ("en", "ru", "ar")


@dataclass(frozen=True)
class Limits:
    """Bounds on what a server can cost us. Each has a CLI option and a config key."""

    request_timeout: float = 30.0
    """Seconds one MCP request may take."""
    total_timeout: float = 120.0
    """Seconds the whole introspection may take, connection included."""
    max_pages: int = 100
    """Pages of a ``*/list`` walk before we stop: a server that never ends cannot hang CI."""
    max_tools: int = 5000
    """Tools accepted from one server."""
    max_description: int = 20000
    """Characters of one description shown; the rest is cut, and the page says so."""
    max_schema_bytes: int = 262144
    """Size of one schema (as JSON) that is flattened and given examples; a larger one is shown cut."""
    max_schema_depth: int = 24
    """Nesting levels of a schema shown as rows; deeper levels are marked, not expanded."""
    max_render_seconds: float = 900.0
    """Seconds a build may spend turning the snapshot into files (examples, pages, search index),
    introspection not included: a schema built to be slow fails the build with a message instead
    of holding CI until its own timeout kills it. 15 minutes is far above what real servers need."""


_TEMPLATE = re.compile(r"(?:[A-Za-z][A-Za-z0-9-]* )?(?:\$\{[A-Za-z_][A-Za-z0-9_]*\})+")
"""A header value safe to publish as a pattern: an optional scheme word, then only ``${VAR}`` references."""
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""An endpoint's or profile's name: shown on pages and used as a key in client configurations."""


@dataclass(frozen=True)
class ServerSpec:
    """One endpoint of the server: a stdio command or a Streamable HTTP URL, and its name and profile.

    Values may contain ``${VAR}``; they are expanded only when connecting and the
    expanded form is never stored.
    """

    command: tuple[str, ...] = ()
    env: tuple[str, ...] = ()
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    fixed_env: tuple[tuple[str, str], ...] = ()
    """Variables we set ourselves (never secrets), e.g. the demo's PYTHONPATH."""
    label: str | None = None
    """How to show the command, when the real one is machine-specific (the demo's interpreter path)."""
    name: str = "default"
    """The endpoint's name (unique in a configuration)."""
    profile: str | None = None
    """The product profile this endpoint serves (``full``, ``readonly``...); defaults to the name."""
    public: str | None = None
    """The address readers use, when it differs from the one we connect to (a public URL, a packaged command)."""

    @property
    def transport(self) -> str:
        return "streamable-http" if self.url else "stdio"

    def describe(self) -> str:
        """A safe, human description (no header values, no expanded variables)."""
        if self.url:
            where = f"the server at {_strip_credentials(self.url)}"
        else:
            where = f"the server started by `{self.label or shlex.join(self.command)}`"
        return where if self.name == "default" else f"{where} (endpoint `{self.name}`)"

    def public_endpoint(self) -> str:
        """What the snapshot records as the endpoint: never a secret."""
        if self.public:
            return _strip_credentials(self.public) if self.url else self.public
        if self.url:
            return _strip_credentials(self.url)
        return self.label or shlex.join(self.command)

    def auth_template(self) -> tuple[tuple[str, str | None], ...]:
        """Header names with their value templates (``Bearer ${TOKEN}``); None where the value may hold a secret.

        Only a template made of ``${VAR}`` references, optionally after an auth scheme word
        (``Bearer``, ``Basic``...), is kept: any other literal text could be a secret.
        """
        return tuple((name, value if _TEMPLATE.fullmatch(value) else None) for name, value in self.headers)


@dataclass(frozen=True)
class PortalConfig:
    """Everything a build needs besides the snapshot itself."""

    title: str | None = None
    base_url: str | None = None
    locales: tuple[str, ...] = DEFAULT_LOCALES
    server: ServerSpec | None = None
    """The one server to document (``server:``, ``--stdio``, ``--url``)."""
    endpoints: tuple[ServerSpec, ...] = ()
    """Several endpoints or profiles of one product (``endpoints:``), introspected together."""
    scope_meta_key: str | None = None
    """The tool ``_meta`` key holding the capability or scope a tool requires."""
    openapi: str | None = None
    """An OpenAPI 3.x document of the product's HTTP API; tools are mapped to its operations."""
    operation_meta_key: str | None = None
    """The tool ``_meta`` key naming its API operation (an operationId or ``METHOD /path``)."""
    capability_version: str = "server"
    """``server`` (the server's version), ``fingerprint``, or ``meta:KEY`` (a ``_meta`` key of
    the discover or initialize result)."""
    out: str = "site"
    limits: Limits = field(default_factory=Limits)
    template_dir: str | None = None
    search: bool = True
    """Build the Pagefind search index (``--no-search`` or ``search: false`` skips it)."""
    translations_dir: str | None = None
    """Optional ``<locale>.yaml`` translations of tool titles and descriptions (see translations.py)."""
    overlays_dir: str | None = None
    """Author overlays, one YAML file per tool: notes, examples, troubleshooting, related tools (see overlays.py)."""
    previous: str | None = None
    """A previous snapshot (or built site): adds a changelog page of what changed since."""
    source: str = "defaults"

    @property
    def connections(self) -> tuple[ServerSpec, ...]:
        """Every endpoint to introspect: ``endpoints``, else the one ``server``."""
        if self.endpoints:
            return self.endpoints
        return (self.server,) if self.server else ()

    def with_overrides(self, **changes: Any) -> PortalConfig:
        """A copy with the given fields replaced (CLI options win over the file)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def _strip_credentials(url: str) -> str:
    """*url* without userinfo, query and fragment. Never raises: the URL may still hold ``${PORT}``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "an invalid URL"
    host = parts.netloc.rpartition("@")[2]  # not .hostname/.port: those parse (and reject) ${VAR}
    return f"{parts.scheme}://{host}{parts.path}"


URL_EXAMPLE = "http://127.0.0.1:8000/mcp/"


def url_problem(url: str) -> str | None:
    """Why *url* is not a usable http(s) server URL, or None when it is.

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


# --- validation ---------------------------------------------------------------------------

_TOP_KEYS = {
    "title",
    "base_url",
    "locales",
    "server",
    "endpoints",
    "capability_version",
    "out",
    "limits",
    "templates",
    "translations",
    "search",
    "overlays",
    "scope_meta_key",
    "openapi",
    "operation_meta_key",
}
_SERVER_KEYS = {"stdio", "env", "url", "headers", "cwd", "transport", "public"}
_ENDPOINT_KEYS = _SERVER_KEYS | {"name", "profile"}
_TRANSPORTS = {"stdio", "streamable-http"}


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

    def number(self, key: str, value: Any, *, integer: bool) -> float | None:
        """``value`` if it is a positive number (whole when ``integer``); None and a problem otherwise."""
        kinds = (int,) if integer else (int, float)
        if isinstance(value, bool) or not isinstance(value, kinds) or value <= 0:
            self.add(key, f"must be a positive {'whole number' if integer else 'number'}")
            return None
        return value


def parse_locales(value: Any, collect: Collector, key: str = "locales") -> tuple[str, ...] | None:
    """Accept ``en,ru`` or a YAML list; check each code looks like a locale tag."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list) or not items:
        collect.add(key, "must be a list of locale codes such as [en, ru, ar]")
        return None
    codes = []
    for item in items:
        code = str(item).strip()
        if not code or not code.replace("_", "-").replace("-", "").isalnum():
            collect.add(key, f"has an invalid locale code {item!r}")
            continue
        if code not in codes:
            codes.append(code)
    return tuple(codes) or None


def _server(data: Any, collect: Collector, key: str = "server", allowed: set[str] = _SERVER_KEYS) -> ServerSpec | None:
    """One server or endpoint entry; problems are collected under *key*."""
    if not isinstance(data, dict):
        collect.add(key, "must be a mapping with `stdio` or `url`")
        return None
    collect.unknown(f"{key}.", data, allowed)
    stdio, url = data.get("stdio"), data.get("url")
    if (stdio is None) == (url is None):
        collect.add(key, "needs exactly one of `stdio` (a command) or `url` (a Streamable HTTP endpoint)")
        return None
    env = data.get("env") or []
    if not isinstance(env, list) or not all(isinstance(e, str) and e for e in env):
        collect.add(f"{key}.env", "must be a list of environment variable names")
        env = []
    headers_raw = data.get("headers") or {}
    headers: list[tuple[str, str]] = []
    if not isinstance(headers_raw, dict):
        collect.add(f"{key}.headers", "must be a mapping of header name to value")
    else:
        for name, value in headers_raw.items():
            if not isinstance(value, str):
                collect.add(f"{key}.headers.{name}", "must be a string (use ${VAR} for secrets)")
                continue
            headers.append((str(name), value))
    transport = data.get("transport")
    expected = "stdio" if stdio is not None else "streamable-http"
    if transport is not None and transport != expected:
        shown = ", ".join(sorted(_TRANSPORTS))
        if transport not in _TRANSPORTS:
            collect.add(f"{key}.transport", f"must be one of {shown}")
        else:
            collect.add(f"{key}.transport", f"is {transport}, but the entry gives {'`stdio`' if stdio else '`url`'}")
    public = collect.text(f"{key}.public", data.get("public"))
    if stdio is not None:
        try:
            command = shlex.split(stdio) if isinstance(stdio, str) else stdio
        except ValueError:
            command = None
        if not isinstance(command, list) or not command or not all(isinstance(c, str) for c in command):
            collect.add(f"{key}.stdio", "must be a command line such as `uvx mcp-server-time`")
            return None
        if headers:
            collect.add(f"{key}.headers", "only applies to `url` servers")
        return ServerSpec(
            command=tuple(command), env=tuple(env), cwd=collect.text(f"{key}.cwd", data.get("cwd")), public=public
        )
    problem = url_problem(url) if isinstance(url, str) else "it is not a string"
    if problem or not isinstance(url, str):
        collect.add(f"{key}.url", f"must be an http:// or https:// URL such as {URL_EXAMPLE}, but {problem}")
        return None
    if env:
        collect.add(f"{key}.env", "only applies to `stdio` servers")
    if "cwd" in data:
        collect.add(f"{key}.cwd", "only applies to `stdio` servers")
    if public and url_problem(public):
        collect.add(f"{key}.public", "must be the http:// or https:// URL readers connect to")
    return ServerSpec(url=url, headers=tuple(headers), public=public)


def _endpoints(data: Any, collect: Collector) -> tuple[ServerSpec, ...]:
    if not isinstance(data, list) or not data:
        collect.add("endpoints", "must be a non-empty list of endpoints, each with `name` and `stdio` or `url`")
        return ()
    result = []
    names: dict[str, int] = {}
    for i, item in enumerate(data):
        key = f"endpoints[{i}]"
        spec = _server(item, collect, key, _ENDPOINT_KEYS)
        if not isinstance(item, dict):
            continue
        name = item.get("name")
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            collect.add(f"{key}.name", "is required: a name of letters, digits, `_`, `.` or `-` such as `full`")
            continue
        if name in names:
            collect.add(f"{key}.name", f"repeats {name!r}, the name of endpoints[{names[name]}]")
            continue
        names[name] = i
        profile = item.get("profile", name)
        if not isinstance(profile, str) or not _NAME.fullmatch(profile):
            collect.add(f"{key}.profile", "must be a name of letters, digits, `_`, `.` or `-` such as `readonly`")
            profile = name
        if spec is not None:
            result.append(replace(spec, name=name, profile=profile))
    return tuple(result)


def _rooted(spec: ServerSpec, base_dir: Path) -> ServerSpec:
    return replace(spec, cwd=str(base_dir / spec.cwd)) if spec.cwd else spec


def _limits(data: Any, collect: Collector) -> Limits:
    if not isinstance(data, dict):
        collect.add("limits", "must be a mapping")
        return Limits()
    allowed = {f for f in Limits.__dataclass_fields__}
    collect.unknown("limits.", data, allowed)
    values: dict[str, Any] = {}
    for key in sorted(allowed & set(data)):
        integer = key.startswith("max_") and not key.endswith("_seconds")
        number = collect.number(f"limits.{key}", data[key], integer=integer)
        if number is not None:
            values[key] = number
    return Limits(**values)


def check_capability_version(value: Any, collect: Collector) -> str | None:
    if value in ("server", "fingerprint"):
        return str(value)
    if isinstance(value, str) and value.startswith("meta:") and len(value) > 5:
        return value
    collect.add("capability_version", "must be `server`, `fingerprint` or `meta:KEY`")
    return None


def load_config(path: Path) -> PortalConfig:
    """Read and validate ``portal.yaml``; raise :class:`ConfigError` listing every problem."""
    data = _read_yaml(path)
    collect = Collector()
    collect.unknown("", data, _TOP_KEYS)
    changes = _changes(data, collect)
    if collect.problems:
        raise ConfigError(str(path), collect.problems)
    config = PortalConfig(source=str(path)).with_overrides(**changes)
    return _relative_to_file(config, path.parent, has_out="out" in data)


def _read_yaml(path: Path) -> dict[str, Any]:
    """The file's top-level mapping (empty for an empty file); unreadable files and bad YAML are errors."""
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(str(path), [f"the file cannot be read ({exc.strerror or exc})"]) from None
    try:
        data = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(str(path), [f"it is not valid YAML{where}"]) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(str(path), ["the top level must be a mapping of keys such as `title` and `server`"])
    return data


def _changes(data: dict[str, Any], collect: Collector) -> dict[str, Any]:
    """The settings the file gives, as :meth:`PortalConfig.with_overrides` keywords; problems go to ``collect``."""
    changes: dict[str, Any] = {
        "title": collect.text("title", data.get("title")),
        "out": collect.text("out", data.get("out")),
        "template_dir": collect.text("templates", data.get("templates")),
        "translations_dir": collect.text("translations", data.get("translations")),
        "overlays_dir": collect.text("overlays", data.get("overlays")),
        "scope_meta_key": collect.text("scope_meta_key", data.get("scope_meta_key")),
        "openapi": collect.text("openapi", data.get("openapi")),
        "operation_meta_key": collect.text("operation_meta_key", data.get("operation_meta_key")),
    }
    if "search" in data:
        if isinstance(data["search"], bool):
            changes["search"] = data["search"]
        else:
            collect.add("search", "must be true or false")
    if "base_url" in data:
        base = collect.text("base_url", data["base_url"])
        if base and url_problem(base):
            collect.add("base_url", "must be an absolute http(s) URL such as https://docs.example.com/mcp/")
        elif base:
            changes["base_url"] = base if base.endswith("/") else base + "/"
    if "locales" in data:
        changes["locales"] = parse_locales(data["locales"], collect)
    if "server" in data:
        changes["server"] = _server(data["server"], collect)
    if "endpoints" in data:
        changes["endpoints"] = _endpoints(data["endpoints"], collect)
        if "server" in data:
            collect.add("server", "and `endpoints` cannot both be given: list the server as one of the endpoints")
    if "capability_version" in data:
        changes["capability_version"] = check_capability_version(data["capability_version"], collect)
    if "limits" in data:
        changes["limits"] = _limits(data["limits"], collect)
    return changes


def _relative_to_file(config: PortalConfig, base_dir: Path, *, has_out: bool) -> PortalConfig:
    """Paths in the file are relative to the file, not to wherever mcp-portal runs."""
    if config.template_dir:
        config = replace(config, template_dir=str(base_dir / config.template_dir))
    if config.translations_dir:
        config = replace(config, translations_dir=str(base_dir / config.translations_dir))
    if config.overlays_dir:
        config = replace(config, overlays_dir=str(base_dir / config.overlays_dir))
    if config.openapi:
        config = replace(config, openapi=str(base_dir / config.openapi))
    # A stdio server's working directory, like every other path in the file, is relative to the file.
    config = replace(
        config,
        server=_rooted(config.server, base_dir) if config.server else None,
        endpoints=tuple(_rooted(e, base_dir) for e in config.endpoints),
    )
    if has_out and config.out:
        config = replace(config, out=str(base_dir / config.out))
    return config
