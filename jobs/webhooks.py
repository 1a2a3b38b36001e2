"""Provider webhook ingestion in the worker: a loop that drains the ingestion stream in batches.

POST /webhooks/chatapp appends `messages` changes to a Redis stream (resolvers/webhooks/dispatch.py);
each worker process runs one consumer of its group, taking up to `settings.ingest_batch` changes at a
time. A worker killed mid-batch leaves its changes pending; another consumer (or its successor) takes
them over after `settings.ingest_stale_seconds`. Processing is idempotent, so a change handled twice
changes nothing the second time.

`chatapp_webhook_change` is the arq job of the previous design, kept so that jobs queued by an older
version are still processed after an upgrade.
"""
from __future__ import annotations

import asyncio

from leadline.jobs import loops
from leadline.resolvers.context import Services
from leadline.resolvers.streams import consumer_name
from leadline.resolvers.webhooks.change import WebhookChange
from leadline.resolvers.webhooks.dispatch import drain, ingestion_stream, process


async def ingest_forever(services: Services, stop: asyncio.Event) -> None:
    """Drain the stream until `stop` is set; an infrastructure failure is logged and retried after a pause."""
    consumer = consumer_name()
    await loops.forever("webhook ingestion", lambda: drain(services, consumer, block_ms=500), stop)


async def ingest_until_empty(services: Services, timeout: float = 30.0) -> int:
    """Drain until nothing is queued or waiting for its time (tests and burst runs). Returns how many."""
    consumer = consumer_name()
    return await loops.until_empty("webhook ingestion", lambda: drain(services, consumer),
                                   ingestion_stream(services), timeout)


async def chatapp_webhook_change(ctx: dict, change: dict) -> str:
    return await process(ctx["services"], WebhookChange(**change))
