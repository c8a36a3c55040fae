"""The snapshot: what the server said, frozen as JSON.

A snapshot is the only input of the rendering stages, so a site can be rebuilt
offline, diffed and checked for drift.  It knows nothing of the SDK's classes:
tools are kept exactly as they came over the wire, in MCP's camelCase JSON.
This module holds the :class:`Snapshot`, its fingerprint, and the loader; the file's
shape and its checks are in :mod:`generator.snapshot.shape`, the endpoint records in
:mod:`generator.snapshot.records`.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

from generator.config.portal import Limits
from generator.errors import PortalError
from generator.heap import paused
from generator.snapshot import remembered
from generator.snapshot.jsonread import MAX_DEPTH, ShapeProblem, load_json_plain
from generator.snapshot.jsontext import compact, pretty, pretty_pieces
from generator.snapshot.proofs import check_proofs
from generator.snapshot.quick import shallow_pretty
from generator.snapshot.records import EndpointRecord
from generator.snapshot.shape import JSON, READABLE_VERSIONS, SNAPSHOT_VERSION, check_shape
from generator.snapshot.wording import quote, shown, where
from generator.text import hidden_escaped


def canonical_json(value: JSON) -> str:
    """The one serialisation used for hashing: sorted keys, no spaces, real Unicode."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _sorted(value: JSON) -> JSON:
    """*value* with every object's keys sorted, recursively (for data whose key order means nothing).

    Done by the C JSON codec, which spends one level of the recursion limit per level of nesting
    (a Python walk with comprehensions spends two, and ran out on a deep but loadable ``_meta``).
    """
    return json.loads(canonical_json(value))


def raw_digest(value: JSON) -> bytes:
    """sha256 of *value*'s compact JSON with its keys in the order they came, not sorted as in
    :func:`canonical_json`: two tools that differ only in the order of their keys differ here, as
    they do on their pages (parameters are shown in the order of ``properties``) and in
    ``snapshot.json``. The render cache names a tool's pages and its text by it (the C encoder
    writes this JSON for 5,000 tools in 0.26 s; the indented text takes 1.13 s).
    """
    return hashlib.sha256(compact(value).encode("utf-8")).digest()


def fingerprint(
    tools: Sequence[dict[str, JSON]],
    endpoints: Sequence[dict[str, JSON]] | None = None,
    canonical: Sequence[bytes] | None = None,
) -> str:
    """sha256 of the canonical tool list, in the server's order.

    With several endpoints, what each one offers is part of what the site documents, so the
    endpoint records (their JSON form, as the file holds them) are hashed too; one endpoint adds
    nothing the tool list does not say. The list is hashed tool by tool, as the encoder writes it
    (``[`` the tools' :func:`canonical_json` joined by ``,`` ``]``), so no text of the whole is
    held. *canonical*, when given, is each tool's :func:`canonical_json` already encoded as UTF-8.
    """
    whole = hashlib.sha256()
    several = bool(endpoints) and len(endpoints or ()) > 1
    if several:  # the sorted keys of {"endpoints": ..., "tools": ...}
        whole.update(('{"endpoints":' + canonical_json(list(endpoints or ())) + ',"tools":').encode("utf-8"))
    whole.update(b"[")
    for i, tool in enumerate(tools):
        text = canonical[i] if canonical is not None else canonical_json(tool).encode("utf-8")
        whole.update(b"," + text if i else text)
    whole.update(b"]}" if several else b"]")
    return "sha256:" + whole.hexdigest()


@dataclass(frozen=True, kw_only=True)
class Snapshot:
    """Everything the server told us, plus how we reached it.

    Its :attr:`fingerprint` always matches its tools and endpoint records: :func:`new_snapshot`
    computes it, and a snapshot read from a file is refused when the two differ.
    """

    protocol_version: str
    server: dict[str, JSON]
    tools: tuple[dict[str, JSON], ...]
    capability_version: str
    transport: str
    endpoint: str
    endpoints: tuple[EndpointRecord, ...]
    """What each endpoint offers; a version 1 snapshot gets one stand-in record, ``default``."""
    fingerprint: str
    prompts: tuple[dict[str, JSON], ...] = ()
    resources: tuple[dict[str, JSON], ...] = ()
    resource_templates: tuple[dict[str, JSON], ...] = ()
    skipped_tools: tuple[dict[str, JSON], ...] = ()
    """Tools left out in ``--lenient`` mode: ``{"name": ..., "reason": ...}``."""
    proofs: dict[str, JSON] | None = None
    """What the server answered to the pages' examples (``--prove``; :mod:`generator.snapshot.proofs`), or None.
    Not part of the fingerprint."""
    digests: tuple[bytes, ...] = field(default=(), compare=False, repr=False)
    """Each tool's :func:`raw_digest`, when the reader of a watch already made them for its memory
    (:func:`_parse_remembering`); empty otherwise. :func:`revised` empties it."""

    @cached_property
    def tool_keys(self) -> tuple[bytes, ...]:
        """Each tool's :func:`raw_digest`, in order: what the render cache names a tool's pages and its
        text in ``snapshot.json`` by."""
        if len(self.digests) == len(self.tools):
            return self.digests
        return tuple(map(raw_digest, self.tools))

    def tool_key(self, tool: object) -> bytes | None:
        """:attr:`tool_keys` of *tool* when it is one of this snapshot's tools (the very object)."""
        at = self._tool_index.get(id(tool))
        return self.tool_keys[at] if at is not None and self.tools[at] is tool else None

    @cached_property
    def _tool_index(self) -> dict[int, int]:
        return {id(tool): i for i, tool in enumerate(self.tools)}

    def to_dict(self) -> dict[str, JSON]:
        proofs = {} if self.proofs is None else {"proofs": self.proofs}
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
            "endpoints": [e.to_json() for e in self.endpoints],
            **proofs,
        }

    def to_json(self) -> str:
        """Pretty and newline-terminated, so the file diffs well in review.

        Top-level keys and the server's identity are sorted. Tools, prompts and resources keep
        the order of keys the server sent: a schema's ``properties`` order is how its author
        meant parameters to be read (required ``query`` first), and pages show them so. Bidi
        controls and invisible characters are written as ``\\uXXXX`` escapes
        (:func:`generator.text.hidden_escaped`): the same value, which no viewer can reorder or hide.
        """
        return hidden_escaped(pretty(self._document())) + "\n"  # json.dumps(indent=2, ensure_ascii=False), faster

    def json_pieces(self) -> Iterator[bytes]:
        """:meth:`to_json` encoded, a tool at a time: what a build writes as ``snapshot.json``.

        The pieces join to the same bytes; the whole text is never held (at 5,000 tools it was
        27 MB of text, as much again encoded, and the pieces it was joined from: the build's peak).
        """
        for text_piece in pretty_pieces(self._document(), "tools"):
            yield hidden_escaped(text_piece).encode("utf-8")
        yield b"\n"

    def _document(self) -> dict[str, JSON]:
        """What :meth:`to_json` writes: top-level keys and the server's identity sorted."""
        data = self.to_dict()
        data["server"] = _sorted(data["server"])
        if "proofs" in data:  # the portal's own keys sorted; the server's JSON inside keeps its order
            data["proofs"] = _sorted_proofs(data["proofs"])
        return dict(sorted(data.items()))


def _sorted_proofs(proofs: JSON) -> JSON:
    """*proofs* with the portal's own keys sorted: the sections, the names in each, each proof's and
    attempt's fields; requests and answers keep the order they were sent in."""
    out: dict[str, JSON] = {}
    for section, found in sorted(proofs.items()):
        out[section] = {key: dict(sorted(entry.items())) for key, entry in sorted(found.items())}
    return out


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


class SnapshotError(PortalError):
    """A snapshot file that cannot be used; ``problem`` names what is wrong and where."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(
            f"The snapshot {path} is not usable: {problem}. Create a fresh one with "
            f"`mcp-portal introspect ... -o {path.name}`."
        )
        self.problem = problem


def new_snapshot(
    *,
    protocol_version: str,
    server: dict[str, JSON],
    tools: tuple[dict[str, JSON], ...],
    capability_version: str,
    transport: str,
    endpoint: str,
    endpoints: tuple[EndpointRecord, ...] = (),
    prompts: tuple[dict[str, JSON], ...] = (),
    resources: tuple[dict[str, JSON], ...] = (),
    resource_templates: tuple[dict[str, JSON], ...] = (),
    skipped_tools: tuple[dict[str, JSON], ...] = (),
    proofs: dict[str, JSON] | None = None,
) -> Snapshot:
    """A :class:`Snapshot` with its fingerprint computed; with no *endpoints*, one stand-in record,
    ``default``, that offers every tool (a version 1 snapshot, or one endpoint built by hand)."""
    if not endpoints:
        names = tuple(str(tool["name"]) for tool in tools)
        endpoints = (EndpointRecord("default", "default", transport, endpoint, protocol_version, names),)
    return Snapshot(
        protocol_version=protocol_version,
        server=server,
        tools=tools,
        capability_version=capability_version,
        transport=transport,
        endpoint=endpoint,
        endpoints=endpoints,
        fingerprint=fingerprint(tools, [record.to_json() for record in endpoints]),
        prompts=prompts,
        resources=resources,
        resource_templates=resource_templates,
        skipped_tools=skipped_tools,
        proofs=proofs,
    )


def revised(snapshot: Snapshot, **changes: object) -> Snapshot:
    """*snapshot* with the fields in *changes* replaced and its fingerprint computed again."""
    changed: Snapshot = replace(snapshot, **changes)  # type: ignore[arg-type]
    records = [record.to_json() for record in changed.endpoints]
    return replace(changed, fingerprint=fingerprint(changed.tools, records), digests=())


def load_snapshot(
    path: Path, memory: remembered.ToolMemory | None = None, *, max_bytes: int = Limits.max_snapshot_bytes
) -> Snapshot:
    """Read and check a snapshot file; a malformed one is a clear error, not a traceback.

    *memory*, kept by a long-lived process (``build --watch``), holds the tools of the last
    snapshot it read: those are not checked again (:mod:`generator.snapshot.remembered`).
    A file of more than *max_bytes* (``limits.max_snapshot_bytes``) is refused: see :func:`read_bounded`.
    """
    try:
        raw = read_bounded(path, max_bytes).decode("utf-8")
    except IsADirectoryError:
        inside = path / "snapshot.json"
        hint = f"; the site in it keeps its own: {inside}" if inside.is_file() else ""
        raise PortalError(
            f"The snapshot {path} is a directory, and a snapshot is a file{hint}. Check the path."
        ) from None
    except OSError as exc:
        raise PortalError(f"The snapshot {path} cannot be read ({exc.strerror or exc}). Check the path.") from None
    except UnicodeDecodeError:
        raise SnapshotError(path, "it is not UTF-8 text") from None
    return parse_snapshot(raw, path, memory)


def read_bounded(path: Path, max_bytes: int) -> bytes:
    """The bytes of the snapshot file *path*, when there are at most *max_bytes* of them.

    A regular file that is larger is refused by its size, before a byte is read; a pipe is read no
    further than one byte past the bound. Parsing JSON takes several times the text's size in memory,
    so without this bound a file of a few gigabytes (by mistake, or planted) could exhaust the machine.
    Raises :class:`PortalError` naming the limit, or :class:`OSError`.
    """
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > max_bytes:
            raise PortalError(_too_large(path, f"holds {size:,} bytes", max_bytes))
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise PortalError(_too_large(path, f"holds more than {max_bytes:,} bytes", max_bytes))
    return data


def _too_large(path: Path, found: str, max_bytes: int) -> str:
    """The one paragraph for a snapshot file past ``limits.max_snapshot_bytes``."""
    return (
        f"The snapshot {path} {found}, more than the {max_bytes:,} bytes ({max_bytes / 2**20:g} MiB) mcp-portal "
        f"reads from one snapshot file (the limit is --max-snapshot-bytes, or `max_snapshot_bytes` under `limits:` "
        f"in portal.yaml), so it was not read. A snapshot takes about 5 MB per 1,000 tools: check that {path.name} "
        f"is the snapshot you meant, or, if it really is one, raise the limit, e.g. --max-snapshot-bytes "
        f"{max(2 * max_bytes, 1 << 29)}."
    )


def frozen(snapshot: Snapshot) -> Snapshot:
    """The snapshot exactly as its file will read back: a live build renders what --from would.

    Whatever ``to_json`` normalizes (sorted server identity, JSON number forms), a live build
    renders exactly what a later build from the written snapshot file renders.

    The text is checked as any snapshot file is, fingerprint included, with one shortcut that holds
    only for text ``to_json`` has just written: its depth is read from its indentation
    (:func:`~generator.snapshot.quick.shallow_pretty`).
    """
    try:
        with paused():  # millions of new objects that form no cycles, in a heap that is large already
            text = snapshot.to_json()
            data, plain = _loaded(text)
            return _checked(data, text, plain, pretty_text=True)
    except ShapeProblem as problem:  # no file to re-create here: what the server sent is the problem
        raise PortalError(
            f"What the server listed cannot be documented: {problem} (the path is the one in the snapshot "
            f"`mcp-portal introspect` would write). Fix the server's listing and build again."
        ) from None


def parse_snapshot(raw: str, path: Path, memory: remembered.ToolMemory | None = None) -> Snapshot:
    """Check and build a snapshot from its JSON text (*path* is only named in errors).

    Everything is checked here, once: later stages trust every type
    :data:`~generator.snapshot.shape.SNAPSHOT_SCHEMA` states. *memory*: see :func:`load_snapshot`.
    """
    try:
        with paused():
            data, plain = _loaded(raw)
            if memory is not None:
                return _parse_remembering(data, plain, memory)
            return _checked(data, raw, plain)
    except ShapeProblem as problem:
        raise SnapshotError(path, str(problem)) from None


def _parse_remembering(data: dict[str, JSON], plain: bool, memory: remembered.ToolMemory) -> Snapshot:
    """:func:`parse_snapshot` for a process that keeps the tools it has read: the tools it read last time
    are not checked again, and their canonical JSON is not made again."""
    tools = data.get("tools")
    if not plain or not isinstance(tools, list):
        return _checked(data, "", plain)  # checked in full, as a one-shot command checks it
    keys = tuple(map(raw_digest, tools))  # type: ignore[arg-type]
    canonical = tuple(
        memory.canonical(key) or canonical_json(tool).encode("utf-8") for key, tool in zip(keys, tools, strict=True)
    )
    shape_ok = memory.passes(data, keys, plain)
    known: str | None = None
    try:  # before the shape is checked: on a malformed shape the checks below say what is wrong
        names = {tool["name"] for tool in tools}  # type: ignore[index, call-overload]
        records = [record.to_json() for record in _endpoints(data.get("endpoints", []), names)]  # type: ignore[arg-type]
        known = fingerprint(tools, records, canonical)  # type: ignore[arg-type]
    except Exception:
        shape_ok = False
    snap = _checked(data, "", plain, shape_checked=shape_ok, computed_fingerprint=known, digests=keys)
    memory.remember(keys, canonical)
    return snap


def _loaded(raw: str) -> tuple[dict[str, JSON], bool]:
    """*raw* parsed (and whether it is plain: see :func:`load_json_plain`), once it is an object of a
    snapshot version this mcp-portal reads."""
    data, plain = load_json_plain(raw)
    if not isinstance(data, dict):
        raise ShapeProblem("the top level must be a JSON object")
    version = data.get("snapshot_version")
    if version not in READABLE_VERSIONS or isinstance(version, bool):
        readable = " and ".join(map(str, READABLE_VERSIONS))
        raise ShapeProblem(f"its snapshot_version is {shown(version)}, and this mcp-portal reads versions {readable}")
    return data, plain


def _checked(
    data: dict[str, JSON],
    raw: str,
    plain: bool,
    *,
    pretty_text: bool = False,
    computed_fingerprint: str | None = None,
    shape_checked: bool = False,
    digests: tuple[bytes, ...] = (),
) -> Snapshot:
    """The snapshot *data* holds, once its shape, names and fingerprint are checked.

    *pretty_text* says *raw* was written with ``indent=2`` (by ``to_json``), so its indentation
    tells its depth (only :func:`frozen` knows that). *computed_fingerprint* was computed from these
    tools by the caller, and *shape_checked* says the caller proved the shape already, and *digests*
    are the tools' :func:`raw_digest` it made (:func:`_parse_remembering`).
    """
    if not shape_checked:
        problem = check_shape(data, plain=plain, shallow=pretty_text and shallow_pretty(raw, MAX_DEPTH))
        if problem is not None:
            raise ShapeProblem(problem)
    tools: tuple[dict[str, JSON], ...] = tuple(data.get("tools", []))
    first: dict[str, int] = {}
    for i, tool in enumerate(tools):
        if first.setdefault(tool["name"], i) != i:
            earlier = first[tool["name"]]
            at = where(["tools", i, "name"])
            raise ShapeProblem(f"{at} repeats {quote(tool['name'])}, the name of tools[{earlier}]")
    fields = {
        "protocol_version": data["protocol_version"],
        "server": data["server"],
        "tools": tools,
        "capability_version": data["capability_version"],
        "transport": data["transport"],
        "endpoint": data["endpoint"],
        "prompts": tuple(data.get("prompts", [])),
        "resources": tuple(data.get("resources", [])),
        "resource_templates": tuple(data.get("resource_templates", [])),
        "skipped_tools": tuple(data.get("skipped_tools", [])),
        "proofs": data.get("proofs"),
    }
    check_proofs(fields["proofs"])  # type: ignore[arg-type]
    records = _endpoints(data.get("endpoints", []), set(first))  # type: ignore[arg-type]
    if computed_fingerprint is None or not records:
        snap = new_snapshot(**fields, endpoints=records)  # type: ignore[arg-type]
    else:
        snap = Snapshot(**fields, endpoints=records, fingerprint=computed_fingerprint, digests=digests)  # type: ignore[arg-type]
    if data["fingerprint"] != snap.fingerprint:
        raise ShapeProblem("its `fingerprint` does not match its tools, so it was edited or damaged")
    return snap


def _endpoints(records: list[dict[str, JSON]], tool_names: set[str]) -> tuple[EndpointRecord, ...]:
    """The endpoint records, each name once (what else the shape cannot say is checked by the record)."""
    seen: set[str] = set()
    found = []
    for i, record in enumerate(records):
        at: list[str | int] = ["endpoints", i]
        if record["name"] in seen:
            raise ShapeProblem(f"{where([*at, 'name'])} repeats the endpoint name {quote(record['name'])}")
        seen.add(record["name"])
        found.append(EndpointRecord.from_json(record, at, tool_names))
    return tuple(found)
