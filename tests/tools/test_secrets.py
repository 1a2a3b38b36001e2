"""Secrets: stored encrypted, never returned (responses, history, run logs carry the mask), the mask sent
back keeps the stored secret; the same encryption for channel access tokens (and the migration of
tokens stored in clear)."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest
from bson import ObjectId

from leadline.models.channels import ChannelAccount
from leadline.models.tools import Tool
from leadline.resolvers import secrets
from leadline.resolvers.channels.admin import connect_channel, encrypt_stored_tokens
from tests.helpers import assert_error
from tests.tools.support import codes, create, function_body, params

TOKEN, PASSWORD, KEY_VALUE, SIGNING = "tok-SECRET-1", "pw-SECRET-2", "key-SECRET-3", "sign-SECRET-4"
SECRETS = (TOKEN, PASSWORD, KEY_VALUE, SIGNING)


def leaks(body) -> list[str]:
    text = json.dumps(body)
    return [s for s in SECRETS if s in text]


async def test_no_response_ever_carries_a_secret(api, tenant, endpoint):
    key = tenant.legacy_key
    seen = []
    bearer = await api.post("/v2.0/tools", key, json=function_body(
        endpoint.url("/echo-secret"), name="bearer_tool", auth={"type": "bearer", "token": TOKEN}, secretToken=SIGNING))
    basic = await api.post("/v2.0/tools", key, json=function_body(
        endpoint.url("/echo"), name="basic_tool", auth={"type": "basic", "username": "ann", "password": PASSWORD}))
    query = await api.post("/v2.0/tools", key, json=function_body(
        endpoint.url("/echo"), name="query_tool", requestMethod="GET", parameters=params("q"),
        auth={"type": "api_key", "apiKeyIn": "query", "apiKeyName": "key", "apiKeyValue": KEY_VALUE}))
    seen += [bearer, basic, query]
    assert bearer.body["data"]["auth"] == {"type": "bearer", "token": "********"}
    assert bearer.body["data"]["secretToken"] == "********"
    assert basic.body["data"]["auth"] == {"type": "basic", "username": "ann", "password": "********"}
    ids = [r.body["data"]["_id"] for r in (bearer, basic, query)]
    for tool_id in ids:
        seen.append(await api.get(f"/v2.0/tools/{tool_id}", key))
        seen.append(await api.call("PATCH", f"/v2.0/tools/{tool_id}", key, json={"description": "Changed."}))
        seen.append(await api.post(f"/v2.0/tools/{tool_id}/toggle", key))
        seen.append(await api.post(f"/v2.0/tools/{tool_id}/restore", key, json={"versionNumber": 1}))
        seen.append(await api.get(f"/v2.0/tools/{tool_id}/history", key))
        seen.append(await api.graphql('mutation($id: ID!) { testTool(toolId: $id, args: {q: "x"}) '
                                      '{ requestUrl args result errorMessage } }', key, {"id": tool_id}))
        seen.append(await api.get(f"/v2.0/tools/{tool_id}/runs", key))
    seen.append(await api.get("/v2.0/tools", key))
    seen.append(await api.graphql("{ tools { data { ... on FunctionTool { auth secretToken } } } }", key))
    assert [leaks(r.body) for r in seen] == [[] for _ in seen]
    # The endpoint did get the real credentials, and echoed the token back: the run log masks it.
    assert any(r["headers"].get("Authorization") == f"Bearer {TOKEN}" for r in endpoint.requests)
    assert any(r["query"].get("key") == KEY_VALUE for r in endpoint.requests)
    runs = (await api.get(f"/v2.0/tools/{ids[0]}/runs", key)).body["data"]
    assert runs[0]["result"] == {"youSent": "Bearer ********"}
    # Stored encrypted: the raw documents hold no secret either.
    raw = await Tool.find_raw_in(ObjectId(tenant.org_id), {})
    assert [s for s in SECRETS if s in repr(raw)] == []
    stored = next(d for d in raw if d["name"] == "bearer_tool")["config"]
    assert stored["auth"]["token"].startswith("enc:v1:") and stored["secretToken"].startswith("enc:v1:")


async def test_the_mask_sent_back_keeps_the_secret(api, tenant, endpoint):
    key = tenant.legacy_key
    tool = await create(api, key, function_body(endpoint.url("/echo"), auth={"type": "bearer", "token": TOKEN}))
    path = f"/v2.0/tools/{tool['_id']}"
    resend = {k: v for k, v in tool.items() if k not in ("_id", "createdAt", "updatedAt")} | {"timeout": 12}
    same = await api.call("PATCH", path, key, json=resend)
    assert same.status == 200, same.body
    await api.graphql('mutation($id: ID!) { testTool(toolId: $id) { status } }', key, {"id": tool["_id"]})
    assert endpoint.requests[-1]["headers"]["Authorization"] == f"Bearer {TOKEN}"
    history = (await api.get(f"{path}/history", key)).body["data"]
    assert history[0]["changeDescription"] == "Updated timeout"  # the masked token was no change
    await api.call("PATCH", path, key, json={"auth": {"token": "tok-NEW"}})
    await api.graphql('mutation($id: ID!) { testTool(toolId: $id) { status } }', key, {"id": tool["_id"]})
    assert endpoint.requests[-1]["headers"]["Authorization"] == "Bearer tok-NEW"
    refused = assert_error(await api.post("/v2.0/tools", key, json=function_body(
        endpoint.url("/x"), name="masked", auth={"type": "bearer", "token": "********"})), 422, "TOOL_VALIDATION_FAILED",
        marker="error")
    assert codes(refused) == {"auth.token": "MASKED_VALUE"}


async def test_channel_tokens_are_stored_encrypted_and_old_rows_migrate(client, tenant):
    org = ObjectId(tenant.org_id)
    await connect_channel(tenant.org_id, "chatapp", "15550001111", provider="meta", provider_id="p1",
                          access_token="EAAG-connected")
    account = await ChannelAccount.find_one_in(org, {"platform": "chatapp", "number": "15550001111"})
    assert account.access_token.startswith("enc:v1:") and "EAAG" not in account.access_token
    assert await secrets.reveal(account.access_token) == "EAAG-connected"
    legacy = ChannelAccount(org_id=org, platform="chatapp", number="15550002222", access_token="EAAG-clear")
    await legacy.insert()
    assert await encrypt_stored_tokens() == 1
    assert await encrypt_stored_tokens() == 0  # idempotent
    stored = await ChannelAccount.get_in(org, legacy.id)
    assert stored.access_token.startswith("enc:v1:") and await secrets.reveal(stored.access_token) == "EAAG-clear"


async def test_a_starting_worker_encrypts_tokens_stored_in_clear(client, settings, tenant):
    from leadline.app_keys import SERVICES
    from leadline.jobs.worker import build_worker

    org = ObjectId(tenant.org_id)
    legacy = ChannelAccount(org_id=org, platform="pageapp", number="acme-page", access_token="EAAG-from-before")
    await legacy.insert()
    worker = build_worker(settings, handle_signals=False, services=client.app[SERVICES], with_cron=False)
    ctx: dict = {}
    await worker.on_startup(ctx)
    await worker.on_shutdown(ctx)
    stored = await ChannelAccount.get_in(org, legacy.id)
    assert stored.access_token.startswith("enc:v1:") and await secrets.reveal(stored.access_token) == "EAAG-from-before"


async def test_production_needs_a_configured_key(settings):
    with pytest.raises(secrets.SecretKeyMissing):
        await secrets.keyring(replace(settings, environment="production", secret_key=""))
    with pytest.raises(secrets.SecretKeyMissing):
        await secrets.keyring(replace(settings, environment="production", secret_key="short"))
    old = await secrets.keyring(replace(settings, environment="production", secret_key="o" * 40))
    sealed = old.seal("value")
    rotated = await secrets.keyring(replace(settings, environment="production", secret_key="n" * 40 + "," + "o" * 40))
    assert rotated.open(sealed) == "value" and rotated.open(rotated.seal("v2")) == "v2"
    with pytest.raises(secrets.SecretUnreadable):
        (await secrets.keyring(replace(settings, environment="production", secret_key="x" * 40))).open(sealed)


@pytest.mark.parametrize("key, says", [("", "LEADLINE_SECRET_KEY must be set in production"),
                                       ("short", "at least 32 characters")])
def test_production_does_not_start_without_a_usable_key(tmp_path, key, says):
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("MONGODB_URL", "REDIS_URL", "LEADLINE_SECRET_KEY")}
    env.update(LEADLINE_ENV="production", LEADLINE_SECRET_KEY=key)
    for command in ("serve", "worker"):
        done = subprocess.run([sys.executable, "-m", "leadline.cli", command], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 1 and done.stderr.startswith(f"leadline {command}: ") and says in done.stderr, done
        assert "Traceback" not in done.stderr and not (tmp_path / ".leadline").exists()  # nothing was started
