"""Contacts output types and their explicit conversion from models (spec names kept where camel-casing differs)."""
from __future__ import annotations

from datetime import datetime
from typing import Annotated, Union

import strawberry

from leadline.models.contacts import Contact, CustomField, Tag
from leadline.resolvers.contacts.fields import CHOICE_TYPES, BuiltinField, FieldListing
from leadline.resolvers.contacts.upsert import UpsertResult
from leadline.resolvers.pagination import Page
from leadline.schema.common import Pagination
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
    def from_model(cls, c: Contact) -> "ContactType":
        return cls(id=str(c.id), phone=c.phone, bsuid=c.bsuid, country_code=c.countryCode,
                   contact_name=c.contactName, email=c.email, platform=c.platform, business_name=c.businessName,
                   address_line1=c.addressLine1, address_line2=c.addressLine2, city=c.city, state=c.state,
                   postal_code=c.postalCode, country=c.country, source=c.source, notes=c.notes,
                   lead_category=c.lead_category, lead_segments=c.lead_segments, custom_fields=c.customFields,
                   tags=[str(t) for t in c.tags], opted_out=c.optedOut,
                   chatapp_undeliverable=c.chatapp_undeliverable, auto_added=c.auto_added,
                   created_at=c.created_at, updated_at=c.updated_at)


@strawberry.type
class ContactPage:
    data: list[ContactType]
    pagination: Pagination

    @classmethod
    def from_page(cls, page: Page[Contact]) -> "ContactPage":
        return cls(data=[ContactType.from_model(c) for c in page.items], pagination=Pagination.of(page))


@strawberry.type
class ContactUpsert:
    is_new: bool
    contact: ContactType

    @classmethod
    def from_domain(cls, result: UpsertResult) -> "ContactUpsert":
        return cls(is_new=result.is_new, contact=ContactType.from_model(result.contact))


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
    type: str
    id: str = strawberry.field(name="_id")
    field_name: str
    field_key: str
    field_type: str
    has_dropdown: bool
    options: list[str]
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_model(cls, f: CustomField) -> "ContactCustomField":
        return cls(type="custom", id=str(f.id), field_name=f.fieldName, field_key=f.fieldKey,
                   field_type=f.fieldType, has_dropdown=f.fieldType in CHOICE_TYPES, options=list(f.options),
                   created_at=f.created_at, updated_at=f.updated_at)


ContactField = Annotated[Union[ContactBuiltinField, ContactCustomField], strawberry.union("ContactField")]


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
        data += [ContactCustomField.from_model(f) for f in listing.custom]
        n_default, n_custom = len(listing.builtins), len(listing.custom)
        return cls(data=data, meta=ContactFieldMeta(default_count=n_default, custom_count=n_custom,
                                                    total=n_default + n_custom))


@strawberry.type
class ContactCustomFieldDeleted:
    field_id: str
    field_key: str


@strawberry.type
class ContactTag:
    id: str = strawberry.field(name="_id")
    name: str
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_model(cls, t: Tag) -> "ContactTag":
        return cls(id=str(t.id), name=t.name, created_at=t.created_at, updated_at=t.updated_at)


@strawberry.type
class ContactTagDeleted:
    tag_id: str
    name: str
