"""What one /graphql request may cost, through HTTP against the real stack: aliases, tokens and depth are
bounded and refused before anything runs; every root field is charged to the key's rate limit; an API
key runs one mutation per request; production hides introspection and suggestions and admits only the
configured CORS origins."""
from __future__ import annotations

import asyncio
import time
from dataclasses import replace

import pytest

from leadline.app import create_app
from leadline.app_keys import SERVICES
from leadline.models.auth import ApiKey
from leadline.resolvers.auth.keys import hash_key
from tests.helpers import Api, assert_error, make_tenant

PLAN_FIELDS = "plan { name } limits { key limit }"


async def units_used(client, raw_key: str) -> int:
    """How many rate-limit units the key has spent in the last 24 hours (its per-day log)."""
    services = client.app[SERVICES]
    stored = await ApiKey.find_one_across_orgs({"key_hash": hash_key(raw_key)})
    return await services.redis.zcard(f"{services.settings.redis_prefix}:rl:{stored.id}:d")


async def fill_day_log(client, raw_key: str, total: int) -> None:
    """Tops the key's per-day log up to `total` units, as if spent just now."""
    services = client.app[SERVICES]
    stored = await ApiKey.find_one_across_orgs({"key_hash": hash_key(raw_key)})
    day_key = f"{services.settings.redis_prefix}:rl:{stored.id}:d"
    missing = total - await services.redis.zcard(day_key)
    now_us = int(time.time() * 1_000_000)
    await services.redis.zadd(day_key, {f"fill-{i}": now_us for i in range(missing)})


async def test_1000_aliases_are_refused_before_anything_runs(api, client, tenant):
    key = tenant.legacy_key
    query = "{ " + " ".join(f"p{i}: billingPlan {{ {PLAN_FIELDS} }}" for i in range(1000)) + " }"
    started = time.perf_counter()
    resp = await api.graphql(query, key)
    assert time.perf_counter() - started < 3
    assert resp.status == 400, str(resp.body)[:300]
    assert resp.body.get("data") is None and resp.body["errors"][0]["extensions"]["code"] == "VALIDATION_ERROR"
    assert await units_used(client, key) == 1
    query = "{ " + " ".join(f"p{i}: billingPlan {{ plan {{ name }} }}" for i in range(31)) + " }"
    resp = await api.graphql(query, key)
    assert resp.status == 400 and "31 aliases found. Allowed: 30" in resp.body["errors"][0]["message"], resp.body
    assert await units_used(client, key) == 2
    # 30 aliases are fine, and cost 30 units.
    query = "{ " + " ".join(f"p{i}: billingPlan {{ plan {{ name }} }}" for i in range(30)) + " }"
    resp = await api.graphql(query, key)
    assert resp.status == 200 and len(resp.body["data"]) == 30, str(resp.body)[:300]
    assert await units_used(client, key) == 2 + 30


async def test_100000_typename_aliases_are_refused_fast_and_small(api, tenant):
    query = "{ " + " ".join(f"t{i}: __typename" for i in range(100_000)) + " }"
    started = time.perf_counter()
    resp = await api.graphql(query, tenant.legacy_key)
    elapsed = time.perf_counter() - started
    assert resp.status == 400 and resp.body["errors"], str(resp.body)[:300]
    assert elapsed < 3, elapsed
    assert len(str(resp.body)) < 2000


async def test_long_documents_and_deep_selections_are_refused(api, tenant):
    key = tenant.legacy_key
    padded = "{ billingPlan { " + " ".join(["plan { name }"] * 800) + " } }"
    resp = await api.graphql(padded, key)
    assert resp.status == 400 and "tokens" in resp.body["errors"][0]["message"], str(resp.body)[:300]
    deep = "{ billingPlan " + "{ plan " * 11 + "{ name }" + " }" * 11 + " }"
    resp = await api.graphql(deep, key)
    assert resp.status == 400
    assert any("maximum operation depth" in e["message"] for e in resp.body["errors"]), resp.body
    # The introspection GraphiQL runs is not limited by depth in development.
    introspection = ("{ __schema { types { name fields { name type { name ofType { name ofType { name ofType { "
                     "name ofType { name ofType { name ofType { name ofType { name } } } } } } } } } } } }")
    resp = await api.graphql(introspection, key)
    assert resp.status == 200 and resp.body["data"]["__schema"]["types"], str(resp.body)[:300]


async def test_several_mutations_in_one_request_are_refused_whole(api, tenant):
    key = tenant.legacy_key
    many = "mutation { " + " ".join(f'm{i}: createContactTag(input: {{name: "t{i}"}}) {{ name }}'
                                    for i in range(100)) + " }"
    resp = await api.graphql(many, key)
    assert resp.status == 400 and resp.body.get("data") is None, str(resp.body)[:300]
    assert resp.body["errors"][0]["extensions"]["code"] == "VALIDATION_ERROR"
    ten = "mutation { " + " ".join(f'm{i}: createContactTag(input: {{name: "t{i}"}}) {{ name }}'
                                   for i in range(10)) + " }"
    resp = await api.graphql(ten, key)
    assert resp.status == 400 and resp.body.get("data") is None, str(resp.body)[:300]
    assert resp.body["errors"][0]["extensions"]["details"][0]["code"] == "TOO_MANY_MUTATIONS"
    two = ('mutation { createContactTag(input: {name: "a"}) { name } '
           'upsertContact(input: {phone: "14155552671"}) { isNew } }')
    resp = await api.graphql(two, key)
    assert resp.status == 400 and resp.body["errors"][0]["extensions"]["code"] == "VALIDATION_ERROR"
    via_fragment = ('mutation { ...M a2: createContactTag(input: {name: "b"}) { name } } '
                    'fragment M on Mutation { a1: createContactTag(input: {name: "a"}) { name } }')
    resp = await api.graphql(via_fragment, key)
    assert resp.status == 400, resp.body
    assert (await api.get("/v2.0/contacts/tags", key)).body["data"] == []
    assert (await api.get("/v2.0/contacts", key)).body["pagination"]["total"] == 0
    one = await api.graphql('mutation { createContactTag(input: {name: "a"}) { name } __typename }', key)
    assert one.status == 200 and one.body["data"]["createContactTag"]["name"] == "a", one.body


async def test_every_root_field_is_charged_to_the_rate_limit(api, client, tenant):
    await tenant.set_plan("free")  # 5 per second
    key = await tenant.key("billing:read,contacts:read,config:read")
    three = "{ billingPlan { plan { name } } contacts { data { phone } } contactTags { data { name } } __typename }"
    resp = await api.graphql(three, key)
    assert resp.status == 200, resp.body
    assert await units_used(client, key) == 3
    # Fragments and repeated response keys: what runs is what is charged.
    resp = await api.graphql("{ ...F billingPlan { plan { name } } } fragment F on Query { contactTags { data { name } } }",
                             key)
    assert resp.status == 200 and await units_used(client, key) == 5
    # With room for one more unit today (the free plan's day is 100), a three-field request is admitted by
    # authentication and refused whole for its two extra fields: nothing runs, nothing more is charged.
    await fill_day_log(client, key, 98)
    await asyncio.sleep(1.1)  # the per-second window is empty again
    resp = await api.graphql("{ contactTags { data { name } } a: contactTags { data { name } } "
                             "b: contactTags { data { name } } }", key)
    assert resp.status == 429 and resp.body.get("data") is None, resp.body
    assert resp.body["errors"][0]["extensions"]["code"] == "RATE_LIMIT_EXCEEDED_PER_DAY"
    assert int(resp.headers["Retry-After"]) > 0
    assert await units_used(client, key) == 99
    assert (await api.graphql("{ contactTags { data { name } } }", key)).status == 200


async def test_more_root_fields_than_the_per_second_limit_is_a_clear_400(api, client, tenant):
    await tenant.set_plan("free")  # 5 per second
    key = tenant.legacy_key
    six = "{ " + " ".join(f"p{i}: billingPlan {{ plan {{ name }} }}" for i in range(6)) + " }"
    resp = await api.graphql(six, key)
    assert resp.status == 400 and resp.body["errors"][0]["extensions"]["code"] == "VALIDATION_ERROR", resp.body
    assert await units_used(client, key) == 1


@pytest.fixture
async def production(aiohttp_client, settings):
    app = create_app(replace(settings, environment="production", cors_origins=("*", "https://dash.example.com")))
    client = await aiohttp_client(app)
    return Api(client), client


async def test_production_hides_introspection_and_suggestions(api, tenant, production):
    prod, client = production
    prod_tenant = await make_tenant(client)
    key = prod_tenant.legacy_key
    introspection = "{ __schema { types { name } } }"
    resp = await prod.graphql(introspection, key)
    assert resp.status == 400 and resp.body.get("data") is None, resp.body
    resp = await prod.graphql('{ __type(name: "Query") { name } }', key)
    assert resp.status == 400, resp.body
    typo = "{ billingPlann { plan { name } } }"
    resp = await prod.graphql(typo, key)
    assert resp.status == 400 and "Did you mean" not in str(resp.body), resp.body
    assert (await prod.graphql("{ __typename billingPlan { plan { name } } }", key)).status == 200
    # Development keeps both.
    assert (await api.graphql(introspection, tenant.legacy_key)).status == 200
    assert "Did you mean" in str((await api.graphql(typo, tenant.legacy_key)).body)


async def test_production_cors_admits_only_the_configured_origins(production):
    prod, _ = production
    preflight = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "Authorization"}
    ok = await prod.call("OPTIONS", "/graphql", headers={"Origin": "https://dash.example.com", **preflight})
    assert ok.status == 200 and ok.headers["Access-Control-Allow-Origin"] == "https://dash.example.com"
    assert ok.headers.get("Access-Control-Allow-Credentials") != "true"
    evil = await prod.call("OPTIONS", "/graphql", headers={"Origin": "https://evil.example.com", **preflight})
    assert "Access-Control-Allow-Origin" not in evil.headers
    rest = await prod.call("OPTIONS", "/v2.0/contacts", headers={"Origin": "https://evil.example.com", **preflight})
    assert "Access-Control-Allow-Origin" not in rest.headers
