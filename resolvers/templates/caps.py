"""Template submission caps per organisation (2 a minute, 30 a day): two sliding-window logs, one Lua call.

Both windows are checked before either is written, so a refused submission takes no slot.
"""
from __future__ import annotations

import math
import uuid
from dataclasses import dataclass

from bson import ObjectId

from leadline.resolvers.context import Services
from leadline.resolvers.errors import ApiError

PER_MINUTE, PER_DAY = 2, 30
MINUTE_US, DAY_US = 60 * 1_000_000, 86_400 * 1_000_000

# KEYS: 1 minute log, 2 day log. ARGV: 1 per-minute cap, 2 per-day cap, 3 unique member.
# Returns {0} when admitted, else {1 (minute) | 2 (day), microseconds until a slot frees}.
_TAKE_LUA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local windows = {{KEYS[1], 60000000, tonumber(ARGV[1])}, {KEYS[2], 86400000000, tonumber(ARGV[2])}}
for i, w in ipairs(windows) do
  redis.call('ZREMRANGEBYSCORE', w[1], '-inf', now - w[2])
  if redis.call('ZCARD', w[1]) >= w[3] then
    local first = redis.call('ZRANGE', w[1], 0, 0, 'WITHSCORES')
    return {i, tostring(tonumber(first[2]) + w[2] - now)}
  end
end
for _, w in ipairs(windows) do
  redis.call('ZADD', w[1], now, ARGV[3])
  redis.call('PEXPIRE', w[1], math.floor(w[2] / 1000) + 1000)
end
return {0, '0'}
"""


@dataclass(frozen=True)
class CapKeys:
    minute: str
    day: str


def cap_keys(services: Services, org_id: ObjectId) -> CapKeys:
    return CapKeys(services.rkey("tplcap", org_id, "m"), services.rkey("tplcap", org_id, "d"))


async def take_submission_slot(services: Services, org_id: ObjectId) -> None:
    """Take one submission slot or raise TEMPLATE_RATE_LIMITED with Retry-After (whole seconds)."""
    keys = cap_keys(services, org_id)
    script = services.redis.register_script(_TAKE_LUA)
    window, wait_us = await script(keys=[keys.minute, keys.day], args=[PER_MINUTE, PER_DAY, uuid.uuid4().hex])
    if int(window) == 0:
        return
    retry_after = max(1, math.ceil(int(wait_us) / 1_000_000))
    which = f"{PER_MINUTE} per minute" if int(window) == 1 else f"{PER_DAY} per day"
    raise ApiError("TEMPLATE_RATE_LIMITED", f"Template submissions are capped at {which}; retry in {retry_after} s.",
                   headers={"Retry-After": str(retry_after)}, retryAfter=retry_after)
