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

from generator.config.checks import URL_EXAMPLE, Collector, env_name_problem, header_name_problem, url_problem
from generator.config.files import load_yaml, yaml_problem
from generator.config.literal_secrets import LiteralSecret, advice, in_command, in_url, masked
from generator.config.option import from_file
from generator.config.options import FILE_KEYS, LIMITS, OPTIONS, default
from generator.config.registry import Registry, load_registry
from generator.errors import ConfigError, UsageError
from generator.text import NotUtf8, utf8_text

DEFAULT_LOCALES: tuple[str, ...] = default("locales")


@dataclass(frozen=True)
class Limits:
    """Bounds on what a server can cost us. Meanings, defaults and options: :data:`options.LIMITS`."""

    request_timeout: float = default("limits.request_timeout")
    total_timeout: float = default("limits.total_timeout")
    prove_timeout: float = default("limits.prove_timeout")
    max_pages: int = default("limits.max_pages")
    max_tools: int = default("limits.max_tools")
    max_reply_bytes: int = default("limits.max_reply_bytes")
    max_description: int = default("limits.max_description")
    max_schema_bytes: int = default("limits.max_schema_bytes")
    max_schema_depth: int = default("limits.max_schema_depth")
    max_render_seconds: float = default("limits.max_render_seconds")
    max_snapshot_bytes: int = default("limits.max_snapshot_bytes")


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
    literal_secrets: tuple[LiteralSecret, ...] = ()
    """Likely secrets written literally in the command, URL or ``public``, kept because the user said
    ``--allow-literal-secrets``: masked wherever the endpoint is shown (:mod:`generator.config.literal_secrets`)."""

    @property
    def transport(self) -> str:
        return "streamable-http" if self.url else "stdio"

    def describe(self) -> str:
        """A safe, human description (no header values, no expanded variables, no literal secrets)."""
        if self.url:
            where = f"the server at {masked(_strip_credentials(self.url), self.literal_secrets)}"
        else:
            where = f"the server started by `{self.label or self._shown(self.command)}`"
        return where if self.name == "default" else f"{where} (endpoint `{self.name}`)"

    def public_endpoint(self) -> str:
        """What the snapshot records as the endpoint: never a secret."""
        if self.public:
            if self.url:
                return masked(_strip_credentials(self.public), self.literal_secrets)
            return self._shown(tuple(shlex.split(self.public))) if self.literal_secrets else self.public
        if self.url:
            return masked(_strip_credentials(self.url), self.literal_secrets)
        return self.label or self._shown(self.command)

    def _shown(self, words: tuple[str, ...]) -> str:
        """*words* as one command line, each literal secret replaced by how pages show it."""
        return shlex.join(masked(word, self.literal_secrets) for word in words)

    def find_literal_secrets(self, where: dict[str, str]) -> tuple[LiteralSecret, ...]:
        """Likely secrets in the command, URL and ``public`` value; *where* names each (``stdio``,
        ``url``, ``public``) as the user wrote it (``--stdio``, ```server.url` in portal.yaml``)."""
        found = in_url(self.url, where["url"]) if self.url else in_command(self.command, where["stdio"])
        if self.public and self.url:
            found += in_url(self.public, where["public"])
        elif self.public:
            found += in_command(tuple(shlex.split(self.public)), where["public"])
        return tuple(found)

    def auth_template(self) -> tuple[tuple[str, str | None], ...]:
        """Header names with their value templates (``Bearer ${TOKEN}``); None where the value may hold a secret.

        Only a template made of ``${VAR}`` references, optionally after an auth scheme word
        (``Bearer``, ``Basic``...), is kept: any other literal text could be a secret.
        """
        return tuple((name, value if _TEMPLATE.fullmatch(value) else None) for name, value in self.headers)


@dataclass(frozen=True)
class PortalConfig:
    """Everything a build needs besides the snapshot itself."""

    title: str | None = default("title")
    base_url: str | None = default("base_url")
    locales: tuple[str, ...] = default("locales")
    server_language: str = default("server_language")
    """The language of what the server wrote (BCP 47), so screen readers voice it correctly."""
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
    capability_version: str = default("capability_version")
    """``server`` (the server's version), ``fingerprint``, or ``meta:KEY`` (a ``_meta`` key of
    the discover or initialize result)."""
    out: str = default("out")
    limits: Limits = field(default_factory=Limits)
    template_dir: str | None = None
    try_it: bool = default("try_it")
    """Offer the Try it panel on tool pages (``try_it``, ``--try-it``; :mod:`generator.model.try_it`)."""
    try_it_tools: tuple[str, ...] = default("try_it_tools")
    """Tools not declared read-only that get the panel too, behind a confirmation."""
    lint_page: bool = default("lint_page")
    """Add the "Agent readiness" page (``lint_page``, ``--lint-page``; :mod:`generator.quality`)."""
    try_it_proxy: bool = False
    """Panels call ``serve --try-it``'s proxy, on every endpoint (set by that command; no option, no key)."""
    prove: bool = default("prove")
    """Send the examples to the server and show its answers (``--prove``; :mod:`generator.commands.prove`)."""
    prove_tools: tuple[str, ...] = default("prove_tools")
    """Tools not declared read-only that ``prove`` calls too (never one declared destructive)."""
    registry: Registry = field(default_factory=Registry)
    """What registries need that the server does not say (``registry:``; :mod:`generator.model.discovery`)."""
    search: bool = default("search")
    """Build the Pagefind search index (``--no-search`` or ``search: false`` skips it)."""
    translations_dir: str | None = None
    """Optional ``<locale>.yaml`` translations of tool titles and descriptions (see translations.py)."""
    overlays_dir: str | None = None
    """Author overlays, one YAML file per tool: notes, examples, troubleshooting, related tools (see overlays.py)."""
    previous: str | None = None
    """A previous snapshot (or built site): adds a changelog page of what changed since."""
    versioned: bool = default("versioned")
    """Publish into ``OUT/<version>/``, keeping the versions there (``--versioned``; :mod:`generator.history`)."""
    version_label: str | None = default("version_label")
    """The version a versioned build publishes as (``--version-label``); None: the server's version."""
    full_versions: int | None = default("full_versions")
    """How many of a versioned site's newest versions keep their search index and llms-full.txt; None: all."""
    cache: str | None = default("cache")
    """Where rendered pages are kept between builds (``--cache``); None: beside ``out``."""
    use_cache: bool = default("use_cache")
    """False with ``--no-cache``."""
    jobs: int | None = default("jobs")
    """Render workers (``--jobs``); None: one per CPU."""
    source: str = "defaults"

    @property
    def connections(self) -> tuple[ServerSpec, ...]:
        """Every endpoint to introspect: ``endpoints``, else the one ``server``."""
        if self.endpoints:
            return self.endpoints
        return (self.server,) if self.server else ()

    @property
    def cache_dir(self) -> Path | None:
        """Where the render cache is kept: ``cache``, else ``.mcp-portal-cache/<name of out>/`` beside
        ``out``; None with ``--no-cache``."""
        if not self.use_cache:
            return None
        out = Path(self.out).absolute()
        return Path(self.cache) if self.cache else out.parent / ".mcp-portal-cache" / out.name

    def with_overrides(self, **changes: Any) -> PortalConfig:
        """A copy with the given fields replaced (CLI options win over the file)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    def without_literal_secrets(self, *, allowed: bool, from_cli: bool) -> PortalConfig:
        """This configuration once no endpoint holds a literal secret: a :class:`UsageError` naming what was
        found (never its value) and how to pass it instead, or, when *allowed*, each endpoint with the
        secrets it holds recorded, so that they are masked wherever it is shown."""
        kept: list[ServerSpec] = []
        for i, spec in enumerate(self.connections):
            found = spec.find_literal_secrets(_where(i, from_cli=from_cli, endpoints=bool(self.endpoints)))
            if found and not allowed:
                raise UsageError(advice(list(found), stdio=not spec.url))
            kept.append(replace(spec, literal_secrets=found))
        if self.endpoints:
            return replace(self, endpoints=tuple(kept))
        return replace(self, server=kept[0]) if kept else self


def _where(index: int, *, from_cli: bool, endpoints: bool) -> dict[str, str]:
    """How a message names an endpoint's ``stdio``, ``url`` and ``public`` values: as options, or as keys."""
    if from_cli:
        return {key: f"--{key}" for key in ("stdio", "url", "public")}
    prefix = f"endpoints[{index}]" if endpoints else "server"
    return {key: f"`{prefix}.{key}` of the configuration" for key in ("stdio", "url", "public")}


def _strip_credentials(url: str) -> str:
    """*url* without userinfo, query and fragment. Never raises: the URL may still hold ``${PORT}``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "an invalid URL"
    host = parts.netloc.rpartition("@")[2]  # not .hostname/.port: those parse (and reject) ${VAR}
    return f"{parts.scheme}://{host}{parts.path}"


# --- validation ---------------------------------------------------------------------------

_SERVER_KEYS = {"stdio", "env", "url", "headers", "cwd", "transport", "public"}
_ENDPOINT_KEYS = _SERVER_KEYS | {"name", "profile"}
_TRANSPORTS = {"stdio", "streamable-http"}


def _headers(raw: Any, collect: Collector, key: str) -> list[tuple[str, str]]:
    """An entry's ``headers`` mapping as (name, value) pairs; problems are collected under *key*."""
    headers: list[tuple[str, str]] = []
    if not isinstance(raw, dict):
        collect.add(f"{key}.headers", "must be a mapping of header name to value")
        return headers
    for name, value in raw.items():
        if not isinstance(value, str):
            collect.add(f"{key}.headers.{name}", "must be a string (use ${VAR} for secrets)")
            continue
        problem = header_name_problem(str(name))
        if problem:
            collect.add(f"{key}.headers", f"cannot be sent: {problem}")
            continue
        headers.append((str(name), value))
    return headers


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
    for unfit in dict.fromkeys(p for p in map(env_name_problem, env) if p):
        collect.add(f"{key}.env", unfit)
    headers = _headers(data.get("headers") or {}, collect, key)
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
    collect.unknown("limits.", data, {o.name for o in LIMITS})
    return Limits(**from_file(data, collect, LIMITS))


def load_config(path: Path) -> PortalConfig:
    """Read and validate ``portal.yaml``; raise :class:`ConfigError` listing every problem."""
    data = _read_yaml(path)
    collect = Collector()
    collect.unknown("", data, set(FILE_KEYS))
    changes = _changes(data, collect)
    if collect.problems:
        raise ConfigError(str(path), collect.problems)
    config = PortalConfig(source=str(path)).with_overrides(**changes)
    return _relative_to_file(config, path.parent, has_out="out" in data)


def _read_yaml(path: Path) -> dict[str, Any]:
    """The file's top-level mapping (empty for an empty file); unreadable files and bad YAML are errors."""
    try:
        content = path.read_bytes()
    except OSError as exc:
        fix = "Check that the path names a file you can read."
        raise ConfigError(str(path), [f"the file cannot be read ({exc.strerror or exc})"], fix) from None
    try:
        raw = utf8_text(content)
    except NotUtf8 as exc:
        raise ConfigError(str(path), [str(exc)], "Save it as UTF-8 and run again.") from None
    try:
        data = load_yaml(raw)
    except yaml.YAMLError as exc:
        raise ConfigError(
            str(path), [f"it is not valid YAML ({yaml_problem(exc)})"], "Fix the file and run again."
        ) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        top = "the top level must be a mapping of keys such as `title` and `server`"
        raise ConfigError(str(path), [top], "Fix the file and run again.")
    return data


def _changes(data: dict[str, Any], collect: Collector) -> dict[str, Any]:
    """The settings the file gives, as :meth:`PortalConfig.with_overrides` keywords; problems go to ``collect``."""
    changes = from_file(data, collect, OPTIONS)
    if "server" in data:
        changes["server"] = _server(data["server"], collect)
    if "endpoints" in data:
        changes["endpoints"] = _endpoints(data["endpoints"], collect)
        if "server" in data:
            collect.add("server", "and `endpoints` cannot both be given: list the server as one of the endpoints")
    if "limits" in data:
        changes["limits"] = _limits(data["limits"], collect)
    if "registry" in data:
        changes["registry"] = load_registry(data["registry"], collect)
    return changes


def _relative_to_file(config: PortalConfig, base_dir: Path, *, has_out: bool) -> PortalConfig:
    """Paths in the file are relative to the file, not to wherever mcp-portal runs.

    ``out`` only when the file gives it: the default ``site`` is relative to the current directory.
    """
    paths: dict[str, Any] = {
        o.field: str(base_dir / value)
        for o in OPTIONS
        if o.relative and (value := getattr(config, o.field)) and (o.field != "out" or has_out)
    }
    # A stdio server's working directory, like every other path in the file, is relative to the file.
    return replace(
        config,
        **paths,
        server=_rooted(config.server, base_dir) if config.server else None,
        endpoints=tuple(_rooted(e, base_dir) for e in config.endpoints),
    )
