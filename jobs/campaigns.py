"""Campaign jobs: scheduled starts (a deferred job at `sendAt`, and a sweep after restarts), and the
fan-out loop each worker runs beside arq (resolvers/campaigns/fanout.py). TASKS and CRONS are collected
by jobs/worker.py."""
from __future__ import annotations

import asyncio

from leadline.jobs import loops
from leadline.resolvers.campaigns import create, fanout
from leadline.resolvers.context import Services
from leadline.resolvers.streams import consumer_name


async def start_campaign(ctx: dict, org_id: str, campaign_id: str) -> bool:
    return await create.start_scheduled(ctx["services"], org_id, campaign_id)


async def sweep_scheduled_campaigns(ctx: dict) -> int:
    """Start scheduled campaigns whose time has passed (a deferred job lost with Redis, or a worker that
    was down at the time); starting twice is refused by the status condition."""
    started = 0
    for campaign in await create.due_scheduled():
        started += await create.start_scheduled(ctx["services"], str(campaign.org_id), str(campaign.id))
    return started


async def restart_stalled_campaigns(ctx: dict) -> int:
    return await fanout.restart_stalled(ctx["services"])


async def fan_out_forever(services: Services, stop: asyncio.Event) -> None:
    consumer = consumer_name()
    await loops.forever("campaign fan-out", lambda: fanout.serve(services, consumer, stop), stop)


async def fan_out_until_empty(services: Services, timeout: float = 60.0) -> int:
    """Send until no chunk is queued or waiting (tests and burst runs). Returns the chunks processed."""
    consumer = consumer_name()
    return await loops.until_empty("campaign fan-out", lambda: fanout.drain(services, consumer, count=4),
                                   fanout.campaign_stream(services), timeout)


TASKS = [start_campaign, sweep_scheduled_campaigns, restart_stalled_campaigns]
CRONS = [(sweep_scheduled_campaigns, {"second": 45}), (restart_stalled_campaigns, {"second": 15})]
