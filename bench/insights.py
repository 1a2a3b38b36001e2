"""Insights at scale: one organisation with 100,000 chat messages in one local day (and more on the days
around it), 20,000 contacts; prints the time of that day's rollup (the aggregation, then the write), of its
pipeline snapshot, and of `GET /v2.0/insights/daily-summary` for the day (live: it is today) over HTTP,
first (counting) and repeated (kept, as a day this size takes over 2 s to count: served as it is for 60 s,
then while a worker counts again; resolvers/insights/queries.py).

The messages are written directly (documents as the chats code stores them, with some AI-runtime
`assistant` markers); the rollup runs the job's own function, the read goes through `leadline serve`.

    .venv/bin/python bench/insights.py [--messages 100000] [--contacts 20000] [--runs 5]
"""
from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta

import aiohttp
from bson import ObjectId

from leadline.database import connect_database
from leadline.embedded import EmbeddedStack, free_port, remove_dir
from leadline.models.chats import ChatMessage
from leadline.models.contacts import Contact
from leadline.resolvers.auth.admin import create_org
from leadline.resolvers.contacts import counters
from leadline.resolvers.contacts.terms import contact_terms
from leadline.resolvers.insights import days, rollups, snapshots

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import start  # noqa: E402

TZ = "Asia/Kolkata"
CHANNELS = ("chatapp",) * 8 + ("photoapp", "pageapp")
KINDS = ("text",) * 8 + ("image", "audio")


def message(org, contact_ids: list, at: datetime, i: int) -> dict:
    who = contact_ids[i % len(contact_ids)]
    inbound = i % 2 == 0
    kind = KINDS[i % len(KINDS)]
    doc = ChatMessage.new(org, channel=CHANNELS[who.binary[-1] % len(CHANNELS)], brand_number="15550001111",
                          contact_id=who, phone=f"9198{i % len(contact_ids):08d}", direction="inbound" if inbound else "outbound",
                          status="received" if inbound else "delivered", type=kind, text=f"message {i}",
                          media={"type": kind, "duration": 7} if kind != "text" else None,
                          cost=None if inbound else {"amount": 0.0118, "currency": "USD", "category": "service"},
                          created_at=at, updated_at=at).model_dump(by_alias=True, exclude={"id"})
    if not inbound and i % 3 == 0:
        doc["assistant"] = {"model": random.choice(("gpt-4o", "gpt-4o-mini")), "toolRuns": i % 2}
    return doc


async def load_messages(org, contact_ids: list, day, n: int) -> float:
    start_utc, end_utc = days.bounds(day, TZ)
    span = (end_utc - start_utc).total_seconds()
    collection = ChatMessage.get_pymongo_collection()
    t0 = time.perf_counter()
    for first in range(0, n, 2000):
        batch = [message(org, contact_ids, start_utc + timedelta(seconds=span * (i / n)), i)
                 for i in range(first, min(n, first + 2000))]
        await collection.insert_many(batch, ordered=False)
    return n / (time.perf_counter() - t0)


async def load_contacts(org, n: int) -> list:
    ids = []
    for first in range(0, n, 1000):
        size = min(1000, n - first)
        seq = await counters.add_bulk(org, size)
        docs = []
        for k in range(size):
            i = first + k
            doc = Contact.new(org, phone=f"9198{i:08d}", seq=seq + k, source="chatapp", auto_added=True,
                              lead_category=("Hot", "Warm", "Cold", None)[i % 4], lead_categorized=i % 4 != 3)
            doc.terms = contact_terms(org, doc.model_dump())
            docs.append(doc)
        await Contact.insert_many_in(org, docs)
        ids += [d.id for d in docs]
    return ids


async def main(n: int, n_contacts: int, runs: int) -> None:
    data_dir = tempfile.mkdtemp(prefix="leadline-bench-insights-")
    stack = EmbeddedStack.start(data_dir)
    env = {**os.environ, "MONGODB_URL": stack.database.url, "REDIS_URL": stack.redis.url,
           "MONGODB_DATABASE": "bench", "LEADLINE_LOG_LEVEL": "WARNING"}
    proc = None
    try:
        mongo = await connect_database(stack.database.url, "bench")
        created = await create_org("Bench", plan="business", timezone=TZ)
        org = ObjectId(created["orgId"])
        today = days.today(TZ)
        contact_ids = await load_contacts(org, n_contacts)
        rate = await load_messages(org, contact_ids, today, n)
        # Neighbouring days: the day's index range must not read them.
        for other in (today - timedelta(days=1), today + timedelta(days=1)):
            await load_messages(org, contact_ids, other, n // 4)
        print(f"loaded {n:,} messages in local day {today} ({TZ}) at {rate:,.0f}/s, {n // 2:,} on the days around "
              f"it, {n_contacts:,} contacts")

        compute, write, snap = [], [], []
        for _ in range(runs):
            t0 = time.perf_counter()
            counts = await rollups.compute(org, TZ, today)
            t1 = time.perf_counter()
            await rollups.store(org, today, counts)
            t2 = time.perf_counter()
            await snapshots.take(org, TZ, today)
            t3 = time.perf_counter()
            compute.append(t1 - t0)
            write.append(t2 - t1)
            snap.append(t3 - t2)
        total = sum(c.totalMessages for c in counts.values())
        assert total == n, (total, n)
        print(f"daily rollup of {n:,} messages: aggregation p50 {statistics.median(compute):.2f} s "
              f"(min {min(compute):.2f}), write {statistics.median(write) * 1000:.0f} ms; "
              f"{sum(c.count for c in counts.values()):,} conversations")
        print(f"pipeline snapshot over {n_contacts:,} contacts: p50 {statistics.median(snap):.2f} s")
        await mongo.close()

        port = free_port()
        proc = start([sys.executable, "-m", "leadline.cli", "serve", "--port", str(port)], env, "listening")
        url = f"http://127.0.0.1:{port}/v2.0/insights/daily-summary"
        headers = {"Authorization": f"Bearer {created['legacyKey']}"}
        month_params = {"from": (today - timedelta(days=30)).isoformat(), "to": today.isoformat()}
        async with aiohttp.ClientSession() as session:
            async def get(params) -> float:
                t0 = time.perf_counter()
                async with session.get(url, params=params, headers=headers) as resp:
                    assert resp.status == 200, await resp.text()
                    await resp.read()
                return (time.perf_counter() - t0) * 1000

            day = {"from": today.isoformat(), "to": today.isoformat()}
            print(f"GET /v2.0/insights/daily-summary today, first request (counts the day live): {await get(day):,.0f} ms")
            repeat = [await get(day) for _ in range(runs)]
            month = [await get(month_params) for _ in range(runs)]
            print(f"  then (today's count kept): p50 {statistics.median(repeat):,.0f} ms; "
                  f"31 days (30 stored + today): p50 {statistics.median(month):,.0f} ms")
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)
        stack.stop()
        remove_dir(data_dir)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--contacts", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(main(args.messages, args.contacts, args.runs))
