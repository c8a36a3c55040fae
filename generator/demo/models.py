"""Pydantic models for the Teamspace demo server's structured tool results.

Every field carries a ``description`` so the published ``outputSchema`` of each
tool documents itself; the portal renders these descriptions verbatim.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, Field

Severity = Literal["low", "medium", "high", "critical"]
ComponentState = Literal["operational", "degraded", "maintenance"]


class ChatMessage(BaseModel):
    """One chat message returned by ``search_chat``."""

    at: datetime = Field(description="When the message was posted (UTC, ISO 8601).")
    author: str | None = Field(
        description="Display name of the author; null for messages from deleted accounts or integrations."
    )
    text: str = Field(description="Message text: the whole message when is_full is true, else an excerpt.")
    is_full: bool = Field(description="True when text holds the complete message; false when it was cut to an excerpt.")
    chat: str | None = Field(
        description="Channel name (for example #release) or null for direct messages the token may not name."
    )


class ChatSearchResult(BaseModel):
    """Result of ``search_chat``."""

    found: int = Field(description="Total number of matching messages, which may exceed len(messages).")
    messages: list[ChatMessage] = Field(description="Matching messages, newest first; at most `limit`.")
    error: str | None = Field(
        default=None,
        description="Why the search was narrowed or refused (such as a missing capability); null if not.",
    )


class Availability(StrEnum):
    """Whether a research conversation can still be opened."""

    AVAILABLE = "available"
    EXPIRED = "expired"
    SOURCE_UNAVAILABLE = "source_unavailable"
    ACCESS_CHANGED = "access_changed"
    ARCHIVED = "archived"


class Evidence(BaseModel):
    """A pinned piece of evidence a research conversation relies on."""

    evidence_id: UUID = Field(description="Identifier of the evidence item (document, message or file).")
    revision: int = Field(gt=0, description="Revision of the evidence item the conversation was based on.")


class ResearchContext(BaseModel):
    """The project and evidence a research conversation was grounded in."""

    project_id: UUID = Field(description="Project the conversation belongs to.")
    evidence: list[Evidence] = Field(description="Evidence items pinned to the conversation, oldest first.")


class ResearchConversation(BaseModel):
    """One research conversation summary."""

    id: UUID = Field(description="Identifier of the research conversation.")
    title: str | None = Field(description="Title given by the author; null for untitled conversations.")
    context: ResearchContext = Field(description="Project and evidence the conversation is grounded in.")
    availability: Availability = Field(description="Whether the conversation can still be opened.")
    created_at: datetime = Field(description="When the conversation was started (UTC).")
    expires_at: datetime | None = Field(
        description="When the conversation stops being available (UTC); null if it never expires."
    )


class ResearchConversationPage(BaseModel):
    """One page of ``query_research_conversations`` results."""

    items: list[ResearchConversation] = Field(description="Conversations on this page, newest first.")
    next_cursor: UUID | None = Field(
        description="Pass as `cursor` to fetch the next page; null when this is the last page."
    )


class FiledDefect(BaseModel):
    """Result of ``file_defect``."""

    id: UUID = Field(description="Stable identifier of the new defect.")
    number: int = Field(description="Human-facing defect number, shown as DEF-<number> in Teamspace.")
    url: str = Field(description="Link to the defect in the Teamspace web app.")
    status: Literal["open"] = Field(description="Status of the new defect; always open right after filing.")
    severity: Severity = Field(description="Severity the defect was filed with.")


class DeletedDocument(BaseModel):
    """Result of ``delete_document``."""

    deleted: bool = Field(description="True when the document no longer exists after this call.")
    document_id: UUID = Field(description="The document the call was about.")


class Grant(BaseModel):
    """One grant that gave the token a capability."""

    capability: str = Field(description="Capability name, for example read_all.")
    scope: str = Field(description="Where the grant applies: workspace, or a project or chat name.")
    granted_by: str = Field(description="Who made the grant (admin display name or policy name).")
    expires_at: datetime | None = Field(description="When the grant lapses (UTC); null if it does not.")


class Capabilities(BaseModel):
    """Result of ``my_capabilities``."""

    token_name: str = Field(description="Name the token was given when it was created.")
    capabilities: list[str] = Field(description="Capabilities the token holds, sorted by name.")
    grants: list[Grant] = Field(description="The grants behind those capabilities.")


class ComponentStatus(BaseModel):
    """Status of one Teamspace component."""

    name: str = Field(description="Component name, for example chat or search.")
    state: ComponentState = Field(description="Current state.")


class WorkspaceStatus(BaseModel):
    """Result of ``workspace_status``."""

    workspace: str = Field(description="Workspace display name.")
    state: ComponentState = Field(description="Overall state: the worst state among the components.")
    components: list[ComponentStatus] = Field(description="Per-component states.")
    checked_at: datetime = Field(description="When the status was last computed (UTC).")
