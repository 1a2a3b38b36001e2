"""GET /v2.0/chats/conversations: order, archived filter, search, pagination, errors, scope, isolation."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from bson import ObjectId

from leadline.models.chats import Conversation
from tests.chats.support import BRAND, deliver, inbound
from tests.helpers import assert_error, make_tenant

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)


async def row(tenant, name: str | None, phone: str, minutes: int | None, **fields) -> Conversation:
    conversation = Conversation.new(ObjectId(tenant.org_id), contact_id=ObjectId(), brand_number=BRAND, phone=phone,
                                    contact_name=name, last_message=f"hi from {name}",
                                    last_message_at=None if minutes is None else T0 + timedelta(minutes=minutes),
                                    **fields)
    await conversation.insert()
    return conversation


async def names(api, key, **params) -> list[str | None]:
    resp = await api.get("/v2.0/chats/conversations", key, params=params)
    assert resp.status == 200, resp.body
    return [r["contactName"] for r in resp.body["data"]]


async def test_most_recent_first_with_the_archived_filter(api, tenant, reader):
    await row(tenant, "Old", "447911000001", 1)
    await row(tenant, "New", "447911000002", 30)
    await row(tenant, "Archived", "447911000003", 20, is_archived=True)
    await row(tenant, "Silent", "447911000004", None)
    assert await names(api, reader) == ["New", "Archived", "Old", "Silent"]
    assert await names(api, reader, archived="true") == ["Archived"]
    assert await names(api, reader, archived="false") == ["New", "Old", "Silent"]


async def test_the_row_fields(api, tenant, reader):
    saved = await row(tenant, "Ann", "447911000001", 5, unread_count=2, is_pinned=True, summary="wants a refund")
    resp = await api.get("/v2.0/chats/conversations", reader)
    assert resp.body["data"] == [{
        "conversationId": str(saved.id), "contactId": str(saved.contact_id), "phone": "447911000001",
        "contactName": "Ann", "brandNumber": BRAND, "lastMessage": "hi from Ann",
        "lastMessageAt": "2026-03-01T12:05:00.000Z", "unreadCount": 2, "isArchived": False, "isMuted": False,
        "isPinned": True, "isStarred": False, "summary": "wants a refund",
        "createdAt": resp.body["data"][0]["createdAt"],
        "assignedAgentId": None, "assignedTeamId": None, "inboxStatus": "open"}]
    assert resp.body["pagination"] == {"page": 1, "limit": 20, "total": 1, "totalPages": 1, "hasNext": False}


async def test_search_by_name_or_phone_case_insensitively(api, tenant, reader):
    await row(tenant, "Anna Smith", "447911000001", 1)
    await row(tenant, "Bob", "447911222333", 2)
    await row(tenant, "JOANNA", "447911000003", 3, is_archived=True)
    await row(tenant, None, "15550104444", 4)
    assert await names(api, reader, search="anna") == ["JOANNA", "Anna Smith"]
    assert await names(api, reader, search="ANNA", archived="false") == ["Anna Smith"]
    assert await names(api, reader, search="222 333") == ["Bob"]
    assert await names(api, reader, search="+1 555 010") == [None]
    assert await names(api, reader, search="nobody") == []
    resp = await api.get("/v2.0/chats/conversations", reader, params={"search": "a", "limit": 1, "page": 2})
    assert [r["contactName"] for r in resp.body["data"]] == ["Anna Smith"]
    assert resp.body["pagination"] == {"page": 2, "limit": 1, "total": 2, "totalPages": 2, "hasNext": False}


async def test_pages(api, tenant, reader):
    for i in range(25):
        await row(tenant, f"c{i:02d}", f"4479110000{i:02d}", i)
    first = await api.get("/v2.0/chats/conversations", reader)
    assert len(first.body["data"]) == 20 and first.body["data"][0]["contactName"] == "c24"
    assert first.body["pagination"] == {"page": 1, "limit": 20, "total": 25, "totalPages": 2, "hasNext": True}
    assert await names(api, reader, page=2) == [f"c{i:02d}" for i in range(4, -1, -1)]
    assert await names(api, reader, page=3, limit=10) == ["c04", "c03", "c02", "c01", "c00"]
    assert await names(api, reader, page=9) == []


@pytest.mark.parametrize("params", [{"limit": "0"}, {"limit": "101"}, {"page": "0"}, {"archived": "perhaps"},
                                    {"search": "x" * 101}])
async def test_bad_parameters(api, tenant, reader, params):
    assert_error(await api.get("/v2.0/chats/conversations", reader, params=params), 400, "VALIDATION_ERROR")


async def test_scope_and_tenant_isolation(api, client, tenant, reader, brand, run_worker):
    await deliver(api, run_worker, inbound("mine"))
    assert await names(api, reader) == ["Ann"]
    refused = assert_error(await api.get("/v2.0/chats/conversations", await tenant.key("contacts:read")), 403,
                           "INSUFFICIENT_SCOPE", marker="error")
    assert refused["required_scope"] == "chats:read"
    other = await make_tenant(client, name="Other")
    theirs = await other.key("chats:read")
    assert await names(api, theirs) == []
    assert await names(api, theirs, search="Ann") == []
