"""One snapshot from several endpoints of one product.

Each endpoint (a profile, a transport) is introspected on its own; this module folds
the results into one :class:`~generator.snapshot.snapshot.Snapshot`.  The first endpoint is the
primary one: its server identity and protocol version head the snapshot, and its
listing of a tool is the one the tool's page documents.  A tool that another endpoint
lists differently (another schema, other annotations) is kept whole in that endpoint's
``variants``, so the page can show the difference instead of hiding it; a prompt, resource
or resource template it lists differently is kept the same way in ``item_variants``.  An
endpoint that reports another server name or version than the primary keeps it as ``server``, so the
build can warn that the endpoints run different releases.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from generator.snapshot.records import EndpointRecord
from generator.snapshot.shape import ITEM_KEYS
from generator.snapshot.snapshot import Snapshot, canonical_json, fingerprint, resolve_capability_version


def _union(lists: Sequence[Sequence[dict[str, Any]]], key: str) -> list[dict[str, Any]]:
    """Items of every list, each *key* once, in order of first appearance."""
    seen: set[str] = set()
    merged = []
    for items in lists:
        for item in items:
            ident = str(item.get(key))
            if ident not in seen:
                seen.add(ident)
                merged.append(item)
    return merged


class _Listings:
    """The merged listing of one section, to tell which of an endpoint's items differ from it."""

    def __init__(self, items: Sequence[dict[str, Any]], key: str) -> None:
        self.key = key
        self.items = {str(item.get(key)): item for item in items}
        self.texts: dict[str, str] = {}

    def differs(self, item: dict[str, Any]) -> bool:
        """Whether *item* says something else than the merged listing of its key.

        The merged listing holds the very dict of the endpoint that listed it first (always the
        case with one endpoint), so only other dicts are compared, by their canonical JSON.
        """
        ident = str(item.get(self.key))
        main = self.items[ident]
        if item is main:
            return False
        if ident not in self.texts:
            self.texts[ident] = canonical_json(main)
        return canonical_json(item) != self.texts[ident]


def _item_variants(snap: Snapshot, unions: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """The prompts, resources and templates *snap*'s endpoint lists differently from the merged listing."""
    found: dict[str, dict[str, Any]] = {}
    for section, key in ITEM_KEYS.items():
        main = _Listings(unions[section], key)
        differing = {str(item.get(key)): item for item in getattr(snap, section) if main.differs(item)}
        if differing:
            found[section] = differing
    return found


def _identity(server: dict[str, Any]) -> dict[str, str]:
    """The name and version a server reports in ``serverInfo`` (what the portal is stamped with)."""
    return {key: server[key] for key in ("name", "version") if isinstance(server.get(key), str)}


def merge(parts: Sequence[Snapshot], capability_rule: str) -> Snapshot:
    """Fold per-endpoint snapshots (in configuration order) into one.

    Each part carries its own endpoint record (written by introspection); the fold adds
    only what needs every part to know: the tools an endpoint lists differently.
    """
    primary = parts[0]
    tools = _union([snap.tools for snap in parts], "name")
    main = _Listings(tools, "name")
    unions = {section: _union([getattr(snap, section) for snap in parts], key) for section, key in ITEM_KEYS.items()}
    records: list[EndpointRecord] = []
    for snap in parts:
        own = snap.endpoints[0]
        variants = {t["name"]: t for t in snap.tools if main.differs(t)}
        # The portal is stamped with the primary's identity; one that differs is kept to be flagged.
        differs = _identity(snap.server) != _identity(primary.server)
        records.append(
            replace(
                own,
                variants=variants or own.variants,
                item_variants=_item_variants(snap, unions) or own.item_variants,
                server=_identity(snap.server) if differs else own.server,
            )
        )
    skipped = []
    for snap in parts:
        for item in snap.skipped_tools:
            entry = dict(item) if len(parts) == 1 else {**item, "endpoint": snap.endpoints[0].name}
            if entry not in skipped:
                skipped.append(entry)
    # One endpoint: the tools are its own and a single record is not hashed, so its fingerprint stands.
    tools_fp = primary.fingerprint if len(parts) == 1 else fingerprint(tools, [r.to_json() for r in records])
    snapshot = Snapshot(
        protocol_version=primary.protocol_version,
        server=primary.server,
        tools=tuple(tools),
        capability_version=resolve_capability_version(capability_rule, primary.server, tools_fp),
        transport=primary.transport,
        endpoint=primary.endpoint,
        prompts=tuple(unions["prompts"]),
        resources=tuple(unions["resources"]),
        resource_templates=tuple(unions["resource_templates"]),
        skipped_tools=tuple(skipped),
        endpoints=tuple(records),
        fingerprint=tools_fp,
    )
    return snapshot
