"""Gather: everything a portal shows, decided once, before anything is rendered.

:func:`gather` reads the author's files (translations, overlays, the OpenAPI document,
a previous snapshot), maps tools to API operations and builds the :class:`SiteModel`.
``build``, ``check``, the golden model dump and the benchmarks all start here, so the
model they see is the one the pages show.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from generator.authoring.openapi import ApiDocument, load_openapi, map_tools
from generator.authoring.overlays import check_overlays, load_overlays, unused_locales
from generator.authoring.translations import load_translations
from generator.compare.diff import load_side
from generator.config.portal import PortalConfig
from generator.history.timeline import History
from generator.model.pages import check_one_page_per_item
from generator.model.proofs import proof_warnings
from generator.model.site import SiteModel, build_model
from generator.model.tool import ToolDoc
from generator.snapshot.snapshot import Snapshot


@dataclass(frozen=True)
class Gathered:
    """The model, the API document published with it (if any), and what the author should know."""

    model: SiteModel
    api: ApiDocument | None
    warnings: tuple[str, ...]


def gather(snapshot: Snapshot, config: PortalConfig, history: History | None = None) -> Gathered:
    """The whole documentation model of *snapshot* under *config*, with its warnings; with *history*,
    as a version of a versioned site (:mod:`generator.history`)."""
    translations = load_translations(Path(config.translations_dir) if config.translations_dir else None, config.locales)
    warnings = [f"stale translation (the server's text changed): {entry}" for entry in translations.stale(snapshot)]
    warnings += release_mismatches(snapshot)
    overlays = load_overlays(Path(config.overlays_dir) if config.overlays_dir else None)
    warnings += check_overlays(overlays, snapshot.tools)
    warnings += unused_locales(overlays, config.locales)
    warnings += fingerprint_version(snapshot, config)
    warnings += proof_warnings(snapshot.proofs)
    previous = load_side(Path(config.previous), config.limits.max_snapshot_bytes) if config.previous else None
    api, operations = None, {}
    if config.operation_meta_key and not config.openapi:
        warnings.append(
            f"operation_meta_key {config.operation_meta_key!r} is set, but no OpenAPI document is "
            f"(`openapi` or --openapi), so tools are mapped to no API operation"
        )
    if config.openapi:
        api = load_openapi(Path(config.openapi))
        refs = {name: o.operation for name, o in overlays.items() if o.operation}
        mapped = map_tools(api, snapshot.tools, meta_key=config.operation_meta_key, overlay_refs=refs)
        operations = mapped.operations
        warnings += mapped.warnings
    model = build_model(
        snapshot, config, translations, overlays=overlays, previous=previous, api=api, operations=operations,
        history=history,
    )  # fmt: skip
    check_one_page_per_item(model)  # a repeated item or a shared output path fails here, before any page
    warnings += local_commands(model)
    warnings += model.discovery.warnings
    return Gathered(model, api, tuple(warnings))


_LOCAL_PATH = re.compile(r"(?:/|~[/\\]|[A-Za-z]:[/\\]|\.{1,2}[/\\])")
"""A command that starts with a path on this machine: absolute, home-relative, drive or dot-relative."""
_INSTALL_DIRS = ("node_modules/.bin", "node_modules\\.bin", "/.venv/", "site-packages")


def local_commands(site: SiteModel) -> list[str]:
    """A warning for each stdio endpoint whose published command is a path on this machine: every
    client configuration and tool page would tell readers to run a file only this machine has."""
    found = []
    for endpoint in site.endpoints:
        if endpoint.transport != "stdio":
            continue
        address = endpoint.address[:1000]
        if _LOCAL_PATH.match(address.lstrip()) or any(d in address for d in _INSTALL_DIRS):
            found.append(
                f"endpoint {endpoint.name!r}: the command shown to readers, {address[:200]!r}, is a path on "
                f"this machine; set `public` for this endpoint in portal.yaml (or --public for --stdio) to "
                f'the command readers run, e.g. public: "npx -y @scope/server"'
            )
    return found


def fingerprint_version(snapshot: Snapshot, config: PortalConfig) -> list[str]:
    """A warning when the capability version is the tools' fingerprint only because the server sent no
    version: the pages are stamped with a hash a reader cannot match to a release."""
    if config.capability_version != "server":
        return []
    version = snapshot.server.get("version")
    if isinstance(version, str) and version.strip():
        return []
    return [
        f"the server sends no version (serverInfo.version is {'empty' if version == '' else 'missing'}), so "
        f"the pages carry the tools' fingerprint {snapshot.capability_version} as their capability version; "
        f"set `capability_version: meta:KEY` in portal.yaml if the server sends its version in _meta, or "
        f"`capability_version: fingerprint` to keep the hash and silence this warning"
    ]


def schema_warnings(tool: ToolDoc) -> list[str]:
    """What flattening *tool*'s input schema noted (a size limit, a depth limit, an unresolved $ref).

    Found when the tool's pages are rendered (or read from the render cache with them), not when
    the model is gathered: a rebuild need not flatten the schemas of the tools that did not change.
    """
    return [f"tool {tool.name}: {note}" for note in tool.params.warnings]


def release_mismatches(snapshot: Snapshot) -> list[str]:
    """A warning per endpoint that runs another server release than the one the portal is stamped with."""
    primary = snapshot.endpoints[0].name if snapshot.endpoints else "the first endpoint"
    stamped = " ".join(str(snapshot.server.get(k, "?")) for k in ("name", "version"))
    return [
        f"endpoint {record.name} reports server {record.server.get('name', '?')} "
        f"{record.server.get('version', '?')}, but the portal is stamped with {stamped} from endpoint "
        f"{primary}; pages document {primary}'s listing, so deploy one release everywhere and build again"
        for record in snapshot.endpoints
        if record.server
    ]
