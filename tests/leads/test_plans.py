"""Plan gating of lead segmentation writes: enabling needs the feature; counts stop at the plan's limits."""
from __future__ import annotations

from tests.helpers import assert_error, make_tenant
from tests.leads.helpers import CATEGORIES, FOLLOWUPS, INSIGHTS, SEGMENTATION, KeyRing, followup

SETTINGS = f"{SEGMENTATION}/settings"


def limit_error(resp, key: str, current: int, limit: int) -> None:
    body = assert_error(resp, 403, "PLAN_LIMIT_EXCEEDED")
    assert (body["limitKey"], body["current"], body["limit"]) == (key, current, limit), body


async def test_free_plan(api, client):
    tenant = await make_tenant(client, plan="free")
    keys = KeyRing(tenant)
    # Configuring is allowed up to the limits; enabling is not.
    for name in ("Hot", "Warm", "Cold"):
        assert (await api.post(CATEGORIES, await keys.next(), json={"name": name})).status == 201
    limit_error(await api.post(CATEGORIES, await keys.next(), json={"name": "Lost"}), "max_lead_categories", 3, 3)
    limit_error(await api.call("PUT", f"{CATEGORIES}/hot/followups", await keys.next(), json={"followups": [followup()]}),
                "max_ai_followups", 0, 0)
    limit_error(await api.post(INSIGHTS, await keys.next(), json={"key": "budget", "name": "Budget"}),
                "max_ai_insights", 0, 0)
    for flag, feature in (("isCategorizationEnabled", "lead_categorization"), ("isFollowupEnabled", "ai_followups")):
        body = assert_error(await api.call("PATCH", SETTINGS, await keys.next(), json={flag: True}), 403,
                            "PLAN_FEATURE_DISABLED")
        assert feature in body["message"]
    # A PUT over a limit, or enabling, is refused whole.
    before = (await api.get(SEGMENTATION, await keys.next())).body["data"]
    four = [{"name": n} for n in ("A", "B", "C", "D")]
    limit_error(await api.call("PUT", SEGMENTATION, await keys.next(), json={"model": "x", "categories": four}),
                "max_lead_categories", 3, 3)
    assert_error(await api.call("PUT", SEGMENTATION, await keys.next(), json={
        "model": "x", "isCategorizationEnabled": True}), 403, "PLAN_FEATURE_DISABLED")
    assert (await api.get(SEGMENTATION, await keys.next())).body["data"] == before
    # Writes that do not enable or grow anything pass.
    ok = await api.call("PATCH", SETTINGS, await keys.next(), json={"isCategorizationEnabled": False, "delay": 10})
    assert ok.status == 200, ok.body
    replaced = await api.call("PUT", SEGMENTATION, await keys.next(), json={"categories": four[:2]})
    assert replaced.status == 200, replaced.body


async def test_growth_plan(api, client):
    tenant = await make_tenant(client, plan="growth")
    keys = KeyRing(tenant, per_key=8)
    await api.post(CATEGORIES, await keys.next(), json={"name": "Hot", "followups": [followup()] * 6})
    enabled = await api.call("PATCH", SETTINGS, await keys.next(), json={"isCategorizationEnabled": True})
    assert enabled.status == 200 and enabled.body["data"]["isCategorizationEnabled"] is True
    assert_error(await api.call("PATCH", SETTINGS, await keys.next(), json={"isFollowupEnabled": True}), 403,
                 "PLAN_FEATURE_DISABLED")
    # Follow-ups count across every category and the defaults (10 on Growth).
    assert (await api.call("PUT", f"{FOLLOWUPS}/default", await keys.next(),
                           json={"followups": [followup()] * 4})).status == 200
    limit_error(await api.post(CATEGORIES, await keys.next(), json={"name": "Warm", "followups": [followup()]}),
                "max_ai_followups", 10, 10)
    limit_error(await api.call("PUT", f"{FOLLOWUPS}/default", await keys.next(), json={"followups": [followup()] * 5}),
                "max_ai_followups", 10, 10)
    shrink = await api.call("PUT", f"{CATEGORIES}/hot/followups", await keys.next(), json={"followups": [followup()]})
    assert shrink.status == 200, shrink.body
    # Insights: 10 on Growth, single creates and PUT lists alike.
    insights = [{"key": f"k{n}", "name": "K"} for n in range(10)]
    put = await api.call("PUT", SEGMENTATION, await keys.next(), json={"audienceSegments": insights})
    assert put.status == 200, put.body
    limit_error(await api.post(INSIGHTS, await keys.next(), json={"key": "k10", "name": "K"}), "max_ai_insights", 10, 10)
    limit_error(await api.call("PUT", SEGMENTATION, await keys.next(), json={
        "audienceSegments": [*insights, {"key": "k10", "name": "K"}], "model": "m"}), "max_ai_insights", 10, 10)
    data = (await api.get(SEGMENTATION, await keys.next())).body["data"]
    assert len(data["audienceSegments"]) == 10 and data["model"] is None
    # Ten categories at most.
    more = [{"name": f"C{n}"} for n in range(10)]
    assert (await api.call("PUT", SEGMENTATION, await keys.next(), json={"categories": more})).status == 200
    limit_error(await api.post(CATEGORIES, await keys.next(), json={"name": "C10"}), "max_lead_categories", 10, 10)


async def test_a_downgrade_keeps_what_exists_and_refuses_growth(api, tenant):
    key = tenant.legacy_key
    for n in range(5):
        await api.post(CATEGORIES, key, json={"name": f"C{n}"})
    await api.call("PATCH", SETTINGS, key, json={"isCategorizationEnabled": True, "isFollowupEnabled": True})
    await tenant.set_plan("free")
    keys = KeyRing(tenant)
    limit_error(await api.post(CATEGORIES, await keys.next(), json={"name": "C5"}), "max_lead_categories", 5, 3)
    assert (await api.call("PATCH", f"{CATEGORIES}/c0", await keys.next(), json={"description": "x"})).status == 200
    assert (await api.call("DELETE", f"{CATEGORIES}/c4", await keys.next())).status == 200
    # Already enabled: writing the same value enables nothing.
    assert (await api.call("PATCH", SETTINGS, await keys.next(), json={"isCategorizationEnabled": True})).status == 200


async def test_billing_reports_the_usage(api, tenant):
    key = tenant.legacy_key
    await api.post(CATEGORIES, key, json={"name": "Hot", "followups": [followup(), followup()]})
    await api.post(CATEGORIES, key, json={"name": "Cold"})
    await api.call("PUT", f"{FOLLOWUPS}/default", key, json={"followups": [followup()]})
    await api.post(INSIGHTS, key, json={"key": "budget", "name": "Budget"})
    limits = (await api.get("/v2.0/billing/plan", key)).body["data"]["limits"]
    assert limits["max_lead_categories"] == {"limit": 100, "used": 2, "remaining": 98}
    assert limits["max_ai_followups"] == {"limit": 200, "used": 3, "remaining": 197}
    assert limits["max_ai_insights"] == {"limit": 100, "used": 1, "remaining": 99}
    other = await make_tenant(api.client, name="Fresh")
    fresh = (await api.get("/v2.0/billing/plan", other.legacy_key)).body["data"]["limits"]
    assert fresh["max_lead_categories"]["used"] == 0 and fresh["max_ai_insights"]["used"] == 0
