"""Two lanes in the ingestion stream: inbound messages never wait behind status-only changes, and
while a bulk sender (a campaign's fan-out) is busy, statuses join ingestion at a bounded rate."""
from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from bson import ObjectId

from leadline.models.chats import ChatMessage
from leadline.resolvers.webhooks.dispatch import bulk_sending_key, drain, ingestion_stream
from tests.chats.support import inbound, outbound, post, status, wamid

STATUSES = 120


@pytest.fixture
def settings(settings):
    return replace(settings, ingest_bulk_while_sending=40.0)


async def statuses_applied(tenant, mids: list[str]) -> int:
    return await ChatMessage.count_in(ObjectId(tenant.org_id), {"cmid": {"$in": mids}, "status": "delivered"})


async def test_an_inbound_message_overtakes_queued_statuses_while_a_campaign_sends(api, services, tenant, brand):
    mids = [wamid() for _ in range(STATUSES)]
    for mid in mids:
        await outbound(tenant, mid, status="sent")
    await services.redis.set(bulk_sending_key(services), 1, px=60_000)  # a fan-out is under way
    for mid in mids:
        assert (await post(api, status(mid, "delivered"))).status == 200
    reply = wamid()
    assert (await post(api, inbound("Is the offer still on?", mid=reply))).status == 200

    # The first batch holds the reply, and statuses only as far as their allowance goes (40/s, taken
    # in quarter-second batches of 10).
    first = await drain(services, "test", count=500)
    assert await ChatMessage.count_in(ObjectId(tenant.org_id), {"cmid": reply}) == 1
    assert first - 1 == await statuses_applied(tenant, mids) <= 10

    # While the sender stays busy, statuses keep coming through in allowance-sized batches.
    await asyncio.sleep(0.3)
    second = await drain(services, "test", count=500)
    assert 1 <= second <= 10, second
    taken = first - 1 + second
    assert await statuses_applied(tenant, mids) == taken

    # The sender is done: the rest at full speed, in one batch.
    await services.redis.delete(bulk_sending_key(services))
    assert await drain(services, "test", count=500) == STATUSES - taken
    assert await statuses_applied(tenant, mids) == STATUSES
    assert await ingestion_stream(services).backlog() == 0


async def test_statuses_need_no_allowance_without_a_bulk_sender(api, services, tenant, brand):
    mids = [wamid() for _ in range(30)]
    for mid in mids:
        await outbound(tenant, mid, status="sent")
        assert (await post(api, status(mid, "delivered"))).status == 200
    assert await drain(services, "test", count=500) == 30
    assert await statuses_applied(tenant, mids) == 30


async def test_a_heavy_change_takes_its_weight_of_the_allowance(api, services, tenant, brand):
    """A campaign chunk's rows and events arrive as one change standing for 500 messages: it weighs 500
    against the allowance, so it moves on its own and the statuses behind it wait until the allowance
    has been earned back, instead of the chunk's work slipping through as a single entry."""
    mids = [wamid() for _ in range(20)]
    for mid in mids:
        await outbound(tenant, mid, status="sent")
    await services.redis.set(bulk_sending_key(services), 1, px=60_000)
    stream = ingestion_stream(services)
    heavy = {"change": {"field": "leadline.test", "value": {}, "entry_id": None, "time": 0}}
    await stream.add_later([(heavy, 0, 40)])  # due first; weighs 40 = a second's allowance at 40/s
    for mid in mids:
        assert (await post(api, status(mid, "delivered"))).status == 200
    await asyncio.sleep(0.3)  # a quarter-second batch (10) has been earned

    assert await stream.promote_due(500) == 1  # the heavy entry alone (the first always moves)
    assert await stream.promote_due(500) == 0  # its weight is still being earned back (10 - 40)
    await asyncio.sleep(0.3)
    assert await stream.promote_due(500) == 0
    await asyncio.sleep(1.0)  # earned back, and a quarter-second batch more
    assert await stream.promote_due(500) == 10

    await services.redis.delete(bulk_sending_key(services))
    assert await stream.promote_due(500) == 10  # the sender is done: everything due, at once


async def test_a_claim_takes_a_bounded_weight_from_the_delayed_set(api, services, tenant, brand):
    """Without a bulk sender too, one promotion moves at most the claim's count in weight: a batch never
    holds a hundred campaign chunks' rows and events (minutes of work, past the stream's lease)."""
    mids = [wamid() for _ in range(20)]
    for mid in mids:
        await outbound(tenant, mid, status="sent")
    stream = ingestion_stream(services)
    heavy = {"change": {"field": "leadline.test", "value": {}, "entry_id": None, "time": 0}}
    await stream.add_later([(heavy, 0, 30), (heavy, 0, 30)])
    for mid in mids:
        assert (await post(api, status(mid, "delivered"))).status == 200
    assert await stream.promote_due(25) == 1  # one heavy entry: the first always moves
    assert await stream.promote_due(25) == 1
    assert await stream.promote_due(25) == 20  # the statuses, 20 of weight 1
