"""One organisation's rollup and snapshot for one local day: what the cron job and `leadline admin
run-rollups` run. Idempotent: a re-run rewrites the same documents."""
from __future__ import annotations

from datetime import date

from bson import ObjectId

from leadline.resolvers.insights import rollups, snapshots


async def run_day(org_id: ObjectId, tz: str, day: date) -> dict[str, int]:
    counts = await rollups.compute(org_id, tz, day)
    written = await rollups.store(org_id, day, counts)
    await snapshots.take(org_id, tz, day)
    return {"summaries": written, "snapshots": 1}
