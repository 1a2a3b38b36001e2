"""GET /v2.0/channels/status through HTTP with the sandbox adapter and with the Cloud-API adapter
against a fake Graph server on loopback."""
from __future__ import annotations

import pytest
from aiohttp import web

from leadline.app import create_app
from leadline.resolvers.channels.admin import connect_channel
from tests.helpers import Api, assert_error, make_tenant

STATUS = "/v2.0/channels/status"


async def test_no_channels(api, tenant):
    assert_error(await api.get(STATUS, tenant.legacy_key), 404, "NO_CHANNELS_FOUND")


async def test_invalid_channel(api, tenant):
    assert_error(await api.get(STATUS, tenant.legacy_key, params={"channel": "fax"}), 400, "INVALID_CHANNEL")


async def test_sandbox_reports_every_channel(api, tenant):
    await connect_channel(tenant.org_id, "chatapp", "+1 (555) 010-2030", "Acme")
    await connect_channel(tenant.org_id, "chatapp", "447700900123", "Acme UK")
    await connect_channel(tenant.org_id, "photoapp", "acme.shop", "Acme IG")
    await connect_channel(tenant.org_id, "pageapp", "1029384756", "Acme Page")
    resp = await api.get(STATUS, tenant.legacy_key)
    assert resp.status == 200
    body = resp.body
    assert body["meta"] == {"accountsChecked": 4, "chatappCount": 2, "photoappCount": 1, "pageappCount": 1}
    first = body["data"]["chatapp"][0]
    assert first["db"] == {"businessName": "Acme", "brandNumber": "15550102030", "isActive": True,
                           "phoneQualityRating": "GREEN", "messagingTier": "TIER_250"}
    assert first["live"] == {"liveStatus": "connected", "phoneNumberError": None,
                             "phoneNumber": {"verified_name": "Acme", "quality_rating": "GREEN", "status": "CONNECTED"}}
    page = body["data"]["pageapp"][0]
    assert page["db"] == {"businessName": "Acme Page", "accountId": "1029384756", "isActive": True}
    assert page["live"]["liveStatus"] == "connected"

    only_chat = await api.get(STATUS, tenant.legacy_key, params={"channel": "chatapp", "brandNumber": "+44 7700 900123"})
    assert only_chat.body["meta"]["accountsChecked"] == 1
    assert only_chat.body["data"]["chatapp"][0]["db"]["brandNumber"] == "447700900123"
    assert only_chat.body["data"]["photoapp"] == [] and only_chat.body["data"]["pageapp"] == []
    assert_error(await api.get(STATUS, tenant.legacy_key, params={"brandNumber": "999"}), 404, "NO_CHANNELS_FOUND")


async def test_channels_are_isolated_and_scoped(api, client, tenant):
    await connect_channel(tenant.org_id, "chatapp", "15550102030", "Acme")
    other = await make_tenant(client, name="Other")
    assert_error(await api.get(STATUS, other.legacy_key), 404, "NO_CHANNELS_FOUND")
    body = assert_error(await api.get(STATUS, await tenant.key("billing:read")), 403, "INSUFFICIENT_SCOPE", "error")
    assert body["required_scope"] == "channels:read"
    assert (await api.get(STATUS, await tenant.key("channels:read"))).status == 200


# --- the Cloud-API adapter against a fake Graph server -----------------------------------------
PHONES = {
    "ok": (200, {"verified_name": "Acme Verified", "quality_rating": "YELLOW", "status": "CONNECTED"}),
    "expired": (401, {"error": {"message": "Error validating access token", "type": "OAuthException", "code": 190,
                                "error_subcode": 463}}),
    "denied": (403, {"error": {"message": "Permissions error", "type": "OAuthException", "code": 10}}),
    "broken": (500, {"error": {"message": "Service temporarily unavailable", "code": 2, "error_subcode": 99}}),
}


@pytest.fixture
async def graph(aiohttp_server):
    seen = []

    async def phone(request: web.Request) -> web.Response:
        seen.append((request.match_info["id"], request.headers.get("Authorization"), request.query.get("fields")))
        status, body = PHONES.get(request.match_info["id"], (404, {"error": {"message": "nope", "code": 100}}))
        return web.json_response(body, status=status)

    app = web.Application()
    app.router.add_get("/v21.0/{id}", phone)
    server = await aiohttp_server(app)
    return server, seen


@pytest.fixture
async def meta_api(aiohttp_client, settings, graph):
    from dataclasses import replace

    server, _ = graph
    cfg = replace(settings, chatapp_graph_url=str(server.make_url("/v21.0")))
    client = await aiohttp_client(create_app(cfg))
    return Api(client), await make_tenant(client)


async def test_cloud_api_live_states(meta_api, graph):
    api, tenant = meta_api
    _, seen = graph
    for number, phone_id, token in [("15550000001", "ok", "tok"), ("15550000002", "expired", "tok"),
                                    ("15550000003", "denied", "tok"), ("15550000004", "broken", "tok"),
                                    ("15550000005", "ok", None), ("15550000006", None, None)]:
        await connect_channel(tenant.org_id, "chatapp", number, "Acme", provider="meta", provider_id=phone_id,
                              access_token=token)
    resp = await api.get(STATUS, tenant.legacy_key, params={"channel": "chatapp"})
    assert resp.status == 200, resp.body
    live = {row["db"]["brandNumber"]: row["live"] for row in resp.body["data"]["chatapp"]}
    assert live["15550000001"] == {"liveStatus": "connected", "phoneNumberError": None, "phoneNumber": {
        "verified_name": "Acme Verified", "quality_rating": "YELLOW", "status": "CONNECTED"}}
    assert live["15550000002"]["liveStatus"] == "token_expired"
    assert live["15550000002"]["phoneNumberError"] == {"httpStatus": 401, "providerErrorCode": 190,
                                                       "providerErrorSubcode": 463,
                                                       "message": "Error validating access token"}
    assert live["15550000003"]["liveStatus"] == "permission_denied"
    assert live["15550000004"]["liveStatus"] == "error"
    assert live["15550000004"]["phoneNumberError"]["providerErrorCode"] == 2
    assert live["15550000005"]["liveStatus"] == "missing_credentials"
    assert live["15550000006"]["liveStatus"] == "not_configured"
    assert ("ok", "Bearer tok", "verified_name,quality_rating,status") in seen
