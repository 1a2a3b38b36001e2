"""Conversation rows: one per contact and business number, kept current by inbound and outbound messages.

Every write is a conditional update by `_id` (a point read in SecantusDB), idempotent on its own:
- the preview (`lastMessage`, `lastMessageAt`) moves only to a message at least as new as the shown one,
  so late or redelivered messages never replace a newer preview;
- an inbound message is counted into `unreadCount` once: its provider id joins the bounded
  `recent_inbound` list in the same update that increments the count;
- `last_inbound_at` (the window) only moves forward ($max).
"""
from __future__ import annotations

from datetime import datetime

from bson import ObjectId
from pymongo.errors import DuplicateKeyError

from leadline.models.base import utcnow
from leadline.models.chats import ChatMessage, Conversation
from leadline.models.contacts import Contact
from leadline.resolvers.chats.parse import preview
from leadline.resolvers.context import RequestContext

RECENT_INBOUND = 200


async def row_for(ctx: RequestContext, contact_id: ObjectId, brand_number: str, *, phone: str | None,
                  contact_name: str | None) -> Conversation:
    """The contact's row on this number, created when missing (concurrent creators meet on the unique index)."""
    key = {"contact_id": contact_id, "brand_number": brand_number}
    for _ in range(3):
        row = await Conversation.find_one_in(ctx, key)
        if row is not None:
            return row
        if contact_name is None:
            contact = await Contact.get_in(ctx, contact_id)
            contact_name = contact.contactName if contact else None
        row = Conversation.new(ctx, contact_id=contact_id, brand_number=brand_number, phone=phone,
                               contact_name=contact_name)
        try:
            await row.insert()
            return row
        except DuplicateKeyError:
            continue
    raise RuntimeError("conversation row could not be read or created")


async def _show(row: Conversation, text: str, at: datetime) -> None:
    await Conversation.update_one_in(
        row, {"_id": row.id, "$or": [{"last_message_at": None}, {"last_message_at": {"$lte": at}}]},
        {"$set": {"last_message": text, "last_message_at": at, "updated_at": utcnow()}})


async def note_inbound(ctx: RequestContext, message: ChatMessage, contact_name: str | None) -> Conversation | None:
    """Preview, unread +1 (once per provider id), window and the sender's profile name."""
    if message.contact_id is None:
        return None
    row = await row_for(ctx, message.contact_id, message.brand_number, phone=message.phone, contact_name=contact_name)
    update: dict = {"$inc": {"unread_count": 1},
                    "$push": {"recent_inbound": {"$each": [message.cmid], "$slice": -RECENT_INBOUND}},
                    "$max": {"last_inbound_at": message.created_at},
                    "$set": {"updated_at": utcnow(), **({"contact_name": contact_name} if contact_name else {})}}
    await Conversation.update_one_in(row, {"_id": row.id, "recent_inbound": {"$ne": message.cmid}}, update)
    await _show(row, preview(message.type, message.text), message.created_at)
    return row


async def note_reaction(ctx: RequestContext, contact_id: ObjectId, brand_number: str, phone: str | None,
                        at: datetime, contact_name: str | None) -> None:
    """A reaction is a message from the contact: it opens the window, without preview or unread."""
    row = await row_for(ctx, contact_id, brand_number, phone=phone, contact_name=contact_name)
    await Conversation.update_one_in(
        row, {"_id": row.id}, {"$max": {"last_inbound_at": at}, "$set": {"updated_at": utcnow()}})


async def note_outbound(ctx: RequestContext, message: ChatMessage) -> None:
    """Contract for the send side: create/update the row for an outbound message (preview and time;
    unreadCount unchanged). Messages without a contact have no row."""
    if message.contact_id is None:
        return
    row = await row_for(ctx, message.contact_id, message.brand_number, phone=message.phone, contact_name=None)
    await _show(row, preview(message.type, message.text, message.template), message.created_at)
