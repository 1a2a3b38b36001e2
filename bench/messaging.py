"""Message pipeline throughput against what the embedded database itself allows, in one run.

1. The database ceiling, measured here first: `insert_many` of message-shaped documents (docs/s) and
   `bulk_write` of `UpdateOne`s by id (updates/s), into a scratch collection with the same indexes.
2. Sends: POST /v2.0/chatapp/send (sandbox provider) at fixed concurrency; accepted per second.
3. Statuses: signed POST /webhooks/chatapp carrying `sent`, then `delivered`, then `read` for every
   message sent (three waves, as a provider reports them); applied per second from the first post
   until every message is `read`, end to end through the worker.
4. Inbound: signed POST /webhooks/chatapp (one text message each, from a pool of 2,000 senders, new
   at first); acknowledged per second, and stored end to end (by the worker) per second.

Each phase runs alone: the sandbox's own statuses are pushed past the run (its delays are set to an
hour), so sends are measured without status traffic on the same database and the statuses are those
of phase 3. `--concurrent` keeps the sandbox's default delays instead: its statuses then flow during
the sends, and phase 3 is skipped.

Each rate is printed with its fraction of the matching ceiling (inserts for sends and inbound,
updates for statuses) and its ratio to the send rate. The API (`leadline serve`) and one worker
(`leadline worker`) run in their own processes on an embedded stack; progress is read from Redis (the
ingestion stream's backlog), and the database is counted once per phase.

    .venv/bin/python bench/messaging.py [--seconds 10] [--concurrency 32] [--orgs 20] [--inbound-seconds 4]
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
from pymongo import UpdateOne
from redis.asyncio import Redis

from leadline.database import connect_database
from leadline.embedded import EmbeddedStack, free_port
from leadline.models.chats import ChatMessage
from leadline.models.templates import MessageTemplate
from leadline.resolvers.auth.admin import create_org
from leadline.resolvers.channels.admin import connect_channel
from leadline.resolvers.phones import try_normalize_phone
from leadline.resolvers.webhooks.signature import sign

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import load, start, stop, until_drained  # noqa: E402

SECRET = "bench-app-secret"
BODY = [{"type": "BODY", "text": "Hi {{1}}, your order {{2}} ships today."}]


def recipients(n: int, first: int = 2000) -> list[str]:
    found = []
    for i in itertools.count(first):
        phone = try_normalize_phone(f"1415555{i:04d}")
        if phone:
            found.append(phone)
        if len(found) == n:
            return found
    return found


def status(brand: str, phone: str, wamid: str, state: str) -> bytes:
    value = {"messaging_product": "whatsapp", "metadata": {"display_phone_number": brand, "phone_number_id": brand},
             "statuses": [{"id": wamid, "status": state, "timestamp": str(int(time.time())), "recipient_id": phone}]}
    return json.dumps({"object": "whatsapp_business_account",
                       "entry": [{"id": "bench", "changes": [{"field": "messages", "value": value}]}]}).encode()


def inbound(brand: str, phone: str, wamid: str) -> bytes:
    value = {"messaging_product": "whatsapp", "metadata": {"display_phone_number": brand, "phone_number_id": brand},
             "contacts": [{"profile": {"name": "Bench"}, "wa_id": phone}],
             "messages": [{"from": phone, "id": wamid, "timestamp": str(int(time.time())), "type": "text",
                           "text": {"body": "hello"}}]}
    return json.dumps({"object": "whatsapp_business_account",
                       "entry": [{"id": "bench", "changes": [{"field": "messages", "value": value}]}]}).encode()


async def ceiling(db) -> tuple[float, float]:
    """(insert_many docs/s, bulk_write updates/s) on a scratch copy of the messages collection."""
    scratch = db["bench_ceiling"]
    for index in await (await ChatMessage.get_pymongo_collection().list_indexes()).to_list():
        if index["name"] != "_id_":
            options = {k: v for k, v in index.items() if k in ("unique", "partialFilterExpression")}
            await scratch.create_index(list(index["key"].items()), name=index["name"], **options)
    org = ObjectId()
    docs = [{"org_id": org, "brand_number": "15550000000", "contact_id": ObjectId(), "phone": "14155550000",
             "direction": "outbound", "status": "accepted", "type": "text", "text": "hello", "cmid": f"wamid.c{i}",
             "created_at": time.time(), "updated_at": time.time()} for i in range(5000)]
    started = time.perf_counter()
    for i in range(0, len(docs), 500):
        await scratch.insert_many(docs[i:i + 500], ordered=False)
    inserts = len(docs) / (time.perf_counter() - started)
    started = time.perf_counter()
    for i in range(0, len(docs), 500):
        await scratch.bulk_write([UpdateOne({"_id": d["_id"]}, {"$set": {"status": "sent"}})
                                  for d in docs[i:i + 500]], ordered=False)
    updates = len(docs) / (time.perf_counter() - started)
    await scratch.drop()
    return inserts, updates


async def main(seconds: float, concurrency: int, n_orgs: int, inbound_seconds: float, concurrent: bool) -> None:
    stack = EmbeddedStack.start(None)
    env = {**os.environ, "MONGODB_URL": stack.database.url, "REDIS_URL": stack.redis.url,
           "MONGODB_DATABASE": "bench", "LEADLINE_LOG_LEVEL": "WARNING", "CHATAPP_APP_SECRET": SECRET}
    if not concurrent:
        env["LEADLINE_SANDBOX_STATUS_DELAYS"] = "3600,3600,3600"
    procs: list[subprocess.Popen] = []
    redis = Redis.from_url(stack.redis.url)
    stream = "leadline:stream:chatwh"
    try:
        client = await connect_database(stack.database.url, "bench")
        inserts, updates = await ceiling(client["bench"])
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
        worker_log = open(os.environ.get("BENCH_WORKER_LOG", os.devnull), "w")
        procs.append(subprocess.Popen([sys.executable, "-m", "leadline.cli", "worker"], env=env,
                                      stdout=worker_log, stderr=subprocess.STDOUT))
        base = f"http://127.0.0.1:{port}"
        senders = itertools.cycle(orgs)
        to = itertools.cycle(pool)

        def send(session):
            key, brand, template_id = next(senders)
            body = {"to": next(to), "brandNumber": brand, "templateId": template_id, "bodyParameters": ["Ann", "A-17"]}
            return session.post(f"{base}/v2.0/chatapp/send", json=body, headers={"Authorization": f"Bearer {key}"})

        # Warm up: caches, connections, every recipient a contact with a conversation row.
        await load(send, 2.0, concurrency)
        await until_drained(redis, stream, time.perf_counter())

        started = time.perf_counter()
        n, send_rate, p50, errors = await load(send, seconds, concurrency)
        sent = n - errors
        messages = ChatMessage.get_pymongo_collection()
        if concurrent:
            took = await until_drained(redis, stream, started)
            status_rate = 3 * sent / took
        else:
            waves = [(m["brand_number"], m["phone"], m["cmid"]) for m in await messages.find(
                {"direction": "outbound"}, {"brand_number": 1, "phone": 1, "cmid": 1}).to_list()]
            started = time.perf_counter()
            for state in ("sent", "delivered", "read"):
                bodies = iter([status(b, p, c, state) for b, p, c in waves])

                def post_status(session):
                    raw = next(bodies)
                    return session.post(f"{base}/webhooks/chatapp", data=raw, headers={
                        "Content-Type": "application/json", "X-Hub-Signature-256": sign(SECRET, raw)})

                await load(post_status, None, concurrency, count=len(waves))
            took = await until_drained(redis, stream, started)
            status_rate = 3 * len(waves) / took
        read = await messages.count_documents({"status": "read"})
        total = await messages.count_documents({"direction": "outbound"})

        wamids = itertools.count()
        brands = itertools.cycle([brand for _, brand, _ in orgs])
        people = itertools.cycle(recipients(2000, first=6000))

        def webhook(session):
            raw = inbound(next(brands), next(people), f"wamid.bench{next(wamids)}")
            return session.post(f"{base}/webhooks/chatapp", data=raw, headers={
                "Content-Type": "application/json", "X-Hub-Signature-256": sign(SECRET, raw)})

        before = await ChatMessage.get_pymongo_collection().count_documents({"direction": "inbound"})
        started = time.perf_counter()
        m, ack_rate, ack_p50, ack_errors = await load(webhook, inbound_seconds, concurrency)
        took_in = await until_drained(redis, stream, started)
        stored = await ChatMessage.get_pymongo_collection().count_documents({"direction": "inbound"}) - before
        inbound_rate = stored / took_in

        print(f"database ceiling (scratch collection, message indexes): insert_many {inserts:,.0f} docs/s, "
              f"bulk_write {updates:,.0f} updates/s")
        print(f"{'':44} {'count':>7} {'per s':>8} {'p50 ms':>7} {'errors':>6} {'of ceiling':>10} {'x sends':>8}")
        print(f"{'POST /v2.0/chatapp/send (accepted)':44} {n:7d} {send_rate:8.0f} {p50:7.1f} {errors:6d} "
              f"{send_rate / inserts:10.2f} {1:8.2f}")
        label = "statuses applied (sandbox, during the sends)" if concurrent else "statuses applied (3 webhook waves)"
        print(f"{label:44} {3 * (sent if concurrent else total):7d} {status_rate:8.0f} {'':>7} "
              f"{'':>6} {status_rate / updates:10.2f} {status_rate / send_rate:8.2f}")
        print(f"{'  messages read / outbound stored':44} {read:7d} {'':>8} {'':>7} {total - read:6d}")
        print(f"{'POST /webhooks/chatapp (acknowledged)':44} {m:7d} {ack_rate:8.0f} {ack_p50:7.1f} {ack_errors:6d}")
        print(f"{'inbound stored end to end (worker)':44} {stored:7d} {inbound_rate:8.0f} {'':>7} "
              f"{m - ack_errors - stored:6d} {inbound_rate / inserts:10.2f} {inbound_rate / send_rate:8.2f}")
    finally:
        stop(procs)
        await redis.aclose()
        stack.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--orgs", type=int, default=20)
    parser.add_argument("--inbound-seconds", type=float, default=4.0)
    parser.add_argument("--concurrent", action="store_true", help="the sandbox's statuses flow during the sends")
    args = parser.parse_args()
    asyncio.run(main(args.seconds, args.concurrency, args.orgs, args.inbound_seconds, args.concurrent))
