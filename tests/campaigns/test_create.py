"""Create: every refusal of the spec's Campaigns group, variables, dry run, schedules, plan checks; list,
report and cancel."""
from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

import pytest
from bson import ObjectId

from leadline.models.campaigns import Campaign, CampaignChunk
from leadline.models.templates import MessageTemplate
from tests.campaigns.conftest import COMPONENTS
from tests.campaigns.support import VARIABLES, add_contacts, body, report
from tests.helpers import assert_error, make_tenant
from tests.templates.support import BRAND

CREATE = "/v2.0/campaigns"


def iso(delta: timedelta) -> str:
    return (datetime.now(timezone.utc) + delta).isoformat().replace("+00:00", "Z")


async def test_refusals(api, tenant, brand, template, writer):
    await add_contacts(api, writer, 1)
    org = ObjectId(tenant.org_id)
    cases = [
        (body(template, campaignName=None), 400, "CAMPAIGN_NAME_REQUIRED"),
        (body(template, brandNumber=None), 400, "BRAND_NUMBER_MISSING"),
        (body(template, brandNumber="15559999999"), 404, "BIZACCT_NOT_FOUND"),
        (body(template, templateId=None), 400, "CAMPAIGN_TEMPLATE_REQUIRED"),
        (body(template, templateId=str(ObjectId())), 404, "TEMPLATE_NOT_FOUND"),
        (body(template, templateId=None, templateName="nope", language="en"), 404, "TEMPLATE_NOT_FOUND"),
        (body(template, audience={"filters": {"source": "nowhere"}}), 400, "CAMPAIGN_EMPTY_AUDIENCE"),
        (body(template, schedule={"sendAt": "tomorrow"}), 400, "INVALID_SCHEDULE_TIME"),
        (body(template, schedule={"sendAt": iso(-timedelta(minutes=1))}), 400, "INVALID_SCHEDULE_TIME"),
        (body(template, schedule={"sendAt": iso(timedelta(hours=1)), "timezone": "Mars/Base"}), 400, "VALIDATION_ERROR"),
    ]
    for data, status, code in cases:
        assert_error(await api.post(CREATE, writer, json=data), status, code, marker="error")
    for state in ("PENDING", "REJECTED"):
        other = MessageTemplate.new(org, name=f"t_{state.lower()}", template_id=f"1689556900000{len(state)}0",
                                    language="en", category="MARKETING", status=state, brand_number=BRAND,
                                    components=COMPONENTS)
        await other.insert()
        resp = await api.post(CREATE, writer, json=body(template, templateId=str(other.id)))
        assert_error(resp, 409, "CAMPAIGN_TEMPLATE_NOT_APPROVED", marker="error")
    by_name = await api.post(CREATE, writer, json=body(template, templateId=None, templateName="promo", language="en",
                                                       dryRun=True))
    assert by_name.status == 200
    assert await Campaign.count_in(org) == 0 and await CampaignChunk.count_in(org) == 0


async def test_every_variables_problem_is_reported_together(api, tenant, brand, template, writer):
    await add_contacts(api, writer, 1)
    bad = {"body": ["only one"], "buttons": [{"index": 9}, {"index": 0, "payload": "x" * 300},
                                            {"index": 2, "params": [{"field": "age"}]}]}
    resp = await api.post(CREATE, writer, json=body(template, variables=bad))
    err = assert_error(resp, 422, "CAMPAIGN_VARIABLES_INVALID", marker="error")
    paths = [(d["path"], d["code"]) for d in err["details"]]
    assert ("variables.body", "COUNT_MISMATCH") in paths
    assert ("variables.buttons[0].index", "INVALID_VALUE") in paths
    assert ("variables.buttons[1].payload", "INVALID_VALUE") in paths
    assert ("variables.buttons[2].params", "NOT_EXPECTED") in paths  # button 2 is a quick reply
    assert ("variables.buttons", "REQUIRED") in paths  # the URL button 1 got no params
    unknown = {**VARIABLES, "buttons": [{"index": 1, "params": [{"field": "age"}]}]}
    err = assert_error(await api.post(CREATE, writer, json=body(template, variables=unknown)), 422,
                       "CAMPAIGN_VARIABLES_INVALID", marker="error")
    assert [(d["path"], d["code"]) for d in err["details"]] == [("variables.buttons[0].params[0]", "INVALID_FIELD")]


async def test_a_recipient_missing_a_value_fails_alone(api, tenant, brand, template, writer, run_worker):
    await add_contacts(api, writer, 1)
    await api.post("/v2.0/contacts", writer, json={"phone": "14155559000"})  # no name
    variables = {**VARIABLES, "body": [{"field": "name"}, "X"]}
    campaign_id = (await api.post(CREATE, writer, json=body(template, variables=variables))).body["data"]["campaignId"]
    await run_worker()
    got = await report(api, writer, campaign_id)
    assert got["counters"]["failed"] == 1 and got["counters"]["read"] == 1 and got["status"] == "completed"
    assert got["failures"] == [{"code": "VARIABLE_MISSING", "count": 1, "message": got["failures"][0]["message"]}]


async def test_dry_run_writes_nothing_and_samples_ten(api, tenant, brand, template, writer):
    await add_contacts(api, writer, 12)
    org = ObjectId(tenant.org_id)
    for flag in ("dryRun", "validateOnly"):
        resp = await api.post(CREATE, writer, json=body(template, **{flag: True}))
        assert resp.status == 200 and resp.body["dryRun"] is True
        assert resp.body["data"]["totalContacts"] == 12 and len(resp.body["data"]["resolvedSample"]) == 10
        assert resp.body["data"]["resolvedSample"][0]["body"] == ["Person 0", "SAVE10"]
    assert await Campaign.count_in(org) == 0


async def test_a_scheduled_campaign_starts_at_its_time(api, tenant, brand, template, writer, run_worker):
    await add_contacts(api, writer, 2)
    resp = await api.post(CREATE, writer, json=body(template, schedule={"sendAt": iso(timedelta(seconds=1)),
                                                                        "timezone": "Asia/Kolkata"}))
    assert resp.status == 201, resp.body
    data = resp.body["data"]
    assert (data["status"], data["scheduleType"], data["timezone"]) == ("scheduled", "scheduled", "Asia/Kolkata")
    assert data["scheduledAt"].endswith("Z")
    await run_worker()  # the deferred start, then the fan-out
    got = await report(api, writer, data["campaignId"])
    assert got["status"] == "completed" and got["counters"]["read"] == 2 and got["startedAt"]


async def test_plan_checks(api, client, brand, template, writer):
    free = await make_tenant(client, plan="free")
    await free.set_plan("free")
    # Free allows 5 campaigns a month: the sixth is refused.
    from tests.templates.support import connect_brand
    await connect_brand(free)
    key = free.legacy_key
    await add_contacts(api, key, 1)
    tpl = MessageTemplate.new(ObjectId(free.org_id), name="promo", template_id="1689556900000099", language="en",
                              category="MARKETING", status="APPROVED", brand_number=BRAND, components=COMPONENTS)
    await tpl.insert()
    for _ in range(5):
        assert (await api.post(CREATE, key, json=body(tpl))).status == 201
        await asyncio.sleep(0.25)  # the free plan allows 5 requests a second
    err = assert_error(await api.post(CREATE, key, json=body(tpl)), 403, "LIMIT_EXCEEDED", marker="error")
    assert (err["limitKey"], err["current"], err["limit"]) == ("max_campaigns_per_month", 5, 5)


async def test_cancel_skips_the_rest(api, tenant, brand, template, writer, run_worker, client):
    await add_contacts(api, writer, 3)
    campaign_id = (await api.post(CREATE, writer, json=body(template))).body["data"]["campaignId"]
    resp = await api.post(f"/v2.0/campaigns/{campaign_id}/cancel", writer)
    assert resp.status == 200, resp.body
    data = resp.body["data"]
    assert (data["campaignId"], data["status"], data["skippedRemaining"]) == (campaign_id, "cancelled", 3)
    assert data["cancelledAt"].endswith("Z")
    await run_worker()
    got = await report(api, writer, campaign_id)
    assert got["counters"]["skipped"] == 3 and got["counters"]["sent"] + got["counters"]["read"] == 0
    again = await api.post(f"/v2.0/campaigns/{campaign_id}/cancel", writer)
    assert_error(again, 409, "CAMPAIGN_NOT_CANCELLABLE", marker="error")
    other = await make_tenant(client, name="Other")
    for key, cid in [(other.legacy_key, campaign_id), (writer, "nope"), (writer, str(ObjectId()))]:
        assert_error(await api.post(f"/v2.0/campaigns/{cid}/cancel", key), 404, "CAMPAIGN_NOT_FOUND", marker="error")
        assert_error(await api.get(f"/v2.0/campaigns/{cid}/report", key), 404, "CAMPAIGN_NOT_FOUND", marker="error")


async def test_list(api, tenant, brand, template, writer, run_worker):
    await add_contacts(api, writer, 2)
    ids = [(await api.post(CREATE, writer, json=body(template, campaignName=f"C{i}"))).body["data"]["campaignId"]
           for i in range(3)]
    await api.post(f"/v2.0/campaigns/{ids[0]}/cancel", writer)
    await run_worker()
    resp = await api.get(CREATE, writer, params={"limit": "2"})
    assert resp.status == 200
    assert [r["campaignId"] for r in resp.body["data"]] == [ids[2], ids[1]]
    assert resp.body["pagination"] == {"page": 1, "limit": 2, "total": 3, "totalPages": 2, "hasNext": True}
    row = resp.body["data"][0]
    assert set(row) == {"campaignId", "name", "status", "brandNumber", "templateName", "totalContacts",
                        "scheduleType", "scheduledAt", "createdAt", "counters"}
    assert row["counters"]["read"] == 2 and row["templateName"] == "promo"
    cancelled = await api.get(CREATE, writer, params={"status": "cancelled"})
    assert [r["campaignId"] for r in cancelled.body["data"]] == [ids[0]]
    assert (await api.get(CREATE, writer, params={"brandNumber": "15550000000"})).body["data"] == []
    assert_error(await api.get(CREATE, writer, params={"status": "weird"}), 400, "INVALID_CAMPAIGN_STATUS", marker="error")
    assert_error(await api.get(CREATE, writer, params={"limit": "101"}), 400, "VALIDATION_ERROR", marker="error")


@pytest.mark.parametrize("phone_first", [9000])
async def test_undeliverable_recipients_fail_with_the_provider_code(api, tenant, brand, template, writer, run_worker,
                                                                     phone_first):
    await add_contacts(api, writer, 1)
    await api.post("/v2.0/contacts", writer, json={"phone": "919991234567", "contactName": "Nobody"})
    campaign_id = (await api.post(CREATE, writer, json=body(template))).body["data"]["campaignId"]
    await run_worker()
    got = await report(api, writer, campaign_id)
    assert got["counters"]["failed"] == 1 and got["counters"]["read"] == 1
    assert [(f["code"], f["count"]) for f in got["failures"]] == [("131026", 1)]
    assert got["rates"]["success"] == 0.5
    await asyncio.sleep(0)
