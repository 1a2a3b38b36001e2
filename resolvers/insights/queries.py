"""GET /v2.0/insights/daily-summary and /pipeline-snapshots: what the dashboards read."""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import date, timedelta

from bson import ObjectId

from leadline.models.insights import PipelineSnapshot, SummaryCounts
from leadline.resolvers.context import RequestContext, Services
from leadline.resolvers.insights import days, rollups, snapshots


# Today's counts of a large organisation (one whose day takes SLOW_SECONDS or more to count) are kept in
# Redis: served as they are for FRESH_SECONDS, then still served while a worker counts the day again.
SLOW_SECONDS = 2.0
FRESH_SECONDS = 60
REFRESH_JOB = "insights_refresh_today"
# A refresh holds this lock while it counts (one at a time per organisation and day).
REFRESH_LOCK_SECONDS = 600
TODAY_TTL_SECONDS = 26 * 3600


@dataclass(frozen=True)
class DayRecord:
    date: str
    platform: str
    counts: SummaryCounts


@dataclass(frozen=True)
class Report:
    start: date
    end: date
    timezone: str
    records: list


async def daily_summary(ctx: RequestContext, first: str | None, last: str | None, platform: str | None) -> Report:
    """One record per date and platform, dates ascending, zeros where nothing happened. Days before
    today come from the stored rollups; today is computed now; later days are zeros."""
    tz = ctx.org.timezone
    chosen = days.platforms(platform)
    start, end = days.date_range(tz, first, last)
    today = days.today(tz)
    stored = await rollups.stored(ctx, start, min(end, today - timedelta(days=1)), chosen) if start < today else {}
    live = await _today(ctx, tz, today) if start <= today <= end else {}
    records = []
    for day in days.each_day(start, end):
        for p in chosen:
            counts = live[p] if day == today else stored.get((day.isoformat(), p), SummaryCounts())
            records.append(DayRecord(day.isoformat(), p, counts))
    return Report(start, end, tz, records)


def _today_key(services: Services, org_id: ObjectId, tz: str, day: date) -> str:
    return services.rkey("insights", "today", org_id, day.isoformat(), tz)


async def _remember(services: Services, org_id: ObjectId, tz: str, day: date, counts: dict[str, SummaryCounts]) -> None:
    value = {"at": time.time(), "counts": {p: c.model_dump() for p, c in counts.items()}}
    await services.redis.set(_today_key(services, org_id, tz, day), json.dumps(value), ex=TODAY_TTL_SECONDS)


def _kept(raw: bytes | str | None) -> dict | None:
    """The kept `{at, counts}`, or None (nothing kept, or a value this version does not read)."""
    try:
        kept = json.loads(raw) if raw is not None else None
    except ValueError:
        return None
    return kept if isinstance(kept, dict) and isinstance(kept.get("at"), (int, float)) and "counts" in kept else None


async def _today(ctx: RequestContext, tz: str, today: date) -> dict[str, SummaryCounts]:
    """Today's counters from the messages now. A small organisation's are counted on every request. A large
    one's first count of the day is kept; later requests get it at once, and once it is FRESH_SECONDS old
    they still get it while a worker counts again (so a dashboard never waits for a long count twice, and
    many dashboards of one organisation start one count, not one each)."""
    services = ctx.services
    kept = _kept(await services.redis.get(_today_key(services, ctx.org_id, tz, today)))
    if kept is not None:
        if time.time() - kept["at"] >= FRESH_SECONDS:
            slot = int(time.time() // max(FRESH_SECONDS, 1))
            await services.arq.enqueue_job(REFRESH_JOB, str(ctx.org_id), today.isoformat(), tz,
                                           _job_id=f"{REFRESH_JOB}:{ctx.org_id}:{today.isoformat()}:{slot}")
        return {p: SummaryCounts.model_validate(c) for p, c in kept["counts"].items()}
    started = time.monotonic()
    counts = await rollups.compute(ctx, tz, today)
    if time.monotonic() - started >= SLOW_SECONDS:
        await _remember(services, ctx.org_id, tz, today, counts)
    return counts


async def refresh_today(services: Services, org_id: ObjectId, tz: str, day: date) -> bool:
    """Count a large organisation's today again for the requests (the REFRESH_JOB's work). Skipped when the
    day is over (its rollup takes over), when the kept count is fresh, or while another refresh counts."""
    if day != days.today(tz):
        return False
    key = _today_key(services, org_id, tz, day)
    kept = _kept(await services.redis.get(key))
    if kept is not None and time.time() - kept["at"] < FRESH_SECONDS:
        return False
    lock = f"{key}:refreshing"
    if not await services.redis.set(lock, "1", nx=True, ex=REFRESH_LOCK_SECONDS):
        return False
    try:
        await _remember(services, org_id, tz, day, await rollups.compute(org_id, tz, day))
    finally:
        await services.redis.delete(lock)
    return True


async def pipeline_snapshots(ctx: RequestContext, platform: str | None, first: str | None,
                             last: str | None) -> tuple[Report, tuple[str, ...]]:
    """The stored snapshots of the range, dates ascending; `platform` narrows `newContacts` to it."""
    tz = ctx.org.timezone
    chosen = days.platforms(platform)
    start, end = days.date_range(tz, first, last)
    found: list[PipelineSnapshot] = await snapshots.stored(ctx, start, end)
    return Report(start, end, tz, found), chosen
