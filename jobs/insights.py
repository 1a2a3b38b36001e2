"""Insights jobs: daily rollups and pipeline snapshots. TASKS and CRONS are collected by jobs/worker.py.

`insights_rollup_day(org_id, date)` computes one organisation's rollup and snapshot for one local day
(idempotent: it rewrites the same records, so a retried or repeated run stores the same result). The cron
`insights_rollups_due` runs every 15 minutes and offers it, for each active organisation, for every local
day of the last LOOKBACK_DAYS before today (not before the organisation existed) without a snapshot taken
after the day ended (the snapshot is the run's last write; `run-rollups` for today takes one during the
day): the first run after an organisation's midnight offers its previous day; a day missed while no worker
ran, or whose run failed, is offered again later. The job id is per organisation and day, so a day already
queued or running is not offered twice.

`insights_refresh_today(org_id, date, tz)` counts a large organisation's today again for
`GET /v2.0/insights/daily-summary` (resolvers/insights/queries.py), which offers it.
"""
from __future__ import annotations

from datetime import date, timedelta, timezone

from bson import ObjectId

from leadline.models.auth import Organisation
from leadline.models.insights import PipelineSnapshot
from leadline.resolvers.insights import days
from leadline.resolvers.insights.queries import REFRESH_JOB, refresh_today
from leadline.resolvers.insights.runs import run_day

ROLLUP_JOB = "insights_rollup_day"
# How far back a missed day is still rolled up (a worker down over several midnights).
LOOKBACK_DAYS = 7


async def insights_rollup_day(ctx: dict, org_id: str, day: str) -> dict[str, int]:
    org = await Organisation.get(ObjectId(org_id))
    if org is None:
        return {"summaries": 0, "snapshots": 0}
    return await run_day(org.id, org.timezone, date.fromisoformat(day))


async def insights_refresh_today(ctx: dict, org_id: str, day: str, tz: str) -> bool:
    """A large organisation's today counted again for the dashboards (offered by GET daily-summary)."""
    return await refresh_today(ctx["services"], ObjectId(org_id), tz, date.fromisoformat(day))


assert insights_refresh_today.__name__ == REFRESH_JOB


def due_days(org: Organisation) -> list[date]:
    """The organisation's local days that should have a rollup by now: the last LOOKBACK_DAYS before its
    today, from the day it was created."""
    today = days.today(org.timezone)
    created_at = org.created_at if org.created_at.tzinfo else org.created_at.replace(tzinfo=timezone.utc)
    created = created_at.astimezone(days.zone(org.timezone)).date()
    first = max(today - timedelta(days=LOOKBACK_DAYS), created)
    return days.each_day(first, today - timedelta(days=1)) if first < today else []


async def insights_rollups_due(ctx: dict) -> int:
    arq = ctx["services"].arq
    offered = 0
    # A system job over every organisation (one read of the organisations, one indexed read each).
    for org in await Organisation.find_all().to_list():
        wanted = due_days(org) if org.is_active else []
        if not wanted:
            continue
        # Done: a snapshot taken once the day was over (one taken during it, by `run-rollups` for today, is not).
        done = {row["date"] for row in await PipelineSnapshot.find_raw_in(
            org.id, {"date": {"$gte": wanted[0].isoformat(), "$lte": wanted[-1].isoformat()}}, {"date": 1, "taken_at": 1})
            if row["taken_at"] >= days.bounds(date.fromisoformat(row["date"]), org.timezone)[1]}
        for day in wanted:
            if day.isoformat() in done:
                continue
            job = await arq.enqueue_job(ROLLUP_JOB, str(org.id), day.isoformat(),
                                        _job_id=f"{ROLLUP_JOB}:{org.id}:{day.isoformat()}")
            offered += job is not None
    return offered


TASKS: list = [insights_rollup_day, insights_rollups_due, insights_refresh_today]
# (task, arq cron keyword arguments)
CRONS: list = [(insights_rollups_due, {"minute": {5, 20, 35, 50}, "second": 0})]
