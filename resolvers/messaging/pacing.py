"""Pacing bulk sends to a business number's throughput (messages per second), across every worker.

A token bucket per number in Redis, one Lua call per batch: `take(n)` returns how long to wait before
sending n messages, and books them, so two workers sharing a number share its rate. A bucket holds at
most one second of tokens.
"""
from __future__ import annotations

import asyncio
import time

from leadline.models.channels import ChannelAccount
from leadline.resolvers.context import Services

SANDBOX_MPS, CLOUD_API_MPS = 1000, 80

# KEYS[1] the bucket {tokens, at}; ARGV: now ms, rate per s, n. Returns ms to wait (the tokens are booked,
# possibly going negative: the caller waits until they are earned).
_TAKE = """
local now, rate, n = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or rate
local at = tonumber(state[2]) or now
tokens = math.min(rate, tokens + (now - at) * rate / 1000) - n
redis.call('HSET', KEYS[1], 'tokens', tokens, 'at', now)
redis.call('PEXPIRE', KEYS[1], 60000)
if tokens >= 0 then return 0 end
return math.ceil(-tokens * 1000 / rate)
"""


def rate_of(account: ChannelAccount, adapter_name: str) -> int:
    if account.messages_per_second:
        return account.messages_per_second
    return SANDBOX_MPS if adapter_name == "sandbox" else CLOUD_API_MPS


async def take(services: Services, account: ChannelAccount, adapter_name: str, n: int) -> None:
    """Wait until `n` more messages may go out on this number."""
    key = services.rkey("pace", account.org_id, account.number)
    wait_ms = await services.redis.eval(_TAKE, 1, key, int(time.time() * 1000), rate_of(account, adapter_name), n)
    if int(wait_ms) > 0:
        await asyncio.sleep(int(wait_ms) / 1000)
