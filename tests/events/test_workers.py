"""At least once under real workers: a `leadline worker` killed with `kill -9` while its attempts are in
flight loses nothing. Its claimed deliveries are taken over by another worker after the lease and sent
again with the same `webhook-id` (receivers de-duplicate on it); events still in the outbox are
dispatched by whichever worker runs."""
from __future__ import annotations

import asyncio
import signal
from collections import Counter

from aiohttp import web
from bson import ObjectId

from leadline.models.events import DomainEvent, WebhookDelivery
from tests import helpers
from tests.events.support import create_endpoint, upsert_contact, wait_until

N = 30
ENV = {"LEADLINE_WEBHOOK_LEASE_SECONDS": "2", "LEADLINE_WEBHOOK_TIMEOUT_SECONDS": "60"}


async def test_a_worker_killed_mid_delivery_loses_nothing(api, tenant, receiver_factory, settings):
    released = asyncio.Event()

    async def hang_until_released(receiver, receipt):
        await released.wait()
        return web.Response(text="ok")

    receiver = await receiver_factory(hang_until_released)
    key, org = tenant.legacy_key, ObjectId(tenant.org_id)
    endpoint_id, secret = await create_endpoint(api, key, receiver.url)
    for i in range(N):  # recorded in the outbox; no worker runs yet
        await upsert_contact(api, key, f"14155552{i:03d}")
    events = {str(e.id) for e in await DomainEvent.find_in(org, {"kind": "contact.created"}).to_list()}
    assert len(events) == N

    first = helpers.start_worker(settings, **ENV)
    try:
        await receiver.wait_for(8, timeout=60)  # its lane is full: eight attempts hang
        first.send_signal(signal.SIGKILL)
        await asyncio.to_thread(first.wait, 10)
    finally:
        helpers.stop(first, kill=True)
    in_flight_at_kill = set(receiver.ids())
    assert 1 <= len(in_flight_at_kill) < N
    assert all(r.status is None for r in receiver.received)  # none was answered
    released.set()

    second = helpers.start_worker(settings, **ENV)
    try:
        async def all_delivered():
            rows = await WebhookDelivery.find_in(org, {"endpoint_id": ObjectId(endpoint_id)}).to_list()
            return rows if len(rows) == N and all(r.status == "delivered" for r in rows) else None

        rows = await wait_until(all_delivered, timeout=90, what="every delivery delivered")
    finally:
        helpers.stop(second)
    received = Counter(receiver.ids())
    assert set(received) == events  # nothing lost
    assert all(received[i] >= 2 for i in in_flight_at_kill)  # sent again, with the same webhook-id
    assert all(r.verifies(secret) for r in receiver.received if r.status == 200)
    assert {str(r.event_id) for r in rows} == events
    assert all(r.attempts[-1]["httpStatus"] == 200 for r in rows)
    assert await DomainEvent.count_in(org, {"dispatched_at": None}) == 0
