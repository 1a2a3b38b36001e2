"""Which handler serves which change `field` of the provider's webhooks.

Domains register their handlers where they define them (`@webhook_handler("messages", queued=True)`);
the dispatcher imports no domain. A queued field's changes are handed to a worker (several writes
each), the others run inline when the webhook arrives (one conditional write each).

A handler takes one change and returns its outcome; a `batch=True` handler takes a list of changes
and returns one outcome per change (the worker hands it whole batches).
"""
from __future__ import annotations

from typing import Awaitable, Callable

from leadline.resolvers.context import Services
from leadline.resolvers.webhooks.change import WebhookChange

Handler = Callable[[Services, WebhookChange], Awaitable[str]]
BatchHandler = Callable[[Services, list[WebhookChange]], Awaitable[list[str]]]

_HANDLERS: dict[str, BatchHandler] = {}
_QUEUED: set[str] = set()


def _one_at_a_time(fn: Handler) -> BatchHandler:
    async def each(services: Services, changes: list[WebhookChange]) -> list[str]:
        return [await fn(services, change) for change in changes]

    each.__qualname__ = fn.__qualname__
    return each


def webhook_handler(field: str, *, queued: bool = False, batch: bool = False) -> Callable:
    def register(fn):
        existing = _HANDLERS.get(field)
        if existing is not None and existing.__qualname__ != fn.__qualname__:
            raise RuntimeError(f"two webhook handlers for '{field}': {existing.__qualname__} and {fn.__qualname__}")
        _HANDLERS[field] = fn if batch else _one_at_a_time(fn)
        if queued:
            _QUEUED.add(field)
        return fn

    return register


def handler_for(field: str) -> BatchHandler | None:
    return _HANDLERS.get(field)


def is_queued(field: str) -> bool:
    return field in _QUEUED


def handled_fields() -> frozenset[str]:
    return frozenset(_HANDLERS)
