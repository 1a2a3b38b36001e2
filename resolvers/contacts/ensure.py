"""Find-or-create the contact behind a chat message (inbound sender or outbound recipient)."""
from __future__ import annotations

import logging
from dataclasses import dataclass

import phonenumbers

from leadline.models.contacts import Contact
from leadline.resolvers.contacts.upsert import insert_new_contact, insert_new_contacts
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


@dataclass(frozen=True)
class Sender:
    phone: str  # trusted digits (a provider's wa_id)
    name: str | None = None
    bsuid: str | None = None


async def ensure_contacts(ctx: RequestContext, senders: list[Sender], *, source: str = "chatapp") -> dict[str, Contact]:
    """`ensure_contact` for many senders of one organisation at once: one read for all, one bulk create
    for the new ones. Keyed by phone; a phone past the plan's max_contacts is missing (logged)."""
    wanted = {s.phone: s for s in senders if s.phone}
    if not wanted:
        return {}
    found = {c.phone: c for c in await Contact.find_in_each(ctx, "phone", wanted)}
    missing = [s for phone, s in wanted.items() if phone not in found]
    if missing:
        new = []
        for sender in missing:
            changes: dict = {"source": source, "auto_added": True}
            if sender.name:
                changes["contactName"] = sender.name.strip()[:500]
            if sender.bsuid and is_bsuid(sender.bsuid):
                changes["bsuid"] = sender.bsuid
            new.append((sender.phone, _country_code(sender.phone), changes))
        created = await insert_new_contacts(ctx, new)
        found.update((c.phone, c) for c in created)
        raced = [s.phone for s in missing if s.phone not in found]
        if raced:  # created concurrently elsewhere, or past the plan limit
            found.update((c.phone, c) for c in await Contact.find_in_each(ctx, "phone", raced))
            lost = [p for p in raced if p not in found]
            if lost:
                log.warning("%d contacts not created: max_contacts reached", len(lost),
                            extra={"org_id": str(ctx.org_id)})
    return found
