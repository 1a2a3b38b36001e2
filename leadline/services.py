"""Building and closing the process-wide services (database, Redis, providers, queue)."""
from __future__ import annotations

from contextlib import asynccontextmanager
from typing import AsyncIterator

from arq import create_pool
from arq.connections import RedisSettings
from redis.asyncio import Redis

from leadline.config import Settings
from leadline.database import connect_database
from leadline.resolvers.auth.cache import KeyCache
from leadline.resolvers.auth.gate import RateGate
from leadline.resolvers.providers.base import ProviderRegistry
from leadline.resolvers.providers.meta import MetaAdapter
from leadline.resolvers.providers.sandbox import SandboxAdapter
from leadline.resolvers.context import Services
from leadline.resolvers.domains import DOMAIN_PACKAGES  # noqa: F401  (loads every domain's registrations)


def build_providers(settings: Settings) -> ProviderRegistry:
    return ProviderRegistry(settings.provider, {
        "sandbox": SandboxAdapter(),
        "meta": MetaAdapter(settings.chatapp_graph_url),
    })


@asynccontextmanager
async def open_services(settings: Settings, *, with_queue: bool = True) -> AsyncIterator[Services]:
    if not settings.mongodb_url or not settings.redis_url:
        raise RuntimeError("MONGODB_URL and REDIS_URL must be resolved before services open")
    mongo = await connect_database(settings.mongodb_url, settings.database_name, timeout_ms=settings.db_timeout_ms)
    redis = Redis.from_url(settings.redis_url, max_connections=256)
    arq = await create_pool(RedisSettings.from_dsn(settings.redis_url),
                            default_queue_name=settings.arq_queue_name) if with_queue else None
    providers = build_providers(settings)
    services = Services(settings=settings, redis=redis, key_cache=KeyCache(settings.key_cache_seconds),
                        gate=RateGate(redis, settings.redis_prefix), providers=providers, arq=arq)
    try:
        yield services
    finally:
        await providers.close()
        if arq is not None:
            await arq.aclose()
        await redis.aclose()
        await mongo.close()
