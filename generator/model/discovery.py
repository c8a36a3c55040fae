"""The documented server's discovery files: the registry's ``server.json`` and the Server Card.

Both describe the server the portal documents (not the portal): who it is and how to reach it. Every field
comes from what the server said (its ``serverInfo``: name, title, version, description, website, icons; its
endpoints and the protocol versions they speak) or from what the author configured (``registry:`` in
``portal.yaml``); nothing is made up. A field the portal cannot know is left out; when a *required* one is
missing (a reverse-DNS name, a description of at most 100 characters, a version), the file is not written,
with a warning once the author has started to configure ``registry:``. Each document is checked against
its vendored schema (``schemas/``, see its README) and written only when valid; an optional field that
breaks the schema (an icon at an ``http:`` address) is left out with a warning.

* ``server.json``: the MCP registry's entry, schema 2025-12-11: identity, the stdio package the author names,
  and the public Streamable HTTP endpoints as ``remotes``.
* ``server-card.json``: the Server Card of SEP-2127's current draft (remote connectivity only: identity and
  ``remotes`` with their protocol versions; no package, and no tools, which clients list at run time). The
  draft lets a card live at any address; a client learns it from an AI Catalog or from the portal's links.

Endpoints on this machine or a private network are never published (the draft forbids private endpoints).
Header values are templates: ``Bearer ${TOKEN}`` becomes ``Bearer {TOKEN}`` with ``TOKEN`` a required secret
variable; a literal value is never written, only the header's name.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from jsonschema import Draft7Validator, Draft202012Validator

from generator.config.registry import MAX_DESCRIPTION, REVERSE_DNS, Registry
from generator.model.calls import is_local
from generator.model.product import EndpointDoc
from generator.text import json_block, one_line

if TYPE_CHECKING:
    from generator.model.site import SiteModel

SERVER_JSON = "server.json"
SERVER_CARD = "server-card.json"
REGISTRY_SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
CARD_SCHEMA = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
SCHEMAS = Path(__file__).resolve().parent / "schemas"
MEDIA_TYPES = {SERVER_JSON: "application/json", SERVER_CARD: "application/mcp-server-card+json"}
"""Each file's media type: the Server Card's is the draft's own."""
_HOSTS = {"github.com": "github", "gitlab.com": "gitlab"}
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class Discovery:
    """The discovery files to write (path to document) and what the author should know."""

    documents: dict[str, dict[str, Any]]
    warnings: tuple[str, ...]

    @property
    def links(self) -> tuple[tuple[str, str], ...]:
        """(path, media type) of each file written, for the pages' ``<link>`` and ``llms.txt``."""
        return tuple((path, MEDIA_TYPES[path]) for path in self.documents)

    def text(self, path: str) -> str:
        """The file's bytes as text: the document as JSON, two-space indented, hidden characters escaped."""
        return json_block(self.documents[path]) + "\n"


@functools.cache
def validator(path: str) -> Draft7Validator | Draft202012Validator:
    """The validator of a discovery file (``server.json`` or ``server-card.json``), from its vendored schema."""
    if path == SERVER_JSON:
        schema = json.loads((SCHEMAS / "registry-server-2025-12-11.schema.json").read_text(encoding="utf-8"))
        return Draft7Validator(schema, format_checker=Draft7Validator.FORMAT_CHECKER)
    card = json.loads((SCHEMAS / "server-card-draft.schema.json").read_text(encoding="utf-8"))
    wrapped = {"$schema": card["$schema"], "$defs": card["$defs"], "$ref": "#/$defs/ServerCard"}
    return Draft202012Validator(wrapped, format_checker=Draft202012Validator.FORMAT_CHECKER)


def problems(path: str, document: Any) -> list[str]:
    """Where *document* breaks the schema of the discovery file *path*, one phrase each (none when valid)."""
    found = sorted(validator(path).iter_errors(document), key=lambda e: [str(p) for p in e.absolute_path])
    return [f"{'/'.join(str(p) for p in e.absolute_path) or 'the document'}: {e.message[:200]}" for e in found]


def discover(site: SiteModel) -> Discovery:
    """The discovery files of *site*'s server, and the warnings about what could not be written."""
    registry: Registry = site.config.registry
    server = site.server
    identity, missing = _identity(server, registry)
    if missing:
        # An author who configured nothing for registries is not told about them (nor failed by --strict).
        reason = f"server.json and {SERVER_CARD} are not written: {'; '.join(missing.values())}"
        return Discovery({}, (reason,) if registry else ())
    warnings: list[str] = []
    repository = _repository(registry, warnings)
    remotes = [_remote(e) for e in _published(site.endpoints)]
    registry_entry = {"$schema": REGISTRY_SCHEMA, **identity, **repository}
    if package := _package(registry, site.endpoints):
        registry_entry["packages"] = [package]
    if remotes:
        registry_entry["remotes"] = [
            {k: v for k, v in remote.items() if k != "supportedProtocolVersions"} for remote in remotes
        ]
    card = {"$schema": CARD_SCHEMA, **identity, **repository}
    if remotes:
        card["remotes"] = remotes
    documents = {}
    for path, document in ((SERVER_JSON, registry_entry), (SERVER_CARD, card)):
        valid = _checked(path, document, warnings)
        if valid is not None:
            documents[path] = valid
    return Discovery(documents, tuple(warnings))


def _identity(server: dict[str, Any], registry: Registry) -> tuple[dict[str, Any], dict[str, str]]:
    """The identity fields both files share, and the required ones that are missing, each with the reason."""
    missing: dict[str, str] = {}
    said_name = server.get("name")
    own = said_name if isinstance(said_name, str) else ""
    name = registry.name or (own if REVERSE_DNS.fullmatch(own) and 3 <= len(own) <= 200 else None)
    if name is None:
        missing["name"] = (
            f"registries need a reverse-DNS name (such as io.github.acme/weather) and the server calls itself "
            f"{one_line(own)[:60]!r}: set registry.name in portal.yaml"
        )
    said = server.get("description")
    description = registry.description or (said if isinstance(said, str) and 0 < len(said) <= MAX_DESCRIPTION else None)
    if description is None:
        missing["description"] = (
            f"the description may have at most {MAX_DESCRIPTION} characters and the server's has "
            f"{len(said) if isinstance(said, str) else 'none'}: set registry.description in portal.yaml"
        )
    version = server.get("version")
    if not isinstance(version, str) or not version or len(version) > 255:
        missing["version"] = "the server declares no version (serverInfo.version), which registries require"
    identity: dict[str, Any] = {"name": name, "description": description, "version": version}
    title = server.get("title")
    if isinstance(title, str) and 0 < len(title) <= MAX_DESCRIPTION:
        identity["title"] = title
    for key in ("websiteUrl", "icons"):
        if server.get(key):
            identity[key] = server[key]
    return identity, missing


def _repository(registry: Registry, warnings: list[str]) -> dict[str, Any]:
    if not registry.repository:
        return {}
    source = registry.repository_source or _HOSTS.get((urlsplit(registry.repository).hostname or "").lower())
    if source is None:
        warnings.append(
            "the repository is left out of server.json and the Server Card: set registry.repository_source "
            "(such as github) for a repository that is not on github.com or gitlab.com"
        )
        return {}
    return {"repository": {"url": registry.repository, "source": source}}


def _package(registry: Registry, endpoints: tuple[EndpointDoc, ...]) -> dict[str, Any] | None:
    """The stdio package the author names, with the environment variables its stdio endpoint is given."""
    if not registry.package or not registry.package_type:
        return None
    package: dict[str, Any] = {"registryType": registry.package_type, "identifier": registry.package}
    if registry.package_version:
        package["version"] = registry.package_version
    package["transport"] = {"type": "stdio"}
    stdio = next((e for e in endpoints if e.transport == "stdio"), None)
    if stdio is not None and stdio.env:
        package["environmentVariables"] = [{"name": name, "isSecret": True} for name in stdio.env]
    return package


def _published(endpoints: tuple[EndpointDoc, ...]) -> list[EndpointDoc]:
    """The Streamable HTTP endpoints readers can reach (not this machine, not a private network), once each."""
    seen: dict[str, EndpointDoc] = {}
    for endpoint in endpoints:
        if endpoint.is_http and not is_local(endpoint.address):
            seen.setdefault(endpoint.address, endpoint)
    return list(seen.values())


def _templated(text: str) -> tuple[str, dict[str, Any]]:
    """``${VAR}`` as the registry writes a variable (``{VAR}``), and the variables, each a required secret."""
    names = dict.fromkeys(_VAR.findall(text))
    return _VAR.sub(r"{\1}", text), {name: {"isRequired": True, "isSecret": True} for name in names}


def _remote(endpoint: EndpointDoc) -> dict[str, Any]:
    url, variables = _templated(endpoint.address)
    remote: dict[str, Any] = {"type": "streamable-http", "url": url}
    headers = []
    for name, value in endpoint.auth:
        header: dict[str, Any] = {"name": name, "isRequired": True, "isSecret": True}
        if value is not None and _VAR.search(value):
            header["value"], header["variables"] = _templated(value)
        headers.append(header)
    if headers:
        remote["headers"] = headers
    if variables:
        remote["variables"] = variables
    remote["supportedProtocolVersions"] = list(endpoint.supported_versions or (endpoint.protocol_version,))
    return remote


def _checked(path: str, document: dict[str, Any], warnings: list[str]) -> dict[str, Any] | None:
    """*document* if it validates, after leaving out the optional fields that break the schema; else None."""
    found = problems(path, document)
    optional = {"title", "websiteUrl", "icons", "repository", "packages", "remotes"}
    broken = {p.split("/", 1)[0].split(":", 1)[0] for p in found}
    if found and broken <= optional:
        document = {k: v for k, v in document.items() if k not in broken}
        warnings.append(f"{path}: left out {', '.join(sorted(broken))}, which break its schema: {'; '.join(found[:3])}")
        found = problems(path, document)
    if found:
        warnings.append(f"{path} is not written: it does not validate against its schema: {'; '.join(found[:3])}")
        return None
    return document
