"""ensure_contact: the find-or-create used for chat senders and recipients."""
from __future__ import annotations

from bson import ObjectId

from leadline.models.contacts import Contact, ContactCounter
from leadline.models.events import DomainEvent
from leadline.resolvers.contacts.ensure import ensure_contact
from leadline.resolvers.context import OrgSnapshot, RequestContext


def _ctx(services, org_id: str, plan: str = "business") -> RequestContext:
    return RequestContext.system(services, OrgSnapshot(ObjectId(org_id), "Acme", plan, "UTC", True, ()))


async def test_creates_once_and_records_the_event(services, tenant):
    ctx = _ctx(services, tenant.org_id)
    contact, created = await ensure_contact(ctx, "+1 555 010 2030", name="Ada", bsuid="US.abc123")
    assert created and contact.auto_added and contact.contactName == "Ada" and contact.bsuid == "US.abc123"
    assert contact.phone == "15550102030" and contact.countryCode == "1"
    again, created_again = await ensure_contact(ctx, "15550102030", name="Someone else")
    assert (again.id, created_again, again.contactName) == (contact.id, False, "Ada")
    events = await DomainEvent.find_in(ctx, {"kind": "contact.created"}).to_list()
    assert len(events) == 1 and events[0].payload["auto_added"] is True


async def test_no_phone_or_full_plan_keeps_going_without_a_contact(services, tenant):
    assert await ensure_contact(_ctx(services, tenant.org_id), None) == (None, False)
    free = _ctx(services, tenant.org_id, plan="free")  # max_contacts 1,000
    await ContactCounter.get_pymongo_collection().update_one(
        {"org_id": ObjectId(tenant.org_id)}, {"$set": {"total": 1000}}, upsert=True)
    assert await ensure_contact(free, "447700900123") == (None, False)
    assert await Contact.count_in(ObjectId(tenant.org_id)) == 0


async def test_an_organisations_first_contacts_created_concurrently_all_succeed(services, tenant):
    import asyncio

    ctx = _ctx(services, tenant.org_id)
    results = await asyncio.gather(*(ensure_contact(ctx, f"4477009001{i:02d}") for i in range(20)))
    assert all(contact is not None and created for contact, created in results)
    assert await Contact.count_in(ObjectId(tenant.org_id)) == 20
    seqs = sorted(contact.seq for contact, _ in results)
    assert seqs == list(range(1, 21))
