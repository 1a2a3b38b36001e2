"""Provider webhook jobs: one queued `messages` change (inbound messages and delivery statuses).

Enqueued by POST /webhooks/chatapp with `_job_id` = `{redis prefix}:chatwh:<hash of the change's
provider ids>`, so a redelivered webhook does not queue the same work twice while the job or its
result is kept; the handlers are idempotent for anything later. arq fails a job on an ordinary exception, so failures
are turned into `Retry` with a growing delay (up to MAX_TRIES), and a status naming a message not
stored yet (its send may still be writing the provider id) is retried a few times before it is
acknowledged as unmatched.
"""
from __future__ import annotations

import logging

from arq.worker import Retry

from leadline.resolvers.webhooks.change import WebhookChange
from leadline.resolvers.webhooks.dispatch import process

log = logging.getLogger("leadline.webhooks")

MAX_TRIES = 5
UNMATCHED_TRIES = 3


async def chatapp_webhook_change(ctx: dict, change: dict) -> str:
    services = ctx["services"]
    attempt = ctx.get("job_try", 1)
    delay = services.settings.chatapp_webhook_retry_seconds
    try:
        outcome = await process(services, WebhookChange(**change))
    except Exception:
        if attempt >= MAX_TRIES:
            log.exception("webhook change failed %d times; giving up", attempt, extra={"job_id": ctx.get("job_id")})
            raise
        log.warning("webhook change failed (try %d); retrying", attempt, exc_info=True)
        raise Retry(defer=delay * 2 ** (attempt - 1)) from None
    if outcome == "unmatched":
        if attempt < UNMATCHED_TRIES:
            raise Retry(defer=delay * attempt)
        log.info("webhook status for a message not stored here acknowledged", extra={"job_id": ctx.get("job_id")})
    return outcome
