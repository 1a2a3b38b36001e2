"""The queries the scale target depends on use an index (SecantusDB `explain`), and give the right rows."""
from leadline.models.contacts import Contact, ContactTermCount
from leadline.resolvers.contacts.filters import build_filter
from leadline.resolvers.contacts.terms import term
from tests.contacts.helpers import make_field, make_tag, org_id, upsert
from tests.helpers import winning_plan


async def _seed(api, tenant):
    key = tenant.legacy_key
    await make_field(api, key, fieldName="Plan")
    tag = await make_tag(api, key, "VIP")
    await upsert(api, key, phone="14155552671", optedOut=True, customFields={"plan": "Gold"}, tags=[tag["_id"]])
    await upsert(api, key, phone="14155552672", customFields={"plan": "Silver"})
    return tag


async def test_exact_tag_custom_value_and_phone_lookups_use_an_index(api, tenant):
    tag = await _seed(api, tenant)
    org = org_id(tenant)
    cases = {
        "exact field": {"optedOut": True},
        "array of values": {"country": ["IN", "US"]},
        "tag": {"tags": tag["_id"]},
        "custom value": {"customFields.plan": ["Gold"]},
        "custom number": {"customFields.plan": 5},
    }
    for name, flt in cases.items():
        plan = await winning_plan(Contact, build_filter(org, flt))
        assert "IXSCAN" in plan and "'org_id_1_terms_1_seq_-1'" in plan and "COLLSCAN" not in plan, (name, plan)
    phone = await winning_plan(Contact, {"org_id": org, "phone": "14155552671"})
    assert "IXSCAN" in phone and "org_id_1_phone_1" in phone
    page = await winning_plan(Contact, {"org_id": org, "seq": {"$gt": 100, "$lte": 200}}, [("seq", -1)])
    assert "IXSCAN" in page and "org_id_1_seq_-1" in page


async def test_single_term_filter_reads_are_index_scans(api, tenant):
    """The fast path's two reads: a seq window of one term, and the term's maintained count."""
    await _seed(api, tenant)
    org = org_id(tenant)
    opted = term(org, "optedOut", True)
    window = await winning_plan(Contact, {"org_id": org, "terms": opted, "seq": {"$gte": 0, "$lt": 3}})
    assert "IXSCAN" in window and "'org_id_1_terms_1_seq_-1'" in window and "COLLSCAN" not in window, window
    count = await winning_plan(ContactTermCount, {"org_id": org, "term": opted})
    assert "IXSCAN" in count and "'org_id_1_term_1'" in count and "COLLSCAN" not in count, count


async def test_the_indexed_lookup_returns_only_this_organisations_rows(api, tenant):
    tag = await _seed(api, tenant)
    org = org_id(tenant)
    rows = await Contact.get_pymongo_collection().find(build_filter(org, {"optedOut": True})).to_list()
    assert [r["phone"] for r in rows] == ["14155552671"]
    rows = await Contact.get_pymongo_collection().find(
        build_filter(org, {"tags": [tag["_id"]], "customFields.plan": "gol"})).to_list()
    assert [r["phone"] for r in rows] == ["14155552671"]


def test_several_clauses_lead_with_the_most_selective_exact_one():
    from bson import ObjectId

    org, tag = ObjectId(), ObjectId()
    query = build_filter(org, {"contactName": "ada", "optedOut": False, "tags": str(tag),
                               "customFields.plan": ["Gold"]})
    assert list(query)[:2] == ["terms", "org_id"]
    assert query["terms"] == f"{org}|tags|o:{tag}"
    assert query["optedOut"] is False and query["customFields.plan"] == "Gold"
    assert query["contactName"] == {"$regex": "ada", "$options": "i"}
    assert build_filter(org, {"contactName": "ada"}) == {"org_id": org, "contactName": {"$regex": "ada", "$options": "i"}}
