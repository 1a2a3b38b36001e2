"""Marking a contact `chatapp_undeliverable` when the provider reports it cannot be reached.

Goes through the contacts domain's versioned update, so the contact's `terms` and `version` stay
consistent with its values, and the term counts with them (resolvers/contacts/upsert.py).
"""
from __future__ import annotations

from bson import ObjectId

from leadline.models.contacts import Contact
from leadline.resolvers.contacts.upsert import update_contact
from leadline.resolvers.context import RequestContext

# Cloud API: "Message undeliverable" (the sandbox reports it for national numbers starting with 999).
UNDELIVERABLE_CODES = frozenset({131026})


async def mark_undeliverable(ctx: RequestContext, contact_id: ObjectId | None, phone: str | None) -> bool:
    """True when the flag was set now; False when already set or no contact is known."""
    for _ in range(5):
        contact = await Contact.get_in(ctx, contact_id) if contact_id else None
        if contact is None and phone:
            contact = await Contact.find_one_in(ctx, {"phone": phone})
        if contact is None or contact.chatapp_undeliverable:
            return False
        if await update_contact(contact, {"chatapp_undeliverable": True}, None, None, ctx=ctx,
                                source="provider") is not None:
            return True
    return False
