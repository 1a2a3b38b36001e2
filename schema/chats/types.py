"""Chat types and their explicit conversion from models and domain objects (leaf fields are plain)."""
from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry

from leadline.models.chats import ChatMessage, Conversation
from leadline.models.contacts import Contact
from leadline.resolvers.chats.history import History
from leadline.resolvers.chats.window import Window
from leadline.schema.common import money
from leadline.schema.scalars import JSON


@strawberry.type
class ChatMedia:
    url: str | None
    type: str | None


@strawberry.type
class ChatReaction:
    emoji: str
    from_: str | None = strawberry.field(name="from")
    direction: str
    created_at: datetime | None


@strawberry.type
class ChatCost:
    amount: float | None
    currency: str | None
    category: str | None


@strawberry.type
class ChatError:
    code: int | None
    title: str | None
    message: str | None


def _amount(value: Any) -> float | None:
    try:
        return money(value)
    except (TypeError, ValueError):
        return None


@strawberry.type
class ChatMessageType:
    message_id: str
    cmid: str | None
    direction: str
    status: str
    type: str
    text: str | None
    media: ChatMedia | None
    components: JSON | None
    reactions: list[ChatReaction]
    campaign_id: str | None
    cost: ChatCost | None
    error: ChatError | None
    brand_number: str
    internal: bool
    edited: bool = strawberry.field(description="The sender edited it; the stored content is the new one.")
    deleted: bool = strawberry.field(description="The sender deleted it; its content is removed.")
    created_at: datetime

    @classmethod
    def from_domain(cls, m: ChatMessage) -> "ChatMessageType":
        media = ChatMedia(url=m.media.get("url"), type=m.media.get("type")) if m.media else None
        cost = ChatCost(amount=_amount(m.cost.get("amount")), currency=m.cost.get("currency"),
                        category=m.cost.get("category")) if m.cost else None
        error = ChatError(code=m.error.get("code"), title=m.error.get("title"),
                          message=m.error.get("message")) if m.error else None
        reactions = [ChatReaction(emoji=r.get("emoji", ""), from_=r.get("from"),
                                  direction=r.get("direction", "inbound"), created_at=r.get("at")) for r in m.reactions]
        return cls(message_id=str(m.id), cmid=m.cmid, direction=m.direction, status=m.status, type=m.type,
                   text=m.text, media=media, components=m.components, reactions=reactions,
                   campaign_id=str(m.campaign_id) if m.campaign_id else None, cost=cost, error=error,
                   brand_number=m.brand_number, internal=m.internal, edited=m.edited, deleted=m.deleted,
                   created_at=m.created_at)


@strawberry.type
class ChatWindow:
    open: bool
    last_inbound_at: datetime | None
    closes_at: datetime | None

    @classmethod
    def from_domain(cls, w: Window) -> "ChatWindow":
        return cls(open=w.open, last_inbound_at=w.last_inbound_at, closes_at=w.closes_at)


@strawberry.type
class ChatContact:
    contact_id: str
    phone: str
    bsuid: str | None
    contact_name: str | None
    window: ChatWindow

    @classmethod
    def from_domain(cls, c: Contact, window: Window) -> "ChatContact":
        return cls(contact_id=str(c.id), phone=c.phone, bsuid=c.bsuid, contact_name=c.contactName,
                   window=ChatWindow.from_domain(window))


@strawberry.type
class CursorPagination:
    limit: int
    has_more: bool
    next_cursor: datetime | None


@strawberry.type
class ChatHistory:
    contact: ChatContact
    messages: list[ChatMessageType]
    pagination: CursorPagination

    @classmethod
    def from_domain(cls, h: History) -> "ChatHistory":
        return cls(contact=ChatContact.from_domain(h.contact, h.window),
                   messages=[ChatMessageType.from_domain(m) for m in h.messages],
                   pagination=CursorPagination(limit=h.limit, has_more=h.next_cursor is not None,
                                               next_cursor=h.next_cursor))


@strawberry.type
class ConversationRow:
    conversation_id: str
    contact_id: str
    phone: str | None
    contact_name: str | None
    brand_number: str
    last_message: str | None
    last_message_at: datetime | None
    unread_count: int
    is_archived: bool
    is_muted: bool
    is_pinned: bool
    is_starred: bool
    summary: str | None
    created_at: datetime
    # Team inbox (docs/inbox.md): the assignment and the inbox status key.
    assigned_agent_id: str | None
    assigned_team_id: str | None
    inbox_status: str

    @classmethod
    def from_domain(cls, c: Conversation) -> "ConversationRow":
        return cls(conversation_id=str(c.id), contact_id=str(c.contact_id), phone=c.phone, contact_name=c.contact_name,
                   brand_number=c.brand_number, last_message=c.last_message, last_message_at=c.last_message_at,
                   unread_count=c.unread_count, is_archived=c.is_archived, is_muted=c.is_muted,
                   is_pinned=c.is_pinned, is_starred=c.is_starred, summary=c.summary, created_at=c.created_at,
                   assigned_agent_id=str(c.assigned_agent_id) if c.assigned_agent_id else None,
                   assigned_team_id=str(c.assigned_team_id) if c.assigned_team_id else None,
                   inbox_status=c.inbox_status)
