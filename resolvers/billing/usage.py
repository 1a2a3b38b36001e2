"""How much of each plan limit an organisation uses, counted from its stored documents.

Domains register one counter per limit key they own (`@usage_counter("max_contacts")` beside the
counting function); billing imports no domain. A key without a counter is reported as untracked (null).
"""
from __future__ import annotations

from typing import Awaitable, Callable

from bson import ObjectId

UsageCounter = Callable[[ObjectId, str], Awaitable[int]]

_COUNTERS: dict[str, UsageCounter] = {}


def usage_counter(key: str) -> Callable[[UsageCounter], UsageCounter]:
    """Register `fn(org_id, timezone) -> int` as the usage of plan limit `key`."""
    def register(fn: UsageCounter) -> UsageCounter:
        existing = _COUNTERS.get(key)
        if existing is not None and existing is not fn:
            raise RuntimeError(f"two usage counters for {key}: {existing.__qualname__} and {fn.__qualname__}")
        _COUNTERS[key] = fn
        return fn

    return register


async def count_usage(org_id: ObjectId, key: str, timezone: str = "UTC") -> int | None:
    counter = _COUNTERS.get(key)
    return None if counter is None else await counter(org_id, timezone)


def tracked_keys() -> frozenset[str]:
    return frozenset(_COUNTERS)
