"""The one internal event function every domain calls (spec: Events).

Events are recorded now; delivery to customer URLs (signing, retries) reads them later.
"""
from __future__ import annotations

import hashlib
from typing import Any

from bson import ObjectId
from pymongo.errors import DuplicateKeyError

from leadline.models.events import DomainEvent
from leadline.resolvers.context import RequestContext
from leadline.resolvers.runner import check_declared

EVENT_KINDS = frozenset({
    "chatapp.new_message",
    "chatapp.message_sent",
    "chatapp.message_status",
    "contact.created",
    "campaign.button_click",
    "campaign.reply",
    "inbox.conversation_status_changed",
})


def event_id(*parts: object) -> ObjectId:
    """A deterministic event id from what the event reports."""
    return ObjectId(hashlib.sha256("|".join(map(str, parts)).encode()).digest()[:12])


async def emit(ctx: RequestContext, kind: str, payload: dict[str, Any], *, once_for: tuple = ()) -> bool:
    """Record an event; True when recorded now.

    With `once_for` (e.g. the provider message id and status), the event's `_id` is derived from it,
    so a webhook redelivery or a retried job records nothing the second time (returns False).
    """
    if kind not in EVENT_KINDS:
        raise ValueError(f"unknown event kind {kind!r}")
    check_declared(ctx, "events", kind)
    event = DomainEvent.new(ctx, kind=kind, payload=payload)
    if once_for:
        event.id = event_id(ctx.org_id, kind, *once_for)
    try:
        await event.insert()
    except DuplicateKeyError:
        return False
    return True
