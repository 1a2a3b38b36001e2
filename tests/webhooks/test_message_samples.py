"""Every `messages` sample of the fixture set, re-signed and pointed at a connected number, through
POST /webhooks/chatapp and a real arq worker: nothing lost, nothing failed, the rest acknowledged and logged."""
from __future__ import annotations

import logging

import pytest
from bson import ObjectId

from leadline.models.chats import ChatMessage
from leadline.models.contacts import ContactCounter
from leadline.models.deadletters import DeadLetter
from leadline.resolvers.webhooks.dispatch import ingestion_stream
from tests.chats.support import outbound, post
from tests.templates.support import BRAND, connect_brand, template_settings
from tests.webhooks.test_chatapp_webhook import samples

STORED = {"text", "image", "video", "document", "audio", "sticker", "location", "contacts", "button", "interactive",
          "order"}
IGNORED = {"revoke", "edit", "system", "unsupported"}
STATUS_OF = {"sent": "sent", "delivered": "delivered", "read": "read", "played": "read", "failed": "failed"}
MESSAGE_SAMPLES = [(n, p) for n, p in samples()
                   if all(c.get("field") == "messages" for e in p["entry"] for c in e["changes"])]


@pytest.fixture
def settings(settings):
    return template_settings(settings, chatapp_webhook_retry_seconds=0.05)


def values(payload: dict) -> list[dict]:
    return [c["value"] for e in payload["entry"] for c in e["changes"]]


@pytest.mark.parametrize("name,payload", MESSAGE_SAMPLES, ids=[n for n, _ in MESSAGE_SAMPLES])
async def test_every_messages_sample_is_processed(api, tenant, run_worker, caplog, name, payload):
    org = ObjectId(tenant.org_id)
    await ContactCounter.new(org).insert()
    await connect_brand(tenant)  # by number only: routed by display_phone_number
    for value in values(payload):
        value["metadata"]["display_phone_number"] = BRAND
    items = [m for v in values(payload) for m in v.get("messages", [])]
    statuses = [s for v in values(payload) for s in v.get("statuses", [])]
    targets = {s["id"] for s in statuses} | {m["reaction"]["message_id"] for m in items if m["type"] == "reaction"}
    seeded = {cmid: await outbound(tenant, cmid, phone="972987654321") for cmid in targets
              if not cmid.startswith("<")}

    with caplog.at_level(logging.INFO, logger="leadline"):
        resp = await post(api, payload)
        assert resp.status == 200 and resp.body == {"success": True}
        assert await run_worker() >= 1
    # Every change was processed and acknowledged: nothing left queued, nothing dead-lettered.
    stream = ingestion_stream(tenant.services)
    assert await stream.backlog() == 0
    assert await DeadLetter.count() == 0
    logged = " | ".join(r.getMessage() for r in caplog.records)

    for item in items:
        if item["type"] in STORED:
            [message] = [m for m in await ChatMessage.find_in(org, {"direction": "inbound"}).to_list()
                         if m.cmid == item["id"]]
            assert message.type == item["type"] and message.pending_effects is False
            sender = item.get("from", "")
            assert (message.contact_id is not None) is sender.isdigit(), message
        elif item["type"] == "reaction":
            target = await ChatMessage.get_in(org, seeded[item["reaction"]["message_id"]].id)
            assert [r["emoji"] for r in target.reactions] == ([item["reaction"]["emoji"]]
                                                              if item["reaction"].get("emoji") else [])
        else:
            assert item["type"] in IGNORED
            assert f"inbound '{item['type']}' message acknowledged, not stored" in logged
    for item in statuses:
        if item["id"] in seeded:
            message = await ChatMessage.get_in(org, seeded[item["id"]].id)
            assert message.status == STATUS_OF[item["status"]]
            if item["status"] == "failed":
                assert message.error["code"] == item["errors"][0]["code"]
            if "pricing" in item:
                assert message.cost["category"] == item["pricing"]["category"]
        else:  # a placeholder id no send stored: offered again, then acknowledged as unmatched
            assert "webhook status for a message not stored here acknowledged" in logged
