"""The snapshot: what the server said, frozen as JSON.

A snapshot is the only input of the rendering stages, so a site can be rebuilt
offline, diffed and checked for drift.  It knows nothing of the SDK's classes:
tools are kept exactly as they came over the wire, in MCP's camelCase JSON.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.errors import PortalError

SNAPSHOT_VERSION = 2
"""Bumped when the snapshot's shape changes. Version 2 added ``endpoints``; version 1 files still load."""
READABLE_VERSIONS = (1, 2)

JSON = Any


def canonical_json(value: JSON) -> str:
    """The one serialisation used for hashing: sorted keys, no spaces, real Unicode."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _sorted(value: JSON) -> JSON:
    """*value* with every object's keys sorted, recursively (for data whose key order means nothing)."""
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def fingerprint(tools: list[dict[str, JSON]], endpoints: list[dict[str, JSON]] | None = None) -> str:
    """sha256 of the canonical tool list, in the server's order.

    With several endpoints, what each one offers is part of what the site documents, so the
    endpoint records are hashed too; one endpoint adds nothing the tool list does not say.
    """
    payload: JSON = tools if not endpoints or len(endpoints) < 2 else {"endpoints": endpoints, "tools": tools}
    return "sha256:" + hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Snapshot:
    """Everything the server told us, plus how we reached it."""

    protocol_version: str
    server: dict[str, JSON]
    tools: tuple[dict[str, JSON], ...]
    capability_version: str
    transport: str
    endpoint: str
    prompts: tuple[dict[str, JSON], ...] = ()
    resources: tuple[dict[str, JSON], ...] = ()
    resource_templates: tuple[dict[str, JSON], ...] = ()
    skipped_tools: tuple[dict[str, JSON], ...] = ()
    """Tools left out in ``--lenient`` mode: ``{"name": ..., "reason": ...}``."""
    endpoints: tuple[dict[str, JSON], ...] = ()
    """What each endpoint offers (see :func:`endpoint_record`); empty in version 1 snapshots."""
    fingerprint: str = field(default="")

    def __post_init__(self) -> None:
        if not self.endpoints:
            # A version-1 snapshot, or one endpoint built by hand: it offers every tool, as listed.
            record = endpoint_record("default", None, self.transport, self.endpoint, self.protocol_version, self.tools)
            object.__setattr__(self, "endpoints", (record,))
        if not self.fingerprint:
            object.__setattr__(self, "fingerprint", fingerprint(list(self.tools), list(self.endpoints)))

    def to_dict(self) -> dict[str, JSON]:
        return {
            "snapshot_version": SNAPSHOT_VERSION,
            "capability_version": self.capability_version,
            "fingerprint": self.fingerprint,
            "protocol_version": self.protocol_version,
            "transport": self.transport,
            "endpoint": self.endpoint,
            "server": self.server,
            "tools": list(self.tools),
            "prompts": list(self.prompts),
            "resources": list(self.resources),
            "resource_templates": list(self.resource_templates),
            "skipped_tools": list(self.skipped_tools),
            "endpoints": list(self.endpoints),
        }

    def to_json(self) -> str:
        """Pretty and newline-terminated, so the file diffs well in review.

        Top-level keys and the server's identity are sorted. Tools, prompts and resources keep
        the order of keys the server sent: a schema's ``properties`` order is how its author
        meant parameters to be read (required ``query`` first), and pages show them so.
        """
        data = self.to_dict()
        data["server"] = _sorted(data["server"])
        return json.dumps(dict(sorted(data.items())), indent=2, ensure_ascii=False) + "\n"


ITEM_KEYS: dict[str, str] = {"prompts": "name", "resources": "uri", "resource_templates": "uriTemplate"}
"""The lists besides tools that an endpoint offers, and the field each is keyed by."""


def endpoint_record(
    name: str,
    profile: str | None,
    transport: str,
    address: str,
    protocol_version: str,
    tools: tuple[dict[str, JSON], ...] | list[dict[str, JSON]],
    **extra: JSON,
) -> dict[str, JSON]:
    """One endpoint as the snapshot records it.

    ``tools`` lists the names it offers; ``variants`` holds, whole, each tool whose JSON differs
    from the snapshot's main listing of it; *extra* adds ``auth`` (header templates), ``env``
    (variable names), ``supported_versions`` (every protocol revision a 2026-era server says it
    speaks), and the names or URIs of its ``prompts``, ``resources`` and ``resource_templates``.
    """
    record: dict[str, JSON] = {
        "name": name,
        "profile": profile or name,
        "transport": transport,
        "address": address,
        "protocol_version": protocol_version,
        "tools": [t["name"] for t in tools],
    }
    record.update({k: v for k, v in extra.items() if v})
    return record


def resolve_capability_version(rule: str, server: dict[str, JSON], tools_fingerprint: str) -> str:
    """Apply the configured capability-version rule (``server``, ``fingerprint``, ``meta:KEY``)."""
    if rule == "fingerprint":
        return tools_fingerprint.removeprefix("sha256:")[:12]
    if rule.startswith("meta:"):
        key = rule[5:]
        meta = server.get("_meta") or {}
        value = meta.get(key) if isinstance(meta, dict) else None
        if not isinstance(value, str | int | float) or isinstance(value, bool) or str(value) == "":
            raise PortalError(
                f"The capability version is configured to come from the `_meta` key {key!r} of the "
                f"server's discover/initialize result, but the server did not send it. Set "
                f"`capability_version: server` or `fingerprint`, or make the server send that key."
            )
        return str(value)
    version = server.get("version")
    if isinstance(version, str) and version.strip():
        return version.strip()
    # An anonymous 2026-era server has no version; the fingerprint is the honest stand-in.
    return tools_fingerprint.removeprefix("sha256:")[:12]


def _bad(path: Path, problem: str) -> PortalError:
    return PortalError(
        f"The snapshot {path} is not usable: {problem}. Create a fresh one with "
        f"`mcp-portal introspect ... -o {path.name}`."
    )


def _object_list(data: dict[str, JSON], key: str, path: Path) -> tuple[dict[str, JSON], ...]:
    items = data.get(key, [])
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise _bad(path, f"`{key}` must be a list of objects")
    return tuple(items)


def load_snapshot(path: Path) -> Snapshot:
    """Read and check a snapshot file; a malformed one is a clear error, not a traceback."""
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PortalError(f"The snapshot {path} cannot be read ({exc.strerror or exc}). Check the path.") from None
    except UnicodeDecodeError:
        raise _bad(path, "it is not UTF-8 text") from None
    return parse_snapshot(raw, path)


def frozen(snapshot: Snapshot) -> Snapshot:
    """The snapshot exactly as its file will read back: a live build renders what --from would.

    Whatever ``to_json`` normalizes (sorted server identity, JSON number forms), a live build
    renders exactly what a later build from the written snapshot file renders.
    """
    return parse_snapshot(snapshot.to_json(), Path("snapshot.json"))


def _endpoints(data: dict[str, JSON], path: Path, tool_names: set[str]) -> tuple[dict[str, JSON], ...]:
    """Check the endpoint records: the pages trust their shape."""
    records = _object_list(data, "endpoints", path)
    seen: set[str] = set()
    for i, record in enumerate(records):
        where = f"endpoint #{i + 1}"
        for key in ("name", "profile", "transport", "address", "protocol_version"):
            if not isinstance(record.get(key), str):
                raise _bad(path, f"{where} has no string `{key}`")
        if record["name"] in seen:
            raise _bad(path, f"the endpoint name {record['name']!r} appears twice")
        seen.add(record["name"])
        for key in ("tools", "env", "supported_versions", "prompts", "resources", "resource_templates"):
            value = record.get(key, [])
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise _bad(path, f"{where} has a `{key}` that is not a list of strings")
        unknown = set(record["tools"]) - tool_names
        if unknown:
            raise _bad(path, f"{where} offers tools the snapshot does not list: {sorted(unknown)[:3]}")
        variants = record.get("variants", {})
        if not isinstance(variants, dict) or not all(
            isinstance(v, dict) and v.get("name") == k and k in record["tools"] for k, v in variants.items()
        ):
            raise _bad(path, f"{where} has `variants` that are not tools it offers")
        items = record.get("item_variants", {})
        if not isinstance(items, dict) or not all(
            section in ITEM_KEYS
            and isinstance(found, dict)
            and all(
                isinstance(v, dict) and v.get(ITEM_KEYS[section]) == k and k in record.get(section, [])
                for k, v in found.items()
            )
            for section, found in items.items()
        ):
            raise _bad(path, f"{where} has `item_variants` that are not prompts or resources it offers")
        server = record.get("server", {})
        if not isinstance(server, dict) or not all(isinstance(v, str) for v in server.values()):
            raise _bad(path, f"{where} has a `server` that is not an object of strings")
        auth = record.get("auth", [])
        if not isinstance(auth, list) or not all(
            isinstance(a, list) and len(a) == 2 and isinstance(a[0], str) and isinstance(a[1], str | None) for a in auth
        ):
            raise _bad(path, f"{where} has an `auth` that is not a list of [header, template] pairs")
    return records


def parse_snapshot(raw: str, path: Path) -> Snapshot:
    """Check and build a snapshot from its JSON text (*path* is only named in errors)."""
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise _bad(path, f"it is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    if not isinstance(data, dict):
        raise _bad(path, "the top level must be a JSON object")
    version = data.get("snapshot_version")
    if version not in READABLE_VERSIONS:
        readable = " and ".join(map(str, READABLE_VERSIONS))
        raise _bad(path, f"its snapshot_version is {version!r}, and this mcp-portal reads versions {readable}")
    for key in ("protocol_version", "capability_version", "transport", "endpoint"):
        if not isinstance(data.get(key), str):
            raise _bad(path, f"`{key}` must be a string")
    if not isinstance(data.get("server"), dict):
        raise _bad(path, "`server` must be an object")
    tools = _object_list(data, "tools", path)
    for i, tool in enumerate(tools):
        if not isinstance(tool.get("name"), str):
            raise _bad(path, f"tool #{i + 1} has no string `name`")
        if not isinstance(tool.get("inputSchema", {}), dict | bool):
            raise _bad(path, f"tool {tool['name']!r} has an `inputSchema` that is not a JSON Schema")
    snap = Snapshot(
        protocol_version=data["protocol_version"],
        server=data["server"],
        tools=tools,
        capability_version=data["capability_version"],
        transport=data["transport"],
        endpoint=data["endpoint"],
        prompts=_object_list(data, "prompts", path),
        resources=_object_list(data, "resources", path),
        resource_templates=_object_list(data, "resource_templates", path),
        skipped_tools=_object_list(data, "skipped_tools", path),
        endpoints=_endpoints(data, path, {t["name"] for t in tools}),
    )
    if data.get("fingerprint") != snap.fingerprint:
        raise _bad(path, "its `fingerprint` does not match its tools, so it was edited or damaged")
    return snap
