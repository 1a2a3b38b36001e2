"""Session fixtures: a real SecantusDB and a real redis-server; a fresh database per test."""
from __future__ import annotations

from leadline.app_keys import SERVICES

import asyncio
import uuid

from pymongo import MongoClient

import pytest
from redis.asyncio import Redis

from leadline.app import create_app
from leadline.config import Settings
from leadline.embedded import EmbeddedStack
from tests.helpers import Api, RoundTrips, Tenant, make_tenant

# Command monitoring reports only for clients created after this (every test's own).
RoundTrips.install()


@pytest.fixture(scope="session")
def stack():
    stack = EmbeddedStack.start(None)
    yield stack
    stack.stop()


@pytest.fixture
def settings(stack):
    tag = uuid.uuid4().hex[:12]
    yield Settings(mongodb_url=stack.database.url, redis_url=stack.redis.url, database_name=f"test_{tag}",
                    redis_prefix=f"test:{tag}", environment="development", cors_origins=("*",),
                    arq_queue_name=f"test:{tag}:queue")
    with MongoClient(stack.database.url) as mongo:
        mongo.drop_database(f"test_{tag}")


@pytest.fixture
async def client(aiohttp_client, settings):
    app = create_app(settings)
    test_client = await aiohttp_client(app)
    yield test_client
    # Redis keys are namespaced per test; remove this test's so the session's Redis stays small.
    redis = Redis.from_url(settings.redis_url)
    async for key in redis.scan_iter(match=f"{settings.redis_prefix}:*", count=1000):
        await redis.delete(key)
    await redis.aclose()


@pytest.fixture
def services(client):
    return client.app[SERVICES]


@pytest.fixture
async def tenant(client) -> Tenant:
    return await make_tenant(client, plan="business")


@pytest.fixture
def api(client) -> Api:
    return Api(client)


@pytest.fixture
async def run_worker(client, settings):
    """`await run_worker()` runs a real arq worker (burst mode) on the test Redis until the queue,
    deferred jobs included, is empty, and drains the campaign fan-out and the webhook ingestion streams
    (delayed entries included) as the worker's loops do; it shares the app's services. Returns the jobs
    completed plus the chunks sent plus the changes ingested."""
    from leadline.jobs.campaigns import fan_out_until_empty
    from leadline.jobs.webhooks import ingest_until_empty
    from leadline.jobs.worker import build_worker

    workers = []
    services = client.app[SERVICES]

    async def run(timeout: float = 30) -> int:
        loop = asyncio.get_running_loop()
        deadline, done = loop.time() + timeout, 0
        while True:
            worker = build_worker(settings, burst=True, handle_signals=False, services=services, with_cron=False)
            workers.append(worker)
            await asyncio.wait_for(worker.async_run(), deadline - loop.time())
            sent = await fan_out_until_empty(services, timeout=deadline - loop.time())
            ingested = await ingest_until_empty(services, timeout=deadline - loop.time())
            done += worker.jobs_complete + ingested + sent
            if not ingested and not sent and not await services.arq.zcard(settings.arq_queue_name):
                return done

    yield run
    for worker in workers:
        await worker.close()
