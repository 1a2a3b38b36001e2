"""In-process cache of authenticated keys, kept honest by a per-organisation token in Redis.

A warm request costs no database round trip: the key's organisation and scopes come from
this cache. Every change that affects authentication (revocation, plan, active flag, allowed
origins) replaces the organisation's token in Redis; the rate-limit gate returns the current
token in the same Lua call every request already makes, so a stale entry is noticed on the
very next request in every process.
"""
from __future__ import annotations

import time
import uuid
from dataclasses import dataclass

from bson import ObjectId

from leadline.resolvers.auth.snapshots import KeySnapshot, OrgSnapshot


@dataclass(frozen=True)
class CachedAuth:
    org: OrgSnapshot
    key: KeySnapshot
    token: str
    loaded_at: float


class KeyCache:
    def __init__(self, max_age: float, max_entries: int = 50_000) -> None:
        self.max_age = max_age
        self.max_entries = max_entries
        self._entries: dict[str, CachedAuth] = {}

    def get(self, key_hash: str) -> CachedAuth | None:
        entry = self._entries.get(key_hash)
        if entry is not None and time.monotonic() - entry.loaded_at > self.max_age:
            self._entries.pop(key_hash, None)
            return None
        return entry

    def put(self, key_hash: str, entry: CachedAuth) -> None:
        if len(self._entries) >= self.max_entries:
            # Drop the oldest insertion; dicts keep insertion order.
            self._entries.pop(next(iter(self._entries)))
        self._entries[key_hash] = entry

    def drop(self, key_hash: str) -> None:
        self._entries.pop(key_hash, None)

    def clear(self) -> None:
        self._entries.clear()


def org_token_key(prefix: str, org_id: ObjectId) -> str:
    return f"{prefix}:authver:{org_id}"


async def current_org_token(redis, prefix: str, org_id: ObjectId) -> str:
    """The organisation's token, created if Redis has none (e.g. after a flush)."""
    key = org_token_key(prefix, org_id)
    await redis.set(key, uuid.uuid4().hex, nx=True)
    value = await redis.get(key)
    return value.decode() if isinstance(value, bytes) else value


async def invalidate_org(redis, prefix: str, org_id: ObjectId) -> None:
    """Make every process reload this organisation's keys on their next request."""
    await redis.set(org_token_key(prefix, org_id), uuid.uuid4().hex)
