"""GET /v2.0/insights/daily-summary: live today, stored rollups before, zeros elsewhere, every counter."""
from __future__ import annotations

import time
from datetime import timedelta

from bson import ObjectId

from leadline.models.insights import DailySummary
from leadline.resolvers.auth import admin
from tests.chats.support import BRAND, CUSTOMER, deliver, inbound
from tests.helpers import Tenant, assert_error
from tests.insights.support import SUMMARY, days_ago, local, record, run_rollups, seed, today, zeros
from tests.messaging.support import seed_template, send_body

OTHER = "447911123457"


async def test_today_counts_inbound_webhooks_and_sends_of_the_day(api, tenant, brand, insights_key, run_worker):
    now = int(time.time())
    await deliver(api, run_worker, inbound("Hi, price?", ts=now - 120),
                  inbound(kind="image", body={"id": "media-1", "mime_type": "image/jpeg", "caption": "this one"},
                          ts=now - 60),
                  inbound("Me too", sender=OTHER, name="Bob", ts=now - 30))
    sender = await tenant.key("messages:send")
    freeform = await api.post("/v2.0/chatapp/message", sender, json={
        "to": CUSTOMER, "brandNumber": BRAND, "type": "text", "content": {"body": "It is 20 USD"}})
    assert freeform.status == 200, freeform.body
    await seed_template(tenant)
    template = await api.post("/v2.0/chatapp/send", sender, json=send_body(to=CUSTOMER))
    assert template.status in (200, 201), template.body

    resp = await api.get(SUMMARY, insights_key, params={"from": today().isoformat(), "to": today().isoformat(),
                                                        "platform": "chatapp"})
    assert resp.status == 200, resp.body
    [day] = resp.body["data"]
    assert day["date"] == today().isoformat() and day["platform"] == "chatapp"
    conversations = day["conversations"]
    assert {k: conversations[k] for k in ("count", "uniqueUsers", "totalMessages", "userMessages",
                                          "assistantMessages")} == {
        "count": 2, "uniqueUsers": 2, "totalMessages": 5, "userMessages": 3, "assistantMessages": 0}
    # The customer's conversation ran from their first message (2 minutes ago) to the template just sent.
    assert 119 <= conversations["totalDurationSec"] <= 130
    assert day["media"] == {"incoming": 1, "outgoing": 0, "audioSeconds": 0}
    assert day["ai"] == {"toolsUsed": 0, "followUpCount": 0, "modelBreakdown": []}
    assert len(day["hourlyConversations"]) == 24 and 2 <= sum(day["hourlyConversations"]) <= 4
    assert resp.body["meta"] == {"from": today().isoformat(), "to": today().isoformat(), "timezone": "UTC"}


async def test_every_counter_in_the_organisations_time_zone(api, client):
    created = await admin.create_org("Kolkata Co", "business", "Asia/Kolkata")
    tenant = Tenant(created["orgId"], created["legacyKey"], client)
    tz = "Asia/Kolkata"
    day = today(tz)
    ann, bob = ObjectId(), ObjectId()
    org = tenant.org_id
    # Ann: 00:30 and 09:15 inbound, 09:45 an assistant reply with a tool run; Bob: 23:10 inbound voice note.
    await seed(org, local(day, 0, 30, tz), contact_id=ann, phone=CUSTOMER)
    await seed(org, local(day, 9, 15, tz), contact_id=ann, phone=CUSTOMER, type="image", media={"type": "image"})
    await seed(org, local(day, 9, 45, tz), direction="outbound", contact_id=ann, phone=CUSTOMER,
               assistant={"model": "gpt-4o", "toolRuns": 2}, cost={"amount": 0.0125, "currency": "USD"})
    await seed(org, local(day, 9, 50, tz), direction="outbound", contact_id=ann, phone=CUSTOMER,
               assistant={"model": "gpt-4o-mini", "followUp": True}, type="image", media={"type": "image"},
               cost={"amount": 0.004, "currency": None})
    await seed(org, local(day, 9, 55, tz), direction="outbound", contact_id=ann, phone=CUSTOMER,
               assistant={"model": "gpt-4o"}, cost={"amount": 0.0005, "currency": "USD"})
    await seed(org, local(day, 23, 10, tz), contact_id=bob, phone=OTHER, type="audio",
               media={"type": "voice", "duration": 12.4})
    # Not counted: an inbox-only note, a photoapp message (its own record), a message of the next local day,
    # a cost in another currency.
    await seed(org, local(day, 10, 0, tz), direction="outbound", contact_id=ann, internal=True)
    await seed(org, local(day, 11, 0, tz), contact_id=bob, channel="photoapp")
    await seed(org, local(day + timedelta(days=1), 0, 5, tz), contact_id=bob, phone=OTHER)
    await seed(org, local(day, 12, 0, tz), direction="outbound", contact_id=bob, phone=OTHER,
               cost={"amount": 5, "currency": "INR"})

    resp = await api.get(SUMMARY, tenant.legacy_key, params={"from": day.isoformat(), "to": day.isoformat()})
    assert resp.status == 200, resp.body
    assert [(r["date"], r["platform"]) for r in resp.body["data"]] == [
        (day.isoformat(), p) for p in ("chatapp", "photoapp", "pageapp")]
    chat = record(resp.body, day)
    hourly = [0] * 24
    hourly[0], hourly[9], hourly[12], hourly[23] = 1, 1, 1, 1
    assert chat == {
        "date": day.isoformat(), "platform": "chatapp", "cost": {"totalMillidollars": 17},
        "conversations": {"count": 2, "uniqueUsers": 2, "totalMessages": 7, "userMessages": 3,
                          "assistantMessages": 3, "totalDurationSec": (9 * 60 + 25) * 60 + (11 * 60 + 10) * 60},
        "media": {"incoming": 2, "outgoing": 1, "audioSeconds": 12},
        "ai": {"toolsUsed": 2, "followUpCount": 1,
               "modelBreakdown": [{"model": "gpt-4o", "messages": 2}, {"model": "gpt-4o-mini", "messages": 1}]},
        "hourlyConversations": hourly}
    photo = record(resp.body, day, "photoapp")
    assert photo["conversations"]["count"] == 1 and photo["conversations"]["totalMessages"] == 1
    assert record(resp.body, day, "pageapp") == zeros(day, "pageapp")


async def test_past_days_come_from_stored_rollups(api, tenant, settings, insights_key):
    org = tenant.org_id
    yesterday, earlier = days_ago(1), days_ago(3)
    for at in (local(yesterday, 8), local(yesterday, 8, 5), local(earlier, 14)):
        await seed(org, at, contact_id=ObjectId(), phone=CUSTOMER)
    params = {"from": earlier.isoformat(), "to": today().isoformat(), "platform": "chatapp"}
    before = await api.get(SUMMARY, insights_key, params=params)
    assert [r["date"] for r in before.body["data"]] == [days_ago(n).isoformat() for n in (3, 2, 1, 0)]
    assert before.body["data"] == [zeros(days_ago(n), "chatapp") for n in (3, 2, 1, 0)]  # nothing rolled up yet

    assert await run_rollups(settings, org, yesterday.isoformat()) == {"summaries": 3, "snapshots": 1}
    after = await api.get(SUMMARY, insights_key, params=params)
    assert record(after.body, yesterday)["conversations"]["totalMessages"] == 2
    assert record(after.body, earlier) == zeros(earlier, "chatapp")
    # Re-running rewrites the same records.
    await run_rollups(settings, org, yesterday.isoformat())
    await run_rollups(settings, org, earlier.isoformat())
    assert await DailySummary.count_in(ObjectId(org)) == 6
    again = await api.get(SUMMARY, insights_key, params=params)
    assert record(again.body, yesterday) == record(after.body, yesterday)
    assert record(again.body, earlier)["conversations"]["count"] == 1
    # A message arriving after the rollup does not change a past day until it is rolled up again.
    await seed(org, local(yesterday, 9), contact_id=ObjectId(), phone=CUSTOMER)
    assert record((await api.get(SUMMARY, insights_key, params=params)).body, yesterday) == record(after.body, yesterday)


async def test_defaults_and_range_rules(api, tenant, insights_key):
    default = await api.get(SUMMARY, insights_key)
    assert default.status == 200, default.body
    assert len(default.body["data"]) == 31 * 3
    assert default.body["data"][0]["date"] == days_ago(30).isoformat()
    assert default.body["data"][-1]["date"] == today().isoformat()
    only_to = await api.get(SUMMARY, insights_key, params={"to": "2025-03-31", "platform": "ALL"})
    assert only_to.body["meta"]["from"] == "2025-03-01" and len(only_to.body["data"]) == 93
    year = await api.get(SUMMARY, insights_key, params={"from": "2024-01-01", "to": "2024-12-31",
                                                        "platform": "pageapp"})
    assert year.status == 200 and len(year.body["data"]) == 366
    # The default span stops at the first day of the calendar; the last day is a day like any other.
    first = await api.get(SUMMARY, insights_key, params={"to": "0001-01-05", "platform": "chatapp"})
    assert first.status == 200, first.body
    assert [r["date"] for r in first.body["data"]] == [f"0001-01-0{n}" for n in range(1, 6)]
    last = await api.get(SUMMARY, insights_key, params={"from": "9999-12-31", "to": "9999-12-31"})
    assert last.status == 200 and [r["date"] for r in last.body["data"]] == ["9999-12-31"] * 3


async def test_bad_dates_and_platforms(api, tenant, insights_key):
    for params in ({"from": "2026-1-01"}, {"from": "2026-02-30"}, {"to": "yesterday"}, {"from": "20260101"},
                   {"from": "2026-01-01T00:00:00"}, {"from": " 2026-01-01"}, {"from": ""},
                   {"from": "2026-03-02", "to": "2026-03-01"}, {"from": "2024-01-01", "to": "2025-01-01"}):
        assert_error(await api.get(SUMMARY, insights_key, params=params), 400, "INVALID_DATE_RANGE")
    body = assert_error(await api.get(SUMMARY, insights_key, params={"platform": "fax"}), 400, "VALIDATION_ERROR")
    assert body["details"][0]["path"] == "platform"
    other = await tenant.key("chats:read")
    body = assert_error(await api.get(SUMMARY, other), 403, "INSUFFICIENT_SCOPE", marker="error")
    assert body["required_scope"] == "insights:read"


async def test_graphql_selects_part_of_a_record(api, tenant):
    day = today().isoformat()
    resp = await api.graphql('{ dailySummary(from: "%s", to: "%s", platform: "chatapp") '
                             '{ data { date conversations { count } } meta { timezone } } }' % (day, day),
                             tenant.legacy_key)
    assert resp.body["data"]["dailySummary"] == {"data": [{"date": day, "conversations": {"count": 0}}],
                                                 "meta": {"timezone": "UTC"}}


async def test_a_large_organisations_today_is_kept_and_refreshed_by_a_worker(api, tenant, insights_key, monkeypatch,
                                                                           run_worker):
    from leadline.resolvers.insights import queries

    day = today()
    params = {"from": day.isoformat(), "to": day.isoformat(), "platform": "chatapp"}
    count = lambda resp: resp.body["data"][0]["conversations"]["count"]  # noqa: E731
    await seed(tenant.org_id, local(day, 0, 1), contact_id=ObjectId(), phone=CUSTOMER)
    first = await api.get(SUMMARY, insights_key, params=params)
    await seed(tenant.org_id, local(day, 0, 2), contact_id=ObjectId(), phone=OTHER)
    fresh = await api.get(SUMMARY, insights_key, params=params)  # fast to count: counted again
    assert (count(first), count(fresh)) == (1, 2)
    monkeypatch.setattr(queries, "SLOW_SECONDS", 0.0)  # as if counting the day took long: the count is kept
    assert count(await api.get(SUMMARY, insights_key, params=params)) == 2
    await seed(tenant.org_id, local(day, 0, 3), contact_id=ObjectId(), phone="447911123458")
    assert count(await api.get(SUMMARY, insights_key, params=params)) == 2  # kept, fresh: served as it is
    assert await run_worker() == 0  # nothing to refresh yet
    monkeypatch.setattr(queries, "FRESH_SECONDS", 0)  # as if a minute had passed
    stale = await api.get(SUMMARY, insights_key, params=params)
    assert count(stale) == 2  # served at once; a worker counts again
    assert await run_worker() == 1
    monkeypatch.setattr(queries, "FRESH_SECONDS", 60)
    assert count(await api.get(SUMMARY, insights_key, params=params)) == 3
    assert await run_worker() == 0
