"""Per-key rate limiting: two exact sliding-window logs (1 s and 24 h) in one atomic Lua call.

The same call returns the organisation's auth token (see cache.py) and records the key's
last use, so a warm request makes exactly one Redis round trip for all of it.
"""
from __future__ import annotations

import math
import uuid
from dataclasses import dataclass

from bson import ObjectId

SECOND_US = 1_000_000
DAY_US = 86_400 * SECOND_US

# KEYS: 1 per-second log, 2 per-day log, 3 org auth token, 4 last-used hash (microseconds, written with
# %.0f: Lua's tostring gives 1.7953e+15 for numbers this large)
# ARGV: 1 per-second limit, 2 per-day limit, 3 unique member, 4 key id, 5 cost (units admitted at once:
# a GraphQL request's extra root fields; all or none)
_GATE_LUA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local sec_limit = tonumber(ARGV[1])
local day_limit = tonumber(ARGV[2])
local cost = tonumber(ARGV[5]) or 1
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 1000000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - 86400000000)
local sec_count = redis.call('ZCARD', KEYS[1])
local day_count = redis.call('ZCARD', KEYS[2])
local token = redis.call('GET', KEYS[3])
if not token then token = '' end
local function oldest(key)
  local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if first[2] then return tonumber(first[2]) end
  return now
end
if sec_count + cost > sec_limit then
  return {1, tostring(oldest(KEYS[1]) + 1000000 - now), sec_count, day_count, token, tostring(oldest(KEYS[2]) + 86400000000 - now)}
end
if day_count + cost > day_limit then
  return {2, tostring(oldest(KEYS[2]) + 86400000000 - now), sec_count, day_count, token, tostring(oldest(KEYS[1]) + 1000000 - now)}
end
for i = 1, cost do
  local member = ARGV[3]
  if i > 1 then member = member .. ':' .. i end
  redis.call('ZADD', KEYS[1], now, member)
  redis.call('ZADD', KEYS[2], now, member)
end
redis.call('PEXPIRE', KEYS[1], 2000)
redis.call('PEXPIRE', KEYS[2], 86401000)
redis.call('HSET', KEYS[4], ARGV[4], string.format('%.0f', now))
return {0, tostring(oldest(KEYS[1]) + 1000000 - now), sec_count + cost, day_count + cost, token, tostring(oldest(KEYS[2]) + 86400000000 - now)}
"""


@dataclass(frozen=True)
class GateResult:
    outcome: str  # "ok" | "per_second" | "per_day"
    token: str
    per_second_limit: int
    per_day_limit: int
    per_second_used: int
    per_day_used: int
    second_reset_us: int
    day_reset_us: int

    @property
    def retry_after(self) -> int:
        """Whole seconds until the refused window admits a request again (at least 1)."""
        waited = self.second_reset_us if self.outcome == "per_second" else self.day_reset_us
        return max(1, math.ceil(waited / SECOND_US))

    def headers(self) -> dict[str, str]:
        """X-RateLimit-* for the window closest to refusing (ties: the per-second window)."""
        sec_left = max(0, self.per_second_limit - self.per_second_used)
        day_left = max(0, self.per_day_limit - self.per_day_used)
        if day_left < sec_left or self.outcome == "per_day":
            limit, left, reset_us = self.per_day_limit, day_left, self.day_reset_us
        else:
            limit, left, reset_us = self.per_second_limit, sec_left, self.second_reset_us
        return {
            "X-RateLimit-Limit": str(limit),
            "X-RateLimit-Remaining": str(left),
            "X-RateLimit-Reset": str(max(0, math.ceil(reset_us / SECOND_US))),
        }


def last_used_key(prefix: str) -> str:
    return f"{prefix}:keys:last_used"


class RateGate:
    def __init__(self, redis, prefix: str) -> None:
        self._redis = redis
        self._prefix = prefix
        self._script = redis.register_script(_GATE_LUA)

    async def admit(self, key_id: ObjectId, org_id: ObjectId, per_second: int, per_day: int,
                    cost: int = 1) -> GateResult:
        """Admit `cost` units at once (all or none): a request is 1; a GraphQL request's extra root fields
        are charged as one more call with their number."""
        p = self._prefix
        keys = [f"{p}:rl:{key_id}:s", f"{p}:rl:{key_id}:d", f"{p}:authver:{org_id}", last_used_key(p)]
        args = [per_second, per_day, uuid.uuid4().hex, str(key_id), max(1, int(cost))]
        raw = await self._script(keys=keys, args=args)
        code, reset_a, sec_used, day_used, token, reset_b = raw
        token = token.decode() if isinstance(token, bytes) else token
        outcome = {0: "ok", 1: "per_second", 2: "per_day"}[int(code)]
        if outcome == "per_day":
            second_reset, day_reset = int(reset_b), int(reset_a)
        else:
            second_reset, day_reset = int(reset_a), int(reset_b)
        return GateResult(outcome, token, per_second, per_day, int(sec_used), int(day_used), second_reset, day_reset)
