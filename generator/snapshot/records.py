"""The endpoint record: what one endpoint (a profile over a transport) offers, as a snapshot keeps it.

Introspection writes one record per endpoint and :mod:`generator.connect.merge` adds what only the
fold can know (the tools, prompts and resources the endpoint lists differently, a server release
that differs from the primary's).  The loader reads records back with
:meth:`EndpointRecord.from_json`, after the shape check, and every later stage reads the fields.
:meth:`EndpointRecord.to_json` writes the JSON form byte for byte as it has always been written,
so snapshot files and their fingerprints do not change.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass, field

from generator.snapshot.jsonread import ShapeProblem
from generator.snapshot.shape import ITEM_KEYS, JSON
from generator.snapshot.wording import quote, where


@dataclass(frozen=True)
class EndpointRecord:
    """One endpoint as the snapshot records it.

    Tool, prompt and resource JSON is kept exactly as the server sent it (camelCase, its key
    order); the rest is the portal's own and typed.
    """

    name: str
    profile: str
    """The product profile it serves (``full``, ``readonly``...); the name when none was given."""
    transport: str
    """``stdio`` or ``streamable-http`` (see :data:`generator.snapshot.shape.TRANSPORTS`)."""
    address: str
    """The command line or the URL, as pages show it: never a secret."""
    protocol_version: str
    tools: tuple[str, ...] = ()
    """The names of the tools it offers, in its server's order."""
    auth: tuple[tuple[str, str | None], ...] = ()
    """Header names with their value templates (``Bearer ${TOKEN}``); None where the value may be a secret."""
    env: tuple[str, ...] = ()
    """The names of the environment variables a stdio server is given (never their values)."""
    supported_versions: tuple[str, ...] = ()
    """Every protocol revision a 2026-era server says it speaks; empty after an ``initialize`` handshake."""
    prompts: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    """The URIs of the resources it offers."""
    resource_templates: tuple[str, ...] = ()
    """The URI templates of the resource templates it offers."""
    variants: dict[str, dict[str, JSON]] = field(default_factory=dict)
    """Each tool it lists differently from the snapshot's main listing, whole, by name."""
    item_variants: dict[str, dict[str, dict[str, JSON]]] = field(default_factory=dict)
    """Section (a key of :data:`ITEM_KEYS`) -> name or URI -> its own listing of that prompt or resource."""
    server: dict[str, str] = field(default_factory=dict)
    """The server ``name`` and ``version`` it reports, kept only when they differ from the primary endpoint's."""

    def offered(self, section: str) -> tuple[str, ...]:
        """The names or URIs it offers of *section* (``tools`` or a key of :data:`ITEM_KEYS`)."""
        return {
            "tools": self.tools,
            "prompts": self.prompts,
            "resources": self.resources,
            "resource_templates": self.resource_templates,
        }[section]

    def variant(self, tool: str) -> dict[str, JSON] | None:
        """Its own listing of *tool*, when that differs from the snapshot's main listing."""
        return self.variants.get(tool)

    def item_variant(self, section: str, key: str) -> dict[str, JSON] | None:
        """Its own listing of a prompt or resource, when that differs from the snapshot's main listing."""
        return self.item_variants.get(section, {}).get(key)

    def to_json(self) -> dict[str, JSON]:
        """The record's JSON form: the six fields always, each other only when it holds something.

        The key order is the one snapshot files have always had; readers of the file see it.
        """
        data: dict[str, JSON] = {
            "name": self.name,
            "profile": self.profile,
            "transport": self.transport,
            "address": self.address,
            "protocol_version": self.protocol_version,
            "tools": list(self.tools),
        }
        extra: dict[str, JSON] = {
            "auth": [list(pair) for pair in self.auth],
            "env": list(self.env),
            "supported_versions": list(self.supported_versions),
            "prompts": list(self.prompts),
            "resources": list(self.resources),
            "resource_templates": list(self.resource_templates),
            "variants": self.variants,
            "item_variants": self.item_variants,
            "server": self.server,
        }
        data.update({key: value for key, value in extra.items() if value})
        return data

    @classmethod
    def from_json(cls, data: dict[str, JSON], at: Sequence[str | int], listed: Set[str]) -> EndpointRecord:
        """A record from JSON that passed the shape check; *at* is its JSON path, *listed* the snapshot's tools.

        What the shape cannot say is checked here: the record offers only tools the snapshot
        lists, and its variants are listings of what it offers.  A problem raises
        :class:`ShapeProblem` naming the path.
        """
        tools = tuple(data.get("tools", ()))
        unknown = set(tools) - listed
        if unknown:
            names = ", ".join(map(quote, sorted(unknown)[:3]))
            raise ShapeProblem(f"{where([*at, 'tools'])} offers tools the snapshot does not list: {names}")
        variants: dict[str, dict[str, JSON]] = data.get("variants", {})
        for key, tool in variants.items():
            if tool.get("name") != key or key not in tools:
                raise ShapeProblem(f"{where([*at, 'variants', key])} has `variants` that are not tools it offers")
        item_variants: dict[str, dict[str, dict[str, JSON]]] = data.get("item_variants", {})
        for section, found in item_variants.items():
            for key, item in found.items():
                if item.get(ITEM_KEYS[section]) != key or key not in data.get(section, []):
                    raise ShapeProblem(
                        f"{where([*at, 'item_variants', section, key])} has `item_variants` that are not "
                        f"prompts or resources it offers"
                    )
        return cls(
            name=data["name"],
            profile=data["profile"],
            transport=data["transport"],
            address=data["address"],
            protocol_version=data["protocol_version"],
            tools=tools,
            auth=tuple((pair[0], pair[1]) for pair in data.get("auth", ())),
            env=tuple(data.get("env", ())),
            supported_versions=tuple(data.get("supported_versions", ())),
            prompts=tuple(data.get("prompts", ())),
            resources=tuple(data.get("resources", ())),
            resource_templates=tuple(data.get("resource_templates", ())),
            variants=variants,
            item_variants=item_variants,
            server=data.get("server", {}),
        )
