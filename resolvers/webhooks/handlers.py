"""Which handler serves which change `field` of the provider's webhooks.

Domains register their handlers where they define them (`@webhook_handler("messages", queued=True)`);
the dispatcher imports no domain. A queued field's changes are handed to a worker (several writes
each), the others run inline when the webhook arrives (one conditional write each).
"""
from __future__ import annotations

from typing import Awaitable, Callable

from leadline.resolvers.context import Services
from leadline.resolvers.webhooks.change import WebhookChange

Handler = Callable[[Services, WebhookChange], Awaitable[str]]

_HANDLERS: dict[str, Handler] = {}
_QUEUED: set[str] = set()


def webhook_handler(field: str, *, queued: bool = False) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        existing = _HANDLERS.get(field)
        if existing is not None and existing is not fn:
            raise RuntimeError(f"two webhook handlers for '{field}': {existing.__qualname__} and {fn.__qualname__}")
        _HANDLERS[field] = fn
        if queued:
            _QUEUED.add(field)
        return fn

    return register


def handler_for(field: str) -> Handler | None:
    return _HANDLERS.get(field)


def is_queued(field: str) -> bool:
    return field in _QUEUED


def handled_fields() -> frozenset[str]:
    return frozenset(_HANDLERS)
