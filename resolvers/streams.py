"""Durable work queues on Redis streams: added in one round trip, claimed N at a time, nothing lost.

A `WorkStream` is one stream with one consumer group. Producers `add` entries (one pipelined XADD
for all of them) or `add_later` (a sorted set by due time; `claim` moves due entries into the stream
in one Lua call). Consumers `claim` up to N entries at once and `ack` them after their work is
written. An entry claimed by a consumer that died stays pending in the group; after `stale_ms`
another consumer takes it over, so a crash (even `kill -9`) loses nothing. An entry delivered
`max_deliveries` times without being acknowledged is moved to the stream's dead letters (with the
last error) instead of failing forever (resolvers/deadletters.py).

The webhook ingestion (resolvers/webhooks/dispatch.py) and the campaign fan-out share this.
"""
from __future__ import annotations

import json
import logging
import os
import socket
import time
import uuid
from dataclasses import dataclass
from typing import Any, Iterable

from redis.exceptions import ResponseError

from leadline.resolvers import deadletters

log = logging.getLogger("leadline.streams")

# KEYS: 1 the delayed set, 2 the stream, 3 (optional) the gate's key. ARGV: 1 now (ms), 2 how many,
# 3 the gate's allowance. Moves due entries into the stream, weighing at most `how many` together (the
# allowance while the gate's key exists). A member's weight follows the `.` of its prefix (1 when
# absent), so a claim of N entries never takes more than N items' work from the delayed set; the
# first entry always moves, however heavy, so none waits forever.
# Returns {entries moved, gated (0/1), weight moved}.
_PROMOTE = """
local limit, gated = tonumber(ARGV[2]), 0
if KEYS[3] and redis.call('EXISTS', KEYS[3]) == 1 then
  limit, gated = tonumber(ARGV[3]), 1
end
local due = {}
if limit > 0 then
  due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, limit)
end
local moved, used = 0, 0
for _, member in ipairs(due) do
  local cut = string.find(member, '|', 1, true)
  local weight = tonumber(string.match(string.sub(member, 1, cut - 1), '%.(%d+)$')) or 1
  if moved > 0 and used + weight > limit then
    break
  end
  redis.call('XADD', KEYS[2], '*', 'd', string.sub(member, cut + 1))
  redis.call('ZREM', KEYS[1], member)
  moved, used = moved + 1, used + weight
end
return {moved, gated, used}
"""


@dataclass(frozen=True)
class Entry:
    id: str
    payload: Any
    deliveries: int = 1


def consumer_name() -> str:
    """Unique per process: a restarted worker is a new consumer; the old one's entries go stale."""
    return f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"


def _decode(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else value


class WorkStream:
    def __init__(self, redis, key: str, *, name: str | None = None, group: str = "workers",
                 stale_ms: int = 30_000, max_deliveries: int = 5) -> None:
        self.redis = redis
        self.key = key
        self.name = name or key
        self.delayed_key = f"{key}:delayed"
        self.group = group
        self.stale_ms = stale_ms
        self.max_deliveries = max_deliveries
        self._promote = redis.register_script(_PROMOTE)
        self._group_ready = False
        self._next_stale_check = 0.0
        self._gate_key: str | None = None
        self._gate_rate, self._gate_tokens, self._gate_at = 0.0, 0.0, time.monotonic()

    # --- producing ------------------------------------------------------------------------------
    async def add(self, payloads: Iterable[Any]) -> list[str]:
        """Append every payload in one round trip; returns the entry ids."""
        pipe = self.redis.pipeline(transaction=False)
        count = 0
        for payload in payloads:
            pipe.xadd(self.key, {"d": json.dumps(payload, separators=(",", ":"))})
            count += 1
        return [_decode(i) for i in await pipe.execute()] if count else []

    def add_later_to(self, pipe, payload: Any, due: float, weight: int = 1) -> None:
        """Queue on `pipe` a payload that enters the stream at `due` (Unix seconds). `weight`: how much
        of the gate's allowance it takes (an entry standing for many items weighs their number)."""
        tag = f".{int(weight)}" if weight > 1 else ""
        member = f"{uuid.uuid4().hex}{tag}|{json.dumps(payload, separators=(',', ':'))}"
        pipe.zadd(self.delayed_key, {member: int(due * 1000)})

    async def add_later(self, items: Iterable[tuple[Any, float] | tuple[Any, float, int]]) -> None:
        """(payload, due) or (payload, due, weight) each, in one round trip."""
        pipe = self.redis.pipeline(transaction=False)
        for item in items:
            self.add_later_to(pipe, *item)
        await pipe.execute()

    # --- consuming ------------------------------------------------------------------------------
    async def ensure_group(self) -> None:
        if self._group_ready:
            return
        try:
            await self.redis.xgroup_create(self.key, self.group, id="0", mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise
        self._group_ready = True

    def gate(self, key: str, per_second: float) -> None:
        """While `key` exists, delayed entries join the stream at most `per_second` (by weight; this process)."""
        self._gate_key, self._gate_rate = key, per_second

    async def promote_due(self, count: int = 1000) -> int:
        """Due delayed entries into the stream (fewer while the gate's key exists); one round trip."""
        now = time.monotonic()
        gated_count = 0
        if self._gate_key:
            # A bucket of a quarter second's worth: gated entries join in batches of that size, not a
            # few at a time, and never in a burst bigger than it.
            batch = max(1.0, min(float(count), self._gate_rate / 4))
            self._gate_tokens = min(batch, self._gate_tokens + (now - self._gate_at) * self._gate_rate)
            self._gate_at = now
            gated_count = int(self._gate_tokens) if self._gate_tokens >= batch else 0
        keys = [self.delayed_key, self.key] + ([self._gate_key] if self._gate_key else [])
        promoted, gated, weight = await self._promote(keys=keys, args=[int(time.time() * 1000), count, gated_count])
        if gated:
            self._gate_tokens -= int(weight)  # below zero after a heavy entry: the next ones wait it off
        return int(promoted)

    async def claim(self, consumer: str, count: int, block_ms: int | None = None) -> list[Entry]:
        """Up to `count` entries for `consumer`: stale ones of dead consumers first, then new ones
        (waiting up to `block_ms` for one when there are none)."""
        await self.ensure_group()
        await self.promote_due(count)
        entries = await self._take_stale(consumer, count)
        if len(entries) < count:
            reply = await self.redis.xreadgroup(self.group, consumer, {self.key: ">"}, count=count - len(entries),
                                                block=block_ms if not entries else None)
            for _, items in reply or []:
                entries += [self._entry(entry_id, fields) for entry_id, fields in items]
        return entries

    async def _take_stale(self, consumer: str, count: int) -> list[Entry]:
        now = time.monotonic()
        if now < self._next_stale_check:
            return []
        self._next_stale_check = now + min(5.0, self.stale_ms / 1000 / 2)
        pending = await self.redis.xpending_range(self.key, self.group, min="-", max="+", count=count,
                                                  idle=self.stale_ms)
        if not pending:
            return []
        deliveries = {_decode(p["message_id"]): int(p["times_delivered"]) + 1 for p in pending}
        claimed = await self.redis.xclaim(self.key, self.group, consumer, self.stale_ms, list(deliveries))
        entries = []
        for entry_id, fields in claimed:
            if fields is None:  # deleted meanwhile
                continue
            entry = self._entry(entry_id, fields, deliveries.get(_decode(entry_id), 1))
            if entry.deliveries > self.max_deliveries:
                await self.dead_letter(entry, f"not acknowledged after {entry.deliveries - 1} deliveries")
                continue
            entries.append(entry)
        if entries:
            log.warning("took over %d entries of %s left by a stopped consumer", len(entries), self.key)
        return entries

    @staticmethod
    def _entry(entry_id: Any, fields: dict, deliveries: int = 1) -> Entry:
        raw = fields.get(b"d", fields.get("d"))
        return Entry(_decode(entry_id), json.loads(raw), deliveries)

    async def ack(self, entry_ids: Iterable[str]) -> None:
        ids = list(entry_ids)
        if not ids:
            return
        pipe = self.redis.pipeline(transaction=False)
        pipe.xack(self.key, self.group, *ids)
        pipe.xdel(self.key, *ids)
        await pipe.execute()

    async def dead_letter(self, entry: Entry, error: str) -> None:
        """Keep the entry with its error in the dead-letter store, and take it off the queue."""
        await deadletters.record("stream", self.name, entry.payload, error, entry.deliveries)
        await self.ack([entry.id])

    async def backlog(self) -> int:
        """Entries not yet acknowledged plus those waiting for their time (0: nothing left to do)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.xlen(self.key)
        pipe.zcard(self.delayed_key)
        queued, delayed = await pipe.execute()
        return int(queued) + int(delayed)

    async def next_due_in(self) -> float | None:
        """Seconds until the earliest delayed entry is due (0 when due now), None without any."""
        first = await self.redis.zrange(self.delayed_key, 0, 0, withscores=True)
        if not first:
            return None
        return max(0.0, first[0][1] / 1000 - time.time())
