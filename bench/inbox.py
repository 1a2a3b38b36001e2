"""Live inbox updates: subscription fan-out latency with many connected subscribers.

Two API processes (`leadline serve`) share one embedded stack (database and Redis). N subscribers
(default 500) connect over websockets (graphql-transport-ws on /graphql), half to each process, all of one
organisation, each subscribed to `inboxUpdates`. Then:

1. fan-out: U updates published on the organisation's live channel exactly as the service publishes
   them (`live.publish_to`: one script call each, every `--interval` seconds, default 0.2), each carrying its
   publish time; the latency of every (update, subscriber) pair is receipt minus publish. Printed: p50, p95,
   max, and the p50/p95 of the time until the last subscriber has an update.
2. after an authentication change: the organisation's token is replaced (as a revocation, a plan change or an
   approved template does) before each of a few updates, so every subscriber reads its key and organisation
   again before sending it (once per token and process); the same latencies.
3. end to end: `POST /v2.0/conversations/status` through the API, one at a time; latency from sending the
   request to receipt of `conversation:status_changed` at every subscriber.

    .venv/bin/python bench/inbox.py [--subscribers 500] [--updates 50] [--interval 0.2] [--changes 20]
                                    [--token-changes 5]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time

import aiohttp
from bson import ObjectId
from redis.asyncio import Redis

from leadline.database import connect_database
from leadline.embedded import EmbeddedStack, free_port
from leadline.models.chats import Conversation
from leadline.resolvers.auth.admin import create_key, create_org
from leadline.resolvers.auth.cache import invalidate_org
from leadline.resolvers.channels.admin import connect_channel
from leadline.resolvers.inbox import live

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import start, stop  # noqa: E402

PREFIX = "leadline"
SUBSCRIPTION = "subscription { inboxUpdates { type conversationId payload } }"


class Subscriber:
    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.fanout: dict[int, float] = {}  # update number -> latency (s)
        self.changes: list[float] = []  # receipt times of conversation:status_changed
        self.arrived = asyncio.Event()

    async def run(self) -> None:
        async for message in self.ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            data = json.loads(message.data)
            if data.get("type") != "next":
                continue
            update = data["payload"]["data"]["inboxUpdates"]
            now = time.time()
            if update["type"] == "bench":
                self.fanout[update["payload"]["n"]] = now - update["payload"]["sentAt"]
            elif update["type"] == "conversation:status_changed":
                self.changes.append(now)
            self.arrived.set()


async def connect(session: aiohttp.ClientSession, url: str, key: str) -> Subscriber:
    ws = await session.ws_connect(url, protocols=("graphql-transport-ws",), max_msg_size=0)
    await ws.send_str(json.dumps({"type": "connection_init", "payload": {"Authorization": f"Bearer {key}"}}))
    ack = await ws.receive(timeout=30)
    if ack.type != aiohttp.WSMsgType.TEXT or json.loads(ack.data).get("type") != "connection_ack":
        raise RuntimeError(f"connection refused: {ack.type.name} {ws.close_code}")
    await ws.send_str(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": SUBSCRIPTION}}))
    return Subscriber(ws)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def publish(redis: Redis, org_id: ObjectId, n: int, conversation_id: str | None) -> None:
    update = live.Update("bench", conversation_id, {"n": n, "sentAt": time.time()})
    await live.publish_to(redis, PREFIX, [(org_id, update)])


def report(label: str, subscribers: list[Subscriber], numbers: range, rate: str = "") -> None:
    latencies = [s.fanout[n] for s in subscribers for n in numbers if n in s.fanout]
    missing = len(numbers) * len(subscribers) - len(latencies)
    last = [max(s.fanout.get(n, float("inf")) for s in subscribers) for n in numbers]
    print(f"{label}, {len(numbers)} updates x {len(subscribers)} subscribers{rate}: "
          f"p50 {pct(latencies, 0.5):.1f} ms, p95 {pct(latencies, 0.95):.1f} ms, "
          f"max {max(latencies) * 1000:.1f} ms, missing {missing}")
    print(f"  until the last subscriber has it: p50 {pct(last, 0.5):.1f} ms, p95 {pct(last, 0.95):.1f} ms")


async def main(n_subscribers: int, n_updates: int, interval: float, n_changes: int, n_tokens: int) -> None:
    stack = EmbeddedStack.start(None)
    env = {**os.environ, "MONGODB_URL": stack.database.url, "REDIS_URL": stack.redis.url,
           "MONGODB_DATABASE": "bench", "LEADLINE_LOG_LEVEL": "WARNING", "LEADLINE_REDIS_PREFIX": PREFIX}
    procs = []
    redis = Redis.from_url(stack.redis.url)
    try:
        await connect_database(stack.database.url, "bench")
        org = await create_org("Bench", plan="business")
        await connect_channel(org["orgId"], "chatapp", "15550000001", "Bench")
        row = Conversation.new(ObjectId(org["orgId"]), contact_id=ObjectId(), brand_number="15550000001",
                               phone="14155550000")
        await row.insert()
        # Each key has its own per-second rate: connections are spread over the legacy key and 10 scoped ones.
        keys = [org["legacyKey"], *[(await create_key(org["orgId"], "conversations:read,conversations:write"))["key"]
                                    for _ in range(10)]]
        ports = [free_port(), free_port()]
        for port in ports:
            procs.append(start([sys.executable, "-m", "leadline.cli", "serve", "--port", str(port)], env, "listening"))
        org_id = ObjectId(org["orgId"])

        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
            subscribers: list[Subscriber] = []
            started = time.perf_counter()
            for wave in range(0, n_subscribers, 100):
                batch = range(wave, min(wave + 100, n_subscribers))
                subscribers += await asyncio.gather(*(
                    connect(session, f"ws://127.0.0.1:{ports[i % 2]}/graphql", keys[i % len(keys)]) for i in batch))
                await asyncio.sleep(1.0)
            readers = [asyncio.create_task(s.run()) for s in subscribers]
            print(f"{len(subscribers)} subscribers connected over 2 API processes in "
                  f"{time.perf_counter() - started:.1f} s")

            # Warm-up: until every subscription is registered in its process (each got an update).
            for attempt in range(200):
                await publish(redis, org_id, -1 - attempt, None)
                await asyncio.sleep(0.05)
                if all(s.fanout for s in subscribers):
                    break
            else:
                raise RuntimeError("not every subscriber received the warm-up updates")
            await asyncio.sleep(0.5)

            # 1. fan-out
            for n in range(n_updates):
                await publish(redis, org_id, n, str(row.id))
                await asyncio.sleep(interval)
            await asyncio.sleep(2.0)
            report("fan-out (publish -> subscriber)", subscribers, range(n_updates),
                   f" ({len(subscribers) / interval:,.0f} deliveries/s)")

            # 2. each update under a new token: every subscriber rechecks its key and organisation first
            tokened = range(10_000, 10_000 + n_tokens)
            for n in tokened:
                await invalidate_org(redis, PREFIX, org_id)
                await publish(redis, org_id, n, str(row.id))
                await asyncio.sleep(max(interval, 1.0))
            await asyncio.sleep(2.0)
            report("after an authentication change (recheck, then send)", subscribers, tokened)

            # 3. end to end through the API
            e2e: list[float] = []
            for i in range(n_changes):
                for s in subscribers:
                    s.changes.clear()
                t0 = time.time()
                async with session.post(f"http://127.0.0.1:{ports[i % 2]}/v2.0/conversations/status",
                                        json={"conversationId": str(row.id),
                                              "status": "resolved" if i % 2 == 0 else "open"},
                                        headers={"Authorization": f"Bearer {keys[0]}"}) as resp:
                    assert resp.status == 200, await resp.text()
                deadline = time.time() + 10
                while time.time() < deadline and not all(s.changes for s in subscribers):
                    await asyncio.sleep(0.005)
                e2e += [s.changes[0] - t0 for s in subscribers if s.changes]
                await asyncio.sleep(interval)
            print(f"end to end (POST /v2.0/conversations/status -> subscriber), {n_changes} changes: "
                  f"p50 {pct(e2e, 0.5):.1f} ms, p95 {pct(e2e, 0.95):.1f} ms, "
                  f"missing {n_changes * len(subscribers) - len(e2e)}")
            for s in subscribers:
                await s.ws.close()
            for task in readers:
                task.cancel()
    finally:
        stop(procs)
        await redis.aclose()
        stack.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--subscribers", type=int, default=500)
    parser.add_argument("--updates", type=int, default=50)
    parser.add_argument("--interval", type=float, default=0.2)
    parser.add_argument("--changes", type=int, default=20)
    parser.add_argument("--token-changes", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(main(args.subscribers, args.updates, args.interval, args.changes, args.token_changes))
