"""The documentation model: what each page says, with no HTML and no files.

Built once from a :class:`~generator.snapshot.snapshot.Snapshot` and the configuration
("gather, then write"), so the HTML pages, their Markdown twins and llms.txt all
agree.  Everything is frozen; derived values are computed lazily.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Any, ClassVar

from generator.authoring.openapi import ApiDocument, Operation
from generator.authoring.overlays import Overlay
from generator.authoring.translations import Lookup, Translations
from generator.compare.changes import ITEM_SUBJECTS, Change, ChangeClass
from generator.compare.diff import diff_snapshots, diff_tool
from generator.config.portal import Limits, PortalConfig
from generator.model.clients import Snippet
from generator.model.kinds import PageKind
from generator.model.product import (
    Doc,
    EndpointDoc,
    ItemDoc,
    PromptDoc,
    ResourceDoc,
    endpoints_of,
    prompts_of,
    resources_of,
)
from generator.schema.examples import Example, example_for
from generator.schema.flatten import flatten
from generator.schema.rows import Flattened
from generator.schema.validation import validate
from generator.schema.values import placeholder_for
from generator.slugs import assign_slugs
from generator.snapshot.snapshot import Snapshot, canonical_json
from generator.text import json_block

# name, spec default (MCP ToolAnnotations): the defaults assume the worst.
HINTS: tuple[tuple[str, bool], ...] = (
    ("readOnlyHint", False),
    ("destructiveHint", True),
    ("idempotentHint", False),
    ("openWorldHint", True),
)
SUMMARY_LIMIT = 160
SERVER_FIELDS = ("name", "title", "version", "description", "websiteUrl")
"""The server's identity fields the connecting page lists, in this order, when set."""


@dataclass(frozen=True)
class Hint:
    """One annotation hint: its effective value and whether the server declared it."""

    name: str
    value: bool
    declared: bool


class AccessLevel(StrEnum):
    """What calling a tool may do; the values are the badge's CSS class and catalog key (``access.<value>``)."""

    READ_ONLY = "read-only"
    WRITES = "writes"
    DESTRUCTIVE = "destructive"


@dataclass(frozen=True)
class Access:
    """What calling a tool may do, derived from its annotations."""

    hints: tuple[Hint, ...]

    @classmethod
    def from_annotations(cls, annotations: Any) -> Access:
        raw = annotations if isinstance(annotations, dict) else {}
        hints = []
        for name, default in HINTS:
            value = raw.get(name)
            declared = isinstance(value, bool)
            hints.append(Hint(name, value if isinstance(value, bool) else default, declared))
        return cls(tuple(hints))

    def hint(self, name: str) -> Hint:
        return next(h for h in self.hints if h.name == name)

    @property
    def declared_any(self) -> bool:
        return any(h.declared for h in self.hints)

    @property
    def level(self) -> AccessLevel:
        """``read-only``, ``writes`` or ``destructive``: the badge and the first words of the summary."""
        if self.hint("readOnlyHint").value:
            return AccessLevel.READ_ONLY
        return AccessLevel.DESTRUCTIVE if self.hint("destructiveHint").value else AccessLevel.WRITES

    @property
    def assumed(self) -> bool:
        """True when the level rests on spec defaults rather than on hints the server declared."""
        if self.level == AccessLevel.READ_ONLY:
            return False  # only a declared readOnlyHint can make a tool read-only
        return not self.hint("readOnlyHint").declared or (
            self.level == AccessLevel.DESTRUCTIVE and not self.hint("destructiveHint").declared
        )

    @property
    def traits(self) -> tuple[str, ...]:
        """Further facts worth a phrase each: ``idempotent``/``not-idempotent``, ``open-world``/``closed-world``.

        Idempotence only matters for tools that write, per the spec.
        """
        traits = []
        if self.level != AccessLevel.READ_ONLY:
            traits.append("idempotent" if self.hint("idempotentHint").value else "not-idempotent")
        traits.append("open-world" if self.hint("openWorldHint").value else "closed-world")
        return tuple(traits)

    @property
    def caveat(self) -> str | None:
        """``undeclared`` (no hint declared: all are spec defaults), ``partly`` (some are), or None.

        The catalog key ``access.<caveat>`` says it under the access summary.
        """
        if not self.declared_any:
            return "undeclared"
        return "partly" if not all(h.declared for h in self.hints) else None


@dataclass(frozen=True)
class Annotation:
    """One row of a tool's annotations table: a hint or another annotation, and whether it was declared."""

    name: str
    value: Any
    declared: bool


@dataclass(frozen=True)
class ToolDoc(Doc):
    """Everything a tool page shows."""

    limits: Limits = field(default_factory=Limits)
    overlay: Overlay | None = None
    scope_meta_key: str | None = None
    operations: tuple[Operation, ...] = ()
    """The HTTP API operations this tool maps to (see :mod:`generator.authoring.openapi`)."""

    extra_keys: ClassVar[tuple[str, ...]] = ("execution", "icons", "_meta")
    common_troubles: ClassVar[tuple[str, ...]] = ("auth", "capability", "invalid", "unknown", "tool_error")
    """The troubleshooting rows every tool page shows before the authors' (catalog keys ``trouble.<key>.*``)."""

    @property
    def kind(self) -> PageKind:
        return PageKind.TOOL

    @property
    def translation_key(self) -> tuple[str, str]:
        """Where a translation file keeps this tool's text: (section, name)."""
        return ("tools", self.name)

    @cached_property
    def scopes(self) -> tuple[str, ...]:
        """The capability or scope the tool requires: the overlay's, else the server's ``_meta`` key."""
        if self.overlay is not None and self.overlay.scopes:
            return self.overlay.scopes
        meta = self.raw.get("_meta")
        if not self.scope_meta_key or not isinstance(meta, dict):
            return ()
        value = meta.get(self.scope_meta_key)
        if isinstance(value, str) and value.strip():
            return (value,)
        if isinstance(value, list):
            return tuple(v for v in value if isinstance(v, str) and v.strip())
        return ()

    @cached_property
    def profiles(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e.profile for e in self.endpoints))

    @cached_property
    def transports(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e.transport for e in self.endpoints))

    @cached_property
    def differences(self) -> tuple[tuple[EndpointDoc, tuple[Change, ...]], ...]:
        """Endpoints that list this tool differently from the main listing, and how (old: main, new: theirs)."""
        found = []
        for endpoint in self.endpoints:
            variant = endpoint.variant(self.name)
            if variant is not None:
                found.append((endpoint, tuple(diff_tool(self.raw, variant))))
        return tuple(found)

    @cached_property
    def listings(self) -> tuple[tuple[EndpointDoc, bool], ...]:
        """Each endpoint that offers the tool, and whether its listing differs from the one documented."""
        return tuple((e, e.variant(self.name) is not None) for e in self.endpoints)

    @property
    def main_endpoint(self) -> EndpointDoc | None:
        """The endpoint whose listing the page documents (the first that offers the tool without a variant)."""
        return next((e for e in self.endpoints if e.variant(self.name) is None), None)

    def note(self, locale: str) -> tuple[str, str] | None:
        """The authors' note for *locale* (or its fallback), as (locale used, CommonMark)."""
        return self.overlay.note_for(locale) if self.overlay else None

    def troubleshooting(self, locale: str) -> tuple[Any, ...]:
        return self.overlay.troubleshooting_for(locale) if self.overlay else ()

    @property
    def related(self) -> tuple[str, ...]:
        return self.overlay.related if self.overlay else ()

    @property
    def title(self) -> str | None:
        title = self.raw.get("title") or (self.raw.get("annotations") or {}).get("title")
        return title if isinstance(title, str) and title.strip() else None

    @property
    def full_description(self) -> str:
        text = self.raw.get("description")
        return text if isinstance(text, str) else ""

    @property
    def description_cut(self) -> bool:
        """True when the description is longer than ``--max-description`` and is shown cut."""
        return len(self.full_description) > self.limits.max_description

    @property
    def description(self) -> str:
        return self.full_description[: self.limits.max_description]

    @cached_property
    def summary(self) -> str:
        """The first sentence or line of the description, for lists and llms.txt."""
        text = re.sub(r"\s+", " ", self.description[:2000]).strip()
        match = re.match(r"(.+?[.!?])(\s|$)", text)
        first = match.group(1) if match else text
        if len(first) > SUMMARY_LIMIT:
            first = first[: SUMMARY_LIMIT - 1].rstrip() + "…"
        return first

    @property
    def annotations(self) -> dict[str, Any]:
        value = self.raw.get("annotations")
        return value if isinstance(value, dict) else {}

    @cached_property
    def access(self) -> Access:
        return Access.from_annotations(self.annotations)

    @property
    def input_schema(self) -> Any:
        return self.raw.get("inputSchema", {"type": "object"})

    @property
    def output_schema(self) -> Any:
        return self.raw.get("outputSchema")

    def _size(self, schema: Any) -> int:
        return len(canonical_json(schema).encode("utf-8"))

    @cached_property
    def input_too_large(self) -> bool:
        """A schema over ``--max-schema-bytes`` is shown cut, with no rows and no examples."""
        return self._size(self.input_schema) > self.limits.max_schema_bytes

    @cached_property
    def output_too_large(self) -> bool:
        return self.output_schema is not None and self._size(self.output_schema) > self.limits.max_schema_bytes

    def _flatten(self, schema: Any, too_large: bool) -> Flattened:
        if too_large:
            note = f"schema larger than {self.limits.max_schema_bytes} bytes: not expanded (see --max-schema-bytes)"
            return Flattened(rows=(), dialect=None, warnings=(note,), truncated=True)
        return flatten(schema, max_depth=self.limits.max_schema_depth)

    @cached_property
    def params(self) -> Flattened:
        return self._flatten(self.input_schema, self.input_too_large)

    @cached_property
    def returns(self) -> Flattened | None:
        return None if self.output_schema is None else self._flatten(self.output_schema, self.output_too_large)

    @cached_property
    def example_args(self) -> Example:
        if self.input_too_large:
            return Example(None, False, "the input schema is larger than the size limit")
        return example_for(self.input_schema)

    @cached_property
    def placeholder_args(self) -> Any:
        return {} if self.input_too_large else placeholder_for(self.input_schema)

    @cached_property
    def example_result(self) -> Example | None:
        if self.output_schema is None:
            return None
        if self.output_too_large:
            return Example(None, False, "the output schema is larger than the size limit")
        return example_for(self.output_schema)

    @cached_property
    def example_request(self) -> str | None:
        """A JSON-RPC ``tools/call`` whose arguments validate (None when none can)."""
        if not self.example_args.ok:
            return None
        # Re-check here, at the last moment before it is shown: a page must never lie, so an
        # example the schema rejects (a bug in the example search) is left out, not shown.
        if validate(self.example_args.value, self.input_schema):
            return None
        return json_block(_call(self.name, self.example_args.value, task=self.task_support == "required"))

    @cached_property
    def placeholder_request(self) -> str:
        return json_block(_call(self.name, self.placeholder_args, task=self.task_support == "required"))

    @cached_property
    def example_response(self) -> str | None:
        result = self.example_result
        if result is None or not result.ok:
            return None
        if validate(result.value, self.output_schema):  # never show a response the schema rejects
            return None
        payload = {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {
                "content": [{"type": "text", "text": json.dumps(result.value, ensure_ascii=False)}],
                "structuredContent": result.value,
                "isError": False,
            },
        }
        return json_block(payload)

    def _raw(self, schema: Any) -> str:
        text = json_block(schema)
        # Cut by characters of the pretty form: a reader sees where it stops and why.
        if len(text) > self.limits.max_schema_bytes:
            return text[: self.limits.max_schema_bytes] + "\n…"
        return text

    @cached_property
    def raw_input(self) -> str:
        return self._raw(self.input_schema)

    @cached_property
    def raw_output(self) -> str | None:
        return None if self.output_schema is None else self._raw(self.output_schema)

    @cached_property
    def other_annotations(self) -> tuple[tuple[str, Any], ...]:
        """Annotations besides the four hints (``title``, vendor keys), sorted by name."""
        hint_names = {name for name, _ in HINTS}
        return tuple((k, self.annotations[k]) for k in sorted(self.annotations) if k not in hint_names)

    @cached_property
    def annotation_rows(self) -> tuple[Annotation, ...]:
        """The annotations table: the four hints (with the spec's default when undeclared), then the others."""
        hints = tuple(Annotation(h.name, h.value, h.declared) for h in self.access.hints)
        return hints + tuple(Annotation(k, v, True) for k, v in self.other_annotations)

    @cached_property
    def author_examples(self) -> tuple[tuple[str, str, str | None], ...]:
        """Overlay examples as (title, tools/call JSON, result JSON or None); validated at build time."""
        if self.overlay is None:
            return ()
        return tuple(
            (
                ex.title,
                json_block(_call(self.name, ex.arguments, task=self.task_support == "required")),
                json_block({"jsonrpc": "2.0", "id": 1, "result": {"structuredContent": ex.result}})
                if ex.has_result
                else None,
            )
            for ex in self.overlay.examples
        )

    @property
    def task_support(self) -> str:
        """``forbidden`` (the spec's default), ``optional`` or ``required``: may or must it run as a task."""
        execution = self.raw.get("execution")
        value = execution.get("taskSupport") if isinstance(execution, dict) else None
        return value if value in ("optional", "required") else "forbidden"


def _call(name: str, arguments: Any, *, task: bool = False) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if task:
        # A tool that requires task-augmented execution rejects a plain call (2025-11-25 tasks).
        params["task"] = {"ttl": 60000}
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}


@dataclass(frozen=True)
class SiteModel:
    """The whole portal: server facts, the tools, and how readers reach them."""

    snapshot: Snapshot
    config: PortalConfig
    tools: tuple[ToolDoc, ...]
    endpoints: tuple[EndpointDoc, ...]
    prompts: tuple[PromptDoc, ...] = ()
    resources: tuple[ResourceDoc, ...] = ()
    resource_templates: tuple[ResourceDoc, ...] = ()
    api: ApiDocument | None = None
    """The product's OpenAPI document, published beside the portal, when configured."""
    translations: Translations = field(default_factory=lambda: Translations({}))
    changes: tuple[Change, ...] = ()
    previous_version: str | None = None
    """The capability version of ``--previous``; None when no changelog is built."""

    def tool_named(self, name: str) -> ToolDoc | None:
        return next((t for t in self.tools if t.name == name), None)

    def item_named(self, subject: str, name: str) -> ItemDoc | None:
        """The prompt, resource or resource template a change names (by name, URI or URI template)."""
        section = next((s for s, subj in ITEM_SUBJECTS.items() if subj == subject), None)
        items: tuple[ItemDoc, ...] = getattr(self, section) if section else ()
        return next((item for item in items if item.translation_key[1] == name), None)

    def tools_for(self, op: Operation) -> tuple[ToolDoc, ...]:
        """The tools that map to the API operation *op*, in tool order."""
        return tuple(t for t in self.tools if any((o.method, o.path) == (op.method, op.path) for o in t.operations))

    def endpoint_label(self, name: str) -> str:
        """How pages name the endpoint called *name* (its short address), or the name if it is gone."""
        return next((e.short for e in self.endpoints if e.name == name), name)

    def changes_for(self, tool: ToolDoc) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.tool == tool.name)

    @cached_property
    def change_groups(self) -> tuple[tuple[ChangeClass, tuple[Change, ...]], ...]:
        """The changes by class, breaking first, for each class that has any (a section each)."""
        groups = ((cls, tuple(c for c in self.changes if c.cls == cls)) for cls in ChangeClass)
        return tuple((cls, rows) for cls, rows in groups if rows)

    def changed_doc(self, change: Change) -> Doc | None:
        """The tool, prompt or resource a change links to; None when the server no longer lists it."""
        if change.tool:
            return self.tool_named(change.tool)
        return self.item_named(change.subject, change.name)

    def change_endpoint(self, change: Change) -> str | None:
        """The endpoint a change is confined to, as pages name it; None when the change is not confined
        to one, or when its kind (``offered-...``) already says where."""
        if change.endpoint and not change.kind.startswith("offered-"):
            return self.endpoint_label(change.endpoint)
        return None

    def endpoints_without(self, doc: Doc) -> tuple[EndpointDoc, ...]:
        """The product's endpoints that do not offer *doc*, in endpoint order."""
        offered = {e.name for e in doc.endpoints}
        return tuple(e for e in self.endpoints if e.name not in offered)

    def offers_every_tool(self, endpoint: EndpointDoc) -> bool:
        """True when *endpoint* offers as many tools as the portal documents (the connecting page says "all")."""
        return len(endpoint.tools) == len(self.tools)

    def related_to(self, tool: ToolDoc) -> tuple[tuple[str, ToolDoc | None], ...]:
        """The tools the authors relate *tool* to, each with its doc (None when the server lists no such tool)."""
        return tuple((name, self.tool_named(name)) for name in tool.related)

    def shown_title(self, doc: ToolDoc | ItemDoc, locale: str) -> str | None:
        """The title pages show for *doc* in *locale*: a current translation, else the server's; None without one."""
        if not doc.title:
            return None
        return self.translated(doc, "title", locale).text or doc.title

    def snippets(self, endpoint: EndpointDoc) -> tuple[Snippet, ...]:
        """How each client connects to *endpoint*, under the server's name (and the endpoint's, when several)."""
        return endpoint.snippets(self.server.get("name") or "mcp-server", self.several_endpoints)

    @property
    def api_label(self) -> str | None:
        """How pages name the published API document: its title (else its file name) and version."""
        if self.api is None:
            return None
        label = self.api.title or self.api.published_name
        return f"{label} {self.api.version}" if self.api.version else label

    @cached_property
    def item_sections(self) -> tuple[tuple[str, tuple[ItemDoc, ...]], ...]:
        """(section, items) for prompts, resources and resource templates, each the server offers any of.

        The section is the model's attribute and the catalog key ``index.<section>``.
        """
        sections: tuple[tuple[str, tuple[ItemDoc, ...]], ...] = (
            ("prompts", self.prompts),
            ("resources", self.resources),
            ("resource_templates", self.resource_templates),
        )
        return tuple((key, items) for key, items in sections if items)

    def translated(self, doc: ToolDoc | ItemDoc, field: str, locale: str) -> Lookup:
        """A current translation of the title or description of a tool, prompt or resource, a stale one, or none."""
        if isinstance(doc, ToolDoc):
            source = doc.title if field == "title" else doc.full_description
        else:
            source = doc.title if field == "title" else doc.description
        section, key = doc.translation_key
        return self.translations.lookup(locale, section, key, field, source or "")

    @property
    def server(self) -> dict[str, Any]:
        return self.snapshot.server

    def server_text(self, key: str) -> str | None:
        """A string field of the server's identity (``description``, ``instructions``...), or None."""
        value = self.server.get(key)
        return value if isinstance(value, str) and value.strip() else None

    @property
    def server_facts(self) -> tuple[tuple[str, str], ...]:
        """The identity fields of :data:`SERVER_FIELDS` the server set, as (wire key, text)."""
        return tuple((key, text) for key in SERVER_FIELDS if (text := self.server_text(key)) is not None)

    @property
    def capabilities(self) -> dict[str, Any]:
        value = self.server.get("capabilities")
        return value if isinstance(value, dict) else {}

    @property
    def has_instructions(self) -> bool:
        return self.server_text("instructions") is not None

    @cached_property
    def protocol_versions(self) -> tuple[str, ...]:
        """The protocol versions the endpoints negotiated, each once."""
        return tuple(dict.fromkeys(e.protocol_version for e in self.endpoints))

    @cached_property
    def supported_versions(self) -> tuple[str, ...]:
        """Every protocol revision some endpoint says it speaks, newest first (empty when none said)."""
        return tuple(sorted({v for e in self.endpoints for v in e.supported_versions}, reverse=True))

    @property
    def several_endpoints(self) -> bool:
        return len(self.endpoints) > 1

    @cached_property
    def profiles(self) -> tuple[str, ...]:
        """Every profile of the product, in endpoint order (the tool list shows them when several)."""
        return tuple(dict.fromkeys(e.profile for e in self.endpoints))

    @property
    def several_profiles(self) -> bool:
        """True when the product has more than one profile (the tool list then shows the column)."""
        return len(self.profiles) > 1

    @cached_property
    def scoped(self) -> bool:
        """True when any tool has a required scope (the tool list then shows the column)."""
        return any(t.scopes for t in self.tools)

    @property
    def server_name(self) -> str:
        for key in ("title", "name"):
            value = self.server.get(key)
            if isinstance(value, str) and value.strip():
                return value
        return "MCP server"

    @property
    def title(self) -> str:
        return self.config.title or self.server_name

    @property
    def version(self) -> str:
        return self.snapshot.capability_version

    @property
    def locales(self) -> tuple[str, ...]:
        return self.config.locales

    @property
    def read_only_count(self) -> int:
        return sum(1 for t in self.tools if t.access.level == AccessLevel.READ_ONLY)


def build_model(
    snapshot: Snapshot,
    config: PortalConfig,
    translations: Translations | None = None,
    *,
    overlays: Mapping[str, Overlay] | None = None,
    previous: Snapshot | None = None,
    api: ApiDocument | None = None,
    operations: Mapping[str, tuple[Operation, ...]] | None = None,
) -> SiteModel:
    """Gather every page's facts before anything is rendered."""
    endpoints = endpoints_of(snapshot.endpoints)
    slugs = assign_slugs(t["name"] for t in snapshot.tools)
    tools = []
    for raw in snapshot.tools:
        name = raw["name"]
        tools.append(
            ToolDoc(
                name=name,
                slug=slugs[name],
                raw=raw,
                endpoints=tuple(e for e in endpoints if name in e.tools),
                limits=config.limits,
                overlay=(overlays or {}).get(name),
                scope_meta_key=config.scope_meta_key,
                operations=(operations or {}).get(name, ()),
            )
        )
    site = SiteModel(
        snapshot=snapshot,
        config=config,
        tools=tuple(tools),
        endpoints=endpoints,
        prompts=prompts_of(snapshot.prompts, endpoints),
        resources=resources_of(snapshot.resources, endpoints, template=False),
        resource_templates=resources_of(snapshot.resource_templates, endpoints, template=True),
        api=api,
        translations=translations or Translations({}),
        changes=tuple(diff_snapshots(previous, snapshot)) if previous else (),
        previous_version=previous.capability_version if previous else None,
    )
    # Imported here: pages.py builds on this module. A repeated item or a shared output path fails now.
    from generator.model.pages import check_one_page_per_item

    check_one_page_per_item(site)
    return site
