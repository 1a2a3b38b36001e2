"""What other domains do after the chats domain wrote a batch: delivery statuses applied, inbound
messages stored. They register here (`@after_statuses`, `@after_inbound`); chats imports none of them.

Hooks run after the batch's own writes, once per batch, with everything the batch applied.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from leadline.models.chats import ChatMessage
from leadline.resolvers.context import RequestContext


@dataclass(frozen=True)
class AppliedStatus:
    ctx: RequestContext
    message: dict[str, Any]  # the message's fields after the update (raw)
    status: str  # the furthest status applied in this batch
    cost_set: bool  # the message got its cost in this batch


@dataclass(frozen=True)
class StoredInbound:
    ctx: RequestContext
    message: ChatMessage
    sender_name: str | None


_STATUS_HOOKS: list[Callable[[list[AppliedStatus]], Awaitable[None]]] = []
_INBOUND_HOOKS: list[Callable[[list[StoredInbound]], Awaitable[None]]] = []


def after_statuses(fn):
    _STATUS_HOOKS.append(fn)
    return fn


def after_inbound(fn):
    _INBOUND_HOOKS.append(fn)
    return fn


async def statuses_applied(applied: list[AppliedStatus]) -> None:
    if applied:
        for hook in _STATUS_HOOKS:
            await hook(applied)


async def inbound_stored(stored: list[StoredInbound]) -> None:
    if stored:
        for hook in _INBOUND_HOOKS:
            await hook(stored)
