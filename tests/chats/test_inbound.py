"""Inbound messages through POST /webhooks/chatapp and a real arq worker: contact, history, row, window, event."""
from __future__ import annotations

import time

from bson import ObjectId

from leadline.models.chats import ChatMessage, Conversation
from leadline.models.events import DomainEvent
from tests.chats.support import BRAND, CUSTOMER, deliver, inbound, outbound, post, wamid


async def history(api, key, **params):
    resp = await api.get("/v2.0/chats/history", key, params={"phone": CUSTOMER, **params})
    assert resp.status == 200, resp.body
    return resp.body


async def conversations(api, key, **params):
    resp = await api.get("/v2.0/chats/conversations", key, params=params)
    assert resp.status == 200, resp.body
    return resp.body


async def events(tenant, kind):
    return await DomainEvent.find_in(ObjectId(tenant.org_id), {"kind": kind}).to_list()


async def test_a_text_message_creates_the_contact_history_row_window_and_event(api, tenant, brand, reader, run_worker):
    now = int(time.time())
    payload = inbound("Hi, is the blue one in stock?", ts=now, bsuid="GB.a1b2c3")
    mid = payload["entry"][0]["changes"][0]["value"]["messages"][0]["id"]
    await deliver(api, run_worker, payload)

    contact = await api.post("/v2.0/contacts/phone", tenant.legacy_key, json={"phone": CUSTOMER})
    assert contact.status == 200
    assert contact.body["data"]["auto_added"] is True and contact.body["data"]["contactName"] == "Ann"
    assert contact.body["data"]["bsuid"] == "GB.a1b2c3"

    body = await history(api, reader)
    [message] = body["data"]["messages"]
    assert (message["direction"], message["type"], message["text"], message["cmid"]) == (
        "inbound", "text", "Hi, is the blue one in stock?", mid)
    assert message["status"] == "received" and message["createdAt"].startswith(
        time.strftime("%Y-%m-%dT%H:%M", time.gmtime(now)))
    window = body["data"]["contact"]["window"]
    assert window["open"] is True and window["lastInboundAt"] == message["createdAt"]
    assert body["pagination"] == {"limit": 20, "hasMore": False, "nextCursor": None}

    [row] = (await conversations(api, reader))["data"]
    assert (row["phone"], row["contactName"], row["brandNumber"], row["lastMessage"], row["unreadCount"]) == (
        CUSTOMER, "Ann", BRAND, "Hi, is the blue one in stock?", 1)
    assert row["lastMessageAt"] == message["createdAt"] and row["contactId"] == contact.body["data"]["_id"]

    [created] = await events(tenant, "contact.created")
    assert created.payload["auto_added"] is True and created.payload["phone"] == CUSTOMER
    [new] = await events(tenant, "chatapp.new_message")
    assert new.payload["from"] == CUSTOMER and new.payload["phone"] == CUSTOMER
    assert new.payload["bsuid"] == "GB.a1b2c3" and new.payload["cmid"] == mid
    assert new.payload["messageId"] == message["messageId"] and new.payload["brandNumber"] == BRAND


async def test_the_webhook_is_acknowledged_before_the_work_is_done(api, tenant, brand, run_worker):
    payload = inbound("queued")
    assert (await post(api, payload)).status == 200
    org = ObjectId(tenant.org_id)
    assert await ChatMessage.count_in(org) == 0  # queued, not yet processed
    assert await run_worker() == 1
    assert await ChatMessage.count_in(org) == 1


async def test_a_redelivered_message_changes_nothing(api, tenant, brand, reader, run_worker):
    payload = inbound("once", bsuid="GB.zz99")
    await deliver(api, run_worker, payload, payload)  # redelivered while queued
    await deliver(api, run_worker, payload)  # and after processing: the stored provider id protects
    await deliver(api, run_worker, payload, payload, payload)  # three times in one batch
    assert len((await history(api, reader))["data"]["messages"]) == 1
    [row] = (await conversations(api, reader))["data"]
    assert row["unreadCount"] == 1
    assert len(await events(tenant, "chatapp.new_message")) == 1
    assert len(await events(tenant, "contact.created")) == 1


async def test_a_retry_after_a_crash_completes_the_pending_effects_once(api, tenant, brand, reader, run_worker):
    payload = inbound("half done")
    item = payload["entry"][0]["changes"][0]["value"]["messages"][0]
    # The first attempt stored the history row, then died before the row and the event.
    crashed = ChatMessage.new(ObjectId(tenant.org_id), brand_number=BRAND, phone=CUSTOMER, direction="inbound",
                              status="received", type="text", text="half done", cmid=item["id"],
                              dedup_key=item["id"], pending_effects=True)
    await crashed.insert()
    await deliver(api, run_worker, payload)
    await deliver(api, run_worker, inbound("half done", mid=item["id"], ts=int(item["timestamp"]) + 1))
    messages = (await history(api, reader))["data"]["messages"]
    assert [m["messageId"] for m in messages] == [str(crashed.id)]
    [row] = (await conversations(api, reader))["data"]
    assert row["unreadCount"] == 1 and row["lastMessage"] == "half done"
    assert len(await events(tenant, "chatapp.new_message")) == 1
    assert (await ChatMessage.get_in(ObjectId(tenant.org_id), crashed.id)).pending_effects is False


async def test_each_kind_is_stored_with_its_text_and_media(api, tenant, brand, reader, run_worker):
    now = int(time.time())
    payloads = [
        inbound(kind="image", ts=now - 6, body={"id": "m1", "mime_type": "image/jpeg", "caption": "the blue one",
                                                "url": "https://lookaside.example/m1"}),
        inbound(kind="audio", ts=now - 5, body={"id": "m2", "mime_type": "audio/ogg", "voice": True}),
        inbound(kind="location", ts=now - 4, body={"latitude": 51.5, "longitude": -0.12, "name": "Shop",
                                                   "address": "1 High St"}),
        inbound(kind="button", ts=now - 3, body={"payload": "YES_PAYLOAD", "text": "Yes please"}),
        inbound(kind="interactive", ts=now - 2, body={"type": "list_reply",
                                                      "list_reply": {"id": "opt2", "title": "Tuesday"}}),
        inbound(kind="document", ts=now - 1,
                body={"id": "m3", "filename": "order.pdf", "mime_type": "application/pdf"}),
    ]
    await deliver(api, run_worker, *payloads)
    messages = (await history(api, reader))["data"]["messages"]
    assert [(m["type"], m["text"]) for m in messages] == [
        ("document", None), ("interactive", "Tuesday"), ("button", "Yes please"), ("location", "Shop, 1 High St"),
        ("audio", None), ("image", "the blue one")]
    assert messages[-1]["media"] == {"url": "https://lookaside.example/m1", "type": "image"}
    assert messages[-2]["media"] == {"url": None, "type": "voice"}
    [row] = (await conversations(api, reader))["data"]
    assert row["lastMessage"] == "[document]" and row["unreadCount"] == 6


async def test_reactions_attach_to_the_referenced_message(api, tenant, brand, reader, run_worker):
    created = await api.post("/v2.0/contacts", tenant.legacy_key, json={"phone": CUSTOMER})
    sent = await outbound(tenant, "wamid.OUT1", contact_id=ObjectId(created.body["data"]["_id"]))
    react = inbound(kind="reaction", body={"message_id": "wamid.OUT1", "emoji": "\U0001F44D"})
    await deliver(api, run_worker, react, react)
    [message] = (await history(api, reader))["data"]["messages"]
    assert message["messageId"] == str(sent.id)
    reactions = [(r["emoji"], r["from"], r["direction"]) for r in message["reactions"]]
    assert reactions == [("\U0001F44D", CUSTOMER, "inbound")]
    await deliver(api, run_worker, inbound(kind="reaction", body={"message_id": "wamid.OUT1", "emoji": "\u2764"}))
    [message] = (await history(api, reader))["data"]["messages"]
    assert [r["emoji"] for r in message["reactions"]] == ["\u2764"]  # one reaction per sender: replaced
    await deliver(api, run_worker, inbound(kind="reaction", body={"message_id": "wamid.OUT1", "emoji": ""}))
    body = await history(api, reader)
    assert body["data"]["messages"][0]["reactions"] == []
    assert body["data"]["contact"]["window"]["open"] is True  # a reaction is the contact writing
    [row] = (await conversations(api, reader))["data"]
    assert row["unreadCount"] == 0
    assert await events(tenant, "chatapp.new_message") == []


async def test_the_window_closes_24_hours_after_the_last_inbound_message(api, tenant, brand, reader, run_worker):
    old = int(time.time()) - 25 * 3600
    await deliver(api, run_worker, inbound("yesterday", ts=old))
    window = (await history(api, reader))["data"]["contact"]["window"]
    assert window["open"] is False
    assert window["lastInboundAt"] == time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(old))
    assert window["closesAt"] == time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(old + 24 * 3600))
    # An older message delivered late neither closes nor moves the window back, nor replaces the preview.
    await deliver(api, run_worker, inbound("now", ts=int(time.time())), inbound("older", ts=old - 60))
    body = await history(api, reader)
    assert body["data"]["contact"]["window"]["open"] is True
    assert [m["text"] for m in body["data"]["messages"]] == ["now", "yesterday", "older"]
    [row] = (await conversations(api, reader))["data"]
    assert row["lastMessage"] == "now" and row["unreadCount"] == 3


async def test_the_profile_name_updates_the_row_and_a_later_message_the_preview(api, tenant, brand, reader,
                                                                                run_worker):
    await deliver(api, run_worker, inbound("one", name="Ann"))
    await deliver(api, run_worker, inbound("two", name="Ann Smith"))
    [row] = (await conversations(api, reader))["data"]
    assert (row["contactName"], row["lastMessage"], row["unreadCount"]) == ("Ann Smith", "two", 2)


async def test_a_sender_known_only_by_bsuid_is_matched_to_the_contact(api, tenant, brand, reader, run_worker):
    created = await api.post("/v2.0/contacts", tenant.legacy_key, json={"phone": CUSTOMER, "bsuid": "GB.only1"})
    assert created.status == 201
    payload = inbound("no phone", bsuid="GB.only1")
    item = payload["entry"][0]["changes"][0]["value"]["messages"][0]
    del item["from"]
    item["from_user_id"] = "GB.only1"
    await deliver(api, run_worker, payload)
    [message] = (await history(api, reader))["data"]["messages"]
    assert message["text"] == "no phone"
    [event] = await events(tenant, "chatapp.new_message")
    assert event.payload["phone"] is None and event.payload["bsuid"] == "GB.only1"


async def test_routing_prefers_the_stored_phone_number_id(api, tenant, brand, reader, run_worker):
    # The display number is someone else's; the stored provider id decides.
    await deliver(api, run_worker, inbound("by id", brand="19990000000"))
    assert len((await history(api, reader))["data"]["messages"]) == 1
    # An unknown number and id: acknowledged, stored nowhere.
    await deliver(api, run_worker, inbound("nobody", brand="19990000000", phone_number_id="777"))
    assert await ChatMessage.count_in(ObjectId(tenant.org_id)) == 1
    assert await Conversation.count_in(ObjectId(tenant.org_id)) == 1


async def test_a_new_wamid_for_the_same_text_is_a_new_message(api, tenant, brand, reader, run_worker):
    await deliver(api, run_worker, inbound("same"), inbound("same", mid=wamid()))
    assert len((await history(api, reader))["data"]["messages"]) == 2


async def test_a_payload_of_a_few_megabytes_is_accepted_and_nothing_is_lost(api, tenant, brand, reader, run_worker):
    """One POST carrying 120 changes (~3 MB, as the provider batches them): 120 jobs, 120 history rows."""
    now = int(time.time())
    batch = [inbound("x" * 25_000, ts=now - i)["entry"][0] for i in range(120)]
    payload = {"object": "whatsapp_business_account", "entry": batch}
    raw_size = len(str(payload))
    assert raw_size > 3_000_000
    resp = await post(api, payload)
    assert resp.status == 200
    assert await run_worker(timeout=120) == 120
    assert await ChatMessage.count_in(ObjectId(tenant.org_id)) == 120
    [row] = (await conversations(api, reader))["data"]
    assert row["unreadCount"] == 120
    newest = (await history(api, reader, limit=1))["data"]["messages"][0]
    assert len(newest["text"]) == 4096  # the provider's own text limit
