"""Contacts, custom field and tag routes (spec: Endpoints → Contacts)."""
from __future__ import annotations

from leadline.rest_compat.table import Reply, Route, spread

PAGINATION = "pagination { page limit total totalPages hasNext }"
CONTACT = """_id phone bsuid countryCode contactName email platform businessName addressLine1 addressLine2 city
             state postalCode country source notes lead_category lead_segments customFields tags optedOut
             chatapp_undeliverable auto_added createdAt updatedAt"""
CUSTOM_FIELD = "_id fieldName fieldKey fieldType hasDropdown options createdAt updatedAt"
TAG = "_id name createdAt updatedAt"


def _upsert_reply(result: dict) -> Reply:
    """`data` is the contact with `isNew` beside its fields; 201 when created, 200 when updated."""
    is_new = result["isNew"]
    return Reply({"message": "Contact created" if is_new else "Contact updated",
                  "data": {**result["contact"], "isNew": is_new}}, status=201 if is_new else 200)


ROUTES = [
    Route("GET", "/v2.0/contacts", "contacts:read", summary="List contacts, newest first",
          operation=f"""query($page: Int, $limit: Int) {{
              contacts(page: $page, limit: $limit) {{ data {{ {CONTACT} }} {PAGINATION} }} }}""",
          reply=spread),
    Route("POST", "/v2.0/contacts/filter", "contacts:read", summary="Filter contacts", body="input",
          operation=f"""query($input: ContactFilterInput!) {{
              contactsFilter(input: $input) {{ data {{ {CONTACT} }} {PAGINATION} }} }}""",
          reply=spread),
    Route("POST", "/v2.0/contacts/phone", "contacts:read", summary="Get a contact by phone", body="input",
          operation=f"query($input: ContactPhoneInput!) {{ contactByPhone(input: $input) {{ {CONTACT} }} }}"),
    Route("POST", "/v2.0/contacts", "contacts:write", summary="Create or update a contact by phone", body="input",
          operation=f"""mutation($input: ContactInput!) {{
              upsertContact(input: $input) {{ isNew contact {{ {CONTACT} }} }} }}""",
          reply=_upsert_reply),
    Route("GET", "/v2.0/contacts/fields", "config:read", summary="Built-in and custom contact fields",
          operation="""query($type: String) { contactFields(type: $type) {
              data { ... on ContactBuiltinField { type key label fieldType }
                     ... on ContactCustomField { type _id fieldName fieldKey fieldType hasDropdown options } }
              meta { defaultCount customCount total } } }""",
          reply=spread),
    Route("GET", "/v2.0/contacts/custom_fields", "config:read", summary="Custom field definitions",
          operation=f"query {{ contactCustomFields {{ data {{ {CUSTOM_FIELD} }} meta {{ total }} }} }}",
          reply=spread),
    Route("POST", "/v2.0/contacts/custom_fields", "config:write", summary="Create a custom field", body="input",
          status=201,
          operation=f"""mutation($input: ContactCustomFieldInput!) {{
              createContactCustomField(input: $input) {{ {CUSTOM_FIELD} }} }}"""),
    Route("PUT", "/v2.0/contacts/custom_fields/{fieldId}", "config:write", summary="Update a custom field",
          body="input",
          operation=f"""mutation($fieldId: String!, $input: ContactCustomFieldUpdateInput!) {{
              updateContactCustomField(fieldId: $fieldId, input: $input) {{ {CUSTOM_FIELD} }} }}"""),
    Route("DELETE", "/v2.0/contacts/custom_fields/{fieldId}", "config:write", summary="Delete a custom field",
          operation="""mutation($fieldId: String!) {
              deleteContactCustomField(fieldId: $fieldId) { fieldId fieldKey } }"""),
    Route("GET", "/v2.0/contacts/tags", "config:read", summary="Tags, alphabetical",
          operation=f"query {{ contactTags {{ data {{ {TAG} }} meta {{ total }} }} }}",
          reply=spread),
    Route("POST", "/v2.0/contacts/tags", "config:write", summary="Create a tag", body="input", status=201,
          operation=f"mutation($input: ContactTagInput!) {{ createContactTag(input: $input) {{ {TAG} }} }}"),
    Route("PUT", "/v2.0/contacts/tags/{tagId}", "config:write", summary="Rename a tag", body="input",
          operation=f"""mutation($tagId: String!, $input: ContactTagInput!) {{
              renameContactTag(tagId: $tagId, input: $input) {{ {TAG} }} }}"""),
    Route("DELETE", "/v2.0/contacts/tags/{tagId}", "config:write", summary="Delete a tag",
          operation="mutation($tagId: String!) { deleteContactTag(tagId: $tagId) { tagId name } }"),
]
