"""Chat history and the inbox's conversation rows (shared by messaging, webhooks and chats)."""
from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from beanie import PydanticObjectId
from pydantic import Field
from pymongo import ASCENDING, DESCENDING, IndexModel

from leadline.models.base import TenantDocument

# Outbound delivery moves only forward along this order; `failed` is terminal from any state.
DELIVERY_ORDER = ("accepted", "sent", "delivered", "read")
DELIVERY_STATUSES = (*DELIVERY_ORDER, "failed")


class ChatMessage(TenantDocument):
    """One message in a chat, inbound or outbound. `id` is the `messageId` the API returns."""

    channel: str = "chatapp"
    brand_number: str
    contact_id: PydanticObjectId | None = None
    phone: str | None = None
    bsuid: str | None = None
    direction: Literal["inbound", "outbound"]
    # Outbound: accepted → sent → delivered → read, or failed. Inbound: received.
    status: str
    type: str  # text, image, document, audio, video, template, interactive, reaction, location, ...
    text: str | None = None
    media: dict[str, Any] | None = None  # {url, type, id, caption, filename, mimeType}
    components: list[dict[str, Any]] | None = None
    template: dict[str, Any] | None = None  # {name, id, language}
    reactions: list[dict[str, Any]] = Field(default_factory=list)
    # The provider's message id (`wamid...`): webhook deliveries are deduplicated on it.
    cmid: str | None = None
    campaign_id: PydanticObjectId | None = None
    # A campaign message: its recipient's [chunk, slot] (models/campaigns.py), and the payloads of its
    # quick-reply buttons by button index (a click returns one).
    campaign_slot: list[int] | None = None
    campaign_payloads: dict[str, str] | None = None
    schedule_id: PydanticObjectId | None = None
    cost: dict[str, Any] | None = None  # {amount, currency, category}
    error: dict[str, Any] | None = None  # {code, title, message} of a failed delivery
    # Inbox-only notes are internal; `excludeInternal` hides them from history.
    internal: bool = False
    # Inbound only: the sender edited (new content kept) or deleted (content removed) the message.
    edited: bool = False
    deleted: bool = False
    edited_at: datetime | None = None
    deleted_at: datetime | None = None
    store_in_ai_context: bool = False
    status_times: dict[str, datetime] = Field(default_factory=dict)
    # Inbound only (resolvers/chats/inbound.py): the provider id again, under a unique index, so a
    # redelivered webhook cannot store the message twice; `pending_effects` is true until the
    # conversation row and the event have been applied (a retried job finishes them).
    dedup_key: str | None = None
    pending_effects: bool = False
    # Inbound only: the kind-specific object as the provider sent it (location, contacts, reply ids, ...).
    content: dict[str, Any] | None = None

    class Settings:
        name = "chat_messages"
        # Absent rather than null: SecantusDB's cost per document grows with its fields, and most of a
        # message's are empty (a query for `None` still matches an absent field).
        keep_nulls = False
        indexes = [
            # History: newest first per contact, `before` cursor on created_at.
            IndexModel([("org_id", ASCENDING), ("contact_id", ASCENDING), ("created_at", DESCENDING)]),
            # Status webhooks and redeliveries find the message by provider id, across organisations.
            IndexModel([("cmid", ASCENDING)]),
            # History filtered by business number.
            IndexModel([("org_id", ASCENDING), ("contact_id", ASCENDING), ("brand_number", ASCENDING),
                        ("created_at", DESCENDING)]),
            # A day of an organisation's messages for the insights rollups (jobs/insights.py).
            IndexModel([("org_id", ASCENDING), ("created_at", ASCENDING)]),
            # Inbound deduplication (enforcement only: SecantusDB does not plan queries on partial indexes).
            IndexModel([("org_id", ASCENDING), ("dedup_key", ASCENDING)], unique=True, name="inbound_dedup",
                       partialFilterExpression={"dedup_key": {"$type": "string"}}),
        ]


class Conversation(TenantDocument):
    """The inbox row of one contact on one business number."""

    channel: str = "chatapp"
    brand_number: str
    contact_id: PydanticObjectId
    phone: str | None = None
    contact_name: str | None = None
    last_message: str | None = None
    last_message_at: datetime | None = None
    # The customer-service window opens at the contact's last inbound message (24 h).
    last_inbound_at: datetime | None = None
    unread_count: int = 0
    is_archived: bool = False
    is_muted: bool = False
    is_pinned: bool = False
    is_starred: bool = False
    summary: str | None = None
    # The last inbound provider ids counted into unreadCount (bounded): a retried ingestion job never
    # counts a message twice (resolvers/chats/conversations.py).
    recent_inbound: list[str] = Field(default_factory=list)
    # Team inbox (resolvers/inbox/): the assignment, and the inbox status (a key of the workspace's
    # catalogue; rows written before the team inbox have none, which reads as the default, `open`).
    assigned_agent_id: PydanticObjectId | None = None
    assigned_team_id: PydanticObjectId | None = None
    assigned_at: datetime | None = None
    inbox_status: str = "open"

    class Settings:
        name = "conversations"
        indexes = [
            # Also serves {org_id, contact_id} (a prefix): the window without a number, a batch's rows.
            IndexModel([("org_id", ASCENDING), ("contact_id", ASCENDING), ("brand_number", ASCENDING)], unique=True),
            IndexModel([("org_id", ASCENDING), ("last_message_at", DESCENDING)]),
            IndexModel([("org_id", ASCENDING), ("is_archived", ASCENDING), ("last_message_at", DESCENDING)]),
            # The team inbox's lists (resolvers/inbox/conversations.py): by status, by agent (or unassigned:
            # agent null) and by team, each optionally with a status. Fields messages never change.
            IndexModel([("org_id", ASCENDING), ("inbox_status", ASCENDING)]),
            IndexModel([("org_id", ASCENDING), ("assigned_agent_id", ASCENDING), ("inbox_status", ASCENDING)]),
            IndexModel([("org_id", ASCENDING), ("assigned_team_id", ASCENDING), ("inbox_status", ASCENDING)]),
        ]
