"""The `meta` adapter's sends against a fake Graph API server on loopback: bodies, errors, 5xx, timeout."""
from __future__ import annotations

import asyncio
from dataclasses import replace

import aiohttp
import pytest
from aiohttp import web
from bson import ObjectId

from leadline.models.channels import ChannelAccount

from leadline.resolvers.messaging import tier
from tests.helpers import assert_error
from tests.messaging.support import BSUID, PHONE, open_window, outbound_messages, seed_template, send_body
from tests.templates.support import BRAND, connect_brand

PHONE_NUMBER_ID = "109876543210"
TOKEN = "EAAG-token"
REFUSAL = {"error": {"message": "(#131030) Recipient phone number not in allowed list", "type": "OAuthException",
                     "code": 131030, "error_subcode": 2494010, "fbtrace_id": "AbCdEf"}}


class FakeGraph:
    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.app = web.Application()
        self.app.router.add_post("/{phone_number_id}/messages", self.messages)

    async def messages(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.requests.append({"path": request.path, "auth": request.headers.get("Authorization"), "json": body})
        to = body.get("to") or body.get("recipient")
        if to == "14155550100":
            return web.json_response(REFUSAL, status=400)
        if to == "14155550101":
            return web.Response(status=503, text="Service Unavailable")
        if to == "14155550102":
            await asyncio.sleep(2)
        return web.json_response({"messaging_product": "whatsapp", "contacts": [{"input": to, "wa_id": to}],
                                  "messages": [{"id": "wamid.HBgLMTQxNTU1NTI2NzEVAgARGBI5QTNDQTVCM0Q0Q0Q2RTY3RTcA"}]})


@pytest.fixture
async def graph(aiohttp_server):
    fake = FakeGraph()
    fake.server = await aiohttp_server(fake.app, host="127.0.0.1", port=0)
    return fake


@pytest.fixture
def settings(settings, graph):
    return replace(settings, chatapp_graph_url=str(graph.server.make_url("")).rstrip("/"))


@pytest.fixture
async def meta_brand(tenant, services) -> str:
    await connect_brand(tenant, provider="meta", provider_id=PHONE_NUMBER_ID, access_token=TOKEN)
    services.providers.adapters["meta"].send_timeout = aiohttp.ClientTimeout(total=0.5)
    return BRAND


async def test_template_send_speaks_the_cloud_api(api, tenant, meta_brand, sender, graph, services):
    await seed_template(tenant)
    resp = await api.post("/v2.0/chatapp/send", sender, json=send_body())
    assert resp.status == 200, resp.body
    [sent] = graph.requests
    assert sent["path"] == f"/{PHONE_NUMBER_ID}/messages" and sent["auth"] == f"Bearer {TOKEN}"
    assert sent["json"] == {
        "messaging_product": "whatsapp", "recipient_type": "individual", "to": PHONE, "type": "template",
        "template": {"name": "order_update", "language": {"code": "en"}, "components": [
            {"type": "header", "parameters": [{"type": "text", "text": "A-17"}]},
            {"type": "body", "parameters": [{"type": "text", "text": "Ann"}, {"type": "text", "text": "A-17"}]},
            {"type": "button", "sub_type": "url", "index": "1", "parameters": [{"type": "text", "text": "A-17"}]},
        ]}}
    [message] = await outbound_messages(tenant)
    assert message.cmid == "wamid.HBgLMTQxNTU1NTI2NzEVAgARGBI5QTNDQTVCM0Q0Q0Q2RTY3RTcA"
    # A real provider reports statuses itself: no simulated feedback is queued.
    assert [j.function for j in await services.arq.queued_jobs()] == []


async def test_freeform_and_bsuid_bodies(api, tenant, meta_brand, sender, graph, services):
    await seed_template(tenant)
    await open_window(services)
    resp = await api.post("/v2.0/chatapp/message", sender, json={
        "to": PHONE, "brandNumber": BRAND, "type": "document",
        "content": {"link": "https://cdn.example.com/q.pdf", "filename": "q.pdf"}})
    assert resp.status == 200, resp.body
    assert graph.requests[-1]["json"] == {
        "messaging_product": "whatsapp", "recipient_type": "individual", "to": PHONE, "type": "document",
        "document": {"link": "https://cdn.example.com/q.pdf", "filename": "q.pdf"}}
    assert (await api.post("/v2.0/chatapp/send", sender, json=send_body(to=BSUID))).status == 200
    sent = graph.requests[-1]["json"]
    assert sent["recipient"] == BSUID and "to" not in sent


@pytest.mark.parametrize("to, http_status, code", [
    ("14155550100", 400, 131030),   # the provider's refusal, with its code
    ("14155550101", 503, None),     # an outage
    ("14155550102", None, None),    # no answer within the send timeout
])
async def test_provider_failures_are_502_and_store_nothing(api, tenant, meta_brand, sender, services, to,
                                                           http_status, code):
    await seed_template(tenant)
    resp = await api.post("/v2.0/chatapp/send", sender, json=send_body(to=to))
    err = assert_error(resp, 502, "PROVIDER_API_ERROR")
    assert err["details"]["providerErrorCode"] == code and err["details"]["httpStatus"] == http_status
    if code:
        assert err["details"]["providerErrorSubcode"] == 2494010 and "131030" in err["details"]["providerMessage"]
    if http_status is None:
        assert "timed out" in err["details"]["providerMessage"]
    assert await outbound_messages(tenant) == []
    # The refused recipient does not use up the tier.
    account = await ChannelAccount.find_one_in(ObjectId(tenant.org_id), {"number": BRAND})
    assert await tier.usage(services, account) == 0


async def test_an_account_without_credentials_is_refused(api, tenant, sender, graph):
    await connect_brand(tenant, provider="meta")
    await seed_template(tenant)
    err = assert_error(await api.post("/v2.0/chatapp/send", sender, json=send_body()), 502, "PROVIDER_API_ERROR")
    assert "access token" in err["details"]["providerMessage"]
    assert graph.requests == []

