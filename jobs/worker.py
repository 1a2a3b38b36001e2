"""The arq worker: its task list, cron schedule and the services each task receives in ctx.

A running (non-burst) worker refreshes a heartbeat key in Redis every `worker_heartbeat_seconds`; it
expires after three periods, so /health can tell that no worker is running.
"""
from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import socket
from contextlib import AsyncExitStack, suppress

from arq import cron
from arq.connections import RedisSettings
from arq.worker import Worker

from leadline.jobs.auth import flush_key_last_used
from leadline.jobs import campaigns, events, inbox, insights
from leadline.jobs.failures import recorded
from leadline.jobs.contacts import recount_all_contact_terms, recount_contact_terms
from leadline.jobs.messaging import dispatch_scheduled_message, sandbox_message_status, sweep_scheduled_messages
from leadline.jobs.templates import sandbox_template_review
from leadline.jobs.webhooks import chatapp_webhook_change, ingest_forever
from leadline.config import Settings
from leadline.resolvers.channels.admin import encrypt_stored_tokens
from leadline.services import open_services
from leadline.resolvers.context import Services

log = logging.getLogger("leadline.worker")
MAX_TRIES = 5
# Every task and cron job: a failure for good is logged at error level and kept in the dead-letter
# store (jobs/failures.py). Newer domains list theirs in jobs/<domain>.py (TASKS, CRONS).
TASKS = [flush_key_last_used, sandbox_template_review, chatapp_webhook_change, dispatch_scheduled_message,
         sweep_scheduled_messages, sandbox_message_status, recount_contact_terms, recount_all_contact_terms,
         *campaigns.TASKS, *insights.TASKS, *inbox.TASKS]
CRONS = [(flush_key_last_used, {"second": 0}), (sweep_scheduled_messages, {"second": 30}),
         (recount_all_contact_terms, {"hour": 3, "minute": 17, "second": 0}),
         *campaigns.CRONS, *insights.CRONS, *inbox.CRONS]
FUNCTIONS = [recorded(task, max_tries=MAX_TRIES) for task in TASKS]
_BY_NAME = {task.__name__: job for task, job in zip(TASKS, FUNCTIONS)}
CRON_JOBS = [cron(_BY_NAME[task.__name__], run_at_startup=False, **when) for task, when in CRONS]


def heartbeat_key(prefix: str) -> str:
    return f"{prefix}:worker:heartbeat"


async def heartbeat(services: Services, stop: asyncio.Event) -> None:
    settings = services.settings
    key, every = heartbeat_key(settings.redis_prefix), settings.worker_heartbeat_seconds
    value = json.dumps({"pid": os.getpid(), "host": socket.gethostname()})
    while not stop.is_set():
        try:
            await services.redis.set(key, value, ex=max(1, math.ceil(every * 3)))
        except Exception as exc:  # noqa: BLE001 - Redis away: the key expires and /health says so
            log.warning("worker heartbeat not written: %s", exc)
        with suppress(asyncio.TimeoutError):
            await asyncio.wait_for(stop.wait(), every)


async def seal_clear_channel_tokens() -> None:
    """Channel access tokens stored in clear before encryption existed are sealed (resolvers/secrets.py),
    once per worker start; idempotent, and a failure only postpones it to the next start."""
    try:
        sealed = await encrypt_stored_tokens()
    except Exception as exc:  # noqa: BLE001 - e.g. production without LEADLINE_SECRET_KEY
        log.error("channel access tokens stored in clear were not encrypted: %s", exc)
        return
    if sealed:
        log.warning("encrypted %d channel access token(s) stored in clear", sealed)


def build_worker(settings: Settings, *, burst: bool = False, handle_signals: bool = True,
                 services: Services | None = None, with_cron: bool = True) -> Worker:
    """A worker with its own services, or (in-process, e.g. tests) sharing the caller's.

    Sharing matters in one process: opening services initialises Beanie, which rebinds every model
    to the new client, and closing that client would strand the caller's models. Tests run burst
    workers `with_cron=False`, so a run crossing a cron second does not add jobs to the count; a burst
    worker does not drain the webhook stream (tests call jobs.webhooks.ingest_until_empty).
    """
    stack = AsyncExitStack()
    stop = asyncio.Event()

    async def startup(ctx: dict) -> None:
        ctx["services"] = services or await stack.enter_async_context(open_services(settings))
        # A restarted worker first offers schedules that fell due while nothing was running.
        await sweep_scheduled_messages(ctx)
        if not burst:
            await seal_clear_channel_tokens()
            ctx["ingestion"] = asyncio.create_task(ingest_forever(ctx["services"], stop))
            ctx["fan_out"] = asyncio.create_task(campaigns.fan_out_forever(ctx["services"], stop))
            ctx["webhooks_out"] = asyncio.create_task(events.deliver_forever(ctx["services"], stop))
            ctx["heartbeat"] = asyncio.create_task(heartbeat(ctx["services"], stop))

    async def shutdown(ctx: dict) -> None:
        stop.set()
        if "heartbeat" in ctx:
            ctx["heartbeat"].cancel()
            with suppress(asyncio.CancelledError):
                await ctx["heartbeat"]
        if "ingestion" in ctx:
            # The batch in hand is finished and acknowledged; an unfinished one would be taken over later.
            with suppress(asyncio.CancelledError):
                await asyncio.wait_for(ctx["ingestion"], timeout=settings.shutdown_timeout)
        if "fan_out" in ctx:
            # A chunk in hand is finished; an unfinished one is taken over after its lease.
            with suppress(asyncio.CancelledError, asyncio.TimeoutError):
                await asyncio.wait_for(ctx["fan_out"], timeout=settings.shutdown_timeout)
        if "webhooks_out" in ctx:
            # Attempts in flight finish; queued deliveries are handed back (else taken over after the lease).
            with suppress(asyncio.CancelledError, asyncio.TimeoutError):
                await asyncio.wait_for(ctx["webhooks_out"], timeout=settings.shutdown_timeout)
        await stack.aclose()

    return Worker(
        functions=FUNCTIONS,
        cron_jobs=CRON_JOBS if with_cron else None,
        max_tries=MAX_TRIES,
        redis_settings=RedisSettings.from_dsn(settings.redis_url),
        queue_name=settings.arq_queue_name,
        on_startup=startup,
        on_shutdown=shutdown,
        burst=burst,
        handle_signals=handle_signals,
        max_jobs=settings.worker_max_jobs,
        poll_delay=settings.worker_poll_delay,
        job_timeout=300,
        keep_result=3600,
    )
