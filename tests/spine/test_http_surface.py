"""The HTTP surface around the routes: 404/405 envelopes, request ids, CORS, GraphQL, health, 500s."""
from __future__ import annotations

from bson import ObjectId

from leadline.models.billing import Subscription
from tests.helpers import assert_error

PLAN = "/v2.0/billing/plan"


async def test_unknown_path_and_wrong_method_are_json_envelopes(api, tenant):
    resp = await api.get("/v2.0/nothing-here", tenant.legacy_key)
    assert_error(resp, 404, "NOT_FOUND")
    assert resp.headers["Content-Type"].startswith("application/json")
    resp = await api.call("DELETE", PLAN, tenant.legacy_key)
    assert_error(resp, 405, "METHOD_NOT_ALLOWED")
    assert "GET" in resp.headers["Allow"]


async def test_request_id_is_returned_and_propagated(api, tenant):
    resp = await api.get(PLAN, tenant.legacy_key, headers={"X-Request-Id": "trace-abc_123"})
    assert resp.headers["X-Request-Id"] == "trace-abc_123"
    generated = await api.get(PLAN, tenant.legacy_key, headers={"X-Request-Id": "bad id with spaces"})
    assert len(generated.headers["X-Request-Id"]) == 32
    assert (await api.get(PLAN)).headers["X-Request-Id"]  # refusals carry one too


async def test_cors_preflight_and_exposed_headers(api, tenant):
    pre = await api.call("OPTIONS", PLAN, headers={"Origin": "https://dash.example.com",
                                                   "Access-Control-Request-Method": "GET",
                                                   "Access-Control-Request-Headers": "Authorization"})
    assert pre.status == 200
    assert pre.headers["Access-Control-Allow-Origin"] in ("*", "https://dash.example.com")
    resp = await api.get(PLAN, tenant.legacy_key, headers={"Origin": "https://dash.example.com"})
    assert "X-RateLimit-Remaining" in resp.headers["Access-Control-Expose-Headers"]


async def test_graphql_shares_the_implementation_and_the_error_codes(api, tenant):
    resp = await api.graphql("{ billingPlan { plan { name } limits { key limit } } }", tenant.legacy_key)
    assert resp.status == 200
    assert resp.body["data"]["billingPlan"]["plan"]["name"] == "Business"
    scoped = await api.graphql("{ walletBalance { balance } }", await tenant.key("channels:read"))
    error = scoped.body["errors"][0]
    assert error["extensions"] == {"code": "INSUFFICIENT_SCOPE", "status": 403, "required_scope": "billing:read"}
    missing = await api.graphql("{ walletBalance { balance } }", tenant.legacy_key)
    assert missing.body["errors"][0]["extensions"]["code"] == "WALLET_NOT_FOUND"
    assert_error(await api.graphql("{ billingPlan { plan { name } } }"), 401, "API_KEY_MISSING")


async def test_graphiql_page_is_served_in_development(api):
    resp = await api.get("/graphql", headers={"Accept": "text/html"})
    assert resp.status == 200 and "graphiql" in resp.body.lower()


async def test_health(api):
    resp = await api.get("/health")
    assert (resp.status, resp.body) == (200, {"status": "ok"})


async def test_corrupt_stored_data_is_a_500_without_internals(api, tenant):
    # A row no code path could write (wrong type): reading it must fail cleanly, not leak a trace.
    await Subscription.get_pymongo_collection().insert_one(
        {"org_id": ObjectId(tenant.org_id), "plan_id": "x", "plan_name": "X", "status": "active",
         "start_date": "not a date", "created_at": None})
    resp = await api.get("/v2.0/billing/subscriptions", tenant.legacy_key)
    body = assert_error(resp, 500, "INTERNAL_SERVER_ERROR")
    assert "validation" not in body["message"].lower() and "Traceback" not in str(body)
    gql = await api.graphql("{ billingSubscriptions { data { status } } }", tenant.legacy_key)
    assert gql.body["errors"][0]["extensions"]["code"] == "INTERNAL_SERVER_ERROR"
    assert "validation" not in gql.body["errors"][0]["message"].lower()


async def test_every_log_line_of_a_request_carries_its_request_id(api, tenant, caplog):
    import logging

    caplog.set_level(logging.INFO, logger="leadline")
    resp = await api.get(PLAN, tenant.legacy_key, headers={"X-Request-Id": "req-for-logs"})
    assert resp.status == 200
    lines = [r for r in caplog.records if r.name == "leadline.http"]
    assert lines and all(r.request_id == "req-for-logs" for r in lines)
    assert lines[-1].status == 200 and lines[-1].path == PLAN
