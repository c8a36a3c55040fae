"""The parts of a product besides its tools: endpoints, prompts, resources and templates.

Each is built from the snapshot only (what the servers said, and the endpoint records
written at introspection), never from raw SDK objects.  All server text stays
untrusted: it is kept as data here and escaped by the templates.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, fields
from decimal import Decimal
from functools import cached_property
from typing import Any, ClassVar
from urllib.parse import urlsplit

from generator.jsonutil import is_number
from generator.model.calls import CallSequence, EndpointCall
from generator.model.clients import EndpointFacts, Snippet, auth_pattern, server_key, snippets
from generator.model.kinds import PageKind
from generator.model.proofs import Proof, proof_of
from generator.schema.examples import example_for, examples_for
from generator.schema.uritemplate import ParsedTemplate, expand, parse, segment_words
from generator.slugs import item_slugs
from generator.snapshot.records import EndpointRecord
from generator.text import json_block

# Only raster images embedded in the page: an https icon would be a request to another host,
# and SVG can carry script. Anything else stays visible as JSON text only.
_ICON = re.compile(r"data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}")
ICON_LIMIT = 65536


def safe_icon(raw: dict[str, Any]) -> str | None:
    """The first icon of an MCP object that is safe to show inline (a small base64 raster image)."""
    icons = raw.get("icons")
    for icon in icons if isinstance(icons, list) else []:
        src = icon.get("src") if isinstance(icon, dict) else None
        if isinstance(src, str) and len(src) <= ICON_LIMIT and _ICON.fullmatch(src):
            return src
    return None


def text_of(raw: dict[str, Any], key: str) -> str | None:
    """A non-blank string field, or None."""
    value = raw.get(key)
    return value if isinstance(value, str) and value.strip() else None


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


@dataclass(frozen=True)
class EndpointDoc(EndpointRecord):
    """One endpoint (a profile over a transport) and what it offers, as pages name and configure it."""

    path_only: bool = True
    """Name an HTTP endpoint by its URL path alone (true when every HTTP endpoint shares one host)."""

    @classmethod
    def of(cls, record: EndpointRecord, *, path_only: bool = True) -> EndpointDoc:
        """The snapshot's *record*, with how pages name it."""
        return cls(**{f.name: getattr(record, f.name) for f in fields(EndpointRecord)}, path_only=path_only)

    @property
    def is_http(self) -> bool:
        return self.transport == "streamable-http"

    @property
    def short(self) -> str:
        """How the tool pages name it: the URL path of an HTTP endpoint (``/mcp/``), else the command.

        When HTTP endpoints live on several hosts, a path alone would be ambiguous: the whole URL is used.
        """
        if self.is_http and self.path_only:
            return urlsplit(self.address).path or "/"
        return self.address

    def facts(self) -> EndpointFacts:
        """The endpoint as the client-configuration snippets need it (no secret ever)."""
        if self.is_http:
            headers = tuple((name, value or "") for name, value in self.auth)
            return EndpointFacts(self.name, self.transport, url=self.address, headers=headers)
        try:
            command = tuple(shlex.split(self.address))
        except ValueError:
            command = (self.address,)
        return EndpointFacts(self.name, self.transport, command=command, env=self.env)

    def key(self, server_name: str, several: bool) -> str:
        """The server's key in client configurations: the server's name, plus the endpoint's when several."""
        return server_key(f"{server_name}-{self.name}" if several else server_name)

    def snippets(self, server_name: str, several: bool) -> tuple[Snippet, ...]:
        return snippets(self.facts(), self.key(server_name, several))

    @cached_property
    def auth_headers(self) -> tuple[tuple[str, str], ...]:
        headers = tuple((name, value or "") for name, value in self.auth)
        return auth_pattern(EndpointFacts(self.name, self.transport, url=self.address, headers=headers))

    @cached_property
    def call(self) -> EndpointCall:
        """How to call it by hand: URL, auth pattern, protocol era, sequences (:mod:`generator.model.calls`)."""
        offered = tuple(name for name in self.tools if self.variant(name) is None)
        return EndpointCall(self.transport, self.address, self.protocol_version, self.auth_headers, self.env, offered)


@dataclass(frozen=True)
class PromptArgument:
    name: str
    title: str | None
    description: str | None
    required: bool
    extra: tuple[tuple[str, Any], ...] = ()
    """Every other key the server sent for the argument (a ``default``, an ``x-`` key), as sent."""


@dataclass(frozen=True)
class Doc:
    """What every documented thing shares (a tool, prompt, resource or template): a name, a page, and
    the endpoints offering it.  :class:`generator.model.tool.ToolDoc` and :class:`ItemDoc` extend it."""

    name: str
    slug: str
    raw: dict[str, Any]
    endpoints: tuple[EndpointDoc, ...]
    proof: Proof | None = None
    """What the server answered to this page's example (``--prove``), when it was asked."""

    extra_keys: ClassVar[tuple[str, ...]] = ("icons", "_meta")
    """Wire fields shown as raw JSON at the end of the page."""

    @property
    def proven(self) -> bool:
        """The server accepted this page's example (the twin's ``proven`` front matter)."""
        return self.proof is not None and self.proof.accepted

    @property
    def kind(self) -> PageKind:
        """The page kind (see :mod:`generator.model.pages`)."""
        raise NotImplementedError

    @property
    def translation_key(self) -> tuple[str, str]:
        """Where a translation file keeps this item's text: (section, name or URI)."""
        raise NotImplementedError

    @cached_property
    def icon(self) -> str | None:
        """The first icon that is safe to show inline (a small base64 PNG, JPEG, GIF or WebP)."""
        return safe_icon(self.raw)

    @property
    def extra_fields(self) -> tuple[tuple[str, str], ...]:
        """Wire fields with no section of their own (:attr:`extra_keys`), as JSON."""
        return tuple((k, json_block(self.raw[k])) for k in self.extra_keys if k in self.raw)


@dataclass(frozen=True)
class ItemDoc(Doc):
    """What prompts, resources and resource templates share besides :class:`Doc`."""

    description_cut: ClassVar[bool] = False
    """Descriptions of prompts and resources are shown whole (only tool descriptions are capped)."""

    @property
    def title(self) -> str | None:
        return text_of(self.raw, "title")

    @property
    def description(self) -> str | None:
        return text_of(self.raw, "description")

    @property
    def call_request(self) -> tuple[str, dict[str, Any], str] | None:
        """The request a reader sends for this item (method, params, the name it names), or None when
        no concrete one can be shown. Prompts and resources say which."""
        return None

    @cached_property
    def sequences(self) -> tuple[tuple[EndpointDoc, CallSequence], ...]:
        """The exact messages that fetch this item, on the first endpoint of each transport that lists
        it as documented, in that endpoint's era: the same sequences tool pages show."""
        request = self.call_request
        if request is None:
            return ()
        method, params, name = request
        differs = {id(endpoint) for endpoint, _ in self.variants}
        found: dict[str, EndpointDoc] = {}
        for endpoint in self.endpoints:
            if endpoint.transport not in found and id(endpoint) not in differs:
                found[endpoint.transport] = endpoint
        return tuple((e, e.call.request_sequence(method, params, name)) for e in found.values())

    @cached_property
    def variants(self) -> tuple[tuple[EndpointDoc, str], ...]:
        """Each endpoint that lists this item differently, with its listing as JSON."""
        section, key = self.translation_key
        found = []
        for endpoint in self.endpoints:
            raw = endpoint.item_variant(section, key)
            if raw is not None:
                found.append((endpoint, json_block(raw)))
        return tuple(found)


_ARGUMENT_FIELDS = frozenset({"name", "title", "description", "required"})
"""The prompt argument keys the specification defines; the page shows any other key as declared."""


@dataclass(frozen=True)
class PromptDoc(ItemDoc):
    """A prompt the server offers, with its arguments."""

    @property
    def kind(self) -> PageKind:
        return PageKind.PROMPT

    @property
    def translation_key(self) -> tuple[str, str]:
        return ("prompts", self.name)

    @cached_property
    def arguments(self) -> tuple[PromptArgument, ...]:
        items = self.raw.get("arguments")
        return tuple(
            PromptArgument(
                name=str(a.get("name", "")),
                title=text_of(a, "title"),
                description=text_of(a, "description"),
                required=a.get("required") is True,
                extra=tuple((str(k), v) for k, v in a.items() if k not in _ARGUMENT_FIELDS),
            )
            for a in (items if isinstance(items, list) else [])
            if isinstance(a, dict)
        )

    @cached_property
    def _schema(self) -> dict[str, Any]:
        """The arguments as a JSON Schema (prompt arguments are strings), for the example solver."""
        return {
            "type": "object",
            "properties": {a.name: {"type": "string", **({"description": a.description} if a.description else {})}
                           for a in self.arguments},
            "required": [a.name for a in self.arguments if a.required],
        }  # fmt: skip

    @cached_property
    def example_arguments(self) -> dict[str, str] | None:
        """Values for the required arguments and up to three others, from their names and descriptions
        (prompt arguments are strings), as tool examples are made; the ones the server accepted when the
        page's own were refused (``--prove``); None when none can be made."""
        proof = self.proof
        proven = proof.kept.arguments if proof is not None and proof.accepted else None
        if proven is not None and all(isinstance(v, str) for v in proven.values()):
            return dict(proven)
        example = example_for(self._schema, max_optional=3)
        return example.value if example.ok and isinstance(example.value, dict) else None

    def example_candidates(self, count: int) -> tuple[dict[str, str], ...]:
        """Up to *count* distinct argument sets to try, the page's own first (``--prove``)."""
        return tuple(v for v in examples_for(self._schema, count, max_optional=3) if isinstance(v, dict))

    @property
    def call_request(self) -> tuple[str, dict[str, Any], str] | None:
        arguments = self.example_arguments
        if arguments is None:
            return None
        params: dict[str, Any] = {"name": self.name, **({"arguments": arguments} if arguments else {})}
        return "prompts/get", params, self.name

    @property
    def request(self) -> str:
        """A ``prompts/get`` request with a placeholder for every required argument."""
        arguments = {a.name: f"<{a.name}>" for a in self.arguments if a.required}
        params: dict[str, Any] = {"name": self.name}
        if arguments:
            params["arguments"] = arguments
        return json_block({"jsonrpc": "2.0", "id": 1, "method": "prompts/get", "params": params})


@dataclass(frozen=True)
class ResourceDoc(ItemDoc):
    """A resource or a resource template (``template`` true), with its annotations."""

    template: bool = False
    extra_keys: ClassVar[tuple[str, ...]] = ("annotations", "icons", "_meta")

    @property
    def kind(self) -> PageKind:
        return PageKind.RESOURCE_TEMPLATE if self.template else PageKind.RESOURCE

    @property
    def uri(self) -> str:
        return str(self.raw.get("uriTemplate" if self.template else "uri", ""))

    @property
    def translation_key(self) -> tuple[str, str]:
        return ("resource_templates" if self.template else "resources", self.uri)

    @property
    def mime_type(self) -> str | None:
        return text_of(self.raw, "mimeType")

    @property
    def size(self) -> int | float | None:
        """The declared size in bytes (the spec says a number); None when absent or negative.

        A whole number written with an exponent (``1e27``) is read as a float; it is shown as the
        integer the file wrote, not as the float's nearest binary value (or a fractional plural).
        """
        size = self.raw.get("size")
        if not is_number(size) or size < 0:
            return None
        return int(Decimal(repr(size))) if isinstance(size, float) and size.is_integer() else size

    @cached_property
    def parsed(self) -> ParsedTemplate | None:
        return parse(self.uri) if self.template else None

    @property
    def annotations(self) -> dict[str, Any]:
        value = self.raw.get("annotations")
        return value if isinstance(value, dict) else {}

    @property
    def audience(self) -> tuple[str, ...]:
        return _strings(self.annotations.get("audience"))

    @property
    def priority(self) -> float | None:
        value = self.annotations.get("priority")
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None

    @property
    def last_modified(self) -> str | None:
        return text_of(self.annotations, "lastModified")

    @cached_property
    def example_variables(self) -> dict[str, str] | None:
        """A template's variables, each filled with a value made from its name and the path segment it
        follows (``pods/{name}`` is ``my-pod``; a ``count`` is a number), as tool examples are made; None
        for a plain resource or a template that did not parse."""
        found = self.candidate_variables(1)
        return found[0] if found else None

    def candidate_variables(self, count: int) -> tuple[dict[str, str], ...]:
        """Up to *count* distinct fillings of a template's variables, :attr:`example_variables` first
        (``--prove`` tries the next when the server refuses one); empty for a plain resource."""
        parsed = self.parsed
        if not self.template or parsed is None or parsed.error is not None:
            return ()
        names = [v.name for v in parsed.variables]
        words = segment_words(parsed)
        properties = {
            n: {"type": "string", "minLength": 1, **({"description": f"The {words[n]} {n}"} if n in words else {})}
            for n in names
        }
        schema = {"type": "object", "properties": properties, "required": names}
        values = ({n: str(v[n]) for n in names} for v in examples_for(schema, count) if isinstance(v, dict))
        return tuple({json.dumps(v, sort_keys=True): v for v in values}.values())

    @cached_property
    def example_uri(self) -> str | None:
        """The URI to read: a resource's own, or a template's with every variable filled
        (:attr:`example_variables`), or the one the server accepted when that one was refused
        (``--prove``); None when the template cannot be expanded."""
        if not self.template:
            return self.uri
        proof = self.proof
        if proof is not None and proof.accepted and proof.kept.uri is not None:
            return proof.kept.uri
        found = self.candidate_uris(1)
        return found[0] if found else None

    def candidate_uris(self, count: int) -> tuple[str, ...]:
        """Up to *count* distinct URIs to read, the page's own first (:meth:`candidate_variables`)."""
        if not self.template:
            return (self.uri,)
        if self.parsed is None:
            return ()
        uris = (expand(self.parsed, values) for values in self.candidate_variables(count))
        return tuple(dict.fromkeys(uri for uri in uris if uri is not None))

    @property
    def call_request(self) -> tuple[str, dict[str, Any], str] | None:
        uri = self.example_uri
        return None if uri is None else ("resources/read", {"uri": uri}, uri)

    @property
    def request(self) -> str:
        """The ``resources/read`` request: for a template, its variables filled with example values
        (:attr:`example_uri`), or still to fill in when it cannot be expanded."""
        uri = self.example_uri or self.uri
        return json_block({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": uri}})


def endpoints_of(records: Sequence[EndpointRecord]) -> tuple[EndpointDoc, ...]:
    """The endpoint records of a snapshot, named by URL path when their HTTP hosts agree."""
    hosts = {urlsplit(r.address)[:2] for r in records if r.transport == "streamable-http"}
    return tuple(EndpointDoc.of(r, path_only=len(hosts) <= 1) for r in records)


def _offering(endpoints: tuple[EndpointDoc, ...], section: str, key: str) -> tuple[EndpointDoc, ...]:
    """The endpoints that offer the item of *section* named (or addressed) *key*."""
    return tuple(e for e in endpoints if key in e.offered(section))


def _slugs(names: list[str], keys: list[str]) -> list[str]:
    """One slug per item, from its name; a name shared by several items is told apart by its key (the URI)."""
    return item_slugs(list(zip(names, keys, strict=True)))


def prompts_of(
    raw: tuple[dict[str, Any], ...], endpoints: tuple[EndpointDoc, ...], proofs: dict[str, Any] | None = None
) -> tuple[PromptDoc, ...]:
    names = [str(p.get("name", "")) for p in raw]
    slugs = _slugs(names, names)
    return tuple(
        PromptDoc(name, slug, p, _offering(endpoints, "prompts", name), proof_of(proofs, "prompts", name))
        for name, slug, p in zip(names, slugs, raw, strict=True)
    )


def resources_of(
    raw: tuple[dict[str, Any], ...],
    endpoints: tuple[EndpointDoc, ...],
    *,
    template: bool,
    proofs: dict[str, Any] | None = None,
) -> tuple[ResourceDoc, ...]:
    key, record_key = ("uriTemplate", "resource_templates") if template else ("uri", "resources")
    names = [str(r.get("name", "")) for r in raw]
    uris = [str(r.get(key, "")) for r in raw]
    slugs = _slugs(names, uris)
    return tuple(
        ResourceDoc(
            name, slug, r, _offering(endpoints, record_key, uri), proof_of(proofs, record_key, uri), template=template
        )
        for name, slug, r, uri in zip(names, slugs, raw, uris, strict=True)
    )
