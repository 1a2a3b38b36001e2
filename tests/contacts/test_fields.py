"""GET /v2.0/contacts/fields and the custom field definitions CRUD."""
from leadline.resolvers.contacts.fields import BUILTIN_FIELDS
from tests.contacts.helpers import make_field, upsert
from tests.helpers import assert_error

SPEC_KEYS = ["phone", "countryCode", "contactName", "email", "platform", "businessName", "addressLine1",
             "addressLine2", "city", "state", "postalCode", "country", "source", "notes", "optedOut",
             "lead_category", "chatapp_undeliverable", "createdAt", "updatedAt"]


async def test_field_listing_by_type(api, tenant):
    key = tenant.legacy_key
    made = await make_field(api, key, fieldName="Plan Tier", fieldType="dropdown", options=["Gold", "Silver"])
    everything = await api.get("/v2.0/contacts/fields", key)
    assert everything.status == 200, everything.body
    data = everything.body["data"]
    assert [f["key"] for f in data[:19]] == SPEC_KEYS == [f.key for f in BUILTIN_FIELDS]
    assert data[0] == {"type": "default", "key": "phone", "label": "Phone", "fieldType": "phone"}
    assert data[19] == {"type": "custom", "_id": made["_id"], "fieldName": "Plan Tier", "fieldKey": "plan_tier",
                        "fieldType": "dropdown", "hasDropdown": True, "options": ["Gold", "Silver"]}
    assert everything.body["meta"] == {"defaultCount": 19, "customCount": 1, "total": 20}
    custom = await api.get("/v2.0/contacts/fields", key, params={"type": "custom"})
    assert [f["type"] for f in custom.body["data"]] == ["custom"] and custom.body["meta"]["total"] == 1
    default = await api.get("/v2.0/contacts/fields", key, params={"type": "default"})
    assert default.body["meta"] == {"defaultCount": 19, "customCount": 0, "total": 19}
    assert_error(await api.get("/v2.0/contacts/fields", key, params={"type": "some"}), 400,
                 "INVALID_FIELD_TYPE_FILTER")


async def test_create_custom_fields(api, tenant):
    key = tenant.legacy_key
    text = await make_field(api, key, fieldName="  Favourite colour (main) ")
    assert (text["fieldKey"], text["fieldType"], text["hasDropdown"], text["options"]) == \
        ("favourite_colour_main", "text", False, [])
    explicit = await make_field(api, key, fieldName="Renewal", fieldKey="renews_on", fieldType="DATE")
    assert (explicit["fieldKey"], explicit["fieldType"]) == ("renews_on", "date")
    multi = await make_field(api, key, fieldName="Sizes", fieldType="multiselect", options=["S", " M ", "S"])
    assert multi["options"] == ["S", "M"] and multi["hasDropdown"] is True
    listing = await api.get("/v2.0/contacts/custom_fields", key)
    assert [f["fieldKey"] for f in listing.body["data"]] == ["favourite_colour_main", "renews_on", "sizes"]
    assert listing.body["meta"] == {"total": 3}


async def test_create_refusals(api, tenant):
    key = tenant.legacy_key
    await make_field(api, key, fieldName="Plan")

    async def create(**body):
        return await api.post("/v2.0/contacts/custom_fields", key, json=body)

    assert_error(await create(fieldType="text"), 400, "MISSING_FIELD_NAME")
    assert_error(await create(fieldName="  "), 400, "MISSING_FIELD_NAME")
    assert_error(await create(fieldName="X", fieldType="email"), 400, "INVALID_FIELD_TYPE")
    assert_error(await create(fieldName="X", fieldType="dropdown"), 400, "MISSING_DROPDOWN_OPTIONS")
    assert_error(await create(fieldName="X", fieldType="multiselect", options=[" "]), 400, "MISSING_DROPDOWN_OPTIONS")
    assert_error(await create(fieldName="!!!"), 400, "INVALID_FIELD_KEY")
    assert_error(await create(fieldName="X", fieldKey="Bad Key"), 400, "INVALID_FIELD_KEY")
    assert_error(await create(fieldName="plan"), 409, "CUSTOM_FIELD_ALREADY_EXISTS")
    assert_error(await create(fieldName="Other", fieldKey="plan"), 409, "CUSTOM_FIELD_ALREADY_EXISTS")
    body = assert_error(await create(fieldName="X", options=["a"]), 400, "VALIDATION_ERROR")
    assert body["details"][0]["path"] == "options"


async def test_update_custom_field(api, tenant):
    key = tenant.legacy_key
    field = await make_field(api, key, fieldName="Plan")
    path = f"/v2.0/contacts/custom_fields/{field['_id']}"
    renamed = await api.call("PUT", path, key, json={"fieldName": "Plan name"})
    assert renamed.status == 200, renamed.body
    assert (renamed.body["data"]["fieldName"], renamed.body["data"]["fieldKey"],
            renamed.body["data"]["fieldType"]) == ("Plan name", "plan", "text")
    assert_error(await api.call("PUT", path, key, json={"fieldType": "dropdown"}), 400, "MISSING_DROPDOWN_OPTIONS")
    dropdown = await api.call("PUT", path, key, json={"fieldType": "dropdown", "options": ["Gold"]})
    assert dropdown.body["data"]["hasDropdown"] is True and dropdown.body["data"]["options"] == ["Gold"]
    kept = await api.call("PUT", path, key, json={"fieldName": "Tier"})
    assert kept.body["data"]["fieldType"] == "dropdown" and kept.body["data"]["options"] == ["Gold"]
    assert_error(await api.call("PUT", path, key, json={"options": []}), 400, "MISSING_DROPDOWN_OPTIONS")
    assert_error(await api.call("PUT", path, key, json={"fieldType": "colour"}), 400, "INVALID_FIELD_TYPE")
    body = assert_error(await api.call("PUT", path, key, json={"fieldKey": "tier"}), 400, "VALIDATION_ERROR")
    assert body["details"][0]["code"] == "IMMUTABLE"
    back = await api.call("PUT", path, key, json={"fieldType": "text"})
    assert back.body["data"]["options"] == [] and back.body["data"]["hasDropdown"] is False
    assert_error(await api.call("PUT", "/v2.0/contacts/custom_fields/123", key, json={}), 400, "INVALID_FIELD_ID")
    assert_error(await api.call("PUT", f"/v2.0/contacts/custom_fields/{'a' * 24}", key, json={}), 404,
                 "CUSTOM_FIELD_NOT_FOUND")


async def test_delete_keeps_stored_values(api, tenant):
    key = tenant.legacy_key
    field = await make_field(api, key, fieldName="Plan")
    await upsert(api, key, phone="14155552671", customFields={"plan": "Gold"})
    deleted = await api.call("DELETE", f"/v2.0/contacts/custom_fields/{field['_id']}", key)
    assert deleted.status == 200, deleted.body
    assert deleted.body["data"] == {"fieldId": field["_id"], "fieldKey": "plan"}
    contact = await api.post("/v2.0/contacts/phone", key, json={"phone": "14155552671"})
    assert contact.body["data"]["customFields"] == {"plan": "Gold"}
    found = await api.post("/v2.0/contacts/filter", key, json={"filter": {"customFields.plan": ["Gold"]}})
    assert found.body["pagination"]["total"] == 1
    body = assert_error(await api.post("/v2.0/contacts", key, json={"phone": "14155552671",
                                                                    "customFields": {"plan": "Silver"}}),
                        400, "VALIDATION_ERROR")
    assert body["details"][0]["code"] == "UNKNOWN_CUSTOM_FIELD"
    assert_error(await api.call("DELETE", f"/v2.0/contacts/custom_fields/{field['_id']}", key), 404,
                 "CUSTOM_FIELD_NOT_FOUND")
    assert_error(await api.call("DELETE", "/v2.0/contacts/custom_fields/xyz", key), 400, "INVALID_FIELD_ID")


async def test_custom_fields_count_toward_the_plan_limit(api, tenant):
    key = tenant.legacy_key
    for n in range(5):
        await make_field(api, key, fieldName=f"Field {n}")
    await tenant.set_plan("free")  # max_custom_attributes 5 (after the creates: free allows 5 requests/s)
    fresh = await tenant.key("config:write,billing:read")  # its own rate counters
    body = assert_error(await api.post("/v2.0/contacts/custom_fields", fresh, json={"fieldName": "Sixth"}),
                        403, "LIMIT_EXCEEDED")
    assert (body["limitKey"], body["current"], body["limit"]) == ("max_custom_attributes", 5, 5)
    plan = await api.get("/v2.0/billing/plan", fresh)
    assert plan.body["data"]["limits"]["max_custom_attributes"] == {"limit": 5, "used": 5, "remaining": 0}
