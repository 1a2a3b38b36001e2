"""Contacts at scale: loads 100,000 contacts into one organisation (and as many into another), then
prints HTTP upsert throughput and p50/p95 latency of list (first, middle and last page), filter
(exact field, tag, custom value, plus a broad and a pattern-only filter for contrast) and phone lookup.

The API runs as `leadline serve` in its own process on an embedded stack; the bulk load writes the
documents this domain's own code builds (same terms, seq and counter) and then builds the per-term
counts with the recount job's own function (timed), the rest goes through HTTP.

    .venv/bin/python bench/contacts.py [--contacts 100000] [--upserts 1000] [--runs 40]
"""
from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import random
import statistics
import sys
import tempfile
import time

import aiohttp
from bson import ObjectId

from leadline.database import connect_database
from leadline.embedded import EmbeddedStack, free_port, remove_dir
from leadline.models.contacts import Contact, CustomField, Tag
from leadline.resolvers.auth.admin import create_key, create_org
from leadline.resolvers.contacts import counters, term_counts
from leadline.resolvers.contacts.terms import contact_terms

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import start  # noqa: E402

COUNTRIES = ("IN", "IN", "US", "GB", "AE", "SG", "DE", "FR")


def contact(org, i: int, seq: int, tags: list) -> Contact:
    doc = Contact.new(org, phone=f"9198{i:08d}", seq=seq, countryCode="91", contactName=f"Name {i}",
                      email=f"user{i}@example.com", city=random.choice(("Pune", "Delhi", "Mumbai")),
                      country=COUNTRIES[i % len(COUNTRIES)], source="import", optedOut=i % 50 == 0,
                      tags=[tags[i % len(tags)]], customFields={"plan": f"p{i % 50}", "score": i % 100})
    doc.terms = contact_terms(org, doc.model_dump())
    return doc


async def load_org(org, n: int) -> tuple[list, float]:
    tags = [Tag.new(org, name=f"Tag {t}", name_key=f"tag {t}") for t in range(50)]
    for tag in tags:
        await tag.insert()
    await CustomField.insert_many([CustomField.new(org, fieldName="Plan", fieldKey="plan"),
                                   CustomField.new(org, fieldName="Score", fieldKey="score", fieldType="number")])
    tag_ids = [t.id for t in tags]
    started = time.perf_counter()
    for start_at in range(0, n, 1000):
        batch = range(start_at, min(n, start_at + 1000))
        first_seq = await counters.add_bulk(org, len(batch))
        await Contact.insert_many([contact(org, i, first_seq + k, tag_ids) for k, i in enumerate(batch)])
    return tag_ids, n / (time.perf_counter() - started)


async def timed(session, method, url, key, body=None) -> float:
    t0 = time.perf_counter()
    async with session.request(method, url, json=body, headers={"Authorization": f"Bearer {key}"}) as resp:
        payload = await resp.json()
        assert resp.status in (200, 201), (url, resp.status, payload)
    return (time.perf_counter() - t0) * 1000


def summary(name: str, ms: list[float]) -> None:
    ms = sorted(ms)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    print(f"{name:44} p50 {statistics.median(ms):7.1f} ms   p95 {p95:7.1f} ms")


async def main(n: int, upserts: int, runs: int) -> None:
    # On disk: 200,000 contacts with their index entries outgrow the in-memory store's cache.
    data_dir = tempfile.mkdtemp(prefix="leadline-bench-contacts-")
    stack = EmbeddedStack.start(data_dir)
    env = {**os.environ, "MONGODB_URL": stack.database.url, "REDIS_URL": stack.redis.url,
           "MONGODB_DATABASE": "bench", "LEADLINE_LOG_LEVEL": "WARNING"}
    proc = None
    try:
        mongo = await connect_database(stack.database.url, "bench")
        org_a, org_b = await create_org("Bench A", plan="business"), await create_org("Bench B", plan="business")
        oid_a, oid_b = ObjectId(org_a["orgId"]), ObjectId(org_b["orgId"])
        tags_a, rate_a = await load_org(oid_a, n)
        _, rate_b = await load_org(oid_b, n)
        print(f"bulk load: {n:,} contacts per organisation at {rate_a:,.0f}/s and {rate_b:,.0f}/s (direct inserts)")
        for oid in (oid_a, oid_b):
            t0 = time.perf_counter()
            built = await term_counts.recount(oid)
            print(f"recount_contact_terms (builds the counts): {built['terms']:,} terms in "
                  f"{time.perf_counter() - t0:.1f} s")
        t0 = time.perf_counter()
        again = await term_counts.recount(oid_a)
        print(f"recount_contact_terms again (nothing to fix: {again['fixed']} fixed): {time.perf_counter() - t0:.1f} s")
        # Each key has its own rate counters (60/s on Business); round-robin keeps the gate out of the figures.
        keys = [org_a["legacyKey"]] + [(await create_key(org_a["orgId"], "contacts:read,contacts:write"))["key"]
                                       for _ in range(10)]
        await mongo.close()
        port = free_port()
        proc = start([sys.executable, "-m", "leadline.cli", "serve", "--port", str(port)], env, "listening")
        api = f"http://127.0.0.1:{port}/v2.0"
        key = itertools.cycle(keys)

        async with aiohttp.ClientSession() as session:
            async def upsert_range(ids, concurrency=8):
                queue = iter(ids)

                async def worker():
                    for i in queue:
                        await timed(session, "POST", f"{api}/contacts", next(key),
                                    {"phone": f"+91 97{i:08d}", "contactName": f"New {i}", "tags": [str(tags_a[i % 50])],
                                     "customFields": {"plan": "p1", "score": i % 100}})
                t0 = time.perf_counter()
                await asyncio.gather(*(worker() for _ in range(concurrency)))
                return len(ids) / (time.perf_counter() - t0)

            created = await upsert_range(range(upserts))
            updated = await upsert_range(range(upserts))
            print(f"HTTP upsert, concurrency 8: {created:,.0f} creates/s, {updated:,.0f} updates/s "
                  f"({upserts:,} each, organisation already holding {n:,})")

            total = n + upserts
            last_page = -(-total // 100)
            cases = [
                ("GET /contacts page 1", "GET", "/contacts?page=1&limit=100", None),
                (f"GET /contacts page {last_page // 2} (middle)", "GET", f"/contacts?page={last_page // 2}&limit=100", None),
                (f"GET /contacts page {last_page} (last)", "GET", f"/contacts?page={last_page}&limit=100", None),
                ("filter optedOut=true (2%)", "POST", "/contacts/filter", {"filter": {"optedOut": True}}),
                ("filter tag (2%)", "POST", "/contacts/filter", {"filter": {"tags": str(tags_a[7])}}),
                ("filter customFields.plan=[p7] (2%)", "POST", "/contacts/filter",
                 {"filter": {"customFields.plan": ["p7"]}}),
                ("filter customFields.score=42 (1%)", "POST", "/contacts/filter", {"filter": {"customFields.score": 42}}),
                ("filter tag + optedOut + name pattern", "POST", "/contacts/filter",
                 {"filter": {"tags": str(tags_a[7]), "optedOut": False, "contactName": "name 1"}}),
                ("filter tag, page 20 of 40", "POST", "/contacts/filter",
                 {"filter": {"tags": str(tags_a[7])}, "page": 20, "limit": 50}),
                ("[broad] filter country=[IN] (25%)", "POST", "/contacts/filter", {"filter": {"country": ["IN"]}}),
                ("[scan] filter contactName pattern only", "POST", "/contacts/filter",
                 {"filter": {"contactName": "name 4242"}}),
            ]
            for name, method, path, body in cases:
                slow = name.startswith("[")
                ms = [await timed(session, method, api + path, next(key), body) for _ in range(5 if slow else runs)]
                summary(name, ms)
            phones = [f"9198{random.randrange(n):08d}" for _ in range(runs * 5)]
            summary("POST /contacts/phone", [await timed(session, "POST", f"{api}/contacts/phone", next(key),
                                                         {"phone": p}) for p in phones])
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)
        stack.stop()
        remove_dir(data_dir)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--contacts", type=int, default=100_000)
    parser.add_argument("--upserts", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    asyncio.run(main(args.contacts, args.upserts, args.runs))
