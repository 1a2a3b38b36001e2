"""The recipient `to`: a phone number (normalised) or a BSUID (forwarded unchanged), and its contact."""
from __future__ import annotations

from dataclasses import dataclass

from leadline.models.contacts import Contact
from leadline.resolvers.contacts.ensure import ensure_contact
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError
from leadline.resolvers.phones import is_bsuid, normalize_phone


@dataclass(frozen=True)
class Recipient:
    to: str  # what the provider receives
    phone: str | None
    bsuid: str | None


def parse_recipient(raw: str | None, default_country_code: str | None = None) -> Recipient:
    """MISSING_RECIPIENT when absent; INVALID_PHONE_NUMBER when neither a BSUID nor a valid phone."""
    text = (raw or "").strip()
    if not text:
        raise ApiError("MISSING_RECIPIENT", "'to' is required: a phone number or a BSUID.")
    if is_bsuid(text):
        return Recipient(text, None, text)
    phone = normalize_phone(text, default_country_code, path="to")
    return Recipient(phone, phone, None)


def stored_recipient(to: str) -> Recipient:
    """A recipient read back from a schedule (already validated when it was stored)."""
    return Recipient(to, None, to) if is_bsuid(to) else Recipient(to, to, None)


async def find_contact(ctx: RequestContext, recipient: Recipient) -> Contact | None:
    if recipient.phone:
        return await Contact.find_one_in(ctx, {"phone": recipient.phone})
    return await Contact.find_one_in(ctx, {"bsuid": recipient.bsuid})


async def contact_for_send(ctx: RequestContext, recipient: Recipient) -> Contact | None:
    """A phone recipient becomes a contact (auto_added) on first send; a BSUID is only looked up."""
    if recipient.phone:
        contact, _ = await ensure_contact(ctx, recipient.phone, source="chatapp")
        return contact
    return await find_contact(ctx, recipient)
