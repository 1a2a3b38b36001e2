"""How much of each plan limit an organisation uses, counted from its stored documents.

One entry per tracked limit key; a key without an entry is reported as untracked (null).
Domains add their line here when they land.
"""
from __future__ import annotations

from typing import Awaitable, Callable

from bson import ObjectId

UsageCounter = Callable[[ObjectId, str], Awaitable[int]]


def _counters() -> dict[str, UsageCounter]:
    # Imported lazily so billing does not import every domain at module load.
    from leadline.resolvers.contacts.counters import count_contacts
    from leadline.resolvers.contacts.fields import count_custom_fields
    from leadline.resolvers.contacts.tags import count_tags
    from leadline.resolvers.templates.queries import count_templates

    return {"max_contacts": count_contacts, "max_custom_attributes": count_custom_fields,
            "max_contact_tags": count_tags, "max_templates": count_templates}


async def count_usage(org_id: ObjectId, key: str, timezone: str = "UTC") -> int | None:
    counter = _counters().get(key)
    return None if counter is None else await counter(org_id, timezone)


def tracked_keys() -> frozenset[str]:
    return frozenset(_counters())
