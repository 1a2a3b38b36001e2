"""GET /v2.0/insights/pipeline-snapshots after `leadline admin run-rollups`, and the daily cron job."""
from __future__ import annotations

from datetime import timedelta

import pytest
from bson import ObjectId

from leadline.models.base import utcnow
from leadline.models.insights import SNAPSHOT_TTL_SECONDS, DailySummary, PipelineSnapshot, StageCount
from leadline.resolvers.auth.admin import AdminError
from tests.chats.support import CUSTOMER, deliver, inbound
from tests.helpers import assert_error
from tests.insights.support import SNAPSHOTS, days_ago, run_rollups, today
from tests.leads.helpers import CATEGORIES, contact, make_category


async def test_a_snapshot_after_run_rollups(api, tenant, brand, settings, insights_key, run_worker):
    key = tenant.legacy_key
    for name in ("Hot", "Warm", "Lost"):
        await make_category(api, key, name)
    await contact(api, key, "14155550001", lead_category="hot")
    await contact(api, key, "14155550002", lead_category="hot", platform="photoapp")
    await contact(api, key, "14155550003", lead_category="warm", optedOut=True)  # created opted out: not an opt-out
    await contact(api, key, "14155550004", source="import")
    await contact(api, key, "14155550005", lead_category="Lost")
    assert (await api.call("DELETE", f"{CATEGORIES}/lost?reassignTo=", key)).status == 200  # categorized once
    await contact(api, key, "14155550001", optedOut=True)  # a person opts them out through the API
    # An inbound STOP auto-adds the sender (source chatapp) and opts them out by keyword.
    await deliver(api, run_worker, inbound("STOP"))

    assert await run_rollups(settings, tenant.org_id) == {"summaries": 3, "snapshots": 1}
    resp = await api.get(SNAPSHOTS, insights_key, params={"from": days_ago(2).isoformat()})
    assert resp.status == 200, resp.body
    assert resp.body["data"] == [{
        "date": today().isoformat(), "stageCounts": {"Hot": 2, "Warm": 1},
        "newContacts": {"chatapp": 1, "photoapp": 1, "pageapp": 0, "other": 4},
        "optOuts": 2, "neverCategorized": 2}]
    assert resp.body["meta"] == {"from": days_ago(2).isoformat(), "to": today().isoformat(), "timezone": "UTC"}
    narrowed = await api.get(SNAPSHOTS, insights_key, params={"platform": "photoapp"})
    assert narrowed.body["data"][0]["newContacts"] == {"photoapp": 1}

    # Re-running for today recomputes from current data, into the same document.
    await contact(api, key, "14155550006", lead_category="Warm")
    await run_rollups(settings, tenant.org_id, today().isoformat())
    again = (await api.get(SNAPSHOTS, insights_key)).body["data"]
    assert len(again) == 1 and again[0]["stageCounts"] == {"Hot": 2, "Warm": 2}
    assert again[0]["newContacts"]["other"] == 5
    assert await PipelineSnapshot.count_in(ObjectId(tenant.org_id)) == 1
    contact_doc = await api.post("/v2.0/contacts/phone", key, json={"phone": CUSTOMER})
    assert contact_doc.body["data"]["optedOut"] is True


async def test_a_past_snapshot_keeps_what_it_measured_at_its_day_end(api, tenant, settings, insights_key):
    org = ObjectId(tenant.org_id)
    yesterday = days_ago(1)
    await PipelineSnapshot.new(org, date=yesterday.isoformat(), day=utcnow(), stages=[StageCount(name="Hot", count=7)],
                               newContacts={"chatapp": 9}, optOuts=3, neverCategorized=4, taken_at=utcnow()).insert()
    await run_rollups(settings, tenant.org_id, yesterday.isoformat())
    [snapshot] = (await api.get(SNAPSHOTS, insights_key, params={"to": yesterday.isoformat()})).body["data"]
    # Taken after the day ended: its moment counts stay; the day's counts are recomputed (nothing happened).
    assert snapshot == {"date": yesterday.isoformat(), "stageCounts": {"Hot": 7},
                        "newContacts": {"chatapp": 0, "photoapp": 0, "pageapp": 0}, "optOuts": 0,
                        "neverCategorized": 4}


async def test_snapshots_expire_after_365_days(client):
    indexes = await PipelineSnapshot.get_pymongo_collection().index_information()
    [ttl] = [spec for spec in indexes.values() if "expireAfterSeconds" in spec]
    assert ttl["key"] == [("day", 1)] and ttl["expireAfterSeconds"] == SNAPSHOT_TTL_SECONDS == 365 * 24 * 3600


async def test_bad_queries(api, tenant, insights_key):
    assert_error(await api.get(SNAPSHOTS, insights_key, params={"from": "01/02/2026"}), 400, "INVALID_DATE_RANGE")
    assert_error(await api.get(SNAPSHOTS, insights_key, params={"from": "2026-03-02", "to": "2026-03-01"}), 400,
                 "INVALID_DATE_RANGE")
    assert_error(await api.get(SNAPSHOTS, insights_key, params={"from": "2020-01-01", "to": "2021-01-01"}), 400,
                 "INVALID_DATE_RANGE")
    assert_error(await api.get(SNAPSHOTS, insights_key, params={"platform": "email"}), 400, "VALIDATION_ERROR")
    empty = await api.get(SNAPSHOTS, insights_key)
    assert empty.status == 200 and empty.body["data"] == []
    first = await api.get(SNAPSHOTS, insights_key, params={"to": "0001-01-05"})
    assert first.status == 200 and first.body["meta"]["from"] == "0001-01-01" and first.body["data"] == []


async def test_run_rollups_refuses_a_bad_date_or_organisation(client, tenant, settings):
    with pytest.raises(AdminError, match="YYYY-MM-DD"):
        await run_rollups(settings, tenant.org_id, "2026-13-01")
    with pytest.raises(AdminError, match="organisation"):
        await run_rollups(settings, "nope")
    with pytest.raises(AdminError, match="outside"):
        await run_rollups(settings, tenant.org_id, "9999-12-31")
    assert await run_rollups(settings, tenant.org_id, (today() - timedelta(days=400)).isoformat()) == {
        "summaries": 3, "snapshots": 1}
