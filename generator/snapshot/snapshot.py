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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Protocol

from generator.errors import PortalError
from generator.forked import Forked, in_child
from generator.snapshot import remembered
from generator.snapshot.ahead import Checked, claim, text_sha256
from generator.snapshot.jsonread import MAX_DEPTH, ShapeProblem, load_json_plain
from generator.snapshot.jsontext import around_list, compact, gc_paused, list_item, pretty, pretty_pieces, pretty_split
from generator.snapshot.quick import shallow_pretty
from generator.snapshot.records import EndpointRecord
from generator.snapshot.shape import JSON, READABLE_VERSIONS, SNAPSHOT_VERSION, check_shape
from generator.snapshot.wording import quote, shown, where


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


class PieceStore(Protocol):
    """Each tool's text in ``snapshot.json`` kept between builds, by its :func:`raw_digest`
    (the render cache's ``.pieces`` record, :mod:`generator.publish.kept_pieces`)."""

    def piece(self, key: bytes) -> bytes | None:
        """The text last kept for *key* (checked), or None."""

    def add(self, key: bytes, piece: bytes) -> None:
        """Keep *piece*, the text of a tool of this snapshot, for the next build."""


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
    endpoints: tuple[EndpointRecord, ...] = ()
    """What each endpoint offers; a version 1 snapshot gets one stand-in record, ``default``."""
    fingerprint: str = field(default="")

    def __post_init__(self) -> None:
        if not self.endpoints:
            # A version-1 snapshot, or one endpoint built by hand: it offers every tool, as listed.
            names = tuple(t["name"] for t in self.tools)
            record = EndpointRecord("default", "default", self.transport, self.endpoint, self.protocol_version, names)
            object.__setattr__(self, "endpoints", (record,))
        if not self.fingerprint:
            records = [e.to_json() for e in self.endpoints]
            object.__setattr__(self, "fingerprint", fingerprint(self.tools, records))
            # Computed here from these very tools, so frozen() need not compute it again.
            object.__setattr__(self, "_own_fingerprint", True)

    @cached_property
    def tool_keys(self) -> tuple[bytes, ...]:
        """Each tool's :func:`raw_digest`, in order: what the render cache names a tool's pages and its
        text in ``snapshot.json`` by."""
        return tuple(map(raw_digest, self.tools))

    def tool_key(self, tool: object) -> bytes | None:
        """:attr:`tool_keys` of *tool* when it is one of this snapshot's tools (the very object)."""
        at = self._tool_index.get(id(tool))
        return self.tool_keys[at] if at is not None and self.tools[at] is tool else None

    @cached_property
    def _tool_index(self) -> dict[int, int]:
        return {id(tool): i for i, tool in enumerate(self.tools)}

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
            "endpoints": [e.to_json() for e in self.endpoints],
        }

    def to_json(self, *, split: bool = False) -> str:
        """Pretty and newline-terminated, so the file diffs well in review.

        Top-level keys and the server's identity are sorted. Tools, prompts and resources keep
        the order of keys the server sent: a schema's ``properties`` order is how its author
        meant parameters to be read (required ``query`` first), and pages show them so.

        A snapshot made by :func:`frozen` returns the text it was parsed from: the same string
        (parsing this text and writing it again is the identity), without encoding every tool twice.
        *split* lets a forked child write half of a long tool list (:func:`pretty_split`).
        """
        text: str | None = self.__dict__.get("_text")
        if text is not None:
            return text
        # json.dumps(indent=2, ensure_ascii=False), faster. With *split*, a long tool list is written by
        # two processes: frozen() asks for it, as the second core is idle once listing ends. Not when a
        # build writes snapshot.json (json_pieces): there the forked child's resident size would count
        # every page model the build holds by then (shared, but the peak a user's monitor shows).
        document = self._document()
        return (pretty_split(document, "tools") if split else pretty(document)) + "\n"

    def json_pieces(self, store: PieceStore | None = None) -> Iterator[bytes]:
        """:meth:`to_json` encoded, a tool at a time: what a build writes as ``snapshot.json``.

        The pieces join to the same bytes; the whole text is never held (at 5,000 tools it was
        27 MB of text, as much again encoded, and the pieces it was joined from: the build's peak).
        With a *store*, each tool's text is taken from it when it holds the tool's :attr:`tool_keys`
        (and written, then given to it, when it does not): the text is the same either way.
        """
        text: str | None = self.__dict__.get("_text")
        if text is not None:
            yield text.encode("utf-8")
            return
        document = self._document()
        around = around_list(document, "tools") if store is not None else None
        if store is None or around is None:
            for text_piece in pretty_pieces(document, "tools"):
                yield text_piece.encode("utf-8")
            yield b"\n"
            return
        yield around[0].encode("utf-8")
        separator = b"\n    "
        for tool, key in zip(self.tools, self.tool_keys, strict=True):
            kept = store.piece(key)
            piece = kept if kept is not None else list_item(tool).encode("utf-8")
            store.add(key, piece)
            yield separator + piece
            separator = b",\n    "
        yield around[1].encode("utf-8") + b"\n"

    def _document(self) -> dict[str, JSON]:
        """What :meth:`to_json` writes: top-level keys and the server's identity sorted."""
        data = self.to_dict()
        data["server"] = _sorted(data["server"])
        return dict(sorted(data.items()))


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


def load_snapshot(path: Path) -> Snapshot:
    """Read and check a snapshot file; a malformed one is a clear error, not a traceback."""
    ahead = claim(path)  # read and checked in a child while the build imported (generator.snapshot.ahead)
    try:
        try:
            raw = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise PortalError(f"The snapshot {path} cannot be read ({exc.strerror or exc}). Check the path.") from None
        except UnicodeDecodeError:
            raise SnapshotError(path, "it is not UTF-8 text") from None
        return parse_snapshot(raw, path, ahead)
    finally:
        if ahead is not None:
            ahead.close()


def vouched(snapshot: Snapshot) -> Snapshot:
    """*snapshot*, marked as holding the fingerprint its maker just computed with :func:`fingerprint`
    from these very tools and endpoint records, so :func:`frozen` keeps it instead of hashing the
    tools again (0.4 s at 10,000 tools). For the introspection code that builds snapshots."""
    object.__setattr__(snapshot, "_own_fingerprint", True)
    return snapshot


def frozen(snapshot: Snapshot) -> Snapshot:
    """The snapshot exactly as its file will read back: a live build renders what --from would.

    Whatever ``to_json`` normalizes (sorted server identity, JSON number forms), a live build
    renders exactly what a later build from the written snapshot file renders.

    The text is checked as any snapshot file is, with two shortcuts that hold only for text
    ``to_json`` has just written (10,000 tools pay about 0.8 s for them otherwise):

    - its depth is read from its indentation (:func:`~generator.snapshot.quick.shallow_pretty`);
    - a fingerprint computed from the snapshot's own tools (by itself, or by the code that made it,
      see :func:`vouched`) is kept: JSON's text form of every value parses back to a value with the
      same text form, so the parsed tools hash the same.
    """
    known = snapshot.fingerprint if snapshot.__dict__.get("_own_fingerprint") else None
    try:
        with gc_paused():  # millions of new objects that form no cycles, in a heap that is large already
            text = snapshot.to_json(split=True)
            parsed = _parse(text, pretty_text=True, known_fingerprint=known)
    except ShapeProblem as problem:  # no file to re-create here: what the server sent is the problem
        raise PortalError(
            f"What the server listed cannot be documented: {problem} (the path is the one in the snapshot "
            f"`mcp-portal introspect` would write). Fix the server's listing and build again."
        ) from None
    # Kept for to_json: `introspect` writes this very text, and the 5 MB of a 1,000-tool server take
    # 0.2 s to encode (json's pure-Python indenting encoder). A replace()d copy does not inherit it.
    object.__setattr__(parsed, "_text", text)
    return parsed


def parse_snapshot(raw: str, path: Path, ahead: Forked[Checked] | None = None) -> Snapshot:
    """Check and build a snapshot from its JSON text (*path* is only named in errors).

    Everything is checked here, once: later stages trust every type
    :data:`~generator.snapshot.shape.SNAPSHOT_SCHEMA` states. *ahead* is a read-ahead child checking
    a text (:mod:`generator.snapshot.ahead`): when it checked this very text, its checks and digests
    are taken instead of being done again.
    """
    try:
        with gc_paused():
            return _parse(raw, ahead=ahead)
    except ShapeProblem as problem:
        raise SnapshotError(path, str(problem)) from None


def _parse(
    raw: str, *, pretty_text: bool = False, known_fingerprint: str | None = None, ahead: Forked[Checked] | None = None
) -> Snapshot:
    """:func:`parse_snapshot` without the file: every problem is a :class:`ShapeProblem`.

    *pretty_text* says *raw* was written with ``indent=2`` (by ``to_json``), so its indentation
    tells its depth; *known_fingerprint* is the fingerprint of the tools *raw* was written from.
    Only :func:`frozen` knows either. *ahead*: see :func:`parse_snapshot`.
    """
    if ahead is None and remembered.keeping() and not pretty_text and known_fingerprint is None:
        return _parse_remembering(raw)
    if ahead is not None and not pretty_text and known_fingerprint is None:
        data, plain = _loaded(raw)  # this process's own objects, parsed while the child finishes
        own = _own_digests(data) if len(raw) >= AHEAD_DIGESTS_BYTES else None  # while the child checks
        checked = ahead.child_result()
        trusted = checked is not None and checked.sha256 == text_sha256(raw)  # it checked this very text
        digests = own or (checked.digests if trusted and checked else None)
        return _checked(data, raw, plain, False, None, digests, shape_checked=trusted)
    # The child parses the text itself: forked after the parse, it would share the parsed objects, and
    # every reference count either process touched would copy a page (twice the time of the check).
    digests = in_child(lambda: _digests_of(raw, known_fingerprint is None), Digests) if len(raw) >= FORK_BYTES else None
    try:
        data, plain = _loaded(raw)
        return _checked(data, raw, plain, pretty_text, known_fingerprint, digests)
    finally:
        if digests is not None:
            digests.close()


def _parse_remembering(raw: str) -> Snapshot:
    """:func:`_parse` in a process that keeps the tools it has read (:mod:`generator.snapshot.remembered`):
    the tools it read last time are not checked again, and their canonical JSON is not made again."""
    data, plain = _loaded(raw)
    tools = data.get("tools")
    if not plain or not isinstance(tools, list):
        return _checked(data, raw, plain, False, None)  # checked in full, as a one-shot command checks it
    keys = tuple(map(raw_digest, tools))
    canonical = tuple(
        remembered.canonical_known(key) or canonical_json(tool).encode("utf-8")
        for key, tool in zip(keys, tools, strict=True)
    )
    shape_ok = remembered.passes_with_known(data, keys, plain)
    try:  # before the shape is checked: on a malformed shape the checks below say what is wrong
        names = {tool["name"] for tool in tools}  # type: ignore[index, call-overload]
        records = [record.to_json() for record in _endpoints(data.get("endpoints", []), names)]  # type: ignore[arg-type]
        digests: Digests | None = Digests(keys, fingerprint(tools, records, canonical))  # type: ignore[arg-type]
    except Exception:
        digests = None
    snap = _checked(data, raw, plain, False, None, digests, shape_checked=shape_ok)
    remembered.remember(keys, canonical)
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


FORK_BYTES = 1 << 20
"""From this size on (about 200 tools), a snapshot read from text has its tools' digests and its
fingerprint computed in a forked child (:func:`_digests_of`, :mod:`generator.forked`) while this
process parses the text, walks its depth and checks its shape: at 1,000 tools that takes some
70 ms off a one-tool rebuild's serial path. A smaller text is not worth a fork."""


AHEAD_DIGESTS_BYTES = 8 << 20
"""Up to this size (about 1,500 tools), a read-ahead child computes the tools' digests and the
fingerprint after its checks. From it on, the build computes them itself, once its own parse is done:
the child's share (read, parse, checks, digests) grows with the text while the build's (imports,
parse) mostly does not, and at 5,000 tools the build waited some 0.75 s for the child; computed in the
build it waits for nothing, and the whole read takes 0.3 s less (docs/performance.md)."""


def check_text(raw: str) -> Digests | None:
    """Every check :func:`_parse` runs on a snapshot file's text before it builds the snapshot, then,
    for a text under :data:`AHEAD_DIGESTS_BYTES`, the tools' digests and the fingerprint: what a
    read-ahead child does (:mod:`generator.snapshot.ahead`). A problem is raised as
    :class:`ShapeProblem`, which ends that child; the build then finds it itself."""
    data, plain = _loaded(raw)
    problem = check_shape(data, plain=plain, shallow=False)
    if problem is not None:
        raise ShapeProblem(problem)
    return _digests(data, True) if len(raw) < AHEAD_DIGESTS_BYTES else None


def _own_digests(data: dict[str, JSON]) -> Digests | None:
    """:func:`_digests` of *data* before its shape is checked, or None when that shape is not one they
    can be computed from: the checks that follow then say what is wrong, in their own words (a read-ahead
    child's verdict is not taken, or its child found a problem), and a snapshot that passes them gets
    its digests computed as usual."""
    try:
        return _digests(data, True)
    except Exception:  # whatever a malformed snapshot raises here, the checks that follow report it
        return None


def _digests_of(raw: str, with_fingerprint: bool) -> Digests:
    """:func:`_digests` of the snapshot *raw* holds, parsed here (in the child) as :func:`_parse` parses it."""
    data, _ = load_json_plain(raw)
    return _digests(data, with_fingerprint)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Digests:
    """What :func:`_digests` computes: every tool's :func:`raw_digest`, and the fingerprint (or "")."""

    tool_keys: tuple[bytes, ...]
    fingerprint: str


def _digests(data: dict[str, JSON], with_fingerprint: bool) -> Digests:
    """:attr:`Snapshot.tool_keys` and :attr:`Snapshot.fingerprint` of the snapshot *data* holds, computed
    as the snapshot computes them (in a child, before the shape is checked: anything the shape would
    refuse makes the child fail, and the parent never asks for its result)."""
    tools = data["tools"]
    keys = tuple(map(raw_digest, tools))  # type: ignore[arg-type]
    if not with_fingerprint:
        return Digests(keys, "")
    names = {tool["name"] for tool in tools}  # type: ignore[index, union-attr]
    records = [record.to_json() for record in _endpoints(data.get("endpoints", []), names)]  # type: ignore[arg-type]
    return Digests(keys, fingerprint(tools, records))  # type: ignore[arg-type]


def _checked(
    data: dict[str, JSON],
    raw: str,
    plain: bool,
    pretty_text: bool,
    known_fingerprint: str | None,
    digests: Forked[Digests] | Digests | None = None,
    *,
    shape_checked: bool = False,
) -> Snapshot:
    """The snapshot *data* holds, once its shape, names and fingerprint are checked (see :func:`_parse`);
    *digests*, when given, brings its tools' digests and (unless known) its fingerprint. *shape_checked*
    says a read-ahead child has checked the shape of this very text already."""
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
    computed = digests if isinstance(digests, Digests) or digests is None else digests.result()
    snap = Snapshot(
        protocol_version=data["protocol_version"],
        server=data["server"],
        tools=tools,
        capability_version=data["capability_version"],
        transport=data["transport"],
        endpoint=data["endpoint"],
        prompts=tuple(data.get("prompts", [])),
        resources=tuple(data.get("resources", [])),
        resource_templates=tuple(data.get("resource_templates", [])),
        skipped_tools=tuple(data.get("skipped_tools", [])),
        endpoints=_endpoints(data.get("endpoints", []), set(first)),
        fingerprint=known_fingerprint or (computed.fingerprint if computed is not None else ""),
    )
    if computed is not None:
        snap.__dict__["tool_keys"] = computed.tool_keys  # as the cached property stores it
        if computed.fingerprint and not known_fingerprint:
            object.__setattr__(snap, "_own_fingerprint", True)  # computed from these very tools
    if known_fingerprint is None and data["fingerprint"] != snap.fingerprint:
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
