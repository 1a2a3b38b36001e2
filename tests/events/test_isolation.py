"""One slow or dead endpoint never delays another: an endpoint that hangs holds at most its own lane's
attempts (per-endpoint concurrency), one that refuses connections is retried on its schedule, and an
endpoint beside them gets every event meanwhile."""
from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from aiohttp import web
from bson import ObjectId

from leadline.embedded import free_port
from leadline.models.events import WebhookDelivery
from tests.events.support import create_endpoint, upsert_contact, wait_until

N = 40


@pytest.fixture
def settings(settings):
    # Long enough that the hanging endpoint is still hanging when the test looks.
    return replace(settings, webhook_timeout_seconds=60.0, webhook_endpoint_concurrency=8)


async def test_a_hanging_and_a_dead_endpoint_do_not_delay_a_healthy_one(api, tenant, receiver_factory, engine):
    released = asyncio.Event()

    async def hang(receiver, receipt):
        await released.wait()
        return web.Response(text="late")

    slow, healthy = await receiver_factory(hang), await receiver_factory()
    key = tenant.legacy_key
    await create_endpoint(api, key, slow.url)
    dead_id, _ = await create_endpoint(api, key, f"http://127.0.0.1:{free_port()}/hook")
    await create_endpoint(api, key, healthy.url)
    try:
        for i in range(N):
            await upsert_contact(api, key, f"14155551{i:03d}")
        await healthy.wait_for(N)
        # Meanwhile the hanging endpoint holds only its own lane, and has answered nothing.
        assert slow.in_flight == len(slow.received) <= 8 and all(r.status is None for r in slow.received)

        async def dead_tried():
            rows = await WebhookDelivery.find_in(ObjectId(tenant.org_id), {"endpoint_id": ObjectId(dead_id)}).to_list()
            tried = [r for r in rows if r.attempts]
            return tried if len(tried) == N else None

        rows = await wait_until(dead_tried, what="the dead endpoint tried for every event")
        assert all(r.status == "pending" and r.attempts[0]["httpStatus"] is None
                   and r.attempts[0]["error"] for r in rows)
    finally:
        released.set()
    await slow.wait_for(N, timeout=30)
    assert slow.most_in_flight <= 8
    assert sorted(set(slow.ids())) == sorted(set(healthy.ids())) and len(set(healthy.ids())) == N


async def test_a_hanging_endpoints_backlog_waits_in_the_database(api, tenant, receiver_factory, services, monkeypatch):
    """Its lane full (HOLD, lowered here), a hanging endpoint's further deliveries are written at once
    and wait for room, while the outbox moves on for everyone else; none is lost."""
    from datetime import timedelta

    from leadline.jobs.events import deliver_forever
    from leadline.resolvers.events import engine as engine_module

    monkeypatch.setattr(engine_module, "HOLD", 4)
    monkeypatch.setattr(engine_module, "RESERVE", 1)
    monkeypatch.setattr(engine_module, "DEFER", timedelta(seconds=1))
    monkeypatch.setattr(engine_module, "FULL_PAUSE", 0.2)
    monkeypatch.setattr(engine_module, "FULL_WAIT", 0.0)  # a full lane spills to the database at once
    released = asyncio.Event()

    async def hang(receiver, receipt):
        await released.wait()
        return web.Response(text="late")

    slow, healthy = await receiver_factory(hang), await receiver_factory()
    key = tenant.legacy_key
    slow_id, _ = await create_endpoint(api, key, slow.url)
    await create_endpoint(api, key, healthy.url)
    stop = asyncio.Event()
    task = asyncio.create_task(deliver_forever(services, stop))
    try:
        await upsert_contact(api, key, "14155553000")
        await slow.wait_for(1)
        for i in range(1, 20):
            await upsert_contact(api, key, f"1415555{3000 + i}")
        await healthy.wait_for(20)

        async def waiting():
            rows = await WebhookDelivery.find_in(ObjectId(tenant.org_id), {"endpoint_id": ObjectId(slow_id)}).to_list()
            return rows if len(rows) >= 20 - 3 else None

        rows = await wait_until(waiting, what="the slow endpoint's backlog written")
        assert all(r.status == "pending" for r in rows) and len(slow.received) <= 4
    finally:
        released.set()
    try:
        await slow.wait_for(20, timeout=30)
        assert set(slow.ids()) == set(healthy.ids()) and len(set(healthy.ids())) == 20
    finally:
        stop.set()
        await asyncio.wait_for(task, 30)
