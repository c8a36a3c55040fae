"""Connect to an MCP server with the official SDK and freeze what it says.

This is the only stage that speaks MCP, and this module its entry point: :func:`introspect_all`
runs one bounded session per endpoint (:mod:`generator.connect.session`), lists everything it
offers (:mod:`generator.connect.listing`), freezes each into a snapshot with its endpoint record,
and folds them into one (:mod:`generator.connect.merge`).  Every failure becomes one paragraph
naming the server, the request and what to do (written by :mod:`generator.connect.failures`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import anyio

from generator.config.portal import Limits, ServerSpec
from generator.connect.failures import Underway, empty_env, explain, leaf, serves_http, stderr_tail
from generator.connect.listing import ToolLister, first_of_each, optional_lists, walk_pages
from generator.connect.merge import merge
from generator.connect.secrets import Redactor
from generator.connect.session import RawTools, open_client, server_identity
from generator.connect.stderr_log import StderrLog
from generator.errors import PortalError
from generator.heap import paused
from generator.snapshot.records import EndpointRecord
from generator.snapshot.snapshot import Snapshot, fingerprint, resolve_capability_version


@dataclass
class _Listing:
    """What one session with a server said, before its optional lists are checked for repeats."""

    server: dict[str, Any]
    version: str
    supported: list[str]
    tools: list[dict[str, Any]]
    skipped: list[dict[str, Any]]
    prompts: list[dict[str, Any]]
    resources: list[dict[str, Any]]
    templates: list[dict[str, Any]]


async def _list_everything(
    spec: ServerSpec,
    limits: Limits,
    progress: Underway,
    redactor: Redactor,
    errlog: StderrLog | None,
    lenient: bool,
    warnings: list[str],
) -> _Listing:
    """One session: the handshake, every tool, then the optional lists; warnings go to *warnings*, redacted."""
    who = spec.describe()
    tap = RawTools()
    async with open_client(spec, limits, redactor, errlog, progress, tap) as client:
        server = server_identity(client)
        progress.request = "tools/list"
        lister = ToolLister(client, tap, who, progress, lenient)
        tools = await walk_pages("tools/list", lister.page, limits, progress, who)
        wire_tools = lister.unique(tools)
        warnings.extend(redactor.redact(w) for w in lister.warnings)
        prompts, resources, templates, optional_warnings = await optional_lists(client, limits, progress, who)
        warnings.extend(redactor.redact(w) for w in optional_warnings)
        progress.request = "closing the connection"
        version = client.protocol_version
        discovered = client.session.discover_result
        # A 2026-era server lists every revision it speaks; an initialize handshake names only one.
        supported = [str(v) for v in (discovered.supported_versions or [])] if discovered is not None else []
    return _Listing(server, version, supported, wire_tools, lister.skipped, prompts, resources, templates)


def _freeze(
    spec: ServerSpec, capability_rule: str, listing: _Listing, redactor: Redactor, lenient: bool, warnings: list[str]
) -> Snapshot:
    """The snapshot of one endpoint: each prompt, resource and template key once, and its endpoint record."""
    who = spec.describe()
    wire_tools = listing.tools
    found: list[str] = []
    wire_prompts = first_of_each(listing.prompts, "prompts", who, lenient, found)
    wire_resources = first_of_each(listing.resources, "resources", who, lenient, found)
    wire_templates = first_of_each(listing.templates, "resource_templates", who, lenient, found)
    warnings.extend(redactor.redact(w) for w in found)
    record = EndpointRecord(
        name=spec.name,
        profile=spec.profile or spec.name,
        transport=spec.transport,
        address=spec.public_endpoint(),
        protocol_version=listing.version,
        tools=tuple(t["name"] for t in wire_tools),
        auth=spec.auth_template(),
        env=tuple(spec.env),
        supported_versions=tuple(listing.supported),
        prompts=tuple(str(p.get("name")) for p in wire_prompts),
        resources=tuple(str(r.get("uri")) for r in wire_resources),
        resource_templates=tuple(str(t.get("uriTemplate")) for t in wire_templates),
    )
    tools_fp = fingerprint(wire_tools)  # one endpoint: its record is not hashed, so this is the snapshot's too
    snapshot = Snapshot(
        protocol_version=listing.version,
        server=listing.server,
        tools=tuple(wire_tools),
        capability_version=resolve_capability_version(capability_rule, listing.server, tools_fp),
        transport=spec.transport,
        endpoint=spec.public_endpoint(),
        prompts=tuple(wire_prompts),
        resources=tuple(wire_resources),
        resource_templates=tuple(wire_templates),
        skipped_tools=tuple(listing.skipped),
        endpoints=(record,),
        fingerprint=tools_fp,
    )
    return snapshot


async def _introspect(
    spec: ServerSpec,
    limits: Limits,
    capability_rule: str,
    progress: Underway,
    redactor: Redactor,
    errlog: StderrLog | None,
    lenient: bool,
    warnings: list[str],
) -> Snapshot:
    """List everything one endpoint offers and freeze it; with *lenient*, invalid or repeated entries are
    skipped with a warning appended to *warnings* instead of failing."""
    listing = await _list_everything(spec, limits, progress, redactor, errlog, lenient, warnings)
    return _freeze(spec, capability_rule, listing, redactor, lenient, warnings)


def introspect(
    spec: ServerSpec,
    limits: Limits,
    capability_rule: str = "server",
    *,
    lenient: bool = False,
    warnings: list[str] | None = None,
) -> Snapshot:
    """Connect, list everything, disconnect; raise :class:`PortalError` on any failure.

    A tool that breaks the MCP spec (or a repeated tool name) is an error naming it; with
    *lenient* it is skipped, recorded in the snapshot's ``skipped_tools`` and reported as a
    warning.  Warnings (redacted) are appended to *warnings* when given, else dropped.
    """
    return introspect_all((spec,), limits, capability_rule, lenient=lenient, warnings=warnings)


def introspect_all(
    specs: Sequence[ServerSpec],
    limits: Limits,
    capability_rule: str = "server",
    *,
    lenient: bool = False,
    warnings: list[str] | None = None,
) -> Snapshot:
    """Introspect every endpoint concurrently and fold them into one snapshot (see :mod:`generator.connect.merge`).

    Each endpoint gets its own time budget (``total_timeout``), running side by side, so
    several endpoints cost about as long as the slowest. The first failure stops the rest
    and is reported naming its endpoint.  *lenient* and *warnings* are as for :func:`introspect`;
    warnings found before a failure stay in *warnings*, so the caller can still show them.
    """
    found: list[str] = [] if warnings is None else warnings
    results: list[Snapshot | None] = [None] * len(specs)

    async def run_all() -> None:
        async with anyio.create_task_group() as group:
            for index, spec in enumerate(specs):
                group.start_soon(_one, index, spec)

    async def _one(index: int, spec: ServerSpec) -> None:
        results[index] = await _introspect_one(spec, limits, lenient, found)

    try:
        with paused():  # thousands of tools are kept, in no cycle: see generator.heap
            anyio.run(run_all)
    except (Exception, BaseExceptionGroup) as exc:
        first = leaf(exc)
        if isinstance(first, PortalError):
            raise PortalError(first.message) from exc
        raise  # pragma: no cover - _introspect_one turns every failure into a PortalError
    parts = [snap for snap in results if snap is not None]
    return merge(parts, capability_rule)


async def _introspect_one(spec: ServerSpec, limits: Limits, lenient: bool, warnings: list[str]) -> Snapshot:
    """One endpoint, bounded in time; every failure becomes one paragraph naming it."""
    progress = Underway()
    redactor = Redactor()
    # Closed in the finally below; a with-block would not fit the optional stderr capture.
    errlog = StderrLog() if spec.url is None else None
    try:
        with anyio.fail_after(limits.total_timeout):
            return await _introspect(spec, limits, "fingerprint", progress, redactor, errlog, lenient, warnings)
    except PortalError as exc:
        raise PortalError(redactor.redact(exc.message)) from None
    except (Exception, BaseExceptionGroup) as exc:  # boundary: any SDK or transport failure
        first = leaf(exc)
        if isinstance(first, PortalError):
            raise PortalError(redactor.redact(first.message)) from exc
        message = explain(first, spec, progress, limits) + serves_http(errlog, progress, redactor)
        message += empty_env(spec) + stderr_tail(errlog, redactor)
        raise PortalError(redactor.redact(message)) from exc
    finally:
        if errlog is not None:
            errlog.close()
