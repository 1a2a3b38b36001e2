"""Messaging throughput: template sends per second through POST /v2.0/chatapp/send (sandbox provider),
and inbound webhooks per second through POST /webhooks/chatapp (signed), both acknowledged by the API
and ingested end to end (stored by the worker).

The API (`leadline serve`) and one worker (`leadline worker`) run in their own processes on an
embedded stack. Keys of several organisations are used round-robin so the per-key rate limit (60/s on
Business) does not cap the measurement; each organisation has its own business number and approved
template, and sends to a pool of 200 recipients (inside the first tier's 250).

    .venv/bin/python bench/messaging.py [--seconds 5] [--concurrency 32] [--orgs 20]
"""
from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import subprocess
import sys
import time

from bson import ObjectId

from leadline.database import connect_database
from leadline.embedded import EmbeddedStack, free_port
from leadline.models.chats import ChatMessage
from leadline.models.templates import MessageTemplate
from leadline.resolvers.auth.admin import create_org
from leadline.resolvers.channels.admin import connect_channel
from leadline.resolvers.phones import try_normalize_phone
from leadline.resolvers.webhooks.signature import sign

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import load, start, stop  # noqa: E402

SECRET = "bench-app-secret"
BODY = [{"type": "BODY", "text": "Hi {{1}}, your order {{2}} ships today."}]


def recipients(n: int) -> list[str]:
    found = []
    for i in itertools.count(2000):
        phone = try_normalize_phone(f"1415555{i:04d}")
        if phone:
            found.append(phone)
        if len(found) == n:
            return found
    return found


def inbound(brand: str, phone: str, wamid: str) -> bytes:
    value = {"messaging_product": "whatsapp", "metadata": {"display_phone_number": brand, "phone_number_id": brand},
             "contacts": [{"profile": {"name": "Bench"}, "wa_id": phone}],
             "messages": [{"from": phone, "id": wamid, "timestamp": str(int(time.time())), "type": "text",
                           "text": {"body": "hello"}}]}
    return json.dumps({"object": "whatsapp_business_account",
                       "entry": [{"id": "bench", "changes": [{"field": "messages", "value": value}]}]}).encode()


async def count(direction: str, status: str | None = None) -> int:
    filt = {"direction": direction, **({"status": status} if status else {})}
    return await ChatMessage.get_pymongo_collection().count_documents(filt)


async def drained(target: int, direction: str, status: str | None, started: float,
                  timeout: float = 300) -> tuple[int, float]:
    """(messages done, seconds from `started`) once `target` match, or what was done at the timeout."""
    while True:
        done = await count(direction, status)
        elapsed = time.perf_counter() - started
        if done >= target or elapsed > timeout:
            return done, elapsed
        await asyncio.sleep(0.05)


async def main(seconds: float, concurrency: int, n_orgs: int) -> None:
    stack = EmbeddedStack.start(None)
    env = {**os.environ, "MONGODB_URL": stack.database.url, "REDIS_URL": stack.redis.url,
           "MONGODB_DATABASE": "bench", "LEADLINE_LOG_LEVEL": "WARNING", "CHATAPP_APP_SECRET": SECRET}
    procs: list[subprocess.Popen] = []
    try:
        await connect_database(stack.database.url, "bench")
        orgs = []
        for i in range(n_orgs):
            org = await create_org(f"Bench {i}", plan="business")
            brand = f"1555000{i:04d}"
            await connect_channel(org["orgId"], "chatapp", brand, f"Bench {i}")
            await MessageTemplate.new(ObjectId(org["orgId"]), name="order_update", language="en", category="UTILITY",
                                      status="APPROVED", template_id=str(10**15 + i), brand_number=brand,
                                      components=BODY).insert()
            orgs.append((org["legacyKey"], brand, str(10**15 + i)))
        pool = recipients(200)
        port = free_port()
        procs.append(start([sys.executable, "-m", "leadline.cli", "serve", "--port", str(port)], env, "listening"))
        procs.append(subprocess.Popen([sys.executable, "-m", "leadline.cli", "worker"], env=env,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        base = f"http://127.0.0.1:{port}"
        senders = itertools.cycle(orgs)
        to = itertools.cycle(pool)

        def send(session):
            key, brand, template_id = next(senders)
            body = {"to": next(to), "brandNumber": brand, "templateId": template_id, "bodyParameters": ["Ann", "A-17"]}
            return session.post(f"{base}/v2.0/chatapp/send", json=body, headers={"Authorization": f"Bearer {key}"})

        wamids = itertools.count()
        brands = itertools.cycle([brand for _, brand, _ in orgs])

        def webhook(session):
            raw = inbound(next(brands), next(to), f"wamid.bench{next(wamids)}")
            return session.post(f"{base}/webhooks/chatapp", data=raw, headers={
                "Content-Type": "application/json", "X-Hub-Signature-256": sign(SECRET, raw)})

        await load(send, 1.0, concurrency)  # warm caches, connections, contacts
        await drained(await count("outbound"), "outbound", "read", time.perf_counter())
        before = await count("outbound")
        read_before = await count("outbound", "read")
        started = time.perf_counter()
        n, rps, p50, errors = await load(send, seconds, concurrency)
        print(f"{'target':52} {'count':>7} {'per s':>8} {'p50 ms':>8} {'errors':>7}")
        print(f"{'POST /v2.0/chatapp/send (sandbox, accepted)':52} {n:7d} {rps:8.0f} {p50:8.2f} {errors:7d}")
        done, took = await drained(read_before + n - errors, "outbound", "read", started)
        done -= read_before
        print(f"{'  ... read status reached (3 statuses each, by the worker)':52} {done:7d} "
              f"{3 * done / took:8.0f} {'':>8} {n - errors - done:7d}   (statuses/s through the ingestion path; "
              f"{took:.1f} s from the first send)")

        before = await count("inbound")
        started = time.perf_counter()
        n, rps, p50, errors = await load(webhook, seconds, concurrency)
        print(f"{'POST /webhooks/chatapp (signed inbound, acknowledged)':52} {n:7d} {rps:8.0f} {p50:8.2f} {errors:7d}")
        done, took = await drained(before + n - errors, "inbound", None, started)
        done -= before
        print(f"{'  ... ingested end to end (stored by the worker)':52} {done:7d} {done / took:8.0f} {'':>8} "
              f"{n - errors - done:7d}   ({took:.1f} s from the first webhook)")
    finally:
        stop(procs)
        stack.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--orgs", type=int, default=20)
    args = parser.parse_args()
    asyncio.run(main(args.seconds, args.concurrency, args.orgs))
