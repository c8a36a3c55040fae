"""Fixed, fake Teamspace data that the demo tools answer from.

Nothing here reads the clock, the network or the environment: every answer is a
pure function of the call's arguments, so snapshots of the demo are reproducible.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from uuid import UUID, uuid5

from generator.demo.models import ComponentState

#: The demo's notion of "now"; ``since_days`` and expiry are measured from it.
REFERENCE_NOW = datetime(2026, 9, 3, 10, 15, tzinfo=UTC)

#: Namespace for every identifier the demo derives with ``uuid5``.
NAMESPACE = UUID("6f1c9a52-3d4e-5b7a-9c0d-1e2f3a4b5c6d")

#: The cursor the ``query_research_conversations`` schema shows as an example: the shape of a cursor, not
#: one of any workspace's pages, so the server refuses it (a documented example that does not work as is).
SAMPLE_CURSOR = UUID("9c8b7a6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d")

#: Base URL of the fictional product.
WEBSITE_URL = "https://teamspace.example/"

#: Messages longer than this are returned as an excerpt with ``is_full`` false.
EXCERPT_CHARS = 160


@dataclass(frozen=True)
class StoredMessage:
    """One message in the fake chat archive."""

    at: datetime
    author: str | None
    chat: str | None
    text: str


def _at(day: int, hour: int, minute: int) -> datetime:
    return datetime(2026, 9, day, hour, minute, tzinfo=UTC)


CHAT_ARCHIVE: tuple[StoredMessage, ...] = (
    StoredMessage(_at(3, 10, 15), "Priya Natarajan", "#release", "Release 2.4.0 is tagged; see handbook."),
    StoredMessage(
        _at(3, 9, 2),
        "Jonas Berg",
        "#defects",
        "Search timeouts again on the EU cluster. The query planner picks the full-text index even for "
        "exact id lookups, which takes 4-6 s on large workspaces. Steps: open any chat with more than "
        "50k messages, search for a message id, watch the spinner. I have filed it as a defect and "
        "attached the slow-query log; the workaround is to prefix ids with id: until the fix ships.",
    ),
    StoredMessage(_at(2, 16, 40), None, "#defects", "Integration bot: nightly export finished, 0 errors."),
    StoredMessage(_at(2, 11, 5), "Amara Okafor", "#research", "The pricing research expired; re-run it?"),
    StoredMessage(_at(1, 14, 30), "Priya Natarajan", None, "Can you review the search timeout defect today?"),
    StoredMessage(_at(1, 8, 55), "Jonas Berg", "#release", "Release candidate 2.4.0-rc2 passed smoke tests."),
    StoredMessage(
        datetime(2026, 8, 20, 12, 0, tzinfo=UTC),
        "Amara Okafor",
        "#research",
        "Summary of interviews: teams want search to cover documents and chat in one box.",
    ),
    StoredMessage(
        datetime(2026, 7, 15, 9, 30, tzinfo=UTC),
        "Chen Wei",
        "#general",
        "Welcome to Teamspace! Start with the handbook and the #release channel.",
    ),
)

KNOWN_CHATS = frozenset(m.chat for m in CHAT_ARCHIVE if m.chat is not None)

RESEARCH_TITLES: tuple[str | None, ...] = (
    "Pricing page interviews",
    "Search relevance complaints",
    None,
    "Onboarding drop-off",
    "Enterprise SSO requests",
    "Mobile offline mode",
    None,
    "Defect triage workload",
    "Document templates survey",
    "Chat retention policy",
    "Competitor feature matrix",
    "Accessibility audit follow-up",
)

AVAILABILITY_CYCLE = ("available", "available", "expired", "source_unavailable", "access_changed", "archived")

TOKEN_NAME = "demo-agent-token"

CAPABILITY_GRANTS: tuple[tuple[str, str, str, datetime | None], ...] = (
    ("defects_write", "project:Teamspace Core", "Priya Natarajan", None),
    ("documents_delete", "workspace", "policy:cleanup-bots", datetime(2026, 12, 31, tzinfo=UTC)),
    ("read_all", "workspace", "Chen Wei", None),
    ("research_read", "workspace", "policy:default-agents", None),
)

COMPONENTS: tuple[tuple[str, ComponentState], ...] = (
    ("chat", "operational"),
    ("documents", "operational"),
    ("research", "operational"),
    ("search", "degraded"),
)


def derived_id(*parts: object) -> UUID:
    """Return a stable UUID for ``parts`` (same input, same id, in every process)."""
    return uuid5(NAMESPACE, "/".join(str(p) for p in parts))


def stable_number(text: str, low: int = 1000, span: int = 9000) -> int:
    """Map ``text`` to a stable integer in ``[low, low + span)`` (unlike ``hash``, not salted)."""
    return low + zlib.crc32(text.encode("utf-8")) % span


def research_created_at(index: int) -> datetime:
    """Creation time of the ``index``-th research conversation (newest first)."""
    return REFERENCE_NOW - timedelta(days=3 * index, hours=index)
