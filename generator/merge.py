"""One snapshot from several endpoints of one product.

Each endpoint (a profile, a transport) is introspected on its own; this module folds
the results into one :class:`~generator.snapshot.Snapshot`.  The first endpoint is the
primary one: its server identity and protocol version head the snapshot, and its
listing of a tool is the one the tool's page documents.  A tool that another endpoint
lists differently (another schema, other annotations) is kept whole in that endpoint's
``variants``, so the page can show the difference instead of hiding it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from generator.snapshot import Snapshot, canonical_json, endpoint_record, fingerprint, resolve_capability_version


@dataclass(frozen=True)
class EndpointFacts:
    """What we know of an endpoint besides what its server said (from the configuration)."""

    name: str
    profile: str | None = None
    auth: tuple[tuple[str, str | None], ...] = ()
    env: tuple[str, ...] = ()


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


def merge(parts: Sequence[tuple[EndpointFacts, Snapshot]], capability_rule: str) -> Snapshot:
    """Fold per-endpoint snapshots (in configuration order) into one."""
    primary = parts[0][1]
    tools = _union([snap.tools for _, snap in parts], "name")
    main = {t["name"]: canonical_json(t) for t in tools}
    records = []
    for facts, snap in parts:
        variants = {t["name"]: t for t in snap.tools if canonical_json(t) != main[t["name"]]}
        records.append(
            endpoint_record(
                facts.name,
                facts.profile,
                snap.transport,
                snap.endpoint,
                snap.protocol_version,
                snap.tools,
                auth=[list(pair) for pair in facts.auth],
                env=list(facts.env),
                variants=variants,
                supported_versions=list(snap.endpoints[0].get("supported_versions", [])) if snap.endpoints else [],
                prompts=[str(p.get("name")) for p in snap.prompts],
                resources=[str(r.get("uri")) for r in snap.resources],
                resource_templates=[str(r.get("uriTemplate")) for r in snap.resource_templates],
            )
        )
    skipped = []
    for facts, snap in parts:
        for item in snap.skipped_tools:
            entry = dict(item) if len(parts) == 1 else {**item, "endpoint": facts.name}
            if entry not in skipped:
                skipped.append(entry)
    tools_fp = fingerprint(tools, records)
    return Snapshot(
        protocol_version=primary.protocol_version,
        server=primary.server,
        tools=tuple(tools),
        capability_version=resolve_capability_version(capability_rule, primary.server, tools_fp),
        transport=primary.transport,
        endpoint=primary.endpoint,
        prompts=tuple(_union([s.prompts for _, s in parts], "name")),
        resources=tuple(_union([s.resources for _, s in parts], "uri")),
        resource_templates=tuple(_union([s.resource_templates for _, s in parts], "uriTemplate")),
        skipped_tools=tuple(skipped),
        endpoints=tuple(records),
        fingerprint=tools_fp,
    )
