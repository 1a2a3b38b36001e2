"""The arq worker: its task list, cron schedule and the services each task receives in ctx."""
from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack, suppress

from arq import cron
from arq.connections import RedisSettings
from arq.worker import Worker

from leadline.jobs.auth import flush_key_last_used
from leadline.jobs.contacts import recount_all_contact_terms, recount_contact_terms
from leadline.jobs.messaging import dispatch_scheduled_message, sandbox_message_status, sweep_scheduled_messages
from leadline.jobs.templates import sandbox_template_review
from leadline.jobs.webhooks import chatapp_webhook_change, ingest_forever
from leadline.config import Settings
from leadline.services import open_services
from leadline.resolvers.context import Services

FUNCTIONS = [flush_key_last_used, sandbox_template_review, chatapp_webhook_change,
             dispatch_scheduled_message, sweep_scheduled_messages, sandbox_message_status,
             recount_contact_terms, recount_all_contact_terms]
CRON_JOBS = [cron(flush_key_last_used, second=0, run_at_startup=False),
             cron(sweep_scheduled_messages, second=30, run_at_startup=False),
             cron(recount_all_contact_terms, hour=3, minute=17, second=0, run_at_startup=False)]


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
            ctx["ingestion"] = asyncio.create_task(ingest_forever(ctx["services"], stop))

    async def shutdown(ctx: dict) -> None:
        stop.set()
        if "ingestion" in ctx:
            # The batch in hand is finished and acknowledged; an unfinished one would be taken over later.
            with suppress(asyncio.CancelledError):
                await asyncio.wait_for(ctx["ingestion"], timeout=settings.shutdown_timeout)
        await stack.aclose()

    return Worker(
        functions=FUNCTIONS,
        cron_jobs=CRON_JOBS if with_cron else None,
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
