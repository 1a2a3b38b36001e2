"""Conversation rows: one per contact and business number, kept current by inbound and outbound messages.

Every write is a conditional update by `_id` (a point read in SecantusDB), idempotent on its own:
- the preview (`lastMessage`, `lastMessageAt`) moves only to a message at least as new as the shown one,
  so late or redelivered messages never replace a newer preview;
- an inbound message is counted into `unreadCount` once: its provider id joins the bounded
  `recent_inbound` list in the same update that increments the count;
- `last_inbound_at` (the window) only moves forward ($max).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

from bson import ObjectId
from pymongo import UpdateOne
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


async def note_outbound(ctx: RequestContext, message: ChatMessage, contact_name: str | None = None) -> None:
    """Contract for the send side: create/update the row for an outbound message (preview and time;
    unreadCount unchanged), in one upsert. Messages without a contact have no row.

    An outbound message is stamped now, so it is the newest the row has seen (an inbound one with a
    later provider time replaces its preview, as `_show` allows)."""
    if message.contact_id is None:
        return
    key = {"contact_id": message.contact_id, "brand_number": message.brand_number}
    now = utcnow()
    on_insert = Conversation.new(ctx, **key, phone=message.phone, contact_name=contact_name, created_at=now)
    fresh = on_insert.model_dump(exclude={"id", "revision_id", "last_message", "last_message_at", "updated_at"})
    update = {"$set": {"last_message": preview(message.type, message.text, message.template),
                       "last_message_at": message.created_at, "updated_at": now},
              "$setOnInsert": {k: v for k, v in fresh.items() if k not in ("org_id", *key)}}
    for _ in range(2):
        try:
            await Conversation.update_one_in(ctx, key, update, upsert=True)
            return
        except DuplicateKeyError:
            continue  # two first messages raced to create the row: the second now updates it


@dataclass
class InboundNote:
    """What a batch of fresh inbound messages does to one row (see `note_inbound_many`)."""

    contact_id: ObjectId
    brand_number: str
    phone: str | None
    contact_name: str | None
    cmids: list[str] = field(default_factory=list)
    last_inbound_at: datetime | None = None
    latest: ChatMessage | None = None

    def add(self, message: ChatMessage, contact_name: str | None) -> None:
        self.cmids.append(message.cmid)
        self.contact_name = contact_name or self.contact_name
        if self.last_inbound_at is None or message.created_at > self.last_inbound_at:
            self.last_inbound_at = message.created_at
        if self.latest is None or message.created_at >= self.latest.created_at:
            self.latest = message


async def note_inbound_many(ctx: RequestContext, notes: list[InboundNote]) -> dict[tuple, Conversation]:
    """`note_inbound` for the messages of one batch, all stored just now, by (contact, number) row: one
    read, one insert of the rows that did not exist (already holding their counts and preview), one
    bulk write for the others. Returns the rows."""
    keys = {(n.contact_id, n.brand_number): n for n in notes}
    rows = {(r.contact_id, r.brand_number): r for r in await Conversation.find_in_each(
        ctx, "contact_id", [n.contact_id for n in notes])}
    existing = [key for key in keys if key in rows]
    new = [_new_row(ctx, note) for key, note in keys.items() if key not in rows]
    duplicates = await Conversation.insert_many_in(ctx, new)
    for i, row in enumerate(new):
        key = (row.contact_id, row.brand_number)
        if i in duplicates:  # created concurrently: update it as an existing row
            rows[key] = await Conversation.find_one_in(ctx, {"contact_id": row.contact_id,
                                                             "brand_number": row.brand_number})
            existing.append(key)
        else:
            rows[key] = row
    if existing:
        await Conversation.bulk_write_in(ctx, [inbound_update(rows[key], keys[key]) for key in existing])
    return rows


def _new_row(ctx: RequestContext, note: InboundNote) -> Conversation:
    latest = note.latest
    return Conversation.new(ctx, contact_id=note.contact_id, brand_number=note.brand_number, phone=note.phone,
                            contact_name=note.contact_name, unread_count=len(note.cmids),
                            recent_inbound=note.cmids[-RECENT_INBOUND:], last_inbound_at=note.last_inbound_at,
                            last_message=preview(latest.type, latest.text), last_message_at=latest.created_at)


def inbound_update(row: Conversation, note: InboundNote) -> UpdateOne:
    """`note_inbound` for several messages of one row that were stored just now, as one update of a bulk
    write: unread +n, their ids joining `recent_inbound`, the window, the sender's name, and the preview
    when the newest of them is newer than the row's as read.

    Messages stored in this batch cannot have been counted before, so the update needs no guard on
    `recent_inbound`; their ids join it so that a retry after a crash (`note_inbound`) counts none twice.
    """
    now = utcnow()
    latest = note.latest
    changes: dict = {"updated_at": now}
    if note.contact_name:
        changes["contact_name"] = note.contact_name
    shown = row.last_message_at
    if shown is not None and shown.tzinfo is None:
        shown = shown.replace(tzinfo=timezone.utc)
    if shown is None or latest.created_at >= shown:
        changes.update(last_message=preview(latest.type, latest.text), last_message_at=latest.created_at)
    return UpdateOne({"_id": row.id, "org_id": row.org_id},
                     {"$inc": {"unread_count": len(note.cmids)},
                      "$push": {"recent_inbound": {"$each": note.cmids, "$slice": -RECENT_INBOUND}},
                      "$max": {"last_inbound_at": note.last_inbound_at}, "$set": changes})


async def note_outbound_many(ctx: RequestContext, messages: list[ChatMessage]) -> dict[tuple, Conversation]:
    """`note_outbound` for many messages of one organisation (a campaign's batch): one read of the rows,
    one insert of the missing ones (holding their preview), one bulk write of the others' preview when
    the message is newer than the row's as read."""
    latest: dict[tuple, ChatMessage] = {}
    for m in messages:
        if m.contact_id is None:
            continue
        key = (m.contact_id, m.brand_number)
        if key not in latest or m.created_at >= latest[key].created_at:
            latest[key] = m
    if not latest:
        return {}
    rows = {(r.contact_id, r.brand_number): r for r in await Conversation.find_in_each(
        ctx, "contact_id", [k[0] for k in latest])}
    new = [Conversation.new(ctx, contact_id=m.contact_id, brand_number=m.brand_number, phone=m.phone,
                            last_message=preview(m.type, m.text, m.template), last_message_at=m.created_at)
           for key, m in latest.items() if key not in rows]
    duplicates = await Conversation.insert_many_in(ctx, new)
    updates = []
    for i, row in enumerate(new):
        if i not in duplicates:
            rows[(row.contact_id, row.brand_number)] = row
    now = utcnow()
    for key, m in latest.items():
        row = rows.get(key)
        if row is None or any(r is row for r in new):
            continue
        shown = row.last_message_at.replace(tzinfo=timezone.utc) if row.last_message_at and \
            row.last_message_at.tzinfo is None else row.last_message_at
        if shown is None or m.created_at >= shown:
            updates.append(UpdateOne({"_id": row.id, "org_id": row.org_id}, {"$set": {
                "last_message": preview(m.type, m.text, m.template), "last_message_at": m.created_at,
                "updated_at": now}}))
    if updates:
        await Conversation.bulk_write_in(ctx, updates)
    return rows
