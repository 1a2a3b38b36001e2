"""GET /v2.0/chats/history: one contact's messages, newest first, paged by a `before` timestamp cursor.

The read is `{org_id, contact_id[, brand_number][, created_at < before]}`, exactly a prefix of a
ChatMessage index. Inbox-only notes (`excludeInternal`) are skipped while reading, not in the filter
(an extra field would be a collection scan; notes are rare).

`nextCursor` is the `createdAt` of the oldest message on the page, and the next page holds what is
strictly older. Several messages can share a millisecond (an inbound timestamp has whole seconds), so
a page never ends inside such a group: it stops before the group and the cursor is the group's time
+ 1 ms; a page that would be only that group holds the whole group (beyond `limit` in that
pathological case) rather than skipping any.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from leadline.models.chats import ChatMessage
from leadline.models.contacts import Contact
from leadline.resolvers.chats.window import Window, window_of
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError, detail, validation_error
from leadline.resolvers.phones import digits_only, try_normalize_phone

DEFAULT_LIMIT, MAX_LIMIT = 20, 100
_MS = timedelta(milliseconds=1)


@dataclass(frozen=True)
class History:
    contact: Contact
    window: Window
    messages: list[ChatMessage]
    limit: int
    next_cursor: datetime | None


def parse_before(raw: str | None) -> datetime | None:
    if raw is None or not raw.strip():
        return None
    try:
        parsed = datetime.fromisoformat(raw.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ApiError("INVALID_BEFORE", f"before must be an ISO 8601 timestamp, got '{raw}'.") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


async def _contact(ctx: RequestContext, phone: str | None, contact_id: str | None,
                   default_country_code: str | None) -> Contact:
    if contact_id and contact_id.strip():
        contact = await Contact.get_in(ctx, contact_id.strip())
        if contact is None:
            raise ApiError("CONTACT_NOT_FOUND", f"No contact with id {contact_id}.")
        return contact
    # Senders are stored with the provider's digits, which a validator may not know yet: fall back to them.
    normalized = try_normalize_phone(phone, default_country_code) or digits_only(phone or "")
    contact = await Contact.find_one_in(ctx, {"phone": normalized}) if normalized.isdigit() else None
    if contact is None:
        raise ApiError("CONTACT_NOT_FOUND", f"No contact with phone {normalized}.")
    return contact


def _page(kept: list[ChatMessage], limit: int) -> tuple[list[ChatMessage], datetime | None]:
    """The page and its cursor (None: nothing older)."""
    if len(kept) <= limit:
        return kept, None
    edge = kept[limit - 1].created_at
    if kept[limit].created_at != edge:
        return kept[:limit], edge
    newer = [m for m in kept[:limit] if m.created_at != edge]
    if newer:
        return newer, edge + _MS
    group = [m for m in kept if m.created_at == edge]
    return group, edge if len(group) < len(kept) else None


async def _read(ctx: RequestContext, filt: dict, limit: int, exclude_internal: bool) -> list[ChatMessage]:
    """Up to limit + 1 kept messages, continued past a group sharing the limit-th message's time."""
    kept: list[ChatMessage] = []
    cursor = ChatMessage.find_in(ctx, filt).sort([("created_at", -1), ("_id", -1)])
    async for message in cursor:
        if exclude_internal and message.internal:
            continue
        kept.append(message)
        if len(kept) > limit and kept[-1].created_at != kept[limit - 1].created_at:
            return kept
    return kept


async def chat_history(ctx: RequestContext, *, phone: str | None, contact_id: str | None,
                       default_country_code: str | None, limit: int | None, before: str | None,
                       brand_number: str | None, exclude_internal: bool | None) -> History:
    if not (phone and phone.strip()) and not (contact_id and contact_id.strip()):
        raise ApiError("IDENTIFIER_REQUIRED", "Send phone or contactId.")
    limit = DEFAULT_LIMIT if limit is None else limit
    if not 1 <= limit <= MAX_LIMIT:
        raise validation_error([detail("limit", "OUT_OF_RANGE", f"limit must be between 1 and {MAX_LIMIT}")])
    cursor = parse_before(before)
    brand = digits_only(brand_number) if brand_number and brand_number.strip() else None
    contact = await _contact(ctx, phone, contact_id, default_country_code)
    filt: dict = {"contact_id": contact.id}
    if brand:
        filt["brand_number"] = brand
    if cursor is not None:
        filt["created_at"] = {"$lt": cursor}
    messages, next_cursor = _page(await _read(ctx, filt, limit, bool(exclude_internal)), limit)
    window = await window_of(ctx, contact.id, brand)
    return History(contact, window, messages, limit, next_cursor)
