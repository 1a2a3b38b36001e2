"""One inbound message from a contact: contact, history row, conversation row, window, event.

Messages arrive in batches (`receive_many`): one insert stores every new message of the batch under
the unique `(org_id, dedup_key)` index, one bulk write updates their conversation rows, and one insert
records their events, the last step. A redelivery is refused by the index; if its event is missing,
its first processing was interrupted between the steps, and the effects are completed then, each
idempotent on its own (conversations.py, events.py), so nothing is counted or emitted twice.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from leadline.models.channels import ChannelAccount
from leadline.models.chats import ChatMessage, Conversation
from leadline.models.contacts import Contact
from leadline.models.events import DomainEvent
from leadline.models.base import utcnow
from leadline.resolvers.chats import conversations, parse
from leadline.resolvers.chats.hooks import StoredInbound, inbound_stored
from leadline.resolvers.contacts import consent
from leadline.resolvers.contacts.ensure import Sender, ensure_contacts
from leadline.resolvers.events import Event, emit_many, event_id
from leadline.resolvers.inbox import live
from leadline.resolvers.context import RequestContext
from leadline.resolvers.phones import digits_only, is_bsuid

log = logging.getLogger("leadline.chats.webhooks")
NEW_MESSAGE = "chatapp.new_message"


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


@dataclass(frozen=True)
class Inbound:
    """One `messages[]` item of a routed change, with the change's `value` (its `contacts[]`)."""

    account: ChannelAccount
    value: dict[str, Any]
    item: Any


@dataclass
class _Prepared:
    index: int
    account: ChannelAccount
    parsed: parse.Parsed
    cmid: str
    phone: str | None
    bsuid: str | None
    name: str | None
    at: Any
    contact: Contact | None = None


def _prepare(index: int, inbound: Inbound) -> _Prepared | str:
    item = inbound.item
    if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not item["id"]:
        log.warning("inbound message without an id skipped")
        return "malformed"
    parsed = parse.parse(item)
    if parsed.action == "ignore":
        log.info("inbound '%s' message acknowledged, not stored", parsed.kind,
                 extra={"kind": parsed.kind, "cmid": item["id"], "org_id": str(inbound.account.org_id)})
        return "ignored"
    phone = sender_phone(item.get("from"))
    profile = _profile(inbound.value.get("contacts"), phone, item.get("from_user_id"))
    bsuid = next((b for b in (item.get("from_user_id"), profile.get("user_id")) if isinstance(b, str) and is_bsuid(b)),
                 None)
    name = profile.get("profile", {}).get("name") if isinstance(profile.get("profile"), dict) else None
    name = name.strip()[:500] if isinstance(name, str) and name.strip() else None
    return _Prepared(index, inbound.account, parsed, item["id"], phone, bsuid, name, parse.sent_at(item.get("timestamp")))


async def _senders(ctx: RequestContext, prepared: list[_Prepared]) -> None:
    """Each item's contact: phones found or created together, BSUID-only senders looked up together."""
    by_phone = await ensure_contacts(ctx, [Sender(p.phone, p.name, p.bsuid) for p in prepared if p.phone])
    bsuids = list({p.bsuid for p in prepared if not p.phone and p.bsuid})
    by_bsuid = {c.bsuid: c for c in await Contact.find_in_each(ctx, "bsuid", bsuids)}
    for p in prepared:
        p.contact = by_phone.get(p.phone) if p.phone else by_bsuid.get(p.bsuid)


async def receive_many(ctx: RequestContext, items: list[Inbound]) -> list[str]:
    """Outcome per item: stored, duplicate, reacted, ignored or malformed.

    Every new message of the batch is stored in one insert, its conversation rows updated in one bulk
    write and its events recorded in one insert. A redelivered message (refused by the unique index)
    whose effects were interrupted is completed on its own, as a reaction is.
    """
    outcomes: list[str] = [""] * len(items)
    prepared: list[_Prepared] = []
    for index, inbound in enumerate(items):
        result = _prepare(index, inbound)
        if isinstance(result, str):
            outcomes[index] = result
        else:
            prepared.append(result)
    if not prepared:
        return outcomes
    await _senders(ctx, prepared)
    new: list[_Prepared] = []
    seen: set[str] = set()
    for p in prepared:
        if p.parsed.action != "store":
            continue
        if p.cmid in seen:  # the same message twice in one batch
            outcomes[p.index] = "duplicate"
            continue
        seen.add(p.cmid)
        new.append(p)
    documents = [ChatMessage.new(
        ctx, brand_number=p.account.number, contact_id=p.contact.id if p.contact else None, phone=p.phone,
        bsuid=p.bsuid, direction="inbound", status="received", type=p.parsed.kind, text=p.parsed.text,
        media=p.parsed.media, content=p.parsed.content, cmid=p.cmid, dedup_key=p.cmid, created_at=p.at,
        updated_at=p.at) for p in new]
    duplicates = await ChatMessage.insert_many_in(ctx, documents)
    stored = [(p, m) for i, (p, m) in enumerate(zip(new, documents)) if i not in duplicates]
    await _effects_many(ctx, stored)
    for p, _ in stored:
        outcomes[p.index] = "stored"
    for i in sorted(duplicates):
        outcomes[new[i].index] = await _redelivered(ctx, new[i])
    await _consent(ctx, stored)
    await inbound_stored([StoredInbound(ctx, m, p.name) for p, m in stored])
    for p in prepared:  # after the stores: a reaction or an edit may name a message of this very batch
        if p.parsed.action == "react":
            outcomes[p.index] = await _react(ctx, p.account, p.contact, p.phone, p.bsuid, p.name, p.cmid, p.at,
                                             p.parsed.content or {})
        elif p.parsed.action in ("edit", "revoke"):
            outcomes[p.index] = await _amend(ctx, p)
    return outcomes


async def _consent(ctx: RequestContext, stored: list[tuple[_Prepared, ChatMessage]]) -> None:
    """Opt-out and opt-in keywords (resolvers/contacts/consent.py): the organisation's words are read only
    when a short text could be one."""
    candidates = [(p, m) for p, m in stored if p.contact is not None and m.type in ("text", "button")
                  and m.text and len(m.text) <= consent.MAX_KEYWORD + 8]
    if not candidates:
        return
    words = await consent.keywords(ctx)
    for p, message in candidates:
        decision = words.decision(message.text)
        if decision is not None:
            await consent.apply_keyword(ctx, p.contact, decision, message.text)


async def _amend(ctx: RequestContext, p: _Prepared) -> str:
    """An edit (the new content replaces the stored one) or a deletion (the content is removed) of an
    earlier inbound message of the same sender."""
    body = p.parsed.content or {}
    original_id = body.get("original_message_id")
    original = await _message_of_org(ctx, original_id) if isinstance(original_id, str) else None
    if original is None or original.direction != "inbound" or (p.phone and original.phone not in (None, p.phone)):
        log.info("inbound '%s' message acknowledged, not stored (no such original message)", p.parsed.kind,
                 extra={"cmid": p.cmid, "original": original_id, "org_id": str(ctx.org_id)})
        return "ignored"
    if p.parsed.kind == "revoke":
        changes = {"deleted": True, "deleted_at": p.at, "text": None, "media": None, "content": None}
    else:
        new = body.get("message") if isinstance(body.get("message"), dict) else {}
        parsed = parse.parse({**new, "type": new.get("type") or original.type})
        if parsed.action != "store":
            return "ignored"
        changes = {"edited": True, "edited_at": p.at, "text": parsed.text,
                   "media": parsed.media if parsed.media is not None else original.media,
                   "content": parsed.content if parsed.content is not None else original.content}
    await ChatMessage.update_one_in(original, {"_id": original.id}, {"$set": {**changes, "updated_at": utcnow()}})
    return "applied"


async def receive(ctx: RequestContext, account: ChannelAccount, value: dict[str, Any], item: Any) -> str:
    """One item (see `receive_many`)."""
    return (await receive_many(ctx, [Inbound(account, value, item)]))[0]


async def _redelivered(ctx: RequestContext, p: _Prepared) -> str:
    """A message stored before. Its event is the last of its effects: when the event is missing, the
    first processing was interrupted, and the effects are completed now (each step idempotent)."""
    message = await _stored(ctx, p.cmid)
    if message is None:
        return "duplicate"
    recorded = await DomainEvent.find_one_raw_in(ctx, {"_id": event_id(ctx.org_id, NEW_MESSAGE, message.cmid)},
                                                 {"_id": 1})
    if recorded is not None and not message.pending_effects:
        return "duplicate"
    if message.contact_id is None and p.contact is not None:
        message.contact_id = p.contact.id
        await ChatMessage.update_one_in(message, {"_id": message.id}, {"$set": {"contact_id": p.contact.id}})
    await _effects(ctx, message, p.name)
    return "stored"


async def _stored(ctx: RequestContext, cmid: str) -> ChatMessage | None:
    found = await ChatMessage.find_across_orgs({"cmid": cmid}).to_list()
    return next((m for m in found if m.org_id == ctx.org_id and m.dedup_key == cmid), None)


def _new_message_event(message: ChatMessage, name: str | None, row: Conversation | None) -> Event:
    return Event(message.org_id, NEW_MESSAGE, {
        "messageId": str(message.id), "cmid": message.cmid, "from": message.phone, "phone": message.phone,
        "bsuid": message.bsuid, "contactId": str(message.contact_id) if message.contact_id else None,
        "contactName": name, "brandNumber": message.brand_number, "conversationId": str(row.id) if row else None,
        "type": message.type, "text": message.text,
        "media": {"url": message.media.get("url"), "type": message.media.get("type")} if message.media else None,
        "createdAt": message.created_at.isoformat(),
    }, once_for=(message.cmid,))


async def _effects(ctx: RequestContext, message: ChatMessage, name: str | None) -> None:
    """The effects of one message whose first processing was interrupted (each step idempotent)."""
    row = await conversations.note_inbound(ctx, message, name)
    await emit_many(ctx, [_new_message_event(message, name, row)])
    if message.pending_effects:  # written by an earlier version, which marked unfinished messages
        await ChatMessage.update_one_in(message, {"_id": message.id}, {"$set": {"pending_effects": False}})


async def _effects_many(ctx: RequestContext, stored: list[tuple[_Prepared, ChatMessage]]) -> None:
    """The effects of messages stored just now: their rows, then their events (the last step)."""
    if not stored:
        return
    notes: dict[tuple, conversations.InboundNote] = {}
    for p, message in stored:
        if message.contact_id is None:
            continue
        key = (message.contact_id, message.brand_number)
        if key not in notes:
            notes[key] = conversations.InboundNote(message.contact_id, message.brand_number, message.phone, p.name)
        notes[key].add(message, p.name)
    rows = await conversations.note_inbound_many(ctx, list(notes.values())) if notes else {}
    await emit_many(ctx, [_new_message_event(m, p.name, rows.get((m.contact_id, m.brand_number)))
                          for p, m in stored])
    await live.publish_new_messages(ctx, [(m, rows.get((m.contact_id, m.brand_number))) for _, m in stored])


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
