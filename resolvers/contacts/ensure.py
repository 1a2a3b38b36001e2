"""Find-or-create the contact behind a chat message (inbound sender or outbound recipient)."""
from __future__ import annotations

import logging

import phonenumbers

from leadline.models.contacts import Contact
from leadline.resolvers.contacts.upsert import insert_new_contact
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError
from leadline.resolvers.phones import digits_only, is_bsuid

log = logging.getLogger("leadline.contacts")


def _country_code(phone: str) -> str | None:
    try:
        return str(phonenumbers.parse("+" + phone).country_code)
    except phonenumbers.NumberParseException:
        return None


async def ensure_contact(ctx: RequestContext, phone: str | None, *, name: str | None = None,
                         bsuid: str | None = None, source: str = "chatapp",
                         auto_added: bool = True) -> tuple[Contact | None, bool]:
    """(contact, created). `phone` is trusted digits (a provider's wa_id or an already validated
    recipient), so it is not re-validated. None when there is no phone, or when the plan's
    max_contacts is reached: the message is then kept without a contact rather than lost."""
    phone = digits_only(phone or "")
    if not phone:
        return None, False
    for _ in range(3):
        existing = await Contact.find_one_in(ctx, {"phone": phone})
        if existing is not None:
            return existing, False
        changes = {"source": source, "auto_added": auto_added}
        if name:
            changes["contactName"] = name.strip()[:500]
        if bsuid and is_bsuid(bsuid):
            changes["bsuid"] = bsuid
        try:
            created = await insert_new_contact(ctx, phone, _country_code(phone), changes, None, None)
        except ApiError as err:
            if err.code != "LIMIT_EXCEEDED":
                raise
            log.warning("contact not created: max_contacts reached", extra={"org_id": str(ctx.org_id)})
            return None, False
        if created is not None:
            return created, True
    return await Contact.find_one_in(ctx, {"phone": phone}), False
