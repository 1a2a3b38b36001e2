"""The reusable numeric plan-limit checks (LIMIT_EXCEEDED / PLAN_LIMIT_EXCEEDED); features: plans.require_feature.

`within_limit` holds a short per-organisation Redis lock while it counts, so two concurrent
creates cannot both take the last slot.
"""
from __future__ import annotations

import asyncio
import uuid
from contextlib import asynccontextmanager
from typing import AsyncIterator

from leadline.resolvers.billing.plans import plan_for
from leadline.resolvers.billing.usage import count_usage
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError
from leadline.resolvers.runner import check_declared

_LOCK_MS = 10_000
_RELEASE_LUA = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"


def limit_of(ctx: RequestContext, key: str) -> int | None:
    """The plan's limit for `key`; the running operation must declare the limit it checks."""
    check_declared(ctx, "limits", key)
    return plan_for(ctx.org.plan).limits.get(key) if ctx.org else None


def check_limit(key: str, current: int, limit: int | None, *, adding: int = 1, code: str = "LIMIT_EXCEEDED") -> None:
    if limit is not None and current + adding > limit:
        raise ApiError(code, f"Plan limit reached for {key}: {current} of {limit} used.",
                       limitKey=key, current=current, limit=limit)


@asynccontextmanager
async def within_limit(ctx: RequestContext, key: str, *, adding: int = 1,
                       code: str = "LIMIT_EXCEEDED") -> AsyncIterator[int]:
    """Count, refuse past the plan's limit, and keep others out until the caller has written."""
    redis = ctx.services.redis
    lock = ctx.services.rkey("lock", "limit", ctx.org_id, key)
    token = uuid.uuid4().hex
    for _ in range(200):
        if await redis.set(lock, token, nx=True, px=_LOCK_MS):
            break
        await asyncio.sleep(0.01)
    else:
        raise ApiError("INTERNAL_SERVER_ERROR", "Could not reserve a plan slot; try again.")
    try:
        current = await count_usage(ctx.org_id, key, ctx.org.timezone)
        check_limit(key, current or 0, limit_of(ctx, key), adding=adding, code=code)
        yield current or 0
    finally:
        await redis.eval(_RELEASE_LUA, 1, lock, token)
