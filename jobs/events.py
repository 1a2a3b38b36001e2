"""Outgoing events: the delivery engine each worker runs beside arq (resolvers/events/engine.py): the
outbox's dispatch, retries, replays and takeovers all happen in that loop, so there are no per-delivery
jobs (arq would add its poll delay to each) and no cron: jobs/worker.py starts the loop with the worker."""
from __future__ import annotations

import asyncio

from leadline.jobs import loops
from leadline.resolvers.context import Services
from leadline.resolvers.events import engine


async def deliver_forever(services: Services, stop: asyncio.Event) -> None:
    await loops.forever("webhook delivery engine", lambda: engine.serve(services, stop), stop)
