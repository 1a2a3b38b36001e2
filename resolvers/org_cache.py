"""A per-process cache of an organisation's slow-changing configuration (its chat accounts, its
approved templates), so a send does not read them again and again.

An entry is used only while the organisation's token is the one the request's rate-limit call just
returned (resolvers/auth/gate.py: every change that affects the organisation replaces the token, and
every process sees the new one on its next request), and for at most `max_age` seconds, which bounds
what a change made behind the service's back (a direct database write) can go unnoticed. Work that
has no token (jobs) reads through. Only found values are kept: a miss is an error the caller reports.
"""
from __future__ import annotations

import time
from collections import OrderedDict
from typing import Any, Awaitable, Callable, Hashable

from bson import ObjectId


class OrgCache:
    def __init__(self, max_age: float = 5.0, max_entries: int = 50_000) -> None:
        self.max_age = max_age
        self.max_entries = max_entries
        self._entries: OrderedDict[tuple, tuple[str, float, Any]] = OrderedDict()
        # Caches whose keys are not one organisation's (webhook routing: resolvers/chats/routing.py).
        self.shared: dict[str, dict] = {}

    async def get(self, org_id: ObjectId, token: str | None, key: Hashable,
                  load: Callable[[], Awaitable[Any]]) -> Any:
        if token is None:
            return await load()
        entry_key = (org_id, key)
        entry = self._entries.get(entry_key)
        now = time.monotonic()
        if entry is not None and entry[0] == token and now - entry[1] < self.max_age:
            return entry[2]
        value = await load()
        self._entries[entry_key] = (token, now, value)
        self._entries.move_to_end(entry_key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)
        return value
