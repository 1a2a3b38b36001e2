"""The 24-hour customer-service window: freeform messages are allowed while it is open.

It opens at the contact's last inbound message (the provider's send time, stored on the conversation
row as `last_inbound_at`) and stays open while now < last inbound + 24 h. Per business number; without
one, the contact's latest inbound message on any of the organisation's numbers.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from bson import ObjectId

from leadline.models.chats import Conversation
from leadline.resolvers.context import RequestContext

WINDOW = timedelta(hours=24)


@dataclass(frozen=True)
class Window:
    open: bool
    last_inbound_at: datetime | None
    closes_at: datetime | None


def window_from(last_inbound_at: datetime | None, now: datetime | None = None) -> Window:
    if last_inbound_at is None:
        return Window(False, None, None)
    if last_inbound_at.tzinfo is None:
        last_inbound_at = last_inbound_at.replace(tzinfo=timezone.utc)
    closes_at = last_inbound_at + WINDOW
    return Window((now or datetime.now(timezone.utc)) < closes_at, last_inbound_at, closes_at)


async def window_of(ctx: RequestContext, contact_id: ObjectId | str | None, brand_number: str | None) -> Window:
    if contact_id is None:
        return Window(False, None, None)
    contact_id = ObjectId(contact_id)
    if brand_number:
        row = await Conversation.find_one_in(ctx, {"contact_id": contact_id, "brand_number": brand_number})
        return window_from(row.last_inbound_at if row else None)
    rows = await Conversation.find_in(ctx, {"contact_id": contact_id}).to_list()
    times = [r.last_inbound_at for r in rows if r.last_inbound_at is not None]
    return window_from(max(times) if times else None)
