"""The conversation locator of the team inbox routes (assign, unassign, assignment history, status).

`conversationId` (the row's id, as `GET /v2.0/chats/conversations` returns it), or `phone` with an
optional `channel` (default `chatapp`) and `businessNumber`. Without `businessNumber` the organisation's
one active account of that channel is used: none is 400 NO_CHATAPP_CHANNEL, several 400
CHANNEL_AMBIGUOUS. A locator that finds no row (another organisation's included) is 404
CONVERSATION_NOT_FOUND; neither `conversationId` nor `phone` is 400 IDENTIFIER_REQUIRED.
"""
from __future__ import annotations

from dataclasses import dataclass

from leadline.models.channels import PLATFORMS, ChannelAccount
from leadline.models.chats import Conversation
from leadline.models.contacts import Contact
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError
from leadline.resolvers.phones import digits_only, try_normalize_phone

LOCATOR_ERRORS = ("IDENTIFIER_REQUIRED", "INVALID_CHANNEL", "NO_CHATAPP_CHANNEL", "CHANNEL_AMBIGUOUS",
                  "CONVERSATION_NOT_FOUND")


@dataclass(frozen=True)
class Locator:
    conversation_id: str | None = None
    phone: str | None = None
    channel: str | None = None
    business_number: str | None = None


def _not_found(what: str) -> ApiError:
    return ApiError("CONVERSATION_NOT_FOUND", f"No conversation {what[:140]}.")


async def _business_number(ctx: RequestContext, channel: str, given: str | None) -> str:
    if given is not None and given.strip():
        return digits_only(given.strip())
    # (org_id, platform) is a prefix of the accounts' (org_id, platform, number) index.
    accounts = [a for a in await ChannelAccount.find_in(ctx, {"platform": channel}).to_list() if a.is_active]
    if not accounts:
        raise ApiError("NO_CHATAPP_CHANNEL", f"The organisation has no active {channel} number; connect one or "
                                             "send businessNumber.")
    if len(accounts) > 1:
        raise ApiError("CHANNEL_AMBIGUOUS", f"The organisation has {len(accounts)} active {channel} numbers; send "
                                            "businessNumber to say which.")
    return accounts[0].number


async def locate(ctx: RequestContext, locator: Locator) -> Conversation:
    raw_id = (locator.conversation_id or "").strip()
    if raw_id:
        row = await Conversation.get_in(ctx, raw_id)
        if row is None:
            raise _not_found(f"with id {raw_id}")
        return row
    if not (locator.phone or "").strip():
        raise ApiError("IDENTIFIER_REQUIRED", "Send conversationId, or phone (with channel and businessNumber "
                                              "where needed).")
    channel = (locator.channel or "chatapp").strip().lower()
    if channel not in PLATFORMS:
        raise ApiError("INVALID_CHANNEL", f"channel must be one of {', '.join(PLATFORMS)}.")
    number = await _business_number(ctx, channel, locator.business_number)
    # Senders are stored with the provider's digits, which a validator may not know: fall back to them.
    phone = try_normalize_phone(locator.phone) or digits_only(locator.phone or "")
    contact = await Contact.find_one_in(ctx, {"phone": phone}) if phone.isdigit() else None
    row = None
    if contact is not None:
        row = await Conversation.find_one_in(ctx, {"contact_id": contact.id, "brand_number": number})
    if row is None or row.channel != channel:
        raise _not_found(f"with phone {phone} on {channel} number {number}")
    return row
