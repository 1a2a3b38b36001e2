"""Small builders shared by the contacts tests (HTTP, plus direct resolver calls and count checks)."""
from __future__ import annotations

from collections import Counter

from bson import ObjectId

from leadline.models.contacts import Contact, ContactTermCount
from leadline.resolvers.context import OrgSnapshot, RequestContext


async def make_field(api, key: str, **body) -> dict:
    resp = await api.post("/v2.0/contacts/custom_fields", key, json=body)
    assert resp.status == 201, resp.body
    return resp.body["data"]


async def make_tag(api, key: str, name: str) -> dict:
    resp = await api.post("/v2.0/contacts/tags", key, json={"name": name})
    assert resp.status == 201, resp.body
    return resp.body["data"]


async def upsert(api, key: str, **body) -> dict:
    resp = await api.post("/v2.0/contacts", key, json=body)
    assert resp.status in (200, 201), resp.body
    return resp.body["data"]


def org_id(tenant) -> ObjectId:
    return ObjectId(tenant.org_id)


def system_ctx(services, tenant):
    """A job-style context of the tenant's organisation, for calling resolvers directly."""
    return RequestContext.system(services, OrgSnapshot(org_id(tenant), "Acme", "business", "UTC", True, ()))


async def stored_term_counts(org: ObjectId) -> dict[str, int]:
    """The maintained counts of the organisation (zero counts are left for the recount to remove)."""
    docs = await ContactTermCount.get_pymongo_collection().find({"org_id": org}).to_list()
    return {d["term"]: d["total"] for d in docs if d["total"] != 0}


async def term_counts_of_contacts(org: ObjectId) -> dict[str, int]:
    """What the counts should be, counted here from the contacts themselves."""
    counted: Counter = Counter()
    for contact in await Contact.find_in(org).to_list():
        counted.update(contact.terms)
    return dict(counted)
