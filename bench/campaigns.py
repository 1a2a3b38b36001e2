"""Campaign fan-out end to end, against a plain loop of single sends, in one run.

1. Seeds an organisation with N contacts (default 100,000; loaded in bulk, as an import would), a
   sandbox number at 1,000 messages/s with an unlimited tier, and an approved template with two body
   variables (one personalised from the contact's name).
2. POST /v2.0/campaigns for every contact, then polls the report until the campaign is `completed`:
   prints the create call's time, the time from create to `completed`, messages/s, and the report's
   counters against a recount of the recipients (chunk outcomes) and of the stored messages.
3. A plain loop of POST /v2.0/chatapp/send (20 organisations, same template, concurrency 32) for a few
   seconds: messages/s, and the campaign's rate as a multiple of it.

The API (`leadline serve`) and the workers (`leadline worker`, `--workers`) run in their own processes
on an embedded stack; the sandbox's delivery statuses flow during the campaign as they would.

    .venv/bin/python bench/campaigns.py [--contacts 100000] [--workers 1] [--send-seconds 10]
"""
from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter

import aiohttp
from bson import ObjectId
from redis.asyncio import Redis

from leadline.database import connect_database
from leadline.embedded import EmbeddedStack, free_port, remove_dir
from leadline.models.campaigns import Campaign, CampaignChunk
from leadline.models.chats import ChatMessage
from leadline.models.contacts import Contact
from leadline.models.templates import MessageTemplate
from leadline.resolvers.auth.admin import create_org
from leadline.resolvers.channels.admin import connect_channel
from leadline.resolvers.contacts import counters
from leadline.resolvers.contacts.terms import contact_terms

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import load, start, stop, until_drained  # noqa: E402

BRAND = "15550001000"
BODY = [{"type": "BODY", "text": "Hi {{1}}, your code is {{2}}."}]


async def seed_contacts(org: ObjectId, n: int) -> float:
    started = time.perf_counter()
    for first in range(0, n, 500):
        batch = range(first, min(n, first + 500))
        seq = await counters.add_bulk(org, len(batch))
        docs = []
        for k, i in enumerate(batch):
            doc = Contact.new(org, phone=f"9198{i:08d}", seq=seq + k, countryCode="91", contactName=f"Name {i}",
                              source="import", optedOut=False)
            doc.terms = contact_terms(org, doc.model_dump())
            docs.append(doc)
        await Contact.insert_many(docs)
    return time.perf_counter() - started


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


LOOP_ORGS = 20


async def main(n: int, workers: int, send_seconds: float, status_wait: float) -> None:
    # On disk, as `leadline up` runs it: 100,000 contacts, their messages and the oplog outgrow the
    # in-memory store's cache, and an in-memory store near its cache's limit stalls every write on
    # eviction it cannot do (then refuses writes with WT_CACHE_FULL).
    data_dir = tempfile.mkdtemp(prefix="leadline-bench-campaigns-")
    stack = EmbeddedStack.start(data_dir)
    env = {**os.environ, "MONGODB_URL": stack.database.url, "REDIS_URL": stack.redis.url,
           "MONGODB_DATABASE": "bench", "LEADLINE_LOG_LEVEL": "WARNING", "CHATAPP_APP_SECRET": "bench"}
    procs: list[subprocess.Popen] = []
    try:
        await connect_database(stack.database.url, "bench", timeout_ms=300_000)
        org = await create_org("Bench", plan="business")
        org_id, key = ObjectId(org["orgId"]), org["legacyKey"]
        await connect_channel(org["orgId"], "chatapp", BRAND, "Bench", messages_per_second=int(os.environ.get("BENCH_MPS", "1000")),
                              messaging_tier="TIER_UNLIMITED")
        template = MessageTemplate.new(org_id, name="promo", language="en", category="MARKETING", status="APPROVED",
                                       template_id="1000000000000001", brand_number=BRAND, components=BODY)
        await template.insert()
        seeded = await seed_contacts(org_id, n)
        print(f"seeded {n:,} contacts in {seeded:.1f} s")

        port = free_port()
        procs.append(start([sys.executable, "-m", "leadline.cli", "serve", "--port", str(port)], env, "listening"))
        worker_log = open(os.environ.get("BENCH_WORKER_LOG", os.devnull), "w")
        for _ in range(workers):
            procs.append(subprocess.Popen([sys.executable, "-m", "leadline.cli", "worker"], env=env,
                                          stdout=worker_log, stderr=subprocess.STDOUT))
        base, headers = f"http://127.0.0.1:{port}", {"Authorization": f"Bearer {key}"}
        await asyncio.sleep(2.0)  # the workers connect

        pids = {"database": stack.database.proc.pid, "redis": stack.redis.proc.pid, "api": procs[0].pid,
                "workers": [p.pid for p in procs[1:]]}

        def cpu() -> dict[str, float]:
            return {name: sum(cpu_seconds(p) for p in (pid if isinstance(pid, list) else [pid]))
                    for name, pid in pids.items()}

        async with aiohttp.ClientSession(headers=headers) as session:
            cpu_before = cpu()
            started = time.perf_counter()
            async with session.post(f"{base}/v2.0/campaigns", json={
                    "brandNumber": BRAND, "campaignName": "Bench", "templateId": str(template.id), "audience": {},
                    "variables": {"body": [{"field": "name", "default": "friend"}, "SAVE10"]}}) as resp:
                created = await resp.json()
                assert resp.status == 201, created
            create_took = time.perf_counter() - started
            campaign_id = created["data"]["campaignId"]
            # The campaign's status is read from its document: a report recounts every recipient (~1.5 s
            # of database time at 100,000, docs/campaigns.md) and polling it would slow the send it
            # measures. The report is read once, at the end.
            while (await Campaign.find_one_raw_in(org_id, {"_id": ObjectId(campaign_id)}, {"status": 1}))["status"] \
                    not in ("completed", "failed", "cancelled"):
                await asyncio.sleep(0.25)
            took = time.perf_counter() - started
            async with session.get(f"{base}/v2.0/campaigns/{campaign_id}/report") as resp:
                report = (await resp.json())["data"]
            cpu_used = {k: v - cpu_before[k] for k, v in cpu().items()}
        counters_at_completion = report["counters"]
        # Statuses of the campaign's messages still queued behind it: the loop below starts on an idle stack.
        redis = Redis.from_url(stack.redis.url)
        drained = await until_drained(redis, "leadline:stream:chatwh", started, timeout=status_wait)
        await redis.aclose()
        async with aiohttp.ClientSession(headers=headers) as session:
            report_started = time.perf_counter()
            async with session.get(f"{base}/v2.0/campaigns/{campaign_id}/report") as resp:
                counters_ = (await resp.json())["data"]["counters"]
            report_took = time.perf_counter() - report_started
        chunks = await CampaignChunk.find_raw_in(org_id, {"campaign_id": ObjectId(campaign_id)}, {"outcomes": 1})
        recount = Counter(o.partition(":")[0] for c in chunks for o in c["outcomes"])
        stored = await ChatMessage.count_in(org_id, {"campaign_id": ObjectId(campaign_id)})

        # The plain loop spreads over several organisations, as a real load would: one organisation alone
        # would be held back by its plan's per-second rate limit rather than by the pipeline.
        senders = []
        for i in range(LOOP_ORGS):
            other = await create_org(f"Loop {i}", plan="business")
            brand = f"1555100{i:04d}"
            await connect_channel(other["orgId"], "chatapp", brand, f"Loop {i}", messaging_tier="TIER_UNLIMITED")
            await MessageTemplate.new(ObjectId(other["orgId"]), name="promo", language="en", category="MARKETING",
                                      status="APPROVED", template_id=str(2 * 10**15 + i), brand_number=brand,
                                      components=BODY).insert()
            senders.append((other["legacyKey"], brand, str(2 * 10**15 + i)))
        senders_cycle = itertools.cycle(senders)
        to = itertools.cycle(f"9198{i:08d}" for i in range(n))

        def send(session):
            loop_key, brand, template_id = next(senders_cycle)
            body = {"to": next(to), "brandNumber": brand, "templateId": template_id,
                    "bodyParameters": ["Ann", "SAVE10"]}
            return session.post(f"{base}/v2.0/chatapp/send", json=body,
                                headers={"Authorization": f"Bearer {loop_key}"})

        await load(send, 1.0, 32)  # warm up
        attempts, attempt_rate, p50, errors = await load(send, send_seconds, 32)
        send_rate = attempt_rate * (attempts - errors) / attempts  # accepted sends only

        rate = n / took
        print(f"campaign of {n:,} recipients, {workers} worker(s): create answered in {create_took:.2f} s; "
              f"create -> completed {took:.1f} s = {rate:,.0f} msg/s ({report['status']})")
        print("CPU seconds during the campaign: " + ", ".join(f"{k} {v:.1f}" for k, v in cpu_used.items())
              + f" (of {took:.1f} s)")
        print(f"report counters at completion: {counters_at_completion}")
        waited = ("every status ingested" if drained < status_wait else "statuses still queued") + \
            f" {drained:.1f} s after create"
        print(f"{waited}; report counters then (the report answered in {report_took * 1000:.0f} ms): {counters_}")
        same = all(counters_[s] == recount[s] for s in ("pending", "sent", "delivered", "read", "failed", "skipped"))
        print(f"recount of recipients: {dict(recount)} -> {'equal' if same else 'DIFFERENT'}; "
              f"messages stored {stored:,}")
        print(f"plain loop POST /v2.0/chatapp/send (concurrency 32, {send_seconds:.0f} s): {send_rate:,.0f} msg/s "
              f"accepted (p50 {p50:.1f} ms, {errors} of {attempts:,} refused); campaign = {rate / send_rate:.1f}x the loop")
    finally:
        stop(procs)
        stack.stop()
        remove_dir(data_dir)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--contacts", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--send-seconds", type=float, default=10.0)
    parser.add_argument("--status-wait", type=float, default=900.0,
                        help="seconds to wait for the campaign's statuses before the plain loop")
    args = parser.parse_args()
    asyncio.run(main(args.contacts, args.workers, args.send_seconds, args.status_wait))
