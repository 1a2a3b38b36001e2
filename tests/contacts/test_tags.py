"""Tags CRUD: alphabetical list, case-insensitive unique names, removal from contacts, plan limit."""
from tests.contacts.helpers import make_tag, upsert
from tests.helpers import assert_error


async def test_tags_are_listed_alphabetically(api, tenant):
    key = tenant.legacy_key
    for name in ("vip", "Abandoned cart", "Lead"):
        await make_tag(api, key, name)
    listing = await api.get("/v2.0/contacts/tags", key)
    assert listing.status == 200, listing.body
    assert [t["name"] for t in listing.body["data"]] == ["Abandoned cart", "Lead", "vip"]
    assert listing.body["meta"] == {"total": 3}
    assert set(listing.body["data"][0]) == {"_id", "name", "createdAt", "updatedAt"}


async def test_create_and_rename_refusals(api, tenant):
    key = tenant.legacy_key
    vip = await make_tag(api, key, "VIP")
    lead = await make_tag(api, key, "Lead")
    assert_error(await api.post("/v2.0/contacts/tags", key, json={"name": "vip"}), 409, "TAG_ALREADY_EXISTS")
    assert_error(await api.post("/v2.0/contacts/tags", key, json={}), 400, "MISSING_TAG_NAME")
    assert_error(await api.post("/v2.0/contacts/tags", key, json={"name": "   "}), 400, "MISSING_TAG_NAME")
    renamed = await api.call("PUT", f"/v2.0/contacts/tags/{vip['_id']}", key, json={"name": "Vip"})
    assert renamed.status == 200 and renamed.body["data"]["name"] == "Vip"
    assert_error(await api.call("PUT", f"/v2.0/contacts/tags/{vip['_id']}", key, json={"name": "LEAD"}), 409,
                 "TAG_ALREADY_EXISTS")
    assert_error(await api.call("PUT", f"/v2.0/contacts/tags/{lead['_id']}", key, json={}), 400, "MISSING_TAG_NAME")
    assert_error(await api.call("PUT", "/v2.0/contacts/tags/nope", key, json={"name": "x"}), 400, "INVALID_TAG_ID")
    assert_error(await api.call("PUT", f"/v2.0/contacts/tags/{'b' * 24}", key, json={"name": "x"}), 404,
                 "TAG_NOT_FOUND")


async def test_delete_takes_the_tag_off_contacts(api, tenant):
    key = tenant.legacy_key
    vip = await make_tag(api, key, "VIP")
    keep = await make_tag(api, key, "Keep")
    await upsert(api, key, phone="14155552671", tags=[vip["_id"], keep["_id"]])
    deleted = await api.call("DELETE", f"/v2.0/contacts/tags/{vip['_id']}", key)
    assert deleted.status == 200, deleted.body
    assert deleted.body["data"] == {"tagId": vip["_id"], "name": "VIP"}
    contact = await api.post("/v2.0/contacts/phone", key, json={"phone": "14155552671"})
    assert contact.body["data"]["tags"] == [keep["_id"]]
    gone = await api.post("/v2.0/contacts/filter", key, json={"filter": {"tags": vip["_id"]}})
    assert gone.body["data"] == []
    assert_error(await api.call("DELETE", f"/v2.0/contacts/tags/{vip['_id']}", key), 404, "TAG_NOT_FOUND")
    assert_error(await api.call("DELETE", "/v2.0/contacts/tags/12", key), 400, "INVALID_TAG_ID")


async def test_tags_count_toward_the_plan_limit(api, tenant):
    key = tenant.legacy_key
    for n in range(10):
        await make_tag(api, key, f"tag {n}")
    await tenant.set_plan("free")  # max_contact_tags 10 (after the creates: free allows 5 requests/s)
    fresh = await tenant.key("config:write,billing:read")  # its own rate counters
    body = assert_error(await api.post("/v2.0/contacts/tags", fresh, json={"name": "eleventh"}), 403, "LIMIT_EXCEEDED")
    assert (body["limitKey"], body["current"], body["limit"]) == ("max_contact_tags", 10, 10)
