"""One inbound message from a contact: contact, history row, conversation row, window, event.

Idempotent on the provider message id. The history row is inserted first under the unique
`(org_id, dedup_key)` index with `pending_effects: true`; the conversation update and the event follow
(each idempotent on its own, see conversations.py and events.py), then the flag is cleared. A
redelivery finds the row with the flag cleared and changes nothing; a retry after a crash between
the steps finds it still pending and completes them without counting or emitting twice.
"""
from __future__ import annotations

import logging
from typing import Any

from pymongo.errors import DuplicateKeyError

from leadline.models.channels import ChannelAccount
from leadline.models.chats import ChatMessage
from leadline.models.contacts import Contact
from leadline.resolvers.chats import conversations, parse
from leadline.resolvers.events import emit
from leadline.resolvers.contacts.ensure import ensure_contact
from leadline.resolvers.context import RequestContext
from leadline.resolvers.phones import digits_only, is_bsuid

log = logging.getLogger("leadline.chats.webhooks")


def sender_phone(raw: Any) -> str | None:
    """A wa_id as trusted digits, or None when it is not a plausible phone number."""
    digits = digits_only(str(raw or ""))
    return digits if digits.isdigit() and 6 <= len(digits) <= 15 else None


def _profile(contacts: Any, phone: str | None, bsuid: str | None) -> dict[str, Any]:
    """The webhook's `contacts[]` entry of this sender (by wa_id or user_id; the only one otherwise)."""
    entries = [c for c in contacts if isinstance(c, dict)] if isinstance(contacts, list) else []
    for entry in entries:
        if (phone and sender_phone(entry.get("wa_id")) == phone) or (bsuid and entry.get("user_id") == bsuid):
            return entry
    return entries[0] if len(entries) == 1 else {}


async def _sender(ctx: RequestContext, phone: str | None, bsuid: str | None, name: str | None) -> Contact | None:
    if phone:
        contact, _ = await ensure_contact(ctx, phone, name=name, bsuid=bsuid)
        return contact
    if bsuid:
        return await Contact.find_one_in(ctx, {"bsuid": bsuid})
    return None


async def receive(ctx: RequestContext, account: ChannelAccount, value: dict[str, Any], item: Any) -> str:
    """Outcome: stored, duplicate, reacted, ignored or malformed."""
    if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not item["id"]:
        log.warning("inbound message without an id skipped")
        return "malformed"
    parsed = parse.parse(item)
    if parsed.action == "ignore":
        log.info("inbound '%s' message acknowledged, not stored", parsed.kind,
                 extra={"kind": parsed.kind, "cmid": item["id"], "org_id": str(ctx.org_id)})
        return "ignored"
    phone = sender_phone(item.get("from"))
    profile = _profile(value.get("contacts"), phone, item.get("from_user_id"))
    bsuid = next((b for b in (item.get("from_user_id"), profile.get("user_id")) if isinstance(b, str) and is_bsuid(b)),
                 None)
    name = profile.get("profile", {}).get("name") if isinstance(profile.get("profile"), dict) else None
    name = name.strip()[:500] if isinstance(name, str) and name.strip() else None
    at = parse.sent_at(item.get("timestamp"))
    contact = await _sender(ctx, phone, bsuid, name)
    if parsed.action == "react":
        return await _react(ctx, account, contact, phone, bsuid, name, item["id"], at, parsed.content or {})
    message = ChatMessage.new(
        ctx, brand_number=account.number, contact_id=contact.id if contact else None, phone=phone, bsuid=bsuid,
        direction="inbound", status="received", type=parsed.kind, text=parsed.text, media=parsed.media,
        content=parsed.content, cmid=item["id"], dedup_key=item["id"], pending_effects=True, created_at=at,
        updated_at=at)
    try:
        await message.insert()
    except DuplicateKeyError:
        message = await _stored(ctx, item["id"])
        if message is None or not message.pending_effects:
            return "duplicate"
        if message.contact_id is None and contact is not None:
            message.contact_id = contact.id
            await ChatMessage.update_one_in(message, {"_id": message.id}, {"$set": {"contact_id": contact.id}})
    await _effects(ctx, message, name)
    return "stored"


async def _stored(ctx: RequestContext, cmid: str) -> ChatMessage | None:
    found = await ChatMessage.find_across_orgs({"cmid": cmid}).to_list()
    return next((m for m in found if m.org_id == ctx.org_id and m.dedup_key == cmid), None)


async def _effects(ctx: RequestContext, message: ChatMessage, name: str | None) -> None:
    row = await conversations.note_inbound(ctx, message, name)
    await emit(ctx, "chatapp.new_message", {
        "messageId": str(message.id), "cmid": message.cmid, "from": message.phone, "phone": message.phone,
        "bsuid": message.bsuid, "contactId": str(message.contact_id) if message.contact_id else None,
        "contactName": name, "brandNumber": message.brand_number, "conversationId": str(row.id) if row else None,
        "type": message.type, "text": message.text,
        "media": {"url": message.media.get("url"), "type": message.media.get("type")} if message.media else None,
        "createdAt": message.created_at.isoformat(),
    }, once_for=(message.cmid,))
    await ChatMessage.update_one_in(message, {"_id": message.id}, {"$set": {"pending_effects": False}})


async def _react(ctx: RequestContext, account: ChannelAccount, contact: Contact | None, phone: str | None,
                 bsuid: str | None, name: str | None, reaction_id: str, at, body: dict[str, Any]) -> str:
    """Attach (or, with an empty emoji, remove) the sender's reaction on the referenced message."""
    if contact is not None:
        await conversations.note_reaction(ctx, contact.id, account.number, phone, at, name)
    target_id = body.get("message_id")
    target = await _message_of_org(ctx, target_id) if isinstance(target_id, str) else None
    if target is None:
        log.info("reaction to an unknown message acknowledged", extra={"cmid": reaction_id, "target": target_id})
        return "ignored"
    if any(r.get("cmid") == reaction_id for r in target.reactions):
        return "duplicate"
    sender = phone or bsuid
    kept = [r for r in target.reactions if r.get("from") != sender]
    emoji = body.get("emoji")
    if isinstance(emoji, str) and emoji:
        kept.append({"emoji": emoji, "from": sender, "direction": "inbound", "cmid": reaction_id, "at": at})
    await ChatMessage.update_one_in(target, {"_id": target.id}, {"$set": {"reactions": kept}})
    return "reacted"


async def _message_of_org(ctx: RequestContext, cmid: str) -> ChatMessage | None:
    found = await ChatMessage.find_across_orgs({"cmid": cmid}).to_list()
    return next((m for m in found if m.org_id == ctx.org_id), None)
