"""Idempotency-Key on sends: concurrent duplicates reach the provider once (a fake Cloud API on loopback)."""
from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from aiohttp import web

from tests.helpers import assert_error
from tests.messaging.support import PHONE, open_window, seed_template, send_body
from tests.templates.support import BRAND, connect_brand

PHONE_NUMBER_ID = "109876543210"
WAMID = "wamid.HBgLMTQxNTU1NTI2NzEVAgARGBI5QTNDQTVCM0Q0Q0Q2RTY3RTcA"


class GatedGraph:
    """A Cloud API that holds each send until the test opens the gate, so a request stays in flight."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.arrived = asyncio.Event()
        self.gate = asyncio.Event()
        self.app = web.Application()
        self.app.router.add_post("/{phone_number_id}/messages", self.messages)

    async def messages(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.requests.append(body)
        self.arrived.set()
        await self.gate.wait()
        to = body.get("to")
        return web.json_response({"messaging_product": "whatsapp", "contacts": [{"input": to, "wa_id": to}],
                                  "messages": [{"id": WAMID}]})


@pytest.fixture
async def graph(aiohttp_server):
    fake = GatedGraph()
    fake.server = await aiohttp_server(fake.app, host="127.0.0.1", port=0)
    return fake


@pytest.fixture
def settings(settings, graph):
    return replace(settings, chatapp_graph_url=str(graph.server.make_url("")).rstrip("/"))


@pytest.fixture
async def meta_brand(tenant) -> str:
    await connect_brand(tenant, provider="meta", provider_id=PHONE_NUMBER_ID, access_token="EAAG-token")
    return BRAND


async def test_concurrent_duplicate_sends_reach_the_provider_once(client, api, tenant, meta_brand, sender, graph):
    await seed_template(tenant)
    key = {"Idempotency-Key": "send-order-A-17"}
    first = asyncio.create_task(api.post("/v2.0/chatapp/send", sender, json=send_body(), headers=key))
    await graph.arrived.wait()  # the first send is at the provider, held there

    # Duplicates while it is in flight, the same body or not: 409, nothing sent.
    # (Bounded: without the key's claim they would wait at the provider's gate.)
    duplicates = await asyncio.wait_for(asyncio.gather(
        *[api.post("/v2.0/chatapp/send", sender, json=send_body(), headers=key) for _ in range(4)],
        api.post("/v2.0/chatapp/send", sender, json=send_body(bodyParameters=["Bob", "A-18"]), headers=key)), 60)
    for resp in duplicates:
        assert_error(resp, 409, "IDEMPOTENCY_KEY_IN_USE")
        assert "Idempotent-Replayed" not in resp.headers

    graph.gate.set()
    done = await first
    assert done.status == 200 and done.body["data"]["status"] == "accepted", done.body
    assert "Idempotent-Replayed" not in done.headers

    # Afterwards: the same request replays the first answer byte for byte.
    async with client.post("/v2.0/chatapp/send", json=send_body(),
                           headers={**key, "Authorization": f"Bearer {sender}"}) as resp:
        replay_text = await resp.text()
        assert resp.status == 200 and resp.headers["Idempotent-Replayed"] == "true"
    assert replay_text == _text(done.body)
    assert len(graph.requests) == 1

    # A different body under the same key, once the first has finished: 422.
    changed = await api.post("/v2.0/chatapp/send", sender, json=send_body(bodyParameters=["Bob", "A-18"]), headers=key)
    assert_error(changed, 422, "IDEMPOTENCY_KEY_REUSED")
    assert len(graph.requests) == 1


def _text(body) -> str:
    import json

    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


async def test_freeform_message_with_a_key_is_sent_once(api, tenant, meta_brand, sender, graph, services):
    graph.gate.set()
    await open_window(services, PHONE)
    body = {"to": PHONE, "brandNumber": BRAND, "type": "text", "content": {"body": "hello"}}
    key = {"Idempotency-Key": "hello-1"}
    first = await api.post("/v2.0/chatapp/message", sender, json=body, headers=key)
    again = await api.post("/v2.0/chatapp/message", sender, json=dict(reversed(list(body.items()))), headers=key)
    assert first.status == 200, first.body
    assert again.status == 200 and again.body == first.body and again.headers["Idempotent-Replayed"] == "true"
    assert len(graph.requests) == 1
