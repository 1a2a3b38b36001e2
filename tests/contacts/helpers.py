"""Small builders shared by the contacts tests (all through HTTP)."""
from __future__ import annotations

from bson import ObjectId


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
