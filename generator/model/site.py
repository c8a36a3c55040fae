"""The documentation model: what each page says, with no HTML and no files.

Built once from a :class:`~generator.snapshot.snapshot.Snapshot` and the configuration
("gather, then write"), so the HTML pages, their Markdown twins and llms.txt all
agree.  Everything is frozen; derived values are computed lazily.

This module holds the whole portal (:class:`SiteModel`) and :func:`build_model`; one tool's
page is :mod:`generator.model.tool`, what calling it may do :mod:`generator.model.access`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from generator.authoring.openapi import ApiDocument, Operation
from generator.authoring.overlays import Overlay
from generator.authoring.translations import Lookup, Translations
from generator.compare.changes import ITEM_SUBJECTS, Change, ChangeClass
from generator.compare.diff import diff_snapshots
from generator.config.portal import PortalConfig
from generator.history.timeline import History, Timeline
from generator.model.access import AccessLevel
from generator.model.calls import EndpointCall
from generator.model.clients import Snippet
from generator.model.discovery import Discovery, discover
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
from generator.model.proofs import proof_of, refusal_of
from generator.model.removed import RemovedDoc, removed_docs
from generator.model.tool import ToolDoc, grants_tool
from generator.model.try_it import TryIt, try_it
from generator.quality.lint import lint
from generator.quality.report import Report, ToolReport
from generator.quality.rules import DIMENSIONS, RULES
from generator.slugs import assign_slugs
from generator.snapshot.snapshot import Snapshot

if TYPE_CHECKING:
    from generator.model.pages import Page

SERVER_FIELDS = ("name", "title", "version", "description", "websiteUrl")
"""The server's identity fields the connecting page lists, in this order, when set."""


GROUP_FROM = 30
"""A tool list longer than this is grouped (:func:`name_groups`): the sidebar and the home page."""

_FIRST_WORD = re.compile(r"[^_.\-/:]{1,64}(?=[_.\-/:])")
"""The first word of a tool name, before its first separator; bounded, and linear to match."""


def name_groups(names: Sequence[str]) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """The positions of *names* grouped by their first word (``compute_vm_get`` → ``compute``), in the
    order each word first appears; names that share their first word with no other name go in a last
    group named ``""``. Empty when the list is short (:data:`GROUP_FROM`) or would make one group."""
    if len(names) <= GROUP_FROM:
        return ()
    words = [m.group(0) if (m := _FIRST_WORD.match(name)) else "" for name in names]
    counts: dict[str, int] = {}
    for word in words:
        counts[word] = counts.get(word, 0) + 1
    groups: dict[str, list[int]] = {}
    for i, word in enumerate(words):
        groups.setdefault(word if word and counts[word] > 1 else "", []).append(i)
    named = [(word, tuple(members)) for word, members in groups.items() if word]
    if len(named) < 2:
        return ()
    return (*named, *((("", tuple(groups[""])),) if "" in groups else ()))


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
    history: History | None = None
    """A versioned build's releases up to the version built, and its tools' timelines; None otherwise."""
    removed_tools: tuple[RemovedDoc, ...] = ()
    """The tools earlier versions had and this one does not (a versioned build only)."""

    @cached_property
    def pages(self) -> tuple[Page, ...]:
        """Every page of the site (:func:`generator.model.pages.pages_for`), made once per model."""
        from generator.model.pages import made_pages  # the pages module builds on this one

        return made_pages(self)

    @cached_property
    def discovery(self) -> Discovery:
        """The documented server's ``server.json`` and Server Card (:mod:`generator.model.discovery`)."""
        return discover(self)

    @cached_property
    def _tools_by_name(self) -> dict[str, ToolDoc]:
        found: dict[str, ToolDoc] = {}
        for tool in self.tools:
            found.setdefault(tool.name, tool)  # the first of a repeated name, as a scan would find
        return found

    @cached_property
    def tool_groups(self) -> tuple[tuple[str, tuple[ToolDoc, ...]], ...]:
        """The tools grouped by the first word of their names (:func:`name_groups`); empty for a flat list."""
        return tuple(
            (word, tuple(self.tools[i] for i in members))
            for word, members in name_groups([tool.name for tool in self.tools])
        )

    @cached_property
    def grants_tool(self) -> str | None:
        """The tool that reports the caller's grants (:func:`generator.model.tool.grants_tool`), if any."""
        return grants_tool(self.tools)

    def tool_named(self, name: str) -> ToolDoc | None:
        return self._tools_by_name.get(name)

    @cached_property
    def _demonstrated(self) -> dict[EndpointCall, ToolDoc | None]:
        return {}

    def demonstrated(self, call: EndpointCall) -> ToolDoc | None:
        """The tool *call*'s connecting page demonstrates (:meth:`EndpointCall.pick`), worked out once:
        the page and its twin ask in every locale, and picking looks at every tool's annotations."""
        if call not in self._demonstrated:
            self._demonstrated[call] = call.pick(self)
        return self._demonstrated[call]

    def try_it(self, tool: ToolDoc) -> TryIt | None:
        """The Try it panel of *tool*'s page, when the site offers one (:mod:`generator.model.try_it`)."""
        if not self.config.try_it:
            return None
        return try_it(tool, self.config.try_it_tools, proxy=self.config.try_it_proxy)

    @cached_property
    def try_it_panels(self) -> tuple[TryIt, ...]:
        """Every panel of the site, in tool order (empty without ``try_it``)."""
        if not self.config.try_it:
            return ()
        return tuple(panel for tool in self.tools if (panel := self.try_it(tool)) is not None)

    @property
    def try_it_origins(self) -> tuple[str, ...]:
        """Every origin a panel of this site may send to besides its own, sorted."""
        return tuple(sorted({panel.origin for panel in self.try_it_panels if panel.origin is not None}))

    def try_it_warnings(self) -> list[str]:
        """What an author should know about the ``try_it`` settings: names that match no tool, or no panel at all."""
        listed = self.config.try_it_tools
        if not self.config.try_it:
            return ["try_it_tools has no effect without try_it: add `try_it: true` (or --try-it)"] if listed else []
        found = []
        unknown = [name for name in listed if self.tool_named(name) is None]
        if unknown:
            found.append(f"try_it_tools names tools the server does not list: {', '.join(unknown[:5])}")
        if not self.try_it_panels:
            found.append(
                "try_it is on, but no page gets the Try it panel: it needs a tool declared readOnlyHint: true "
                "(or listed in try_it_tools) on a Streamable HTTP endpoint whose address is https:// or a "
                "loopback http:// one (set `public` for the endpoint in portal.yaml)"
            )
        return found

    def item_named(self, subject: str, name: str) -> ItemDoc | None:
        """The prompt, resource or resource template a change names (by name, URI or URI template)."""
        section = next((s for s, subj in ITEM_SUBJECTS.items() if subj == subject), None)
        items: tuple[ItemDoc, ...] = getattr(self, section) if section else ()
        return next((item for item in items if item.translation_key[1] == name), None)

    @cached_property
    def reading_order(self) -> dict[int, int]:
        """Position of each page's doc (by identity) in the order the sidebar lists them."""
        return {id(doc): i for i, doc in enumerate(self.documents)}

    common_troubles = ToolDoc.common_troubles
    """The errors any tool can return, listed once on the Connecting page (catalog ``trouble.*``)."""

    @cached_property
    def refusal(self) -> str | None:
        """How the server refuses an invalid argument, when ``--prove``'s probe saw it (``isError``, ``-32602``...)."""
        return refusal_of(self.snapshot.proofs)

    @property
    def proved(self) -> bool:
        """The snapshot records ``--prove``'s calls: pages say which examples the server was asked."""
        return self.snapshot.proofs is not None

    @property
    def server_language(self) -> str:
        """The language of what the server wrote, for ``lang=`` on verbatim text (WCAG 3.1.2)."""
        return self.config.server_language

    @property
    def documents(self) -> tuple[Doc, ...]:
        """Every doc with a page of its own, in sidebar order: tools, prompts, resources, templates."""
        return (*self.tools, *self.prompts, *self.resources, *self.resource_templates)

    def neighbours(self, doc: Doc) -> tuple[Doc | None, Doc | None]:
        """The docs before and after *doc* in :attr:`documents` (None at either end)."""
        docs = self.documents
        i = self.reading_order.get(id(doc))
        if i is None:
            return None, None
        return (docs[i - 1] if i > 0 else None), (docs[i + 1] if i + 1 < len(docs) else None)

    def tools_for(self, op: Operation) -> tuple[ToolDoc, ...]:
        """The tools that map to the API operation *op*, in tool order."""
        return tuple(t for t in self.tools if any((o.method, o.path) == (op.method, op.path) for o in t.operations))

    def endpoint_label(self, name: str) -> str:
        """How pages name the endpoint called *name* (its short address), or the name if it is gone."""
        return next((e.short for e in self.endpoints if e.name == name), name)

    def timeline(self, doc: Doc) -> Timeline | None:
        """The timeline of a tool (or of a removed one) in a versioned build; None otherwise."""
        return self.history.timeline(doc.name) if self.history is not None else None

    def changes_for(self, tool: ToolDoc) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.tool == tool.name)

    @cached_property
    def change_groups(self) -> tuple[tuple[ChangeClass, tuple[Change, ...]], ...]:
        """The changes by class, breaking first, for each class that has any (a section each)."""
        groups = ((cls, tuple(c for c in self.changes if c.cls == cls)) for cls in ChangeClass)
        return tuple((cls, rows) for cls, rows in groups if rows)

    def history_doc(self, change: Change) -> Doc | None:
        """The page a change of the release history links to: the tool, prompt or resource, or the page
        this version keeps for a tool it no longer has; None when there is neither."""
        found = self.changed_doc(change)
        if found is None and change.tool:
            return next((doc for doc in self.removed_tools if doc.name == change.tool), None)
        return found

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

    @cached_property
    def readiness(self) -> Report | None:
        """The agent-readiness report of the "Agent readiness" page (``lint_page``), or None without it."""
        return lint(self.snapshot) if self.config.lint_page else None

    @property
    def readiness_dimensions(self) -> tuple[str, ...]:
        """The dimensions the readiness page's table has a column for, in report order."""
        return DIMENSIONS

    @cached_property
    def readiness_tools(self) -> tuple[tuple[ToolReport, ToolDoc | None], ...]:
        """Each tool's report with its doc (for the link to its page), worst score first."""
        report = self.readiness
        if report is None:
            return ()
        ranked = sorted(enumerate(report.tools), key=lambda pair: (pair[1].score, pair[0]))
        return tuple((tool, self.tools[i] if i < len(self.tools) else None) for i, tool in ranked)

    @cached_property
    def readiness_rules(self) -> tuple[str, ...]:
        """The ids of the rules that found something, in rule-table order (the page says how to fix each)."""
        found = {f.rule for f in self.readiness.findings} if self.readiness is not None else set()
        return tuple(rule.id for rule in RULES if rule.id in found)

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

    @cached_property
    def read_only_count(self) -> int:
        """How many tools are read-only (each index page and its twins says it: counted once)."""
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
    history: History | None = None,
) -> SiteModel:
    """Gather every page's facts before anything is rendered; *history* makes it a version of a versioned site."""
    endpoints = endpoints_of(snapshot.endpoints)
    offered = [(e, frozenset(e.tools)) for e in endpoints]  # a name in a tuple of 5,000 costs 5,000 compares
    slugs = assign_slugs(t["name"] for t in snapshot.tools)
    proofs, refusal = snapshot.proofs, refusal_of(snapshot.proofs)
    tools = []
    for raw in snapshot.tools:
        name = raw["name"]
        tools.append(
            ToolDoc(
                name=name,
                slug=slugs[name],
                raw=raw,
                endpoints=tuple(e for e, names in offered if name in names),
                limits=config.limits,
                overlay=(overlays or {}).get(name),
                scope_meta_key=config.scope_meta_key,
                operations=(operations or {}).get(name, ()),
                proof=proof_of(proofs, "tools", name),
                refusal=refusal,
            )
        )
    site = SiteModel(
        snapshot=snapshot,
        config=config,
        tools=tuple(tools),
        endpoints=endpoints,
        prompts=prompts_of(snapshot.prompts, endpoints, proofs),
        resources=resources_of(snapshot.resources, endpoints, template=False, proofs=proofs),
        resource_templates=resources_of(snapshot.resource_templates, endpoints, template=True, proofs=proofs),
        api=api,
        translations=translations or Translations({}),
        changes=tuple(diff_snapshots(previous, snapshot)) if previous else (),
        previous_version=previous.capability_version if previous else None,
        history=history,
        removed_tools=removed_docs(history, [tool.name for tool in tools]) if history is not None else (),
    )
    return site
