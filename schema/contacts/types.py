"""Contacts output types and their explicit conversion from models (spec names kept where camel-casing differs)."""
from __future__ import annotations

from datetime import datetime
from typing import Annotated, Union

import strawberry

from leadline.models.contacts import Contact, CustomField, Tag
from leadline.resolvers.contacts.consent import Keywords
from leadline.resolvers.contacts.fields import CHOICE_TYPES, BuiltinField, FieldListing
from leadline.resolvers.contacts.upsert import UpsertResult
from leadline.schema.scalars import JSON


@strawberry.type(name="Contact")
class ContactType:
    id: str = strawberry.field(name="_id")
    phone: str
    bsuid: str | None
    country_code: str | None
    contact_name: str | None
    email: str | None
    platform: str | None
    business_name: str | None
    address_line1: str | None
    address_line2: str | None
    city: str | None
    state: str | None
    postal_code: str | None
    country: str | None
    source: str | None
    notes: str | None
    lead_category: str | None = strawberry.field(name="lead_category")
    lead_segments: JSON = strawberry.field(name="lead_segments")
    custom_fields: JSON
    tags: list[str] = strawberry.field(description="Ids of the contact's tags.")
    opted_out: bool
    chatapp_undeliverable: bool = strawberry.field(name="chatapp_undeliverable")
    auto_added: bool = strawberry.field(name="auto_added")
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_domain(cls, c: Contact) -> "ContactType":
        return cls(id=str(c.id), phone=c.phone, bsuid=c.bsuid, country_code=c.countryCode,
                   contact_name=c.contactName, email=c.email, platform=c.platform, business_name=c.businessName,
                   address_line1=c.addressLine1, address_line2=c.addressLine2, city=c.city, state=c.state,
                   postal_code=c.postalCode, country=c.country, source=c.source, notes=c.notes,
                   lead_category=c.lead_category, lead_segments=c.lead_segments, custom_fields=c.customFields,
                   tags=[str(t) for t in c.tags], opted_out=c.optedOut,
                   chatapp_undeliverable=c.chatapp_undeliverable, auto_added=c.auto_added,
                   created_at=c.created_at, updated_at=c.updated_at)


@strawberry.type
class ContactUpsert:
    is_new: bool
    contact: ContactType

    @classmethod
    def from_domain(cls, result: UpsertResult) -> "ContactUpsert":
        return cls(is_new=result.is_new, contact=ContactType.from_domain(result.contact))


@strawberry.type
class ContactBuiltinField:
    type: str
    key: str
    label: str
    field_type: str

    @classmethod
    def from_domain(cls, f: BuiltinField) -> "ContactBuiltinField":
        return cls(type="default", key=f.key, label=f.label, field_type=f.fieldType)


@strawberry.type
class ContactCustomField:
    """A custom field definition."""

    id: str = strawberry.field(name="_id")
    field_name: str
    field_key: str
    field_type: str
    has_dropdown: bool
    options: list[str]
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_domain(cls, f: CustomField) -> "ContactCustomField":
        return cls(id=str(f.id), field_name=f.fieldName, field_key=f.fieldKey, field_type=f.fieldType,
                   has_dropdown=f.fieldType in CHOICE_TYPES, options=list(f.options), created_at=f.created_at,
                   updated_at=f.updated_at)


@strawberry.type
class ContactCustomFieldEntry:
    """A custom field as an entry of the combined field listing (`type` = `custom`)."""

    type: str
    id: str = strawberry.field(name="_id")
    field_name: str
    field_key: str
    field_type: str
    has_dropdown: bool
    options: list[str]

    @classmethod
    def from_domain(cls, f: CustomField) -> "ContactCustomFieldEntry":
        return cls(type="custom", id=str(f.id), field_name=f.fieldName, field_key=f.fieldKey,
                   field_type=f.fieldType, has_dropdown=f.fieldType in CHOICE_TYPES, options=list(f.options))


ContactField = Annotated[Union[ContactBuiltinField, ContactCustomFieldEntry], strawberry.union("ContactField")]


@strawberry.type
class ContactFieldMeta:
    default_count: int
    custom_count: int
    total: int


@strawberry.type
class ContactFieldList:
    data: list[ContactField]
    meta: ContactFieldMeta

    @classmethod
    def from_domain(cls, listing: FieldListing) -> "ContactFieldList":
        data: list = [ContactBuiltinField.from_domain(f) for f in listing.builtins]
        data += [ContactCustomFieldEntry.from_domain(f) for f in listing.custom]
        n_default, n_custom = len(listing.builtins), len(listing.custom)
        return cls(data=data, meta=ContactFieldMeta(default_count=n_default, custom_count=n_custom,
                                                    total=n_default + n_custom))


@strawberry.type
class ContactCustomFieldDeleted:
    field_id: str
    field_key: str

    @classmethod
    def from_domain(cls, f: CustomField) -> "ContactCustomFieldDeleted":
        return cls(field_id=str(f.id), field_key=f.fieldKey)


@strawberry.type
class ContactTag:
    id: str = strawberry.field(name="_id")
    name: str
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_domain(cls, t: Tag) -> "ContactTag":
        return cls(id=str(t.id), name=t.name, created_at=t.created_at, updated_at=t.updated_at)


@strawberry.type
class ContactTagDeleted:
    tag_id: str
    name: str

    @classmethod
    def from_domain(cls, t: Tag) -> "ContactTagDeleted":
        return cls(tag_id=str(t.id), name=t.name)


@strawberry.type
class ConsentKeywordsType:
    """Whole inbound messages that opt a contact out (`optOut`) or back in (`optIn`), upper-cased."""

    opt_out: list[str]
    opt_in: list[str]

    @classmethod
    def from_domain(cls, k: Keywords) -> "ConsentKeywordsType":
        return cls(opt_out=list(k.opt_out), opt_in=list(k.opt_in))
