"""Lead categories: by name case-insensitively, the rename cascade, delete with reassignment."""
from __future__ import annotations

from bson import ObjectId

from leadline.models.contacts import Contact
from tests.contacts.helpers import stored_term_counts, term_counts_of_contacts
from tests.helpers import assert_error
from tests.leads.helpers import CATEGORIES, SEGMENTATION, by_phone, contact, followup, make_category

PHONES = ["14155552671", "14155552672", "14155552673"]


async def test_create_list_and_get_by_name_in_any_case(api, tenant):
    key = tenant.legacy_key
    created = await api.post(CATEGORIES, key, json={"name": "  Hot   lead ", "description": "Ready to buy",
                                                    "followups": [followup(600, "Shall I book it?")]})
    assert created.status == 201, created.body
    assert created.body["data"] == {"name": "Hot lead", "description": "Ready to buy", "fuDisabled": False,
                                    "followups": [{"delay": 600, "prompt": "Shall I book it?", "active": True}]}
    await make_category(api, key, "Cold", fuDisabled=True)
    listing = await api.get(CATEGORIES, key)
    assert listing.status == 200, listing.body
    assert [c["name"] for c in listing.body["data"]] == ["Hot lead", "Cold"]
    assert listing.body["meta"] == {"total": 2, "categorizationEnabled": False}
    one = await api.get(f"{CATEGORIES}/HOT%20LEAD", key)
    assert one.status == 200 and one.body["data"]["name"] == "Hot lead"
    assert (await api.get(f"{CATEGORIES}/cold", key)).body["data"]["fuDisabled"] is True
    assert_error(await api.get(f"{CATEGORIES}/warm", key), 404, "CATEGORY_NOT_FOUND")


async def test_create_refusals(api, tenant):
    key = tenant.legacy_key
    await make_category(api, key, "hot")
    assert_error(await api.post(CATEGORIES, key, json={"name": "HOT", "description": ""}), 409, "CATEGORY_EXISTS")
    body = assert_error(await api.post(CATEGORIES, key, json={"description": "x"}), 400, "VALIDATION_ERROR")
    assert body["details"][0] == {"path": "name", "code": "REQUIRED", "message": "name is required"}
    assert_error(await api.post(CATEGORIES, key, json={"name": "   "}), 400, "VALIDATION_ERROR")
    assert_error(await api.post(CATEGORIES, key, json={"name": "a/b"}), 400, "VALIDATION_ERROR")
    assert_error(await api.post(CATEGORIES, key, json={"name": "x" * 65}), 400, "VALIDATION_ERROR")
    bad = await api.post(CATEGORIES, key, json={"name": "Warm", "followups": [{"delay": -1, "prompt": "p"},
                                                                             {"delay": 1, "prompt": " "}]})
    body = assert_error(bad, 400, "VALIDATION_ERROR")
    assert [(d["path"], d["code"]) for d in body["details"]] == [("followups[0].delay", "OUT_OF_RANGE"),
                                                                 ("followups[1].prompt", "REQUIRED")]
    assert_error(await api.post(CATEGORIES, key, json={"name": "Warm", "fuDisabled": "no"}), 400, "VALIDATION_ERROR")
    assert [c["name"] for c in (await api.get(CATEGORIES, key)).body["data"]] == ["hot"]


async def test_patch_changes_description_and_flag(api, tenant):
    key = tenant.legacy_key
    await make_category(api, key, "Hot", followups=[followup()])
    patched = await api.call("PATCH", f"{CATEGORIES}/hot", key, json={"description": "now", "fuDisabled": True})
    assert patched.status == 200, patched.body
    assert patched.body["data"] == {"name": "Hot", "description": "now", "fuDisabled": True,
                                    "followups": [followup()]}
    assert patched.body["meta"] == {"contactsUpdated": 0}
    assert_error(await api.call("PATCH", f"{CATEGORIES}/warm", key, json={"description": "x"}), 404,
                 "CATEGORY_NOT_FOUND")
    assert_error(await api.call("PATCH", f"{CATEGORIES}/hot", key, json={"followups": []}), 400, "VALIDATION_ERROR")


async def test_a_rename_moves_every_contact_of_the_category(api, tenant):
    key = tenant.legacy_key
    await make_category(api, key, "Hot")
    await make_category(api, key, "Cold")
    for phone in PHONES[:2]:
        await contact(api, key, phone, lead_category="hot")
    await contact(api, key, PHONES[2], lead_category="Cold")
    renamed = await api.call("PATCH", f"{CATEGORIES}/HOT", key, json={"name": "Qualified"})
    assert renamed.status == 200, renamed.body
    assert renamed.body["data"]["name"] == "Qualified" and renamed.body["meta"] == {"contactsUpdated": 2}
    assert [(await by_phone(api, key, p))["lead_category"] for p in PHONES] == ["Qualified", "Qualified", "Cold"]
    # The filter (exact terms) and its totals follow the rename.
    found = await api.post("/v2.0/contacts/filter", key, json={"filter": {"lead_category": ["Qualified"]}})
    assert found.body["pagination"]["total"] == 2 and len(found.body["data"]) == 2
    gone = await api.post("/v2.0/contacts/filter", key, json={"filter": {"lead_category": ["Hot"]}})
    assert gone.body["data"] == [] and gone.body["pagination"]["total"] == 0
    org = ObjectId(tenant.org_id)
    assert await stored_term_counts(org) == await term_counts_of_contacts(org)
    # A case-only rename is a rename too; a rename onto another category's name is refused.
    cased = await api.call("PATCH", f"{CATEGORIES}/qualified", key, json={"name": "QUALIFIED"})
    assert cased.body["meta"] == {"contactsUpdated": 2}
    assert_error(await api.call("PATCH", f"{CATEGORIES}/qualified", key, json={"name": "cold"}), 409, "CATEGORY_EXISTS")
    assert (await by_phone(api, key, PHONES[0]))["lead_category"] == "QUALIFIED"
    # Later contact writes still see consistent terms (the versioned update was bumped by the cascade).
    await contact(api, key, PHONES[0], city="Paris")
    assert await stored_term_counts(org) == await term_counts_of_contacts(org)


async def test_a_rename_inside_a_put_is_not_cascaded(api, tenant):
    key = tenant.legacy_key
    await make_category(api, key, "Hot")
    await contact(api, key, PHONES[0], lead_category="Hot")
    put = await api.call("PUT", SEGMENTATION, key, json={"categories": [{"name": "Qualified", "description": ""}]})
    assert put.status == 200, put.body
    # The dropped category stays on its contacts.
    assert (await by_phone(api, key, PHONES[0]))["lead_category"] == "Hot"


async def test_delete_refuses_while_contacts_use_it(api, tenant):
    key = tenant.legacy_key
    await make_category(api, key, "Hot")
    await make_category(api, key, "Empty")
    for phone in PHONES[:2]:
        await contact(api, key, phone, lead_category="Hot")
    body = assert_error(await api.call("DELETE", f"{CATEGORIES}/hot", key), 409, "CATEGORY_IN_USE")
    assert body["details"] == {"contactCount": 2}
    deleted = await api.call("DELETE", f"{CATEGORIES}/EMPTY", key)
    assert deleted.status == 200, deleted.body
    assert deleted.body["data"] == {"name": "Empty", "reassignedTo": None, "contactsUpdated": 0}
    assert_error(await api.call("DELETE", f"{CATEGORIES}/empty", key), 404, "CATEGORY_NOT_FOUND")
    assert [c["name"] for c in (await api.get(CATEGORIES, key)).body["data"]] == ["Hot"]


async def test_delete_with_reassignment_moves_the_contacts_first(api, tenant):
    key = tenant.legacy_key
    for name in ("Hot", "Warm"):
        await make_category(api, key, name)
    for phone in PHONES[:2]:
        await contact(api, key, phone, lead_category="Hot")
    assert_error(await api.call("DELETE", f"{CATEGORIES}/hot", key, params={"reassignTo": "nope"}), 404,
                 "CATEGORY_NOT_FOUND")
    assert_error(await api.call("DELETE", f"{CATEGORIES}/hot", key, params={"reassignTo": "HOT"}), 400,
                 "VALIDATION_ERROR")
    assert (await by_phone(api, key, PHONES[0]))["lead_category"] == "Hot"  # refusals moved nothing
    deleted = await api.call("DELETE", f"{CATEGORIES}/hot", key, params={"reassignTo": "warm"})
    assert deleted.status == 200, deleted.body
    assert deleted.body["data"] == {"name": "Hot", "reassignedTo": "Warm", "contactsUpdated": 2}
    assert [(await by_phone(api, key, p))["lead_category"] for p in PHONES[:2]] == ["Warm", "Warm"]
    assert [c["name"] for c in (await api.get(CATEGORIES, key)).body["data"]] == ["Warm"]
    org = ObjectId(tenant.org_id)
    assert await stored_term_counts(org) == await term_counts_of_contacts(org)


async def test_delete_with_an_empty_reassignment_clears_the_contacts(api, tenant):
    key = tenant.legacy_key
    await make_category(api, key, "Hot")
    await contact(api, key, PHONES[0], lead_category="Hot", city="Pune")
    deleted = await api.call("DELETE", f"{CATEGORIES}/hot?reassignTo=", key)
    assert deleted.status == 200, deleted.body
    assert deleted.body["data"] == {"name": "Hot", "reassignedTo": None, "contactsUpdated": 1}
    cleared = await by_phone(api, key, PHONES[0])
    assert cleared["lead_category"] is None and cleared["city"] == "Pune"
    org = ObjectId(tenant.org_id)
    assert await stored_term_counts(org) == await term_counts_of_contacts(org)
    stored = await Contact.find_one_in(org, {"phone": PHONES[0]})
    assert stored.lead_categorized is True  # it had a category once


async def test_contacts_carrying_another_spelling_are_in_the_category(api, tenant, settings):
    """A PUT that changes a category's case is not cascaded: its contacts keep the old spelling, and are
    still in the category (names match case-insensitively) for the delete check, the moves and the snapshot."""
    from tests.insights.support import SNAPSHOTS, run_rollups

    key = tenant.legacy_key
    await make_category(api, key, "hot lead")
    await contact(api, key, PHONES[0], lead_category="hot lead")
    put = await api.call("PUT", SEGMENTATION, key, json={"categories": [{"name": "Hot Lead"}, {"name": "Cold"}]})
    assert put.status == 200, put.body
    await contact(api, key, PHONES[1], lead_category="HOT LEAD")  # stored as the configured spelling
    assert [(await by_phone(api, key, p))["lead_category"] for p in PHONES[:2]] == ["hot lead", "Hot Lead"]
    await run_rollups(settings, tenant.org_id)
    [snapshot] = (await api.get(SNAPSHOTS, key)).body["data"]
    assert snapshot["stageCounts"] == {"Hot Lead": 2, "Cold": 0}
    body = assert_error(await api.call("DELETE", f"{CATEGORIES}/hot%20lead", key), 409, "CATEGORY_IN_USE")
    assert body["details"] == {"contactCount": 2}
    renamed = await api.call("PATCH", f"{CATEGORIES}/HOT%20lead", key, json={"name": "Qualified"})
    assert renamed.body["meta"] == {"contactsUpdated": 2}
    assert [(await by_phone(api, key, p))["lead_category"] for p in PHONES[:2]] == ["Qualified", "Qualified"]
    org = ObjectId(tenant.org_id)
    assert await stored_term_counts(org) == await term_counts_of_contacts(org)
    # Back to two spellings, then a delete reassigning both.
    await api.call("PUT", SEGMENTATION, key, json={"categories": [{"name": "QUALIFIED"}, {"name": "Cold"}]})
    deleted = await api.call("DELETE", f"{CATEGORIES}/qualified", key, params={"reassignTo": "cold"})
    assert deleted.body["data"] == {"name": "QUALIFIED", "reassignedTo": "Cold", "contactsUpdated": 2}
    assert [(await by_phone(api, key, p))["lead_category"] for p in PHONES[:2]] == ["Cold", "Cold"]
    assert await stored_term_counts(org) == await term_counts_of_contacts(org)
