"""Delivery statuses through POST /webhooks/chatapp: forward only, failures, cost, undeliverable, events."""
from __future__ import annotations

import asyncio
import logging
import time

from bson import ObjectId

from leadline.jobs.webhooks import chatapp_webhook_change
from leadline.models.chats import ChatMessage
from leadline.models.contacts import Contact
from leadline.models.events import DomainEvent
from leadline.resolvers.webhooks.dispatch import changes_of, drain, ingest, ingestion_stream
from tests.chats.support import CUSTOMER, deliver, outbound, post, status

UNDELIVERABLE = [{"code": 131026, "title": "Message undeliverable", "message": "Message undeliverable",
                  "error_data": {"details": "Recipient cannot be reached"}}]


async def contact_and_message(api, tenant, mid: str = "wamid.S1", **fields):
    created = await api.post("/v2.0/contacts", tenant.legacy_key, json={"phone": CUSTOMER})
    contact_id = ObjectId(created.body["data"]["_id"])
    return contact_id, await outbound(tenant, mid, contact_id=contact_id, **fields)


async def stored(tenant, message) -> ChatMessage:
    return await ChatMessage.get_in(ObjectId(tenant.org_id), message.id)


async def status_events(tenant) -> list[str]:
    events = await DomainEvent.find_in(ObjectId(tenant.org_id), {"kind": "chatapp.message_status"}).to_list()
    return sorted(e.payload["status"] for e in events)


async def test_statuses_move_forward_only(api, tenant, brand, reader, run_worker):
    _, message = await contact_and_message(api, tenant)
    await deliver(api, run_worker, status("wamid.S1", "sent"))
    await deliver(api, run_worker, status("wamid.S1", "delivered"))
    assert (await stored(tenant, message)).status == "delivered"
    await deliver(api, run_worker, status("wamid.S1", "read"))
    await deliver(api, run_worker, status("wamid.S1", "sent"), status("wamid.S1", "delivered"))  # late
    await deliver(api, run_worker, status("wamid.S1", "read", ts=int(time.time()) + 1))  # redelivered
    after = await stored(tenant, message)
    assert after.status == "read" and set(after.status_times) == {"sent", "delivered", "read"}
    assert await status_events(tenant) == ["delivered", "read", "sent"]
    history = await api.get("/v2.0/chats/history", reader, params={"phone": CUSTOMER})
    assert history.body["data"]["messages"][0]["status"] == "read"


async def test_read_before_delivered_and_played_counts_as_read(api, tenant, brand, run_worker):
    _, message = await contact_and_message(api, tenant)
    await deliver(api, run_worker, status("wamid.S1", "read"))
    await deliver(api, run_worker, status("wamid.S1", "delivered"), status("wamid.S1", "played"))
    assert (await stored(tenant, message)).status == "read"
    assert await status_events(tenant) == ["read"]


async def test_the_event_carries_the_recipient(api, tenant, brand, run_worker):
    _, message = await contact_and_message(api, tenant, bsuid="GB.rcpt1")
    await deliver(api, run_worker, status("wamid.S1", "sent"))
    [event] = await DomainEvent.find_in(ObjectId(tenant.org_id), {"kind": "chatapp.message_status"}).to_list()
    assert (event.payload["to"], event.payload["phone"], event.payload["bsuid"]) == (CUSTOMER, CUSTOMER, "GB.rcpt1")
    assert event.payload["messageId"] == str(message.id) and event.payload["cmid"] == "wamid.S1"


async def test_failed_records_the_error_and_marks_the_contact_undeliverable(api, tenant, brand, reader, run_worker):
    contact_id, message = await contact_and_message(api, tenant)
    before = await Contact.get_in(ObjectId(tenant.org_id), contact_id)
    await deliver(api, run_worker, status("wamid.S1", "sent"))
    await deliver(api, run_worker, status("wamid.S1", "failed", errors=UNDELIVERABLE))
    failed = await stored(tenant, message)
    assert failed.status == "failed" and failed.error["code"] == 131026
    history = await api.get("/v2.0/chats/history", reader, params={"phone": CUSTOMER})
    assert history.body["data"]["messages"][0]["error"] == {"code": 131026, "title": "Message undeliverable",
                                                            "message": "Message undeliverable"}
    contact = await api.post("/v2.0/contacts/phone", tenant.legacy_key, json={"phone": CUSTOMER})
    assert contact.body["data"]["chatapp_undeliverable"] is True
    after = await Contact.get_in(ObjectId(tenant.org_id), contact_id)
    assert after.version == before.version + 1  # through the contacts' versioned update (terms kept)
    # A later delivered/read cannot resurrect a failed message.
    await deliver(api, run_worker, status("wamid.S1", "read"))
    assert (await stored(tenant, message)).status == "failed"
    assert await status_events(tenant) == ["failed", "sent"]


async def test_another_failure_code_does_not_mark_the_contact(api, tenant, brand, run_worker):
    contact_id, message = await contact_and_message(api, tenant)
    errors = [{"code": 130472, "title": "User's number is part of an experiment"}]
    await deliver(api, run_worker, status("wamid.S1", "failed", errors=errors))
    assert (await stored(tenant, message)).error["code"] == 130472
    assert (await Contact.get_in(ObjectId(tenant.org_id), contact_id)).chatapp_undeliverable is False


async def test_pricing_becomes_the_cost_category(api, tenant, brand, reader, run_worker):
    await contact_and_message(api, tenant, cost={"amount": 0.0147, "currency": "USD"})
    pricing = {"billable": True, "pricing_model": "PMP", "category": "marketing"}
    await deliver(api, run_worker, status("wamid.S1", "sent", pricing=pricing))
    history = await api.get("/v2.0/chats/history", reader, params={"phone": CUSTOMER})
    assert history.body["data"]["messages"][0]["cost"] == {"amount": 0.0147, "currency": "USD",
                                                           "category": "marketing"}


async def test_a_status_for_a_message_not_yet_stored_is_offered_again_then_applied(api, services, tenant, brand):
    stream = ingestion_stream(services)
    assert (await post(api, status("wamid.LATE", "sent"))).status == 200
    assert await drain(services, "test") == 1  # unmatched: acknowledged, and offered again later
    assert await stream.backlog() == 1 and await stream.next_due_in() > 0
    # Once the send has stored the provider id, the next offer applies it.
    message = await outbound(tenant, "wamid.LATE")
    await asyncio.sleep(await stream.next_due_in())
    assert await drain(services, "test") == 1
    assert (await stored(tenant, message)).status == "sent"
    assert await stream.backlog() == 0


async def test_unmatched_statuses_are_acknowledged_through_the_worker(api, tenant, brand, run_worker, caplog):
    with caplog.at_level(logging.INFO, logger="leadline.webhooks"):
        await deliver(api, run_worker, status("wamid.NOBODY", "delivered"))
    stream = ingestion_stream(tenant.services)
    assert await stream.backlog() == 0  # offered UNMATCHED_TRIES times, then acknowledged
    assert any("not stored here acknowledged" in r.getMessage() for r in caplog.records)
    assert await DomainEvent.count_in(ObjectId(tenant.org_id)) == 0


async def test_a_change_queued_by_the_previous_design_is_still_processed(services, tenant, brand):
    """arq jobs `chatapp_webhook_change` queued before an upgrade run the same processing."""
    message = await outbound(tenant, "wamid.OLD")
    [change] = changes_of(status("wamid.OLD", "delivered"))
    assert await chatapp_webhook_change({"services": services}, change.__dict__) == "applied"
    assert (await stored(tenant, message)).status == "delivered"


async def test_the_sandbox_path_applies_inline(services, api, tenant, brand):
    """`ingest` (what the sandbox adapter calls) applies at once, without a worker."""
    _, message = await contact_and_message(api, tenant)
    outcomes = await ingest(services, status("wamid.S1", "delivered"))
    assert outcomes == {"applied": 1}
    assert (await stored(tenant, message)).status == "delivered"
