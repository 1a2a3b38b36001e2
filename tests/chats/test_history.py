"""GET /v2.0/chats/history: identifiers, cursor walk (ties included), filters, window, errors, scope."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from bson import ObjectId

from leadline.models.chats import ChatMessage, Conversation
from tests.chats.support import BRAND, CUSTOMER
from tests.helpers import assert_error, make_tenant

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)


async def new_contact(api, tenant, phone: str = CUSTOMER) -> ObjectId:
    created = await api.post("/v2.0/contacts", tenant.legacy_key, json={"phone": phone})
    assert created.status == 201, created.body
    return ObjectId(created.body["data"]["_id"])


async def seed(tenant, contact_id, times: list[datetime], **fields) -> list[ChatMessage]:
    messages = []
    for i, at in enumerate(times):
        message = ChatMessage.new(ObjectId(tenant.org_id), brand_number=fields.get("brand_number", BRAND),
                                  contact_id=contact_id, phone=CUSTOMER, direction=fields.get("direction", "inbound"),
                                  status="received", type="text", text=fields.get("text", f"m{i}"),
                                  internal=fields.get("internal", False), created_at=at, updated_at=at)
        await message.insert()
        messages.append(message)
    return messages


async def walk(api, key, limit: int, **params) -> tuple[list[str], list[int]]:
    """Every page from the newest: (message ids in order, page sizes)."""
    ids, sizes, before = [], [], None
    for _ in range(50):
        query = {"phone": CUSTOMER, "limit": limit, **params, **({"before": before} if before else {})}
        resp = await api.get("/v2.0/chats/history", key, params=query)
        assert resp.status == 200, resp.body
        page = resp.body["data"]["messages"]
        ids += [m["messageId"] for m in page]
        sizes.append(len(page))
        before = resp.body["pagination"]["nextCursor"]
        assert resp.body["pagination"]["hasMore"] is (before is not None)
        if before is None:
            return ids, sizes
    raise AssertionError("the cursor never ended")


async def test_newest_first_and_the_cursor_visits_every_message_once(api, tenant, reader):
    contact_id = await new_contact(api, tenant)
    seeded = await seed(tenant, contact_id, [T0 + timedelta(minutes=i) for i in range(25)])
    ids, sizes = await walk(api, reader, 10)
    assert ids == [str(m.id) for m in reversed(seeded)] and sizes == [10, 10, 5]
    default = await api.get("/v2.0/chats/history", reader, params={"phone": CUSTOMER})
    assert len(default.body["data"]["messages"]) == 20
    assert default.body["pagination"]["nextCursor"] == "2026-03-01T12:05:00.000Z"


async def test_messages_sharing_a_timestamp_are_never_skipped_at_a_page_edge(api, tenant, reader):
    contact_id = await new_contact(api, tenant)
    times = [T0 + timedelta(seconds=s) for s in (9, 8, 7, 7, 7, 7, 7, 3, 3, 1)]
    seeded = await seed(tenant, contact_id, times)
    for limit in (1, 2, 3, 4, 6):
        ids, sizes = await walk(api, reader, limit)
        assert sorted(ids) == sorted(str(m.id) for m in seeded) and len(ids) == len(set(ids)), limit
        assert max(sizes) <= max(limit, 5)  # only a group larger than the page exceeds it


async def test_before_brand_number_and_exclude_internal(api, tenant, reader):
    contact_id = await new_contact(api, tenant)
    await seed(tenant, contact_id, [T0, T0 + timedelta(minutes=1)])
    await seed(tenant, contact_id, [T0 + timedelta(minutes=2)], brand_number="15550002222", text="other number")
    await seed(tenant, contact_id, [T0 + timedelta(minutes=3)], internal=True, text="agent note")

    def texts(resp):
        assert resp.status == 200, resp.body
        return [m["text"] for m in resp.body["data"]["messages"]]

    get = lambda **p: api.get("/v2.0/chats/history", reader, params={"phone": CUSTOMER, **p})  # noqa: E731
    assert texts(await get()) == ["agent note", "other number", "m1", "m0"]
    assert texts(await get(excludeInternal="true")) == ["other number", "m1", "m0"]
    assert texts(await get(brandNumber="+1 555 000 1111")) == ["agent note", "m1", "m0"]
    assert texts(await get(before="2026-03-01T12:01:00Z")) == ["m0"]
    assert texts(await get(before="2026-03-01T13:01:00+01:00")) == ["m0"]
    internal = (await get(limit=1)).body["data"]["messages"][0]
    assert internal["internal"] is True and internal["direction"] == "inbound"


async def test_by_contact_id_with_the_window_and_contact_block(api, tenant, reader):
    contact_id = await new_contact(api, tenant)
    resp = await api.get("/v2.0/chats/history", reader, params={"contactId": str(contact_id)})
    assert resp.status == 200
    assert resp.body["data"] == {"contact": {"contactId": str(contact_id), "phone": CUSTOMER, "bsuid": None,
                                             "contactName": None,
                                             "window": {"open": False, "lastInboundAt": None, "closesAt": None}},
                                 "messages": []}
    recent = datetime.now(timezone.utc) - timedelta(hours=1)
    for brand, at in ((BRAND, recent), ("15550002222", recent - timedelta(hours=30))):
        await Conversation.new(ObjectId(tenant.org_id), contact_id=contact_id, brand_number=brand,
                               last_inbound_at=at).insert()
    window = (await api.get("/v2.0/chats/history", reader,
                            params={"contactId": str(contact_id)})).body["data"]["contact"]["window"]
    assert window["open"] is True
    closed = (await api.get("/v2.0/chats/history", reader, params={"contactId": str(contact_id),
                                                                   "brandNumber": "15550002222"}))
    assert closed.body["data"]["contact"]["window"]["open"] is False


async def test_local_numbers_take_the_default_country_code(api, tenant, reader):
    await new_contact(api, tenant)
    resp = await api.get("/v2.0/chats/history", reader, params={"phone": "07911 123456", "defaultCountryCode": "44"})
    assert resp.status == 200 and resp.body["data"]["contact"]["phone"] == CUSTOMER


@pytest.mark.parametrize("params, status, code", [
    ({}, 400, "IDENTIFIER_REQUIRED"),
    ({"phone": "  "}, 400, "IDENTIFIER_REQUIRED"),
    ({"phone": "447911123457"}, 404, "CONTACT_NOT_FOUND"),
    ({"contactId": str(ObjectId())}, 404, "CONTACT_NOT_FOUND"),
    ({"contactId": "not-an-id"}, 404, "CONTACT_NOT_FOUND"),
    ({"phone": CUSTOMER, "before": "yesterday"}, 400, "INVALID_BEFORE"),
    ({"phone": CUSTOMER, "limit": "0"}, 400, "VALIDATION_ERROR"),
    ({"phone": CUSTOMER, "limit": "101"}, 400, "VALIDATION_ERROR"),
    ({"phone": CUSTOMER, "limit": "ten"}, 400, "VALIDATION_ERROR"),
    ({"phone": CUSTOMER, "excludeInternal": "maybe"}, 400, "VALIDATION_ERROR"),
    ({"phone": "12"}, 404, "CONTACT_NOT_FOUND"),
])
async def test_errors(api, tenant, reader, params, status, code):
    await new_contact(api, tenant)
    assert_error(await api.get("/v2.0/chats/history", reader, params=params), status, code)


async def test_limits_at_the_edges_are_accepted(api, tenant, reader):
    await new_contact(api, tenant)
    for limit in ("1", "100"):
        resp = await api.get("/v2.0/chats/history", reader, params={"phone": CUSTOMER, "limit": limit})
        assert resp.status == 200 and resp.body["pagination"]["limit"] == int(limit)


async def test_scope_and_another_organisation(api, client, tenant, reader):
    contact_id = await new_contact(api, tenant)
    await seed(tenant, contact_id, [T0])
    writer = await tenant.key("contacts:read,messages:read")
    refused = assert_error(await api.get("/v2.0/chats/history", writer, params={"phone": CUSTOMER}), 403,
                           "INSUFFICIENT_SCOPE", marker="error")
    assert refused["required_scope"] == "chats:read"
    assert_error(await api.get("/v2.0/chats/history", params={"phone": CUSTOMER}), 401, "API_KEY_MISSING")
    other = await make_tenant(client, name="Other")
    theirs = await other.key("chats:read")
    assert_error(await api.get("/v2.0/chats/history", theirs, params={"phone": CUSTOMER}), 404, "CONTACT_NOT_FOUND")
    assert_error(await api.get("/v2.0/chats/history", theirs, params={"contactId": str(contact_id)}), 404,
                 "CONTACT_NOT_FOUND")
    # Their own contact with the same phone sees only their (empty) history.
    await new_contact(api, other)
    resp = await api.get("/v2.0/chats/history", theirs, params={"phone": CUSTOMER})
    assert resp.status == 200 and resp.body["data"]["messages"] == []
