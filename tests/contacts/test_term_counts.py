"""The per-term contact counts follow every write of `terms`, and the recount job repairs them."""
import asyncio

from bson import ObjectId


from leadline.jobs.contacts import recount_all_contact_terms
from leadline.models.contacts import ContactTermCount
from leadline.resolvers.chats.undeliverable import mark_undeliverable
from leadline.resolvers.contacts import term_counts
from leadline.resolvers.contacts.ensure import ensure_contact
from leadline.resolvers.contacts.terms import term
from tests.contacts.helpers import (make_field, make_tag, org_id, stored_term_counts, system_ctx,
                                    term_counts_of_contacts, upsert)
from tests.helpers import make_tenant


async def test_counts_follow_create_update_and_tag_delete(api, tenant, client):
    key, org = tenant.legacy_key, org_id(tenant)
    await make_field(api, key, fieldName="Plan")
    vip, late = await make_tag(api, key, "VIP"), await make_tag(api, key, "Late")
    gold, silver = term(org, "customFields.plan", "Gold"), term(org, "customFields.plan", "Silver")
    vip_t, late_t = term(org, "tags", ObjectId(vip["_id"])), term(org, "tags", ObjectId(late["_id"]))
    opted = term(org, "optedOut", True)
    await upsert(api, key, phone="14155552671", optedOut=True, customFields={"plan": "Gold"}, tags=[vip["_id"]])
    await upsert(api, key, phone="14155552672", optedOut=True, customFields={"plan": "Gold"},
                 tags=[vip["_id"], late["_id"]])
    counts = await stored_term_counts(org)
    assert (counts[gold], counts[vip_t], counts[late_t], counts[opted]) == (2, 2, 1, 2)
    assert counts == await term_counts_of_contacts(org)

    await upsert(api, key, phone="14155552671", optedOut=False, customFields={"plan": "Silver"}, tags=[late["_id"]])
    await upsert(api, key, phone="14155552672", notes="no term changes")
    counts = await stored_term_counts(org)
    assert (counts[gold], counts[silver], counts[vip_t], counts[late_t], counts[opted]) == (1, 1, 1, 2, 1)
    assert counts == await term_counts_of_contacts(org)

    assert (await api.call("DELETE", f"/v2.0/contacts/tags/{late['_id']}", key)).status == 200
    assert await term_counts.count_of(org, late_t) == 0
    assert await ContactTermCount.find_one_in(org, {"term": late_t}) is None
    assert await stored_term_counts(org) == await term_counts_of_contacts(org)

    # Another organisation's identical values count on their own.
    other = await make_tenant(client, name="Other")
    await make_field(api, other.legacy_key, fieldName="Plan")
    await upsert(api, other.legacy_key, phone="14155552671", customFields={"plan": "Gold"})
    assert await term_counts.count_of(org, gold) == 1
    assert await term_counts.count_of(org_id(other), term(org_id(other), "customFields.plan", "Gold")) == 1


async def test_chat_created_and_undeliverable_contacts_keep_counts_right(services, tenant):
    ctx, org = system_ctx(services, tenant), org_id(tenant)
    contact, created = await ensure_contact(ctx, "14155552671", name="Ada")
    assert created
    assert await term_counts.count_of(org, term(org, "auto_added", True)) == 1
    assert await term_counts.count_of(org, term(org, "contactName", "Ada")) == 1
    assert await mark_undeliverable(ctx, contact.id, None) is True
    assert await stored_term_counts(org) == await term_counts_of_contacts(org)


async def test_concurrent_first_uses_of_a_term_all_count(api, tenant):
    key, org = tenant.legacy_key, org_id(tenant)
    await make_field(api, key, fieldName="Plan")
    await asyncio.gather(*(upsert(api, key, phone=f"1415555{2600 + i}", customFields={"plan": "Fresh"})
                           for i in range(12)))
    assert await term_counts.count_of(org, term(org, "customFields.plan", "Fresh")) == 12
    assert await stored_term_counts(org) == await term_counts_of_contacts(org)


async def test_recount_job_repairs_corrupted_counts(api, tenant, client, services, run_worker):
    key, org = tenant.legacy_key, org_id(tenant)
    await make_field(api, key, fieldName="Plan")
    for i in range(6):
        await upsert(api, key, phone=f"1415555{2671 + i}", customFields={"plan": f"p{i % 2}"}, optedOut=i < 2)
    expected = await term_counts_of_contacts(org)
    collection = ContactTermCount.get_pymongo_collection()
    p0, opted = term(org, "customFields.plan", "p0"), term(org, "optedOut", True)
    await collection.update_one({"org_id": org, "term": p0}, {"$set": {"total": 999}})
    await collection.delete_one({"org_id": org, "term": opted})
    await collection.insert_one({"org_id": org, "term": f"{org}|city|s:Nowhere", "total": 5})
    assert await stored_term_counts(org) != expected

    other = await make_tenant(client, name="Other")
    await upsert(api, other.legacy_key, phone="14155552671", optedOut=True)
    # The nightly fan-out offers one recount per organisation with contacts; the worker runs them.
    assert await recount_all_contact_terms({"services": services}) == 2
    assert await run_worker() == 2
    assert await stored_term_counts(org) == expected
    assert await term_counts.count_of(org, p0) == 3 and await term_counts.count_of(org, opted) == 2
    assert await ContactTermCount.find_one_in(org, {"term": f"{org}|city|s:Nowhere"}) is None
    # Idempotent: a second run finds nothing to change.
    assert await term_counts.recount(org) == {"terms": len(expected), "fixed": 0, "removed": 0}
