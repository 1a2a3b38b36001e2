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
import logging

from leadline.resolvers.context import Services
from leadline.resolvers.streams import consumer_name
from leadline.resolvers.webhooks.change import WebhookChange
from leadline.resolvers.webhooks.dispatch import drain, ingestion_stream, process

log = logging.getLogger("leadline.webhooks")


async def ingest_forever(services: Services, stop: asyncio.Event) -> None:
    """Drain the stream until `stop` is set; an infrastructure failure is logged and retried after a pause."""
    consumer = consumer_name()
    while not stop.is_set():
        try:
            await drain(services, consumer, block_ms=500)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("webhook ingestion failed; retrying in 1 s")
            await asyncio.sleep(1.0)


async def ingest_until_empty(services: Services, timeout: float = 30.0) -> int:
    """Drain until nothing is queued or waiting for its time (tests and burst runs). Returns how many."""
    consumer, done = consumer_name(), 0
    stream = ingestion_stream(services)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        taken = await drain(services, consumer)
        done += taken
        if taken:
            continue
        if await stream.backlog() == 0:
            return done
        wait = await stream.next_due_in()
        await asyncio.sleep(min(0.05 if wait is None else max(wait, 0.005), 0.5))
    raise TimeoutError(f"webhook ingestion still had work after {timeout} s")


async def chatapp_webhook_change(ctx: dict, change: dict) -> str:
    return await process(ctx["services"], WebhookChange(**change))
