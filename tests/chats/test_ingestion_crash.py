"""Nothing accepted is lost when a worker dies mid-batch: `kill -9` of a real `leadline worker` process
while it ingests, then another worker takes the dead one's claimed changes over; every message is
stored once, counted once and has one event."""
from __future__ import annotations

import asyncio
import signal

from bson import ObjectId

from leadline.models.chats import ChatMessage, Conversation
from leadline.models.events import DomainEvent
from leadline.resolvers.webhooks.dispatch import ingestion_stream
from tests import helpers
from tests.chats.support import inbound, post

SENDERS = ["447911123456", "447911123457", "447911123458", "447911123459"]


def start_worker(settings):
    return helpers.start_worker(settings, LEADLINE_INGEST_STALE_SECONDS="1", LEADLINE_INGEST_BATCH="100")


async def test_a_worker_killed_mid_batch_loses_nothing(api, tenant, brand, settings):
    n = 1200
    for i in range(0, n, 100):  # 12 posts of 100 changes each
        entries = [inbound(f"m{k}", sender=SENDERS[k % len(SENDERS)])["entry"][0] for k in range(i, i + 100)]
        assert (await post(api, {"object": "whatsapp_business_account", "entry": entries})).status == 200
    org = ObjectId(tenant.org_id)
    first = start_worker(settings)
    try:
        for _ in range(600):  # until it is busy with the queue, then kill it without warning
            if await ChatMessage.count_in(org) > 0:
                break
            await asyncio.sleep(0.02)
        first.send_signal(signal.SIGKILL)
        first.wait(10)
    finally:
        if first.poll() is None:
            first.kill()
    stored_at_kill = await ChatMessage.count_in(org)
    assert 0 < stored_at_kill < n, stored_at_kill

    second = start_worker(settings)
    try:
        stream = ingestion_stream(tenant.services)
        for _ in range(1200):
            if await stream.backlog() == 0:
                break
            await asyncio.sleep(0.05)
    finally:
        second.terminate()
        second.wait(20)
    assert await stream.backlog() == 0
    assert await ChatMessage.count_in(org) == n
    rows = await Conversation.find_in(org).to_list()
    assert sorted(r.unread_count for r in rows) == [n // len(SENDERS)] * len(SENDERS)
    assert await DomainEvent.count_in(org, {"kind": "chatapp.new_message"}) == n
