"""Scopes of the 13 routes and isolation between organisations."""
from tests.contacts.helpers import make_field, make_tag, upsert
from tests.helpers import assert_error, make_tenant

FID, TID = "a" * 24, "b" * 24
ROUTES = [  # method, path, body, scope
    ("GET", "/v2.0/contacts", None, "contacts:read"),
    ("POST", "/v2.0/contacts/filter", {}, "contacts:read"),
    ("POST", "/v2.0/contacts/phone", {"phone": "14155552671"}, "contacts:read"),
    ("POST", "/v2.0/contacts", {"phone": "14155552671"}, "contacts:write"),
    ("GET", "/v2.0/contacts/fields", None, "config:read"),
    ("GET", "/v2.0/contacts/custom_fields", None, "config:read"),
    ("POST", "/v2.0/contacts/custom_fields", {"fieldName": "X"}, "config:write"),
    ("PUT", f"/v2.0/contacts/custom_fields/{FID}", {}, "config:write"),
    ("DELETE", f"/v2.0/contacts/custom_fields/{FID}", None, "config:write"),
    ("GET", "/v2.0/contacts/tags", None, "config:read"),
    ("POST", "/v2.0/contacts/tags", {"name": "x"}, "config:write"),
    ("PUT", f"/v2.0/contacts/tags/{TID}", {"name": "y"}, "config:write"),
    ("DELETE", f"/v2.0/contacts/tags/{TID}", None, "config:write"),
]
OTHER_SCOPE = {"contacts:read": "contacts:write", "contacts:write": "contacts:read",
               "config:read": "config:write", "config:write": "config:read"}


async def test_each_route_needs_its_scope(api, tenant):
    keys = {scope: await tenant.key(scope) for scope in OTHER_SCOPE}
    for method, path, body, scope in ROUTES:
        refused = await api.call(method, path, keys[OTHER_SCOPE[scope]], json=body)
        assert assert_error(refused, 403, "INSUFFICIENT_SCOPE", marker="error")["required_scope"] == scope, path
        allowed = await api.call(method, path, keys[scope], json=body)
        assert allowed.status != 403 and allowed.status < 500, (method, path, allowed.body)


async def test_read_keys_cannot_write(api, tenant):
    reader = await tenant.key("contacts:read,config:read")
    assert_error(await api.post("/v2.0/contacts", reader, json={"phone": "14155552671"}), 403,
                 "INSUFFICIENT_SCOPE", marker="error")
    assert_error(await api.post("/v2.0/contacts/tags", reader, json={"name": "x"}), 403,
                 "INSUFFICIENT_SCOPE", marker="error")
    writer = await tenant.key("contacts:write")
    assert (await api.post("/v2.0/contacts", writer, json={"phone": "14155552671"})).status == 201
    assert_error(await api.post("/v2.0/contacts/filter", writer, json={}), 403, "INSUFFICIENT_SCOPE", marker="error")


async def test_another_organisation_never_sees_updates_or_counts(api, client, tenant):
    key = tenant.legacy_key
    field = await make_field(api, key, fieldName="Plan")
    tag = await make_tag(api, key, "VIP")
    mine = await upsert(api, key, phone="14155552671", contactName="Mine", customFields={"plan": "Gold"},
                        tags=[tag["_id"]])
    other = await make_tenant(client, name="Other")
    okey = other.legacy_key

    listing = await api.get("/v2.0/contacts", okey)
    assert listing.body["data"] == [] and listing.body["pagination"]["total"] == 0
    for flt in ({}, {"contactName": "mine"}, {"customFields.plan": ["Gold"]}, {"phone": ["14155552671"]}):
        found = await api.post("/v2.0/contacts/filter", okey, json={"filter": flt})
        assert found.body["data"] == [] and found.body["pagination"]["total"] == 0, flt
    assert (await api.post("/v2.0/contacts/filter", okey, json={"filter": {"tags": tag["_id"]}})).body["data"] == []
    assert_error(await api.post("/v2.0/contacts/phone", okey, json={"phone": "14155552671"}), 404, "CONTACT_NOT_FOUND")

    fields = await api.get("/v2.0/contacts/fields", okey, params={"type": "custom"})
    assert fields.body["data"] == [] and (await api.get("/v2.0/contacts/tags", okey)).body["data"] == []
    assert_error(await api.call("PUT", f"/v2.0/contacts/custom_fields/{field['_id']}", okey, json={"fieldName": "Z"}),
                 404, "CUSTOM_FIELD_NOT_FOUND")
    assert_error(await api.call("DELETE", f"/v2.0/contacts/custom_fields/{field['_id']}", okey), 404,
                 "CUSTOM_FIELD_NOT_FOUND")
    assert_error(await api.call("PUT", f"/v2.0/contacts/tags/{tag['_id']}", okey, json={"name": "Z"}), 404,
                 "TAG_NOT_FOUND")
    assert_error(await api.call("DELETE", f"/v2.0/contacts/tags/{tag['_id']}", okey), 404, "TAG_NOT_FOUND")
    assert_error(await api.post("/v2.0/contacts", okey, json={"phone": "14155552671", "tags": [tag["_id"]]}), 404,
                 "TAG_NOT_FOUND")
    assert_error(await api.post("/v2.0/contacts", okey, json={"phone": "14155552671", "customFields": {"plan": "x"}}),
                 400, "VALIDATION_ERROR")
    # The same phone is a different contact there; names and keys are free there too.
    theirs = await upsert(api, okey, phone="14155552671", contactName="Theirs")
    assert theirs["isNew"] is True and theirs["_id"] != mine["_id"]
    await make_field(api, okey, fieldName="Plan")
    await make_tag(api, okey, "VIP")

    again = await api.post("/v2.0/contacts/phone", key, json={"phone": "14155552671"})
    assert again.body["data"]["contactName"] == "Mine" and again.body["data"]["tags"] == [tag["_id"]]
    plan = (await api.get("/v2.0/billing/plan", key)).body["data"]["limits"]
    assert plan["max_contacts"]["used"] == 1 and plan["max_custom_attributes"]["used"] == 1
    assert plan["max_contact_tags"]["used"] == 1
    assert (await api.get("/v2.0/contacts", key)).body["pagination"]["total"] == 1
