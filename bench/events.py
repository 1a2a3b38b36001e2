"""Outgoing events end to end: N events (default 10,000) recorded as the domains record them, delivered by
real workers to a local receiver, every signature verified.

1. An embedded stack; one organisation with `--endpoints` endpoints on a receiver served by this process
   (loopback; development allows http), plus, with `--slow`, an endpoint that never answers (each attempt
   times out) to show it delays nobody.
2. `--workers` `leadline worker` processes run the delivery engine (resolvers/events/engine.py).
3. The events are recorded with `emit_many` in batches of 100 (as a campaign's statuses are), as fast as
   the database takes them or at `--rate` events/s; each event's `timestamp` is the change's time.
4. The receiver verifies each delivery with the `standardwebhooks` library when installed (else with the
   same HMAC by hand) and notes when it arrived.

Prints deliveries/s (first change to last receipt), the delay from the change to its receipt (p50, p95,
p99, max), duplicates and bad signatures.

    .venv/bin/python bench/events.py [--events 10000] [--workers 1] [--endpoints 1] [--rate 0] [--slow]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from datetime import datetime

from aiohttp import web
from bson import ObjectId

from leadline.config import Settings
from leadline.embedded import EmbeddedStack, free_port
from leadline.models.events import WebhookDelivery
from leadline.resolvers.auth.admin import create_org
from leadline.resolvers.auth.snapshots import OrgSnapshot
from leadline.resolvers.context import RequestContext
from leadline.resolvers.events import Event, emit_many
from leadline.resolvers.events.endpoints import EndpointWrite, create_endpoint
from leadline.services import open_services

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import stop

try:
    from standardwebhooks import Webhook
except ImportError:  # the test dependency is not installed: check the HMAC by hand
    Webhook = None

BATCH = 100


class Receiver:
    def __init__(self, secrets: dict[str, str]) -> None:
        self.secrets = secrets  # path -> secret
        self.arrivals: dict[str, list[float]] = {}
        self.delays: list[float] = []
        self.bad = 0
        self.first = self.last = None

    async def hook(self, request: web.Request) -> web.Response:
        body = (await request.read()).decode()
        now = time.time()
        headers = {k.lower(): v for k, v in request.headers.items()}
        if not self.verify(self.secrets[request.path], body, headers):
            self.bad += 1
        key = f"{request.path}|{headers['webhook-id']}"
        seen = self.arrivals.setdefault(key, [])
        seen.append(now)
        if len(seen) == 1:
            changed = datetime.fromisoformat(json.loads(body)["timestamp"].replace("Z", "+00:00")).timestamp()
            self.delays.append(now - changed)
        self.first = self.first or now
        self.last = now
        return web.Response(text="ok")

    @staticmethod
    def verify(secret: str, body: str, headers: dict[str, str]) -> bool:
        if Webhook is not None:
            try:
                Webhook(secret).verify(body, headers)
                return True
            except Exception:  # noqa: BLE001
                return False
        from leadline.resolvers.events.signing import key_of, signature

        expected = signature([key_of(secret)], headers["webhook-id"], int(headers["webhook-timestamp"]), body)
        return expected in headers["webhook-signature"].split(" ")


async def hang(request: web.Request) -> web.Response:
    await asyncio.sleep(3600)
    return web.Response(text="late")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def main(n: int, workers: int, endpoints: int, rate: float, slow: bool) -> None:
    stack = EmbeddedStack.start(None)
    settings = Settings(mongodb_url=stack.database.url, redis_url=stack.redis.url, database_name="bench_events",
                        db_timeout_ms=300_000)
    try:
        async with open_services(settings, with_queue=False) as services:
            await run(services, stack, n, workers, endpoints, rate, slow)
    finally:
        stack.stop()


async def run(services, stack: EmbeddedStack, n: int, workers: int, endpoints: int, rate: float, slow: bool) -> None:
    env = {**os.environ, "MONGODB_URL": stack.database.url, "REDIS_URL": stack.redis.url,
           "MONGODB_DATABASE": "bench_events", "LEADLINE_LOG_LEVEL": "WARNING", "LEADLINE_WEBHOOK_TIMEOUT_SECONDS": "5"}
    procs: list[subprocess.Popen] = []
    runner = None
    try:
        org = await create_org("Bench", plan="business")
        org_id = ObjectId(org["orgId"])
        port = free_port()
        ctx = RequestContext.system(services, OrgSnapshot(org_id, "Bench", "business", "UTC", True, ()))
        secrets = {}
        for i in range(endpoints):
            created = await create_endpoint(ctx, EndpointWrite(f"http://127.0.0.1:{port}/hook/{i}"))
            secrets[f"/hook/{i}"] = created.secret
        if slow:
            await create_endpoint(ctx, EndpointWrite(f"http://127.0.0.1:{port}/slow"))
        receiver = Receiver(secrets)
        app = web.Application()
        app.router.add_post("/hook/{i}", receiver.hook)
        app.router.add_post("/slow", hang)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()

        worker_log = open(os.environ.get("BENCH_WORKER_LOG", os.devnull), "w")
        for _ in range(workers):
            procs.append(subprocess.Popen([sys.executable, "-m", "leadline.cli", "worker"], env=env,
                                          stdout=worker_log, stderr=subprocess.STDOUT))
        await asyncio.sleep(3.0)  # the workers connect

        pids = {"database": [stack.database.proc.pid], "workers": [p.pid for p in procs], "this process (events, "
                "receiver)": [os.getpid()]}

        def cpu() -> dict[str, float]:
            return {name: sum(cpu_seconds(p) for p in group) for name, group in pids.items()}

        cpu_before = cpu()
        started = time.time()
        for first in range(0, n, BATCH):
            count = min(BATCH, n - first)
            await emit_many(None, [Event(org_id, "contact.created", {
                "contactId": str(ObjectId()), "phone": f"9198{first + k:08d}", "bsuid": None, "contactName": f"P{k}",
                "countryCode": "91", "source": "bench", "auto_added": False, "createdAt": None})
                for k in range(count)])
            if rate:
                ahead = (first + count) / rate - (time.time() - started)
                if ahead > 0:
                    await asyncio.sleep(ahead)
        recorded = time.time() - started
        expected = n * endpoints
        deadline = time.time() + 600
        while len(receiver.delays) < expected and time.time() < deadline:
            await asyncio.sleep(0.1)
        took = (receiver.last or time.time()) - started
        cpu_used = {k: v - cpu_before[k] for k, v in cpu().items()}
        duplicates = sum(len(v) - 1 for v in receiver.arrivals.values())
        delays = receiver.delays or [float("nan")]
        print(f"{n:,} events x {endpoints} endpoint(s){' + 1 hanging endpoint' if slow else ''}, "
              f"{workers} worker(s); recorded in {recorded:.1f} s ({n / recorded:,.0f} events/s)")
        print(f"received {len(receiver.delays):,} of {expected:,} deliveries in {took:.1f} s = "
              f"{len(receiver.delays) / took:,.0f} deliveries/s; bad signatures {receiver.bad}, duplicates {duplicates}")
        print(f"delay change -> receipt: p50 {statistics.median(delays) * 1000:,.0f} ms, "
              f"p95 {pct(delays, 0.95) * 1000:,.0f} ms, p99 {pct(delays, 0.99) * 1000:,.0f} ms, "
              f"max {max(delays) * 1000:,.0f} ms")
        print("CPU seconds meanwhile: " + ", ".join(f"{k} {v:.1f}" for k, v in cpu_used.items())
              + f" (of {took:.1f} s; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
        if slow:
            pending = await WebhookDelivery.count_in(org_id, {"status": "pending"})
            print(f"the hanging endpoint's deliveries still pending: {pending:,}")
    finally:
        stop(procs)
        if runner is not None:
            await runner.cleanup()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--endpoints", type=int, default=1)
    parser.add_argument("--rate", type=float, default=0.0, help="events/s to record (0: as fast as possible)")
    parser.add_argument("--slow", action="store_true", help="add an endpoint that never answers")
    args = parser.parse_args()
    asyncio.run(main(args.events, args.workers, args.endpoints, args.rate, args.slow))
