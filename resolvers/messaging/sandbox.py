"""The sandbox's delivery feedback: each simulated status becomes a real Cloud API `statuses` webhook
payload, ingested by an arq job through the same path as provider webhooks (resolvers.webhooks).

One deferred job per status, each enqueueing the next, so they arrive in order (sent, delivered,
read) without a job sleeping in a worker slot; the delays are `settings.sandbox_status_delays`.
"""
from __future__ import annotations

import logging
import time
from datetime import timedelta
from typing import Any

from leadline.models.channels import ChannelAccount
from leadline.resolvers.context import Services
from leadline.resolvers.messaging.recipients import Recipient
from leadline.resolvers.providers.base import SentMessage

log = logging.getLogger("leadline.messaging")
STATUS_JOB = "sandbox_message_status"


def status_payload(account: dict[str, Any], wamid: str, recipient: dict[str, Any], status: str,
                   error_code: int | None = None, error_title: str | None = None) -> dict[str, Any]:
    """A `messages` change with one `statuses[]` entry, as the Cloud API delivers it."""
    entry: dict[str, Any] = {"id": wamid, "status": status, "timestamp": str(int(time.time()))}
    if recipient.get("phone"):
        entry["recipient_id"] = recipient["phone"]
    if recipient.get("bsuid"):
        entry["user_id"] = recipient["bsuid"]
    if status == "sent":
        entry["pricing"] = {"billable": True, "pricing_model": "PMP", "category": "utility"}
    if error_code is not None:
        entry["errors"] = [{"code": error_code, "title": error_title or "error", "message": error_title or "error",
                            "error_data": {"details": f"{error_title or 'error'} (sandbox)"}}]
    value = {"messaging_product": "whatsapp",
             "metadata": {"display_phone_number": account["number"], "phone_number_id": account["phone_number_id"]},
             "statuses": [entry]}
    return {"object": "whatsapp_business_account",
            "entry": [{"id": account["waba_id"], "time": int(time.time()),
                       "changes": [{"field": "messages", "value": value}]}]}


def account_ref(account: ChannelAccount) -> dict[str, Any]:
    # A sandbox account usually has no provider ids: its number stands in for them.
    return {"number": account.number, "phone_number_id": account.provider_phone_number_id or account.number,
            "waba_id": account.provider_account_id or account.number}


async def schedule_feedback(services: Services, account: ChannelAccount, recipient: Recipient,
                            sent: SentMessage) -> None:
    """Enqueue the first simulated status; each report enqueues the next, so they arrive in order."""
    if not sent.simulated:
        return
    steps = [[s.status, s.error_code, s.error_title] for s in sent.simulated]
    await _enqueue(services, account_ref(account), sent.provider_message_id,
                   {"phone": recipient.phone, "bsuid": recipient.bsuid}, steps, 0)


def _delay(services: Services, index: int) -> float:
    """Seconds from the previous step (the settings hold cumulative times since the send)."""
    times = services.settings.sandbox_status_delays or (0.0,)
    at = times[min(index, len(times) - 1)]
    before = times[min(index - 1, len(times) - 1)] if index else 0.0
    return max(0.0, at - before)


async def _enqueue(services: Services, account: dict[str, Any], wamid: str, recipient: dict[str, Any],
                   steps: list[list[Any]], index: int) -> None:
    if services.arq is None:
        log.warning("no job queue: sandbox statuses of %s are not reported", wamid)
        return
    await services.arq.enqueue_job(STATUS_JOB, account, wamid, recipient, steps, index,
                                   _job_id=f"{STATUS_JOB}:{wamid}:{steps[index][0]}",
                                   _defer_by=timedelta(seconds=_delay(services, index)))


async def report_status(services: Services, account: dict[str, Any], wamid: str, recipient: dict[str, Any],
                        steps: list[list[Any]], index: int) -> dict[str, int]:
    """Ingest step `index` as a provider webhook, then schedule the next one."""
    from leadline.resolvers.webhooks.dispatch import ingest

    status, error_code, error_title = steps[index]
    outcomes = dict(await ingest(services, status_payload(account, wamid, recipient, status, error_code, error_title)))
    if index + 1 < len(steps):
        await _enqueue(services, account, wamid, recipient, steps, index + 1)
    return outcomes
