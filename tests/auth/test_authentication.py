"""Authentication through HTTP: every Auth code of the spec, key kinds, revocation, the key cache."""
from __future__ import annotations

import hashlib

import pytest
from bson import ObjectId
from redis.asyncio import Redis

from leadline.app import create_app
from leadline.app_keys import SERVICES
from leadline.models.auth import ApiKey, Organisation
from leadline.resolvers.auth import admin
from leadline.resolvers.auth.gate import RateGate
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError
from tests.helpers import Api, assert_error, make_tenant

PLAN = "/v2.0/billing/plan"


async def test_missing_key(api):
    assert_error(await api.get(PLAN), 401, "API_KEY_MISSING")
    assert_error(await api.get(PLAN, headers={"Authorization": "Basic abc"}), 401, "API_KEY_MISSING")
    assert_error(await api.get(PLAN, headers={"Authorization": "Bearer "}), 401, "API_KEY_MISSING")


async def test_unknown_or_malformed_key(api, tenant):
    assert_error(await api.get(PLAN, "not-a-key"), 401, "INVALID_API_KEY")
    assert_error(await api.get(PLAN, "sk_" + "x" * 48), 401, "INVALID_API_KEY")
    assert_error(await api.get(PLAN, "ab" * 32), 401, "INVALID_API_KEY")


async def test_legacy_and_full_access_keys_pass_any_scope(api, tenant):
    star = await tenant.key("*")
    for key in (tenant.legacy_key, star):
        assert (await api.get(PLAN, key)).status == 200


async def test_scoped_key_is_default_deny(api, tenant):
    key = await tenant.key("channels:read")
    body = assert_error(await api.get(PLAN, key), 403, "INSUFFICIENT_SCOPE", marker="error")
    assert body["required_scope"] == "billing:read"
    assert (await api.get(PLAN, await tenant.key("billing:read"))).status == 200


async def test_keys_are_stored_only_as_sha256(client, tenant):
    raw = await tenant.key("billing:read", label="ci")
    stored = await ApiKey.find_one_in(ObjectId(tenant.org_id), {"kind": "scoped"})
    assert stored.key_hash == hashlib.sha256(raw.encode()).hexdigest()
    assert raw not in str(stored.model_dump())
    assert stored.label == "ci" and stored.scopes == ["billing:read"]
    legacy = await ApiKey.find_one_in(ObjectId(tenant.org_id), {"kind": "legacy"})
    assert legacy.key_hash == hashlib.sha256(tenant.legacy_key.encode()).hexdigest()


async def test_at_most_ten_active_scoped_keys(client, tenant):
    ids = [(await admin.create_key(tenant.org_id, "billing:read"))["keyId"] for _ in range(10)]
    with pytest.raises(admin.AdminError, match="10 active"):
        await admin.create_key(tenant.org_id, "billing:read")
    s = tenant.services
    await admin.revoke_key(s.redis, s.settings.redis_prefix, tenant.org_id, ids[0])
    assert (await admin.create_key(tenant.org_id, "billing:read"))["key"].startswith("sk_")


async def test_unknown_scopes_are_refused_at_creation(client, tenant):
    with pytest.raises(admin.AdminError, match="unknown scopes: contacts:delete"):
        await admin.create_key(tenant.org_id, "contacts:read,contacts:delete")


@pytest.fixture
async def second_process(aiohttp_client, settings):
    """Another API process on the same database and Redis, with its own key cache."""
    return Api(await aiohttp_client(create_app(settings)))


async def test_revocation_is_immediate_in_every_process(api, second_process, tenant):
    raw = await tenant.key("billing:read")
    key_id = str((await ApiKey.find_one_in(ObjectId(tenant.org_id), {"kind": "scoped"})).id)
    assert (await api.get(PLAN, raw)).status == 200
    assert (await second_process.get(PLAN, raw)).status == 200  # both caches are warm now
    s = tenant.services
    await admin.revoke_key(s.redis, s.settings.redis_prefix, tenant.org_id, key_id)
    assert_error(await api.get(PLAN, raw), 401, "INVALID_API_KEY")
    assert_error(await second_process.get(PLAN, raw), 401, "INVALID_API_KEY")


async def test_warm_requests_do_not_read_the_key_from_the_database(api, tenant):
    raw = await tenant.key("billing:read")
    assert (await api.get(PLAN, raw)).status == 200
    # Remove the key behind the cache's back: a warm request must not notice (no DB read) ...
    await ApiKey.get_pymongo_collection().delete_many({"org_id": ObjectId(tenant.org_id), "kind": "scoped"})
    assert (await api.get(PLAN, raw)).status == 200
    # ... until anything about the organisation changes, which every process sees on its next request.
    s = tenant.services
    await admin.set_plan(s.redis, s.settings.redis_prefix, tenant.org_id, "pro")
    assert_error(await api.get(PLAN, raw), 401, "INVALID_API_KEY")


async def test_inactive_organisation(api, tenant):
    assert (await api.get(PLAN, tenant.legacy_key)).status == 200
    s = tenant.services
    await admin.set_org_active(s.redis, s.settings.redis_prefix, tenant.org_id, False)
    assert_error(await api.get(PLAN, tenant.legacy_key), 403, "ORG_INACTIVE")
    await admin.set_org_active(s.redis, s.settings.redis_prefix, tenant.org_id, True)
    assert (await api.get(PLAN, tenant.legacy_key)).status == 200


async def test_allowed_origins(api, tenant):
    s = tenant.services
    await admin.set_allowed_origins(s.redis, s.settings.redis_prefix, tenant.org_id,
                                    "https://app.example.com, shop.example.org")
    key = tenant.legacy_key
    assert (await api.get(PLAN, key, headers={"Origin": "https://app.example.com"})).status == 200
    assert (await api.get(PLAN, key, headers={"Origin": "http://shop.example.org"})).status == 200
    assert (await api.get(PLAN, key)).status == 200  # server-to-server: no Origin
    assert_error(await api.get(PLAN, key, headers={"Origin": "https://evil.example.com"}), 403,
                 "DOMAIN_NOT_WHITELISTED")
    await admin.set_allowed_origins(s.redis, s.settings.redis_prefix, tenant.org_id, "")
    assert (await api.get(PLAN, key, headers={"Origin": "https://evil.example.com"})).status == 200


async def test_key_of_a_vanished_organisation(api, tenant):
    await Organisation.get_pymongo_collection().delete_one({"_id": ObjectId(tenant.org_id)})
    assert_error(await api.get(PLAN, tenant.legacy_key), 400, "ORG_ID_REQUIRED")


async def test_internal_authentication_failure_is_a_500(api, client, tenant):
    services = client.app[SERVICES]
    healthy = services.redis, services.gate
    unreachable = Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.2)  # nothing listens there
    services.redis, services.gate = unreachable, RateGate(unreachable, services.settings.redis_prefix)
    try:
        body = assert_error(await api.get(PLAN, tenant.legacy_key), 500, "AUTHENTICATION_FAILED")
        assert "Traceback" not in body["message"]
    finally:
        services.redis, services.gate = healthy
        await unreachable.aclose()


def test_a_context_without_organisation_refuses_org_scoped_work(services):
    ctx = RequestContext(services=services, org=None, key=None)
    with pytest.raises(ApiError) as err:
        ctx.org_id
    assert err.value.code == "ORG_ID_MISSING" and err.value.status == 400


async def test_other_organisations_keys_are_separate(api, client, tenant):
    other = await make_tenant(client, plan="free", name="Other")
    a = (await api.get(PLAN, tenant.legacy_key)).body["data"]["plan"]["name"]
    b = (await api.get(PLAN, other.legacy_key)).body["data"]["plan"]["name"]
    assert (a, b) == ("Business", "Free")
