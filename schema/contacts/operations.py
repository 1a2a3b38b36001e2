"""Contacts, custom field and tag operations (spec: Endpoints → Contacts), each declared once."""
from __future__ import annotations

from typing import Annotated

from leadline.resolvers.context import RequestContext
from leadline.resolvers.contacts import consent, fields, queries, tags, upsert
from leadline.schema.bindings import McpTool, Reply, Rest, shaped, spread
from leadline.schema.common import Listed, Paged, limit_argument, listed, page_argument, paged
from leadline.schema.contacts.inputs import (ContactCustomFieldInput, ContactCustomFieldUpdateInput,
                                             ContactFilterInput, ContactInput, ContactPhoneInput, ContactTagInput)
from leadline.schema.contacts.types import (ConsentKeywordsType, ContactCustomField, ContactCustomFieldDeleted, ContactFieldList,
                                            ContactTag, ContactTagDeleted, ContactType, ContactUpsert)
from leadline.schema.operations import Operations

ops = Operations("contacts")

PHONE_ERRORS = ("MISSING_PHONE", "INVALID_PHONE_NUMBER")
FIELD_ERRORS = ("MISSING_FIELD_NAME", "INVALID_FIELD_TYPE", "MISSING_DROPDOWN_OPTIONS", "INVALID_FIELD_KEY")


@shaped(lambda out: {status: {"message": out.string(),
                                "data": out.field("contact").with_fields(isNew=out.boolean())} for status in (200, 201)})
def _upsert_reply(result: dict) -> Reply:
    """`data` is the contact with `isNew` beside its fields; 201 when created, 200 when updated."""
    is_new = result["isNew"]
    return Reply({"message": "Contact created" if is_new else "Contact updated",
                  "data": {**result["contact"], "isNew": is_new}}, status=201 if is_new else 200)


@ops.query(scope="contacts:read", description="List contacts, newest first.",
           rest=Rest("GET", "/v2.0/contacts", reply=spread), mcp=McpTool("list_contacts"))
async def contacts(ctx: RequestContext, page: Annotated[int | None, page_argument()] = None,
                   limit: Annotated[int | None, limit_argument(queries.LIST_DEFAULT, queries.LIST_MAX)] = None) -> Paged[ContactType]:
    return paged(await queries.list_contacts(ctx, page, limit), ContactType.from_domain)


@ops.query(scope="contacts:read", description="Contacts matching a filter (partial regex on strings, any-of on arrays).",
           errors=("INVALID_TAG_ID",), rest=Rest("POST", "/v2.0/contacts/filter", reply=spread), mcp=McpTool("filter_contacts"))
async def contacts_filter(ctx: RequestContext, input: ContactFilterInput) -> Paged[ContactType]:
    page = await queries.filter_contacts(ctx, input.filter, input.page, input.limit)
    return paged(page, ContactType.from_domain)


@ops.query(scope="contacts:read", description="One contact by phone number.", errors=(*PHONE_ERRORS, "CONTACT_NOT_FOUND"),
           rest=Rest("POST", "/v2.0/contacts/phone"), mcp=McpTool("find_contact_by_phone"))
async def contact_by_phone(ctx: RequestContext, input: ContactPhoneInput) -> ContactType:
    contact = await queries.get_by_phone(ctx, input.phone, input.country_code, input.default_country_code)
    return ContactType.from_domain(contact)


@ops.mutation(scope="contacts:write", description="Create a contact, or update the one with this phone.",
              limits=("max_contacts",), events=("contact.created", "contact.updated"),
              errors=(*PHONE_ERRORS, "INVALID_CUSTOM_FIELDS", "CONTACT_ALREADY_EXISTS", "TAG_NOT_FOUND",
                      "INVALID_TAG_ID"),
              rest=Rest("POST", "/v2.0/contacts", reply=_upsert_reply), mcp=McpTool("upsert_contact"))
async def upsert_contact(ctx: RequestContext, input: ContactInput) -> ContactUpsert:
    return ContactUpsert.from_domain(await upsert.upsert_contact(ctx, input.to_domain()))


@ops.query(scope="config:read", description="Built-in and custom contact fields (`type`: default, custom, all).",
           errors=("INVALID_FIELD_TYPE_FILTER",),
           rest=Rest("GET", "/v2.0/contacts/fields", reply=spread), mcp=McpTool("list_contact_fields"))
async def contact_fields(ctx: RequestContext, type: str | None = None) -> ContactFieldList:
    return ContactFieldList.from_domain(await fields.list_fields(ctx, type))


@ops.query(scope="config:read", description="Custom field definitions.",
           rest=Rest("GET", "/v2.0/contacts/custom_fields", reply=spread),
           mcp=McpTool("list_contact_fields", variant="type=custom"))
async def contact_custom_fields(ctx: RequestContext) -> Listed[ContactCustomField]:
    return listed(await fields.list_custom_fields(ctx), ContactCustomField.from_domain)


@ops.mutation(scope="config:write", description="Create a custom field.", limits=("max_custom_attributes",),
              errors=(*FIELD_ERRORS, "CUSTOM_FIELD_ALREADY_EXISTS"),
              rest=Rest("POST", "/v2.0/contacts/custom_fields", status=201), mcp=McpTool("create_custom_field"))
async def create_contact_custom_field(ctx: RequestContext, input: ContactCustomFieldInput) -> ContactCustomField:
    field = await fields.create_custom_field(ctx, input.field_name, input.field_key, input.field_type, input.options)
    return ContactCustomField.from_domain(field)


@ops.mutation(scope="config:write", description="Rename a custom field or change its type or options.",
              errors=(*FIELD_ERRORS, "INVALID_FIELD_ID", "CUSTOM_FIELD_NOT_FOUND"),
              rest=Rest("PUT", "/v2.0/contacts/custom_fields/{fieldId}"), mcp=McpTool("update_custom_field"))
async def update_contact_custom_field(ctx: RequestContext, field_id: str,
                                      input: ContactCustomFieldUpdateInput) -> ContactCustomField:
    field = await fields.update_custom_field(ctx, field_id, input.field_name, input.field_key, input.field_type,
                                             input.options)
    return ContactCustomField.from_domain(field)


@ops.mutation(scope="config:write", description="Delete a custom field (values on contacts are kept).",
              errors=("INVALID_FIELD_ID", "CUSTOM_FIELD_NOT_FOUND"),
              rest=Rest("DELETE", "/v2.0/contacts/custom_fields/{fieldId}"), mcp=McpTool("delete_custom_field"))
async def delete_contact_custom_field(ctx: RequestContext, field_id: str) -> ContactCustomFieldDeleted:
    return ContactCustomFieldDeleted.from_domain(await fields.delete_custom_field(ctx, field_id))


@ops.query(scope="config:read", description="Tags, alphabetical.",
           rest=Rest("GET", "/v2.0/contacts/tags", reply=spread), mcp=McpTool("list_tags"))
async def contact_tags(ctx: RequestContext) -> Listed[ContactTag]:
    return listed(await tags.list_tags(ctx), ContactTag.from_domain)


@ops.mutation(scope="config:write", description="Create a tag.", limits=("max_contact_tags",),
              errors=("MISSING_TAG_NAME", "TAG_ALREADY_EXISTS"),
              rest=Rest("POST", "/v2.0/contacts/tags", status=201), mcp=McpTool("create_tag"))
async def create_contact_tag(ctx: RequestContext, input: ContactTagInput) -> ContactTag:
    return ContactTag.from_domain(await tags.create_tag(ctx, input.name))


@ops.mutation(scope="config:write", description="Rename a tag.",
              errors=("MISSING_TAG_NAME", "TAG_ALREADY_EXISTS", "INVALID_TAG_ID", "TAG_NOT_FOUND"),
              rest=Rest("PUT", "/v2.0/contacts/tags/{tagId}"), mcp=McpTool("update_tag"))
async def rename_contact_tag(ctx: RequestContext, tag_id: str, input: ContactTagInput) -> ContactTag:
    return ContactTag.from_domain(await tags.rename_tag(ctx, tag_id, input.name))


@ops.mutation(scope="config:write", description="Delete a tag and remove it from every contact.",
              errors=("INVALID_TAG_ID", "TAG_NOT_FOUND"),
              rest=Rest("DELETE", "/v2.0/contacts/tags/{tagId}"), mcp=McpTool("delete_tag"))
async def delete_contact_tag(ctx: RequestContext, tag_id: str) -> ContactTagDeleted:
    return ContactTagDeleted.from_domain(await tags.delete_tag(ctx, tag_id))


@ops.query(scope="config:read", description="The opt-out and opt-in keywords of inbound messages (GraphQL only).")
async def opt_out_keywords(ctx: RequestContext) -> ConsentKeywordsType:
    return ConsentKeywordsType.from_domain(await consent.keywords(ctx))


@ops.mutation(scope="config:write",
              description="Replace the opt-out and opt-in keywords; an omitted list goes back to its default.")
async def set_opt_out_keywords(ctx: RequestContext, opt_out: list[str] | None = None,
                               opt_in: list[str] | None = None) -> ConsentKeywordsType:
    return ConsentKeywordsType.from_domain(await consent.set_keywords(ctx, opt_out, opt_in))
