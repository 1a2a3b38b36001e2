"""Keys record when they were last used: the rate gate notes it in Redis on every request, the
`flush_key_last_used` cron job writes it to the key, and owners read it back."""
from __future__ import annotations

from bson import ObjectId

from leadline.jobs.auth import flush_key_last_used
from leadline.models.auth import ApiKey
from leadline.resolvers.auth.gate import last_used_key

KEYS = "{ apiKeys { data { keyId kind label scopes createdAt lastUsedAt revoked } meta { total } } }"


async def test_last_use_is_flushed_to_the_key_and_listed(api, tenant, services):
    key = await tenant.key("billing:read", label="ci")
    assert (await api.get("/v2.0/billing/plan", key)).status == 200
    # The gate writes whole microseconds (Lua's tostring wrote 1.7953e+15, which the job could not read).
    raw = await services.redis.hgetall(last_used_key(services.settings.redis_prefix))
    assert raw and all(v.isdigit() for v in raw.values())
    assert await flush_key_last_used({"services": services}) >= 1
    listed = (await api.graphql(KEYS, tenant.legacy_key)).body["data"]["apiKeys"]
    assert listed["meta"]["total"] == 2
    [scoped] = [k for k in listed["data"] if k["kind"] == "scoped"]
    assert scoped["label"] == "ci" and scoped["scopes"] == ["billing:read"] and scoped["revoked"] is False
    assert scoped["lastUsedAt"] is not None and scoped["lastUsedAt"].endswith("Z")
    stored = await ApiKey.get_in(ObjectId(tenant.org_id), scoped["keyId"])
    assert stored.last_used_at is not None


async def test_a_value_written_by_the_old_gate_is_still_read(api, tenant, services):
    key = await tenant.key("billing:read")
    [stored] = [k for k in await ApiKey.find_in(ObjectId(tenant.org_id)).to_list() if k.kind == "scoped"]
    await services.redis.hset(last_used_key(services.settings.redis_prefix), str(stored.id), "1.7953162501235e+15")
    assert await flush_key_last_used({"services": services}) == 1
    assert (await ApiKey.get_in(ObjectId(tenant.org_id), stored.id)).last_used_at.year == 2026
    assert key


async def test_only_full_access_keys_list_keys(api, tenant):
    scoped = await tenant.key("billing:read,contacts:read")
    resp = await api.graphql(KEYS, scoped)
    assert resp.body["errors"][0]["extensions"]["code"] == "INSUFFICIENT_SCOPE"
    full = await tenant.key("*")
    assert (await api.graphql(KEYS, full)).body["data"]["apiKeys"]["meta"]["total"] == 3
