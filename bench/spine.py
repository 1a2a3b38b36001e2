"""Requests per second of an authenticated GET /v2.0/billing/plan through REST, the same operation
through /graphql, and a bare aiohttp handler doing the same database read; prints the ratios.

Each server runs in its own process on an embedded stack; the load comes from this process with a
fixed concurrency. Keys of several organisations are used round-robin so the per-key rate limit
(60/s on Business) does not cap the measurement; the rate gate itself still runs on every request.

    .venv/bin/python bench/spine.py [--seconds 5] [--concurrency 32]
"""
from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import sys

from leadline.database import connect_database
from leadline.embedded import EmbeddedStack, free_port
from leadline.resolvers.auth.admin import create_org

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import load, start, stop  # noqa: E402

QUERY = "{ billingPlan { plan { name description pricing { currency monthly yearly } } " \
        "subscription { subscriptionId plan { id name } status } limits { key limit used remaining } " \
        "features { key enabled } } }"


async def main(seconds: float, concurrency: int) -> None:
    stack = EmbeddedStack.start(None)
    env = {**os.environ, "MONGODB_URL": stack.database.url, "REDIS_URL": stack.redis.url,
           "MONGODB_DATABASE": "bench", "LEADLINE_LOG_LEVEL": "WARNING"}
    procs = []
    try:
        mongo = await connect_database(stack.database.url, "bench")
        orgs = [await create_org(f"Bench {i}", plan="business") for i in range(40)]
        await mongo.close()
        api_port, bare_port = free_port(), free_port()
        procs.append(start([sys.executable, "-m", "leadline.cli", "serve", "--port", str(api_port)], env, "listening"))
        procs.append(start([sys.executable, "bench/bare_server.py", str(bare_port)], env, "ready"))
        keys = itertools.cycle([o["legacyKey"] for o in orgs])
        ids = itertools.cycle([o["orgId"] for o in orgs])
        api = f"http://127.0.0.1:{api_port}"

        def rest(session):
            return session.get(f"{api}/v2.0/billing/plan", headers={"Authorization": f"Bearer {next(keys)}"})

        def graphql(session):
            return session.post(f"{api}/graphql", json={"query": QUERY},
                                headers={"Authorization": f"Bearer {next(keys)}"})

        def bare(session):
            return session.get(f"http://127.0.0.1:{bare_port}/plan", params={"org": next(ids)})

        results = {}
        for name, fn in (("bare aiohttp + same DB reads", bare), ("REST /v2.0/billing/plan", rest),
                         ("GraphQL billingPlan", graphql)):
            await load(fn, 1.0, concurrency)  # warm caches and connections
            results[name] = (await load(fn, seconds, concurrency))[1:]
        print(f"{'target':32} {'req/s':>9} {'p50 ms':>8} {'non-200':>8}")
        for name, (rps, p50, errors) in results.items():
            print(f"{name:32} {rps:9.0f} {p50:8.2f} {errors:8d}")
        bare_rps = results["bare aiohttp + same DB reads"][0]
        rest_rps = results["REST /v2.0/billing/plan"][0]
        gql_rps = results["GraphQL billingPlan"][0]
        print(f"REST / bare = {rest_rps / bare_rps:.2f}   GraphQL / bare = {gql_rps / bare_rps:.2f}   "
              f"REST / GraphQL = {rest_rps / gql_rps:.2f}")
    finally:
        stop(procs)
        stack.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    asyncio.run(main(args.seconds, args.concurrency))
