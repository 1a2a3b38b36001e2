"""Contacts, their per-organisation counter, custom field definitions and tags (docs/contacts.md).

Contact attributes are stored under the spec's own names (`countryCode`, `lead_category`, ...) so a
filter field maps to its storage path one to one.
"""
from __future__ import annotations

from typing import Any

from beanie import PydanticObjectId
from pydantic import Field
from pymongo import ASCENDING, DESCENDING, IndexModel

from leadline.models.base import TenantDocument


class Contact(TenantDocument):
    phone: str
    bsuid: str | None = None
    countryCode: str | None = None
    contactName: str | None = None
    email: str | None = None
    platform: str | None = None
    businessName: str | None = None
    addressLine1: str | None = None
    addressLine2: str | None = None
    city: str | None = None
    state: str | None = None
    postalCode: str | None = None
    country: str | None = None
    source: str | None = None
    notes: str | None = None
    lead_category: str | None = None
    lead_segments: dict[str, Any] = Field(default_factory=dict)
    customFields: dict[str, Any] = Field(default_factory=dict)
    tags: list[PydanticObjectId] = Field(default_factory=list)
    optedOut: bool = False
    chatapp_undeliverable: bool = False
    auto_added: bool = False
    # Lead values a person set (`lead_category`, `lead_segments.<key>`): locked against AI overwrite
    # until a person clears them (resolvers/leads/contact_values.py).
    lead_locks: list[str] = Field(default_factory=list)
    # True once the contact has had a lead category (the pipeline snapshots' `neverCategorized`).
    lead_categorized: bool = False
    # Position in the organisation's creation order (1, 2, ...): list pages are index ranges on it.
    seq: int = 0
    # Exact-match keys of the filterable values, prefixed by the organisation (resolvers/contacts/terms.py).
    terms: list[str] = Field(default_factory=list)
    # Bumped on every update; updates are conditional on it, so `terms` never drifts from the values.
    version: int = 0

    class Settings:
        name = "contacts"
        indexes = [
            IndexModel([("org_id", ASCENDING), ("phone", ASCENDING)], unique=True),
            IndexModel([("org_id", ASCENDING), ("seq", DESCENDING)]),
            # A single-term filter reads seq windows of one term (resolvers/contacts/windows.py); the
            # {org_id, terms} prefix also serves the aggregation path.
            IndexModel([("org_id", ASCENDING), ("terms", ASCENDING), ("seq", DESCENDING)]),
            # Serves filters with several clauses: SecantusDB then walks the first clause's own index.
            IndexModel([("terms", ASCENDING)]),
            IndexModel([("org_id", ASCENDING), ("bsuid", ASCENDING)]),
        ]


class ContactCounter(TenantDocument):
    """One per organisation: its contacts (`total`, the max_contacts usage) and the last `seq` handed out."""

    total: int = 0
    seq: int = 0

    class Settings:
        name = "contact_counters"
        indexes = [
            IndexModel([("org_id", ASCENDING)], unique=True),
            # The conditional reservation filters on {org_id, total}.
            IndexModel([("org_id", ASCENDING), ("total", ASCENDING)]),
        ]


class ContactTermCount(TenantDocument):
    """How many of the organisation's contacts carry one term: the total of a single-term filter in one read.

    Maintained with `$inc` beside every write of `terms` (resolvers/contacts/term_counts.py); the
    `recount_contact_terms` job rebuilds an organisation's counts from its contacts.
    """

    term: str
    # Contacts carrying the term (`count` would shadow Beanie's Document.count).
    total: int = 0

    class Settings:
        name = "contact_term_counts"
        indexes = [IndexModel([("org_id", ASCENDING), ("term", ASCENDING)], unique=True)]


class CustomField(TenantDocument):
    fieldName: str
    fieldKey: str
    fieldType: str = "text"
    options: list[str] = Field(default_factory=list)

    class Settings:
        name = "contact_custom_fields"
        indexes = [
            IndexModel([("org_id", ASCENDING), ("fieldKey", ASCENDING)], unique=True),
            IndexModel([("org_id", ASCENDING), ("created_at", ASCENDING)]),
        ]


class Tag(TenantDocument):
    name: str
    # Lower-cased name: uniqueness within the organisation is case-insensitive.
    name_key: str

    class Settings:
        name = "contact_tags"
        indexes = [IndexModel([("org_id", ASCENDING), ("name_key", ASCENDING)], unique=True)]


class ConsentKeywords(TenantDocument):
    """The organisation's own opt-out and opt-in keywords for inbound messages; without a document, the
    defaults of resolvers/contacts/consent.py apply."""

    opt_out: list[str] = Field(default_factory=list)
    opt_in: list[str] = Field(default_factory=list)

    class Settings:
        name = "contact_consent_keywords"
        indexes = [IndexModel([("org_id", ASCENDING)], unique=True)]
