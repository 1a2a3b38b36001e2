"""A slow subscriber cannot stall the others: each subscription has a bounded queue; when it is full the
oldest updates are dropped and the subscriber gets a `lagged` update. Real Redis pub/sub throughout."""
from __future__ import annotations

import asyncio

from bson import ObjectId

from leadline.resolvers.inbox import live
from tests.inbox.ws import Live, joined


async def test_the_hub_never_waits_for_a_subscriber(services):
    hub = live.Hub(services.redis)
    org = ObjectId()
    name = live.channel(services, org)
    fast, slow = live.Subscriber(), live.Subscriber()
    await hub.join(name, fast)
    await hub.join(name, slow)
    try:
        total = 3 * live.QUEUE_SIZE

        async def consume() -> list[int]:
            return [(await fast.next())[0].payload["n"] for _ in range(total)]

        consumer = asyncio.create_task(consume())
        for start in range(0, total, 64):
            await live.publish(services, [(org, live.Update(live.MESSAGE_STATUS, "c", {"n": i}))
                                          for i in range(start, start + 64)])
        assert await asyncio.wait_for(consumer, 10) == list(range(total))  # the fast one kept up, in order
        # The slow one (which read nothing meanwhile) lost its oldest, and is told so first.
        lagged, _ = await slow.next()
        assert (lagged.type, lagged.payload) == (live.LAGGED, {"dropped": total - live.QUEUE_SIZE})
        kept = [(await slow.next())[0].payload["n"] for _ in range(live.QUEUE_SIZE)]
        assert kept == list(range(total - live.QUEUE_SIZE, total))
    finally:
        await hub.leave(name, fast)
        await hub.leave(name, slow)
        await hub.close()


async def test_a_socket_that_stops_reading_does_not_stall_the_others(client, tenant, services):
    key = tenant.legacy_key
    stalled = await (await Live.open(client.ws_connect, key)).acked()
    reader = await (await Live.open(client.ws_connect, key)).acked()
    await stalled.subscribe()
    await reader.subscribe()
    await joined(services, tenant.org_id, 2)  # both subscriptions registered in the process
    org = ObjectId(tenant.org_id)
    blob = "x" * 16_000
    total = 1200  # ~19 MB: more than the socket buffers between the server and a client that reads nothing
    for start in range(0, total, 100):
        await live.publish(services, [(org, live.Update(live.MESSAGE_STATUS, "c", {"n": i, "blob": blob}))
                                      for i in range(start, start + 100)])
    received = [(await reader.update(timeout=10))["payload"]["n"] for _ in range(total)]
    assert received == list(range(total))
    # The stalled socket, read at last (up to a final marker): a `lagged` update somewhere, then the most
    # recent ones; every update is either received or counted as dropped.
    await live.publish(services, [(org, live.Update(live.MESSAGE_STATUS, "c", {"n": "end"}))])
    seen, lagged = [], 0
    while (update := await stalled.update(timeout=10))["payload"].get("n") != "end":
        if update["type"] == "lagged":
            lagged += update["payload"]["dropped"]
        else:
            seen.append(update["payload"]["n"])
    assert lagged > 0 and seen[-1] == total - 1 and len(seen) + lagged == total
    assert seen == sorted(seen)
    await stalled.close()
    await reader.close()
