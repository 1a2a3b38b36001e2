"""The one internal event function every domain calls (spec: Events).

Events are recorded now; delivery to customer URLs (signing, retries) reads them later.
"""
from __future__ import annotations

from typing import Any

from models.events import DomainEvent
from resolvers.context import RequestContext

EVENT_KINDS = frozenset({
    "chatapp.new_message",
    "chatapp.message_sent",
    "chatapp.message_status",
    "contact.created",
    "campaign.button_click",
    "campaign.reply",
    "inbox.conversation_status_changed",
})


async def emit(ctx: RequestContext, kind: str, payload: dict[str, Any]) -> DomainEvent:
    if kind not in EVENT_KINDS:
        raise ValueError(f"unknown event kind {kind!r}")
    event = DomainEvent.new(ctx, kind=kind, payload=payload)
    await event.insert()
    return event
