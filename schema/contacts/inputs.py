"""Contacts input types: fields stay optional where the spec has its own "missing X" code."""
from __future__ import annotations

import strawberry

from leadline.resolvers.contacts.upsert import ContactWrite
from leadline.schema.scalars import JSON


@strawberry.input
class ContactInput:
    phone: str | None = None
    bsuid: str | None = None
    country_code: str | None = None
    default_country_code: str | None = None
    contact_name: str | None = None
    email: str | None = None
    platform: str | None = None
    business_name: str | None = None
    address_line1: str | None = None
    address_line2: str | None = None
    city: str | None = None
    state: str | None = None
    postal_code: str | None = None
    country: str | None = None
    source: str | None = None
    notes: str | None = None
    lead_category: str | None = strawberry.field(name="lead_category", default=None)
    lead_segments: JSON | None = strawberry.field(name="lead_segments", default=None)
    custom_fields: JSON | None = strawberry.field(default=None, description="Keyed by custom field fieldKey.")
    tags: list[str] | None = strawberry.field(default=None, description="Tag ids; replaces the contact's tags.")
    opted_out: bool | None = None
    chatapp_undeliverable: bool | None = strawberry.field(name="chatapp_undeliverable", default=None)
    auto_added: bool | None = strawberry.field(name="auto_added", default=None)

    def to_domain(self) -> ContactWrite:
        text = {"contactName": self.contact_name, "email": self.email, "platform": self.platform,
                "businessName": self.business_name, "addressLine1": self.address_line1,
                "addressLine2": self.address_line2, "city": self.city, "state": self.state,
                "postalCode": self.postal_code, "country": self.country, "source": self.source,
                "notes": self.notes, "lead_category": self.lead_category}
        flags = {"optedOut": self.opted_out, "chatapp_undeliverable": self.chatapp_undeliverable,
                 "auto_added": self.auto_added}
        return ContactWrite(phone=self.phone, bsuid=self.bsuid, countryCode=self.country_code,
                            defaultCountryCode=self.default_country_code, text=text, flags=flags,
                            lead_segments=self.lead_segments, customFields=self.custom_fields, tags=self.tags)


@strawberry.input
class ContactFilterInput:
    filter: JSON | None = None
    page: int | None = None
    limit: int | None = None


@strawberry.input
class ContactPhoneInput:
    phone: str | None = None
    country_code: str | None = None
    default_country_code: str | None = None


@strawberry.input
class ContactCustomFieldInput:
    field_name: str | None = None
    field_key: str | None = None
    field_type: str | None = None
    options: list[str] | None = None


@strawberry.input
class ContactCustomFieldUpdateInput:
    field_name: str | None = None
    field_key: str | None = strawberry.field(default=None, description="Immutable: only the current key is accepted.")
    field_type: str | None = None
    options: list[str] | None = None


@strawberry.input
class ContactTagInput:
    name: str | None = None
