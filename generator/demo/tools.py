"""The Teamspace demo tools and the one table that registers them.

Each tool is a plain async function whose parameters carry pydantic ``Field``
descriptions and whose return type is a model from :mod:`generator.demo.models`,
so the SDK publishes both an ``inputSchema`` and an ``outputSchema``.
:data:`TOOL_SPECS` pairs every function with its title, description and
annotations; :func:`build_tools` turns that table into SDK ``Tool`` objects for
one profile, so the full and the read-only server share every line of it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Annotated
from uuid import UUID

from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
from mcp_types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, create_model

from generator.demo import data
from generator.demo.models import (
    Availability,
    Capabilities,
    ChatMessage,
    ChatSearchResult,
    ComponentState,
    ComponentStatus,
    DeletedDocument,
    Evidence,
    FiledDefect,
    Grant,
    ResearchContext,
    ResearchConversation,
    ResearchConversationPage,
    Severity,
    WorkspaceStatus,
)
from generator.demo.settings import CAPABILITY_META_KEY, OPERATION_META_KEY

# --- tools -------------------------------------------------------------------------------------------


async def search_chat(
    query: Annotated[
        str,
        Field(
            min_length=1,
            description="Words to look for; a message matches when it contains any of them (any case).",
            examples=["search timeout"],
        ),
    ],
    chat: Annotated[
        str | None,
        Field(description="Only search this chat, for example #release. Omit to search every readable chat."),
    ] = None,
    author: Annotated[
        str | None, Field(description="Only messages by this author (display name, case-insensitive).")
    ] = None,
    since_days: Annotated[
        int | None, Field(ge=1, description="Only messages posted in the last N days; omit for no limit.")
    ] = None,
    limit: Annotated[int, Field(ge=1, le=100, description="Maximum number of messages to return.")] = 20,
) -> ChatSearchResult:
    if chat is not None and chat not in data.KNOWN_CHATS:
        known = ", ".join(sorted(data.KNOWN_CHATS))
        return ChatSearchResult(found=0, messages=[], error=f"Unknown chat {chat!r}. Known chats: {known}.")
    words = [w.casefold() for w in query.split()] or [query.casefold()]
    oldest = data.REFERENCE_NOW - timedelta(days=since_days) if since_days is not None else None
    hits = [
        m
        for m in data.CHAT_ARCHIVE
        if any(w in m.text.casefold() for w in words)
        and (chat is None or m.chat == chat)
        and (author is None or (m.author or "").casefold() == author.casefold())
        and (oldest is None or m.at >= oldest)
    ]
    messages = [
        ChatMessage(
            at=m.at,
            author=m.author,
            text=m.text if len(m.text) <= data.EXCERPT_CHARS else m.text[: data.EXCERPT_CHARS - 1] + "…",
            is_full=len(m.text) <= data.EXCERPT_CHARS,
            chat=m.chat,
        )
        for m in hits[:limit]
    ]
    return ChatSearchResult(found=len(hits), messages=messages)


def _conversation(workspace_id: UUID, index: int) -> ResearchConversation:
    availability = Availability(data.AVAILABILITY_CYCLE[index % len(data.AVAILABILITY_CYCLE)])
    created = data.research_created_at(index)
    if availability is Availability.ARCHIVED:
        expires = None
    elif availability is Availability.EXPIRED:
        expires = created + timedelta(days=2)
    else:
        expires = created + timedelta(days=90)
    evidence = [
        Evidence(
            evidence_id=data.derived_id(workspace_id, "evidence", index, j),
            revision=1 + (index + j) % 4,
        )
        for j in range(index % 3)
    ]
    return ResearchConversation(
        id=data.derived_id(workspace_id, "research", index),
        title=data.RESEARCH_TITLES[index],
        context=ResearchContext(project_id=data.derived_id(workspace_id, "project", index % 3), evidence=evidence),
        availability=availability,
        created_at=created,
        expires_at=expires,
    )


async def query_research_conversations(
    workspace_id: Annotated[UUID, Field(description="Workspace whose research conversations to list.")],
    cursor: Annotated[
        UUID | None,
        Field(
            description="The next_cursor of the previous page; omit to start from the newest.",
            examples=[data.SAMPLE_CURSOR],
        ),
    ] = None,
    limit: Annotated[int, Field(ge=1, le=25, description="Maximum number of conversations per page.")] = 10,
) -> ResearchConversationPage:
    conversations = [_conversation(workspace_id, i) for i in range(len(data.RESEARCH_TITLES))]
    start = 0
    if cursor is not None:
        ids = [c.id for c in conversations]
        if cursor not in ids:
            raise ToolError(f"Unknown cursor {cursor}: it does not belong to workspace {workspace_id}.")
        start = ids.index(cursor) + 1
    page = conversations[start : start + limit]
    more = start + limit < len(conversations)
    return ResearchConversationPage(items=page, next_cursor=page[-1].id if more and page else None)


async def file_defect(
    title: Annotated[str, Field(min_length=3, max_length=200, description="One-line summary shown in defect lists.")],
    description: Annotated[str, Field(description="What happened and what was expected, in Markdown.")],
    severity: Annotated[
        Severity, Field(description="Impact: low (cosmetic) to critical (data loss or outage).")
    ] = "medium",
    steps_to_reproduce: Annotated[
        list[str] | None, Field(description="Ordered steps that reproduce the defect, one per item.")
    ] = None,
    chat_message_ids: Annotated[
        list[str] | None, Field(description="Ids of chat messages to link as evidence, from the chat UI.")
    ] = None,
) -> FiledDefect:
    number = data.stable_number(f"{title}\n{description}")
    return FiledDefect(
        id=data.derived_id("defect", number),
        number=number,
        url=f"{data.WEBSITE_URL}defects/DEF-{number}",
        status="open",
        severity=severity,
    )


async def delete_document(
    document_id: Annotated[UUID, Field(description="The document to delete.")],
    reason: Annotated[
        str | None, Field(description="Why the document is deleted; recorded in the workspace audit log.")
    ] = None,
) -> DeletedDocument:
    return DeletedDocument(deleted=True, document_id=document_id)


async def my_capabilities() -> Capabilities:
    grants = [
        Grant(capability=capability, scope=scope, granted_by=who, expires_at=until)
        for capability, scope, who, until in data.CAPABILITY_GRANTS
    ]
    return Capabilities(token_name=data.TOKEN_NAME, capabilities=sorted({g.capability for g in grants}), grants=grants)


async def workspace_status() -> WorkspaceStatus:
    order: tuple[ComponentState, ...] = ("operational", "degraded", "maintenance")
    components = [ComponentStatus(name=n, state=s) for n, s in data.COMPONENTS]
    worst = max((c.state for c in components), key=order.index)
    return WorkspaceStatus(
        workspace="Teamspace Demo", state=worst, components=components, checked_at=data.REFERENCE_NOW
    )


# --- descriptions and annotations --------------------------------------------------------------------

SEARCH_CHAT_DESCRIPTION = """\
Search the Teamspace chat archive for messages that contain any of the words in `query`.

Narrow the search with `chat` (a channel such as #release), `author` (a display name) and \
`since_days` (only the last N days). Results come newest first; `found` is the total number of \
matches and may be larger than the number of messages returned, which is capped by `limit`.

Long messages are returned as an excerpt: `is_full` is true when `text` holds the whole message \
and false when it was cut, in which case open the message in Teamspace to read the rest. \
Direct messages have a null `chat`, and messages posted by integrations have a null `author`.

Requires the `read_all` capability to search every chat; without it only chats the token's user \
belongs to are searched and `error` says so. An unknown `chat` returns no messages and an `error`. \
Call `my_capabilities` to see what the token may do."""

RESEARCH_DESCRIPTION = """\
List the research conversations of a workspace, newest first, one page at a time.

Each item gives the conversation's title, the project and evidence it was grounded in (every \
evidence item with the revision that was used), its availability and when it was created and \
expires. A conversation whose evidence was deleted or whose sharing changed is still listed, with \
`availability` telling why it can no longer be opened.

Pass the `next_cursor` of a page as `cursor` to get the next page; it is null on the last page. \
Unknown arguments are rejected. Requires the `research_read` capability."""

FILE_DEFECT_DESCRIPTION = """\
File a new defect in the Teamspace defect tracker and return its number and link.

Every call files a new defect, even with the same arguments, so check `search_chat` or the \
tracker for an existing report first. Link the chat messages that show the problem with \
`chat_message_ids`. Requires the `defects_write` capability."""

DELETE_DOCUMENT_DESCRIPTION = """\
Delete a document from the workspace. The document, its revisions and its comments are removed \
for everyone and cannot be restored by the API; research conversations that cite it become \
`source_unavailable`. Deleting a document that is already gone succeeds with `deleted` true. \
Requires the `documents_delete` capability."""

MY_CAPABILITIES_DESCRIPTION = """\
Show the capabilities of the token this session uses and the grants they come from. Call it \
before a tool that needs a capability, to explain a refusal, or to tell the user whom to ask."""

WORKSPACE_STATUS_DESCRIPTION = """\
Report whether the workspace and each of its components (chat, documents, research, search) \
are operational, degraded or in maintenance."""

READ_ONLY_LOCAL = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
READ_ONLY_OPEN_WORLD = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=True
)
ADDITIVE_WRITE = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
DESTRUCTIVE_WRITE = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
)


READONLY_SEARCH_LIMIT = 25
"""The read-only profile serves smaller ``search_chat`` pages, so its schema differs from the full one."""


@dataclass(frozen=True)
class ToolSpec:
    """How one function is published as a tool."""

    fn: Callable[..., Awaitable[BaseModel]]
    title: str | None
    description: str
    annotations: ToolAnnotations | None
    forbid_extra_arguments: bool = False
    capability: str | None = None
    operation: str | None = None
    component: str | None = None
    """The workspace component the tool needs (``--maintenance`` refuses its calls; see generator.demo.behaviour)."""

    @property
    def read_only(self) -> bool:
        """True when the tool declares ``readOnlyHint: true`` (and so belongs in the read-only profile)."""
        return self.annotations is not None and self.annotations.read_only_hint is True


TOOL_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        search_chat,
        "Search chat archive",
        SEARCH_CHAT_DESCRIPTION,
        READ_ONLY_LOCAL,
        capability="read_all",
        component="search",
    ),
    ToolSpec(
        query_research_conversations,
        "Query research conversations",
        RESEARCH_DESCRIPTION,
        READ_ONLY_OPEN_WORLD,
        forbid_extra_arguments=True,
        capability="research_read",
        operation="queryResearchConversations",
        component="research",
    ),
    ToolSpec(file_defect, "File a defect", FILE_DEFECT_DESCRIPTION, ADDITIVE_WRITE, capability="defects_write"),
    ToolSpec(
        delete_document,
        "Delete a document",
        DELETE_DOCUMENT_DESCRIPTION,
        DESTRUCTIVE_WRITE,
        capability="documents_delete",
        component="documents",
    ),
    ToolSpec(my_capabilities, "My capabilities", MY_CAPABILITIES_DESCRIPTION, READ_ONLY_LOCAL),
    # Deliberately bare: no title and no annotations, as many real servers publish.
    ToolSpec(workspace_status, None, WORKSPACE_STATUS_DESCRIPTION, None),
)


class _ForbidExtra(ArgModelBase):
    model_config = ConfigDict(extra="forbid")


def _forbid_extra_arguments(tool: Tool) -> Tool:
    """Make ``tool`` reject unknown arguments and publish ``additionalProperties: false``.

    The SDK builds the argument model from the signature with pydantic's default
    ``extra="ignore"``; a subclass mixing in ``extra="forbid"`` keeps every field and
    the SDK's argument handling while tightening both validation and the schema.
    """
    base = tool.fn_metadata.arg_model
    strict: type[ArgModelBase] = create_model(base.__name__, __base__=(base, _ForbidExtra))
    tool.fn_metadata.arg_model = strict
    tool.parameters = strict.model_json_schema(by_alias=True)
    return tool


def _smaller_search_pages(tool: Tool) -> Tool:
    """The read-only profile's ``search_chat``: ``limit`` at most :data:`READONLY_SEARCH_LIMIT`.

    Both the argument model (what the server accepts) and the published schema change,
    so the two profiles really differ and the portal has a difference to show.
    """
    base = tool.fn_metadata.arg_model
    limit = Field(default=20, ge=1, le=READONLY_SEARCH_LIMIT, description="Maximum number of messages to return.")
    tighter: type[ArgModelBase] = create_model(base.__name__, __base__=base, limit=(int, limit))
    tool.fn_metadata.arg_model = tighter
    tool.parameters = tighter.model_json_schema(by_alias=True)
    return tool


def build_tools(read_only: bool) -> list[Tool]:
    """Return SDK ``Tool`` objects for every spec, or only the read-only ones."""
    tools: list[Tool] = []
    for spec in TOOL_SPECS:
        if read_only and not spec.read_only:
            continue
        meta = {}
        if spec.capability:
            meta[CAPABILITY_META_KEY] = spec.capability
        if spec.operation:
            meta[OPERATION_META_KEY] = spec.operation
        tool = Tool.from_function(
            spec.fn,
            title=spec.title,
            description=spec.description,
            annotations=spec.annotations,
            meta=meta or None,
            structured_output=True,
        )
        if spec.forbid_extra_arguments:
            tool = _forbid_extra_arguments(tool)
        if read_only and spec.fn is search_chat:
            tool = _smaller_search_pages(tool)
        tools.append(tool)
    return tools


def tool_names(read_only: bool = False) -> list[str]:
    """Names of the tools a profile publishes, in registration order."""
    return [s.fn.__name__ for s in TOOL_SPECS if s.read_only or not read_only]
