"""Messaging jobs: dispatching scheduled messages, the recovery sweep, and the sandbox's status feedback.

`dispatch_scheduled_message` is enqueued with `_defer_until` = the schedule's time and `_job_id`
= `dispatch_scheduled_message:{schedule id}`; the sweep (cron, and at worker start) offers due
schedules again under a per-minute job id. Both are safe to run any number of times: the
dispatch claims the schedule with a conditional update before sending.
"""
from __future__ import annotations

from typing import Any

from leadline.resolvers.messaging import sandbox, schedules


async def dispatch_scheduled_message(ctx: dict, org_id: str, schedule_id: str) -> str:
    return await schedules.dispatch(ctx["services"], org_id, schedule_id)


async def sweep_scheduled_messages(ctx: dict) -> dict[str, int]:
    return await schedules.sweep(ctx["services"])


async def sandbox_message_status(ctx: dict, account: dict[str, Any], wamid: str, recipient: dict[str, Any],
                                 steps: list[list[Any]], index: int) -> dict[str, int]:
    """One simulated status of a sandbox send; it enqueues the next (sent → delivered → read)."""
    return await sandbox.report_status(ctx["services"], account, wamid, recipient, steps, index)
