"""Contacts root fields: thin calls into resolvers.contacts."""
from __future__ import annotations

import strawberry
from strawberry.types import Info

from leadline.resolvers.contacts import fields, queries, tags, upsert
from leadline.schema.common import Listed, listed
from leadline.schema.contacts.inputs import (ContactCustomFieldInput, ContactCustomFieldUpdateInput, ContactFilterInput,
                                    ContactInput, ContactPhoneInput, ContactTagInput)
from leadline.schema.contacts.types import (ContactCustomField, ContactCustomFieldDeleted,
                                   ContactFieldList, ContactPage, ContactTag, ContactTagDeleted,
                                   ContactType, ContactUpsert)
from leadline.schema.permissions import needs


@strawberry.type
class ContactsQuery:
    @strawberry.field(permission_classes=needs("contacts:read"), description="Contacts, newest first.")
    async def contacts(self, info: Info, page: int | None = None, limit: int | None = None) -> ContactPage:
        return ContactPage.from_page(await queries.list_contacts(info.context, page, limit))

    @strawberry.field(permission_classes=needs("contacts:read"), description="Contacts matching a filter.")
    async def contacts_filter(self, info: Info, input: ContactFilterInput) -> ContactPage:
        page = await queries.filter_contacts(info.context, input.filter, input.page, input.limit)
        return ContactPage.from_page(page)

    @strawberry.field(permission_classes=needs("contacts:read"))
    async def contact_by_phone(self, info: Info, input: ContactPhoneInput) -> ContactType:
        contact = await queries.get_by_phone(info.context, input.phone, input.country_code, input.default_country_code)
        return ContactType.from_model(contact)

    @strawberry.field(permission_classes=needs("config:read"), description="Built-in and custom contact fields.")
    async def contact_fields(self, info: Info, type: str | None = None) -> ContactFieldList:
        return ContactFieldList.from_domain(await fields.list_fields(info.context, type))

    @strawberry.field(permission_classes=needs("config:read"))
    async def contact_custom_fields(self, info: Info) -> Listed[ContactCustomField]:
        return listed(await fields.list_custom_fields(info.context), ContactCustomField.from_model)

    @strawberry.field(permission_classes=needs("config:read"), description="Tags, alphabetical.")
    async def contact_tags(self, info: Info) -> Listed[ContactTag]:
        return listed(await tags.list_tags(info.context), ContactTag.from_model)


@strawberry.type
class ContactsMutation:
    @strawberry.mutation(permission_classes=needs("contacts:write"), description="Create or update by phone.")
    async def upsert_contact(self, info: Info, input: ContactInput) -> ContactUpsert:
        return ContactUpsert.from_domain(await upsert.upsert_contact(info.context, input.to_domain()))

    @strawberry.mutation(permission_classes=needs("config:write"))
    async def create_contact_custom_field(self, info: Info, input: ContactCustomFieldInput) -> ContactCustomField:
        field = await fields.create_custom_field(info.context, input.field_name, input.field_key, input.field_type,
                                                 input.options)
        return ContactCustomField.from_model(field)

    @strawberry.mutation(permission_classes=needs("config:write"))
    async def update_contact_custom_field(self, info: Info, field_id: str,
                                          input: ContactCustomFieldUpdateInput) -> ContactCustomField:
        field = await fields.update_custom_field(info.context, field_id, input.field_name, input.field_key,
                                                 input.field_type, input.options)
        return ContactCustomField.from_model(field)

    @strawberry.mutation(permission_classes=needs("config:write"))
    async def delete_contact_custom_field(self, info: Info, field_id: str) -> ContactCustomFieldDeleted:
        field = await fields.delete_custom_field(info.context, field_id)
        return ContactCustomFieldDeleted(field_id=str(field.id), field_key=field.fieldKey)

    @strawberry.mutation(permission_classes=needs("config:write"))
    async def create_contact_tag(self, info: Info, input: ContactTagInput) -> ContactTag:
        return ContactTag.from_model(await tags.create_tag(info.context, input.name))

    @strawberry.mutation(permission_classes=needs("config:write"))
    async def rename_contact_tag(self, info: Info, tag_id: str, input: ContactTagInput) -> ContactTag:
        return ContactTag.from_model(await tags.rename_tag(info.context, tag_id, input.name))

    @strawberry.mutation(permission_classes=needs("config:write"))
    async def delete_contact_tag(self, info: Info, tag_id: str) -> ContactTagDeleted:
        tag = await tags.delete_tag(info.context, tag_id)
        return ContactTagDeleted(tag_id=str(tag.id), name=tag.name)
