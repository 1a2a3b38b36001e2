"""GET /v2.0/billing/plan through HTTP."""
from leadline.resolvers.billing.plans import LIMIT_KEYS


async def test_plan_lists_every_limit_key_and_feature(api, tenant):
    resp = await api.get("/v2.0/billing/plan", tenant.legacy_key)
    assert resp.status == 200, resp.body
    assert resp.body["success"] is True
    data = resp.body["data"]
    assert data["plan"]["name"] == "Business"
    assert set(data["limits"]) == set(LIMIT_KEYS)
    rate = data["limits"]["api_rate_limit_per_sec"]
    assert rate == {"limit": 60, "used": None, "remaining": None}
    assert data["limits"]["api_rate_limit_per_day"]["limit"] == 50_000
    assert data["features"]["team_inbox"] is True
    assert data["subscription"]["plan"] == {"id": "business", "name": "Business"}
    assert data["subscription"]["status"] == "active"
