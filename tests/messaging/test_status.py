"""GET /v2.0/chatapp/message/status, and the sandbox's round trip through the webhook ingestion path."""
from __future__ import annotations

import asyncio
import time

from bson import ObjectId

from leadline.models.chats import ChatMessage
from leadline.models.contacts import Contact
from leadline.models.events import DomainEvent
from leadline.resolvers.webhooks.dispatch import ingestion_stream
from tests.helpers import assert_error, make_tenant
from tests.messaging.support import PHONE, UNDELIVERABLE_PHONE, seed_template, send_body
from tests.templates.support import BRAND, connect_brand

STATUS = "/v2.0/chatapp/message/status"


async def send(api, key, **overrides) -> str:
    resp = await api.post("/v2.0/chatapp/send", key, json=send_body(**overrides))
    assert resp.status == 200, resp.body
    return resp.body["data"]["messageId"]


async def status_of(api, key, message_id: str, brand: str = BRAND, **params):
    return await api.get(STATUS, key, params={"messageId": message_id, "brandNumber": brand, **params})


async def test_sandbox_round_trip_sent_delivered_read(api, tenant, brand, sender, reader, run_worker, services):
    await seed_template(tenant)
    message_id = await send(api, sender)
    first = await status_of(api, reader, message_id)
    assert first.status == 200, first.body
    assert first.body["data"]["status"] == "accepted"
    assert first.body["data"]["timestamps"]["sent"] is None

    # The three statuses wait in the ingestion queue, each for its time.
    assert await ingestion_stream(services).backlog() == 3
    started = time.monotonic()
    await run_worker()
    assert time.monotonic() - started < 2.0 + 1.0

    data = (await status_of(api, reader, message_id)).body["data"]
    assert data["status"] == "read", data
    assert data["messageId"] == message_id and data["recipient"] == PHONE and data["brandNumber"] == BRAND
    assert data["cmid"].startswith("wamid.") and data["error"] is None
    assert all(data["timestamps"][k] for k in ("accepted", "sent", "delivered", "read"))
    kinds = await DomainEvent.find_in(ObjectId(tenant.org_id), {"kind": "chatapp.message_status"}).to_list()
    assert sorted(e.payload.get("status") for e in kinds) == ["delivered", "read", "sent"]


async def test_a_999_number_fails_with_the_undeliverable_code(api, tenant, brand, sender, reader, run_worker):
    await seed_template(tenant)
    message_id = await send(api, sender, to=UNDELIVERABLE_PHONE)  # the send itself is accepted
    await run_worker()
    data = (await status_of(api, reader, message_id)).body["data"]
    assert data["status"] == "failed" and data["error"]["code"] == 131026, data
    assert data["timestamps"]["failed"] and data["timestamps"]["sent"] is None
    contact = await Contact.find_one_in(ObjectId(tenant.org_id), {"phone": UNDELIVERABLE_PHONE})
    assert contact.chatapp_undeliverable is True


async def test_unknown_foreign_and_other_number_ids_are_not_found(api, tenant, brand, sender, reader, client):
    await seed_template(tenant)
    message_id = await send(api, sender)
    other = await make_tenant(client, name="Other")
    await connect_brand(other)  # the same number, connected in another organisation
    other_reader = await other.key("messages:read")
    assert_error(await status_of(api, other_reader, message_id), 404, "MESSAGE_NOT_FOUND")
    assert_error(await status_of(api, reader, str(ObjectId())), 404, "MESSAGE_NOT_FOUND")
    assert_error(await status_of(api, reader, "not-an-id"), 404, "MESSAGE_NOT_FOUND")
    await connect_brand(tenant, number="15550003333")
    assert_error(await status_of(api, reader, message_id, brand="15550003333"), 404, "MESSAGE_NOT_FOUND")
    assert_error(await status_of(api, reader, message_id, brand="15550009999"), 404, "BIZACCT_NOT_FOUND")
    resp = await api.get(STATUS, reader, params={"messageId": message_id})
    assert_error(resp, 400, "BRAND_NUMBER_MISSING")
    resp = await api.get(STATUS, reader, params={"brandNumber": BRAND})
    assert_error(resp, 400, "VALIDATION_ERROR")
    assert_error(await status_of(api, reader, message_id, retry="maybe"), 400, "VALIDATION_ERROR")


async def test_retry_waits_once_for_a_message_being_stored(api, tenant, brand, sender, reader, settings):
    await seed_template(tenant)
    message_id = ObjectId()

    async def store_later():
        await asyncio.sleep(0.2)
        await ChatMessage.new(ObjectId(tenant.org_id), id=message_id, brand_number=BRAND, direction="outbound",
                              status="accepted", type="text", phone=PHONE).insert()

    started = time.monotonic()
    resp, _ = await asyncio.gather(status_of(api, reader, str(message_id), retry="true"), store_later())
    assert resp.status == 200 and resp.body["data"]["status"] == "accepted", resp.body
    assert time.monotonic() - started >= settings.message_status_retry_seconds

    started = time.monotonic()
    assert_error(await status_of(api, reader, str(ObjectId()), retry="true"), 404, "MESSAGE_NOT_FOUND")
    assert time.monotonic() - started >= settings.message_status_retry_seconds
    started = time.monotonic()
    assert_error(await status_of(api, reader, str(ObjectId())), 404, "MESSAGE_NOT_FOUND")
    assert time.monotonic() - started < settings.message_status_retry_seconds


async def test_status_needs_messages_read(api, tenant, brand, sender):
    await seed_template(tenant)
    message_id = await send(api, sender)
    err = assert_error(await status_of(api, sender, message_id), 403, "INSUFFICIENT_SCOPE", marker="error")
    assert err["required_scope"] == "messages:read"
