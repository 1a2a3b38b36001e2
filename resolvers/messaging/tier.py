"""The messaging tier: unique recipients of template sends per business number in a moving 24 hours.

One sorted set per number (member = recipient, score = last send in ms), checked and updated in one
Lua call, so concurrent sends can never admit more than the tier allows.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

from leadline.models.channels import ChannelAccount
from leadline.resolvers.context import Services
from leadline.resolvers.errors import ApiError

WINDOW_MS = 24 * 3600 * 1000
# ChannelAccount.messaging_tier -> unique recipients per 24 h (None = unlimited). The field notes'
# ladder (250, 2,000, 10,000, 100,000, unlimited), plus the provider's older TIER_1K name.
TIER_LIMITS: dict[str, int | None] = {
    "TIER_250": 250, "TIER_1K": 1000, "TIER_2K": 2000, "TIER_10K": 10_000, "TIER_100K": 100_000,
    "TIER_UNLIMITED": None,
}

# KEYS[1] the set; ARGV: now ms, window ms, limit, recipient.
# Returns {admitted, added, count, oldest score}.
_ADMIT = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
local known = redis.call('ZSCORE', KEYS[1], ARGV[4])
local count = redis.call('ZCARD', KEYS[1])
if not known and count >= tonumber(ARGV[3]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, 0, count, oldest[2]}
end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if known then return {1, 0, count, 0} end
return {1, 1, count + 1, 0}
"""


def tier_limit(account: ChannelAccount) -> int | None:
    # An unknown tier name gets the first tier's allowance rather than none.
    return TIER_LIMITS.get((account.messaging_tier or "").upper(), TIER_LIMITS["TIER_250"])


@dataclass(frozen=True)
class Reservation:
    key: str
    recipient: str
    added: bool


def _key(services: Services, account: ChannelAccount) -> str:
    return services.rkey("tier", account.org_id, account.number)


async def admit(services: Services, account: ChannelAccount, recipient: str) -> Reservation | None:
    """Count the recipient against the tier; MESSAGING_LIMIT_REACHED (429) past it."""
    limit = tier_limit(account)
    if limit is None:
        return None
    key = _key(services, account)
    now = int(time.time() * 1000)
    admitted, added, count, oldest = await services.redis.eval(_ADMIT, 1, key, now, WINDOW_MS, limit, recipient)
    if not int(admitted):
        retry = max(1, math.ceil((float(oldest) + WINDOW_MS - now) / 1000))
        raise ApiError("MESSAGING_LIMIT_REACHED",
                       f"Business number {account.number} reached its messaging tier ({account.messaging_tier}): "
                       f"{limit} unique recipients in 24 hours.",
                       headers={"Retry-After": str(retry)}, limitKey="messaging_tier", limit=limit,
                       current=int(count), retryAfter=retry)
    return Reservation(key, recipient, bool(int(added)))


async def release(services: Services, reservation: Reservation | None) -> None:
    """Undo a new recipient's count when the provider refused the send."""
    if reservation is not None and reservation.added:
        await services.redis.zrem(reservation.key, reservation.recipient)


async def usage(services: Services, account: ChannelAccount) -> int:
    key = _key(services, account)
    await services.redis.zremrangebyscore(key, "-inf", int(time.time() * 1000) - WINDOW_MS)
    return int(await services.redis.zcard(key))


# KEYS[1] the set; ARGV: now ms, window ms, limit, recipients... Returns per recipient 1 (admitted) or
# 0 (the tier is used up), then the oldest score (for the retry time).
_ADMIT_MANY = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
local count = redis.call('ZCARD', KEYS[1])
local out = {}
for i = 4, #ARGV do
  local known = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if known or count < tonumber(ARGV[3]) then
    redis.call('ZADD', KEYS[1], ARGV[1], ARGV[i])
    if not known then count = count + 1 end
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
out[#out + 1] = oldest[2] or ARGV[1]
return out
"""


async def admit_many(services: Services, account: ChannelAccount, recipients: list[str]) -> tuple[list[bool], float]:
    """`admit` for a batch in one round trip: which recipients the tier lets through, and in how many
    seconds it admits new ones again when it refused some."""
    limit = tier_limit(account)
    if limit is None or not recipients:
        return [True] * len(recipients), 0.0
    now = int(time.time() * 1000)
    raw = await services.redis.eval(_ADMIT_MANY, 1, _key(services, account), now, WINDOW_MS, limit, *recipients)
    admitted = [bool(int(x)) for x in raw[:-1]]
    return admitted, max(1.0, (float(raw[-1]) + WINDOW_MS - now) / 1000)
