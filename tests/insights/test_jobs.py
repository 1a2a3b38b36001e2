"""The rollup jobs: the cron offers each organisation's missing days, a run is idempotent, and a job that
runs late (its worker died, the queue kept it) still computes its own day, all read back through HTTP."""
from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

from bson import ObjectId

from leadline.jobs.insights import LOOKBACK_DAYS, ROLLUP_JOB, insights_rollups_due
from leadline.models.auth import Organisation
from leadline.models.base import utcnow
from leadline.models.insights import DailySummary, PipelineSnapshot
from leadline.resolvers.insights import rollups
from tests.chats.support import CUSTOMER, deliver, inbound
from tests.insights.support import SNAPSHOTS, SUMMARY, days_ago, local, record, run_rollups, seed, today
from tests.leads.helpers import contact, make_category

OTHER = "447911123457"


async def created_days_ago(tenant, n: int) -> None:
    """The organisation as if created n days ago (the cron does not roll up days before it existed)."""
    org = await Organisation.get(ObjectId(tenant.org_id))
    org.created_at = datetime.now(timezone.utc) - timedelta(days=n)
    await org.save()


async def snapshot_dates(org) -> list[str]:
    return sorted(s.date for s in await PipelineSnapshot.find_in(org, {}).to_list())


async def test_the_cron_offers_each_missing_day_once(api, tenant, services, run_worker, insights_key):
    ctx = {"services": services}
    org = ObjectId(tenant.org_id)
    # Created today: no earlier day to roll up.
    assert await insights_rollups_due(ctx) == 0
    await created_days_ago(tenant, 3)
    await seed(tenant.org_id, local(days_ago(2), 10), contact_id=ObjectId(), phone=CUSTOMER)
    assert await insights_rollups_due(ctx) == 3  # the three days since its creation, not today
    assert await insights_rollups_due(ctx) == 0  # queued already: the job id is per organisation and day
    await run_worker()
    assert await snapshot_dates(org) == [days_ago(n).isoformat() for n in (3, 2, 1)]
    assert {d.platform for d in await DailySummary.find_in(org, {"date": days_ago(1).isoformat()}).to_list()} == {
        "chatapp", "photoapp", "pageapp"}
    # Rolled up: nothing is offered again.
    assert await insights_rollups_due(ctx) == 0
    resp = await api.get(SUMMARY, insights_key, params={"from": days_ago(2).isoformat(),
                                                        "to": days_ago(2).isoformat(), "platform": "chatapp"})
    assert resp.body["data"][0]["conversations"]["totalMessages"] == 1
    # A snapshot taken while its day was still running (`run-rollups` for today) does not complete the day.
    await PipelineSnapshot.new(org, date=days_ago(4).isoformat(), day=utcnow(),
                               taken_at=local(days_ago(4), 23, 59)).insert()
    await PipelineSnapshot.new(org, date=days_ago(5).isoformat(), day=utcnow(),
                               taken_at=local(days_ago(4), 0, 0)).insert()
    await created_days_ago(tenant, 5)
    assert await insights_rollups_due(ctx) == 1  # day -4 only; day -5's snapshot was taken after it ended
    await run_worker()
    [redone] = await PipelineSnapshot.find_in(org, {"date": days_ago(4).isoformat()}).to_list()
    assert redone.taken_at > local(days_ago(3), 0, 0)
    # An older organisation: only the last LOOKBACK_DAYS days are offered.
    await created_days_ago(tenant, 400)
    assert await insights_rollups_due(ctx) == LOOKBACK_DAYS - 5
    await run_worker()
    assert len(await snapshot_dates(org)) == LOOKBACK_DAYS


async def test_inactive_organisations_are_skipped(tenant, services):
    await created_days_ago(tenant, 2)
    org = await Organisation.get(ObjectId(tenant.org_id))
    org.is_active = False
    await org.save()
    assert await insights_rollups_due({"services": services}) == 0


async def test_a_run_twice_stores_the_same_records(api, tenant, brand, settings, insights_key, run_worker):
    key = tenant.legacy_key
    day = days_ago(1)
    noon = int(datetime.combine(day, datetime.min.time(), timezone.utc).timestamp()) + 12 * 3600
    # Yesterday's inbound webhooks (the provider's time), then contacts and categories.
    await deliver(api, run_worker, inbound("Hi", ts=noon), inbound("Price?", ts=noon + 90),
                  inbound("Me too", sender=OTHER, name="Bob", ts=noon + 30))
    await make_category(api, key, "Hot")
    await contact(api, key, CUSTOMER, lead_category="Hot")
    params = {"from": day.isoformat(), "to": day.isoformat()}

    first = await run_rollups(settings, tenant.org_id, day.isoformat())
    summary = (await api.get(SUMMARY, insights_key, params=params)).body
    snapshots = (await api.get(SNAPSHOTS, insights_key, params=params)).body
    second = await run_rollups(settings, tenant.org_id, day.isoformat())
    assert first == second == {"summaries": 3, "snapshots": 1}
    assert (await api.get(SUMMARY, insights_key, params=params)).body == summary
    assert (await api.get(SNAPSHOTS, insights_key, params=params)).body == snapshots
    org = ObjectId(tenant.org_id)
    assert await DailySummary.count_in(org) == 3 and await PipelineSnapshot.count_in(org) == 1
    chat = record(summary, day)
    assert chat["conversations"] == {"count": 2, "uniqueUsers": 2, "totalMessages": 3, "userMessages": 3,
                                     "assistantMessages": 0, "totalDurationSec": 90}
    assert chat["hourlyConversations"][12] == 2


async def test_a_job_retried_late_still_computes_its_own_day(api, tenant, settings, services, run_worker, insights_key):
    """A worker died while rolling up day D: it had stored the summaries, not the snapshot, and the queue
    kept the job. It runs days later, after messages of other days and contact changes: D's records are
    D's, and the cron, which looks for the snapshot (the last write), offers D until it is complete."""
    org = ObjectId(tenant.org_id)
    d = days_ago(3)
    await created_days_ago(tenant, 5)
    for at in (local(d, 9), local(d, 9, 30)):
        await seed(tenant.org_id, at, contact_id=ObjectId(), phone=CUSTOMER)
    await rollups.store(org, d, await rollups.compute(org, "UTC", d))  # the dead worker's partial run
    await services.arq.enqueue_job(ROLLUP_JOB, tenant.org_id, d.isoformat(),
                                   _job_id=f"{ROLLUP_JOB}:{tenant.org_id}:{d.isoformat()}")
    # Meanwhile: messages of the days around D (and of today), and a new contact.
    for at in (local(d - timedelta(days=1), 23, 59), local(d + timedelta(days=1), 0, 0), local(today(), 0, 1)):
        await seed(tenant.org_id, at, contact_id=ObjectId(), phone=OTHER)
    await contact(api, tenant.legacy_key, "14155550001")
    # The cron still sees D as due (no snapshot yet), but does not queue it twice.
    due = await insights_rollups_due({"services": services})
    assert due == 4  # the other days since creation; D's job id is already queued
    await run_worker()
    params = {"from": d.isoformat(), "to": d.isoformat(), "platform": "chatapp"}
    chat = (await api.get(SUMMARY, insights_key, params=params)).body["data"][0]
    assert (chat["conversations"]["totalMessages"], chat["conversations"]["count"]) == (2, 2)
    [snapshot] = (await api.get(SNAPSHOTS, insights_key, params={"from": d.isoformat(), "to": d.isoformat()})).body["data"]
    assert snapshot["newContacts"] == {"chatapp": 0, "photoapp": 0, "pageapp": 0}  # today's contact is not D's
    assert await insights_rollups_due({"services": services}) == 0
    # Run once more, much later: the same records.
    await run_rollups(settings, tenant.org_id, d.isoformat())
    assert (await api.get(SUMMARY, insights_key, params=params)).body["data"][0] == chat
