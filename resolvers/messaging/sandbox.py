"""The sandbox's delivery feedback: each simulated status becomes a real Cloud API `statuses` change,
queued for the worker's ingestion through the same path as provider webhooks (resolvers.webhooks).

All statuses of a send are queued at once, each entering the queue at its time (sent, delivered,
read, after `settings.sandbox_status_delays`), in the same round trip.
"""
from __future__ import annotations

import math
import time
from typing import Any

from leadline.models.channels import ChannelAccount
from leadline.resolvers.context import Services
from leadline.resolvers.messaging.recipients import Recipient
from leadline.resolvers.providers.base import SentMessage
from leadline.resolvers.webhooks.change import WebhookChange
from leadline.resolvers.webhooks.dispatch import queue_changes


def status_change(account: dict[str, Any], wamid: str, recipient: dict[str, Any], at: float, status: str,
                  error_code: int | None = None, error_title: str | None = None) -> WebhookChange:
    """A `messages` change with one `statuses[]` entry reported at `at`, as the Cloud API delivers it.
    The Cloud API's timestamps are whole seconds: `at` is rounded up, so a status is never reported
    earlier than the send was accepted (which is stored to the millisecond)."""
    entry: dict[str, Any] = {"id": wamid, "status": status, "timestamp": str(math.ceil(at))}
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
    return WebhookChange("messages", value, account["waba_id"], int(at))


def account_ref(account: ChannelAccount) -> dict[str, Any]:
    # A sandbox account usually has no provider ids: its number stands in for them.
    return {"number": account.number, "phone_number_id": account.provider_phone_number_id or account.number,
            "waba_id": account.provider_account_id or account.number}


async def schedule_feedback(services: Services, account: ChannelAccount, recipient: Recipient,
                            sent: SentMessage) -> None:
    """Queue every simulated status of a send, each due at its delay (one round trip)."""
    if not sent.simulated:
        return
    steps = [[s.status, s.error_code, s.error_title] for s in sent.simulated]
    await _queue(services, account_ref(account), sent.provider_message_id,
                 {"phone": recipient.phone, "bsuid": recipient.bsuid}, steps, 0)


def _due(services: Services, index: int) -> float:
    """When step `index` is reported (the settings hold cumulative times since the send)."""
    times = services.settings.sandbox_status_delays or (0.0,)
    return time.time() + times[min(index, len(times) - 1)]


def feedback_changes(services: Services, account: ChannelAccount, sent: SentMessage,
                     phone: str | None, bsuid: str | None = None) -> list[tuple[WebhookChange, float]]:
    """The simulated statuses of a send as changes due at their times (bulk senders queue many at once)."""
    if not sent.simulated:
        return []
    ref, recipient = account_ref(account), {"phone": phone, "bsuid": bsuid}
    steps = [[s.status, s.error_code, s.error_title] for s in sent.simulated]
    dues = [_due(services, i) for i in range(len(steps))]
    return [(status_change(ref, sent.provider_message_id, recipient, due, *step), due) for step, due in zip(steps, dues)]


async def _queue(services: Services, account: dict[str, Any], wamid: str, recipient: dict[str, Any],
                 steps: list[list[Any]], first: int) -> None:
    dues = [_due(services, i) for i in range(first, len(steps))]
    await queue_changes(services, [(status_change(account, wamid, recipient, due, *steps[i]), due)
                                   for i, due in zip(range(first, len(steps)), dues)])


async def report_status(services: Services, account: dict[str, Any], wamid: str, recipient: dict[str, Any],
                        steps: list[list[Any]], index: int) -> dict[str, int]:
    """A status job queued before the ingestion stream existed: queue it and the rest the new way."""
    await _queue(services, account, wamid, recipient, steps, index)
    return {"queued": len(steps) - index}
