"""GET /v2.0/contacts, POST /v2.0/contacts/filter and POST /v2.0/contacts/phone."""
from tests.contacts.helpers import make_field, make_tag, upsert
from tests.helpers import assert_error

PHONES = [f"1415555{n:04d}" for n in range(2671, 2676)]


async def _five(api, key):
    return [await upsert(api, key, phone=p, contactName=f"Person {i}") for i, p in enumerate(PHONES)]


async def test_list_is_newest_first_with_pagination(api, tenant):
    key = tenant.legacy_key
    made = await _five(api, key)
    first = await api.get("/v2.0/contacts", key, params={"limit": "2"})
    assert first.status == 200, first.body
    assert [c["phone"] for c in first.body["data"]] == [PHONES[4], PHONES[3]]
    assert first.body["pagination"] == {"page": 1, "limit": 2, "total": 5, "totalPages": 3, "hasNext": True}
    last = await api.get("/v2.0/contacts", key, params={"limit": "2", "page": "3"})
    assert [c["_id"] for c in last.body["data"]] == [made[0]["_id"]]
    assert last.body["pagination"]["hasNext"] is False
    beyond = await api.get("/v2.0/contacts", key, params={"limit": "2", "page": "9"})
    assert beyond.body["data"] == [] and beyond.body["pagination"]["total"] == 5
    default = await api.get("/v2.0/contacts", key)
    assert default.body["pagination"]["limit"] == 100 and len(default.body["data"]) == 5


async def test_list_refuses_out_of_range_paging(api, tenant):
    key = tenant.legacy_key
    body = assert_error(await api.get("/v2.0/contacts", key, params={"limit": "101"}), 400, "VALIDATION_ERROR")
    assert body["details"][0]["path"] == "limit"
    assert_error(await api.get("/v2.0/contacts", key, params={"page": "0"}), 400, "VALIDATION_ERROR")
    assert_error(await api.post("/v2.0/contacts/filter", key, json={"limit": 501}), 400, "VALIDATION_ERROR")


async def test_empty_filter_lists_everything_with_the_filter_default(api, tenant):
    key = tenant.legacy_key
    await _five(api, key)
    resp = await api.post("/v2.0/contacts/filter", key, json={})
    assert resp.status == 200, resp.body
    assert resp.body["pagination"]["limit"] == 50 and resp.body["pagination"]["total"] == 5
    resp = await api.post("/v2.0/contacts/filter", key, json={"filter": {}, "limit": 500})
    assert len(resp.body["data"]) == 5


async def _filter(api, key, flt, **extra):
    resp = await api.post("/v2.0/contacts/filter", key, json={"filter": flt, **extra})
    assert resp.status == 200, resp.body
    return resp.body


async def test_string_is_a_case_insensitive_pattern_anywhere(api, tenant):
    key = tenant.legacy_key
    await upsert(api, key, phone=PHONES[0], contactName="Ada Lovelace", city="London")
    await upsert(api, key, phone=PHONES[1], contactName="Grace Hopper", city="New York")
    assert [c["contactName"] for c in (await _filter(api, key, {"contactName": "LOVE"}))["data"]] == ["Ada Lovelace"]
    assert len((await _filter(api, key, {"contactName": "^(ada|grace) "}))["data"]) == 2
    assert (await _filter(api, key, {"city": "york$", "contactName": "hopper"}))["pagination"]["total"] == 1
    assert (await _filter(api, key, {"phone": "5552672"}))["data"][0]["contactName"] == "Grace Hopper"


async def test_arrays_match_any_member_and_booleans_exactly(api, tenant):
    key = tenant.legacy_key
    india = await upsert(api, key, phone=PHONES[0], country="IN", optedOut=True)
    await upsert(api, key, phone=PHONES[1], country="US")
    await upsert(api, key, phone=PHONES[2], country="GB", auto_added=True)
    found = await _filter(api, key, {"country": ["IN", "US"]})
    assert sorted(c["country"] for c in found["data"]) == ["IN", "US"] and found["pagination"]["total"] == 2
    opted = (await _filter(api, key, {"optedOut": True}))["data"]
    assert [(c["_id"], c["phone"], c["createdAt"]) for c in opted] == [(india["_id"], PHONES[0], india["createdAt"])]
    assert [c["phone"] for c in (await _filter(api, key, {"auto_added": True}))["data"]] == [PHONES[2]]
    assert (await _filter(api, key, {"country": ["in"]}))["data"] == []  # exact, case-sensitive
    assert (await _filter(api, key, {"phone": ["+1 415 555 2672"]}))["data"][0]["country"] == "US"


async def test_custom_fields_and_tags(api, tenant):
    key = tenant.legacy_key
    await make_field(api, key, fieldName="Score", fieldType="number")
    await make_field(api, key, fieldName="Plan")
    await make_field(api, key, fieldName="Interests", fieldType="multiselect", options=["Shoes", "Bags"])
    vip = await make_tag(api, key, "VIP")
    late = await make_tag(api, key, "Late payer")
    await upsert(api, key, phone=PHONES[0], customFields={"score": 5, "plan": "Gold", "interests": "Shoes"},
                 tags=[vip["_id"]])
    await upsert(api, key, phone=PHONES[1], customFields={"score": 7, "plan": "Silver", "interests": "Bags,Shoes"},
                 tags=[vip["_id"], late["_id"]], optedOut=True)
    await upsert(api, key, phone=PHONES[2], customFields={"score": 5.0, "plan": "gold-plus"})

    def phones(body):
        return sorted(c["phone"] for c in body["data"])

    assert phones(await _filter(api, key, {"customFields.score": 5})) == [PHONES[0], PHONES[2]]
    assert phones(await _filter(api, key, {"customFields.plan": "gold"})) == [PHONES[0], PHONES[2]]
    assert phones(await _filter(api, key, {"customFields.plan": ["Gold"]})) == [PHONES[0]]
    assert phones(await _filter(api, key, {"customFields.interests": ["Bags"]})) == [PHONES[1]]
    assert phones(await _filter(api, key, {"tags": vip["_id"]})) == [PHONES[0], PHONES[1]]
    assert phones(await _filter(api, key, {"tags": [late["_id"], "0" * 24]})) == [PHONES[1]]
    assert phones(await _filter(api, key, {"tags": vip["_id"], "optedOut": False,
                                           "customFields.plan": "GOLD"})) == [PHONES[0]]
    assert phones(await _filter(api, key, {"customFields.score": [7, 5], "optedOut": True})) == [PHONES[1]]
    assert_error(await api.post("/v2.0/contacts/filter", key, json={"filter": {"tags": "vip"}}), 400, "INVALID_TAG_ID")


async def test_filter_refusals_are_clear_400s(api, tenant):
    key = tenant.legacy_key
    cases = {
        "UNKNOWN_FILTER_FIELD": [{"notes": "x"}, {"$where": "1"}, {"customFields.a.b": 1}, {"customFields.$x": 1}],
        "OPERATOR_NOT_ALLOWED": [{"contactName": {"$ne": "x"}}, {"customFields.score": {"$gt": 1}}],
        "INVALID_PATTERN": [{"contactName": "(unclosed"}],
        "UNSAFE_PATTERN": [{"contactName": "(a+)+$"}],
        "TOO_LONG": [{"contactName": "a" * 201}, {"country": ["x"] * 101}],
        "INVALID_VALUE": [{"optedOut": "true"}, {"contactName": 5}, {"country": [{"$ne": 1}]}, {"country": []},
                          {"city": None}, {"contactName": ""}],
    }
    for code, filters in cases.items():
        for flt in filters:
            body = assert_error(await api.post("/v2.0/contacts/filter", key, json={"filter": flt}),
                                400, "VALIDATION_ERROR")
            assert body["details"][0]["code"] == code, (flt, body)
    body = assert_error(await api.post("/v2.0/contacts/filter", key, json={"filter": ["phone"]}), 400,
                        "VALIDATION_ERROR")
    assert body["details"][0]["path"] == "filter"


async def test_filter_pages_and_totals(api, tenant):
    key = tenant.legacy_key
    await _five(api, key)
    page = await _filter(api, key, {"contactName": "person"}, limit=2, page=2)
    assert [c["contactName"] for c in page["data"]] == ["Person 2", "Person 1"]
    assert page["pagination"] == {"page": 2, "limit": 2, "total": 5, "totalPages": 3, "hasNext": True}


async def test_lookup_by_phone(api, tenant):
    key = tenant.legacy_key
    made = await upsert(api, key, phone="919876543210", contactName="Asha")
    found = await api.post("/v2.0/contacts/phone", key, json={"phone": "98765 43210", "countryCode": "91"})
    assert found.status == 200, found.body
    assert found.body["data"]["_id"] == made["_id"] and found.body["data"]["contactName"] == "Asha"
    assert (await api.post("/v2.0/contacts/phone", key, json={"phone": "+91 98765-43210"})).status == 200
    assert_error(await api.post("/v2.0/contacts/phone", key, json={"phone": "919876543211"}), 404, "CONTACT_NOT_FOUND")
    assert_error(await api.post("/v2.0/contacts/phone", key, json={}), 400, "MISSING_PHONE")
    assert_error(await api.post("/v2.0/contacts/phone", key, json={"phone": "42"}), 400, "INVALID_PHONE_NUMBER")
