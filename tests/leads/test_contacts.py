"""POST /v2.0/contacts with lead fields: known categories only, values coerced by their insight, person locks."""
from __future__ import annotations

from bson import ObjectId

from leadline.models.contacts import Contact
from tests.helpers import assert_error
from tests.leads.helpers import by_phone, contact, make_category, make_insight

PHONE = "14155552671"


async def stored(tenant, phone: str = PHONE) -> Contact:
    return await Contact.find_one_in(ObjectId(tenant.org_id), {"phone": phone})


async def test_lead_category_must_exist_and_is_stored_canonically(api, tenant):
    key = tenant.legacy_key
    await make_category(api, key, "Hot Lead")
    created = await contact(api, key, PHONE, lead_category="hot lead")
    assert created["lead_category"] == "Hot Lead"
    refused = await api.post("/v2.0/contacts", key, json={"phone": "14155552672", "lead_category": "warm"})
    body = assert_error(refused, 400, "VALIDATION_ERROR")
    assert body["details"][0]["path"] == "lead_category" and body["details"][0]["code"] == "UNKNOWN_CATEGORY"
    assert await stored(tenant, "14155552672") is None  # nothing written
    found = await api.post("/v2.0/contacts/filter", key, json={"filter": {"lead_category": ["Hot Lead"]}})
    assert [c["phone"] for c in found.body["data"]] == [PHONE]


async def test_segments_are_coerced_by_their_insight(api, tenant):
    key = tenant.legacy_key
    await make_insight(api, key, "budget", "number")
    await make_insight(api, key, "moveIn", "date")
    await make_insight(api, key, "rooms", "array")
    await make_insight(api, key, "notes", "text")
    created = await contact(api, key, PHONE, lead_segments={
        "budget": "1,500", "moveIn": "2026-04-01", "rooms": "kitchen, bath|kitchen", "notes": 42,
        "free": {"anything": [1, 2]}})
    assert created["lead_segments"] == {"budget": 1500, "moveIn": "2026-04-01T00:00:00.000Z",
                                        "rooms": ["kitchen", "bath"], "notes": "42", "free": {"anything": [1, 2]}}
    updated = await contact(api, key, PHONE, lead_segments={"budget": 99.5, "moveIn": "2026-04-02T23:30:00-05:00",
                                                            "rooms": ["hall", 3]})
    assert updated["lead_segments"]["budget"] == 99.5
    assert updated["lead_segments"]["moveIn"] == "2026-04-03T00:00:00.000Z"  # the UTC date of that moment
    assert updated["lead_segments"]["rooms"] == ["hall", "3"]
    refused = await api.post("/v2.0/contacts", key, json={"phone": PHONE, "lead_segments": {
        "budget": "a lot", "moveIn": "next week", "rooms": {"a": 1}, "notes": "fine"}})
    body = assert_error(refused, 400, "VALIDATION_ERROR")
    assert sorted(d["path"] for d in body["details"]) == ["lead_segments.budget", "lead_segments.moveIn",
                                                          "lead_segments.rooms"]
    assert {d["code"] for d in body["details"]} == {"INVALID_VALUE"}
    assert (await by_phone(api, key, PHONE))["lead_segments"]["notes"] == "42"  # the refused write applied nothing
    assert_error(await api.post("/v2.0/contacts", key, json={"phone": PHONE, "lead_segments": {"budget": True}}),
                 400, "VALIDATION_ERROR")
    # A moment whose UTC date falls outside the years 1-9999 is not a date either.
    for moment in ("0001-01-01T00:00:00+05:00", "9999-12-31T23:00:00-05:00"):
        body = assert_error(await api.post("/v2.0/contacts", key, json={"phone": PHONE, "lead_segments": {
            "moveIn": moment}}), 400, "VALIDATION_ERROR")
        assert body["details"][0]["path"] == "lead_segments.moveIn"


async def test_values_written_through_the_api_are_locked_per_field(api, tenant):
    key = tenant.legacy_key
    await make_category(api, key, "Hot")
    await make_insight(api, key, "budget", "number")
    await contact(api, key, PHONE, city="Pune")
    assert (await stored(tenant)).lead_locks == []
    await contact(api, key, PHONE, lead_category="hot", lead_segments={"budget": 10, "free": "x"})
    contact_doc = await stored(tenant)
    assert sorted(contact_doc.lead_locks) == ["lead_category", "lead_segments.budget", "lead_segments.free"]
    assert contact_doc.lead_categorized is True
    # Clearing a value releases its lock (a person letting the AI fill it again); others stay locked.
    await contact(api, key, PHONE, lead_category="", lead_segments={"budget": None})
    contact_doc = await stored(tenant)
    assert contact_doc.lead_locks == ["lead_segments.free"]
    assert contact_doc.lead_category is None and contact_doc.lead_segments == {"free": "x"}
    assert contact_doc.lead_categorized is True
    created = await contact(api, key, "14155552672", lead_category="HOT")
    assert created["lead_category"] == "Hot"
    assert (await stored(tenant, "14155552672")).lead_locks == ["lead_category"]
