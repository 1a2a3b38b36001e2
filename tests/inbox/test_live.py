"""Live updates over GraphQL subscriptions (graphql-transport-ws on /graphql), with a real websocket client
through the running app: authentication in connection_init, the scope, each update type within 2 seconds,
nothing for another organisation, the conversation filter."""
from __future__ import annotations

import time
from dataclasses import replace

from bson import ObjectId

from leadline.app import create_app
from leadline.models.contacts import Contact
from leadline.resolvers.auth.admin import list_keys, revoke_key
from leadline.resolvers.webhooks.dispatch import drain
from tests.chats.support import inbound, outbound, post, status, wamid
from tests.helpers import make_tenant
from tests.inbox.support import agent, assign, conversation, team
from tests.inbox.ws import Live, joined, subscribed


async def test_a_bad_key_closes_the_socket_with_4403(client, tenant):
    revoked = await tenant.key("conversations:read")
    key_id = next(k["keyId"] for k in await list_keys(tenant.org_id) if k["kind"] == "scoped")
    await revoke_key(tenant.services.redis, tenant.services.settings.redis_prefix, tenant.org_id, key_id)
    for key in ("sk_not_a_real_key_at_all_000000000000000000000000", None, revoked):
        live = await Live.open(client.ws_connect, key)
        assert await live.receive() == {"closed": 4403, "kind": "CLOSE"}, key


async def test_connection_init_with_a_good_key_is_acknowledged(client, tenant):
    live = await (await Live.open(client.ws_connect, tenant.legacy_key)).acked()
    await live.close()


async def test_a_key_without_the_scope_gets_an_error_for_that_subscription_only(client, tenant):
    key = await tenant.key("chats:read")
    live = await (await Live.open(client.ws_connect, key)).acked()
    await live.subscribe("s1")
    message = await live.receive()
    assert message["type"] == "error" and message["id"] == "s1", message
    assert message["payload"][0]["extensions"] == {"code": "INSUFFICIENT_SCOPE", "status": 403,
                                                   "required_scope": "conversations:read"}
    await live.nothing()
    await tenant.set_plan("free")
    free = await tenant.key("conversations:read")
    live = await (await Live.open(client.ws_connect, free)).acked()
    await live.subscribe("s2")
    message = await live.receive()
    assert (message["type"], message["payload"][0]["extensions"]["code"]) == ("error", "FEATURE_NOT_ENABLED")


async def test_assignment_status_and_inbound_updates_arrive_and_stay_in_their_organisation(
        client, api, tenant, brand, key, services):
    row = await conversation(tenant)
    cid = str(row.id)
    ann = await agent(tenant, "Ann")
    support = await team(api, key, agentIds=[ann])
    other = await make_tenant(client, name="Other")
    mine = await (await Live.open(client.ws_connect, key)).acked()
    theirs = await (await Live.open(client.ws_connect, other.legacy_key)).acked()
    await mine.subscribe()
    await theirs.subscribe()
    prefix = services.settings.redis_prefix
    await subscribed(services.redis, prefix, tenant.org_id)
    await subscribed(services.redis, prefix, other.org_id)

    started = time.monotonic()
    assigned = (await assign(api, key, conversationId=cid, teamId=support["teamId"])).body["data"]
    update = await mine.update(timeout=2.0)
    assert update == {"type": "conversation:assigned", "conversationId": cid, "payload": assigned}
    assert time.monotonic() - started < 2.0

    started = time.monotonic()
    await api.post("/v2.0/conversations/status", key, json={"conversationId": cid, "status": "pending"})
    update = await mine.update(timeout=2.0)
    assert update == {"type": "conversation:status_changed", "conversationId": cid,
                      "payload": {"status": "pending", "statusFrom": "open"}}
    assert time.monotonic() - started < 2.0

    started = time.monotonic()
    mid = wamid()
    assert (await post(api, inbound("Any news?", mid=mid))).status == 200
    assert await drain(services, "test") == 1
    update = await mine.update(timeout=2.0)
    assert time.monotonic() - started < 2.0
    assert (update["type"], update["conversationId"]) == ("message:new", cid)
    message = update["payload"]
    assert (message["cmid"], message["direction"], message["status"], message["type"], message["text"],
            message["brandNumber"]) == (mid, "inbound", "received", "text", "Any news?", brand)
    assert ObjectId.is_valid(message["messageId"]) and message["createdAt"].endswith("Z")

    # A delivery status of an outbound message of the conversation.
    contact = await Contact.find_one_in(ObjectId(tenant.org_id), {"phone": "447911123456"})
    sent_mid = wamid()
    sent = await outbound(tenant, sent_mid, contact_id=contact.id)
    assert (await post(api, status(sent_mid, "delivered"))).status == 200
    assert await drain(services, "test") == 1
    update = await mine.update(timeout=2.0)
    assert update == {"type": "message:status", "conversationId": cid,
                      "payload": {"messageId": str(sent.id), "status": "delivered"}}

    await api.post("/v2.0/conversations/unassign", key, json={"conversationId": cid})
    update = await mine.update(timeout=2.0)
    assert update["type"] == "conversation:unassigned" and update["conversationId"] == cid
    assert (update["payload"]["agentId"], update["payload"]["previousAgentId"]) == (None, ann)

    await theirs.nothing(0.3)
    await mine.close()
    await theirs.close()


async def test_a_conversation_filter(client, api, tenant, brand, key, services):
    first = await conversation(tenant, sender="447911000001")
    second = await conversation(tenant, sender="447911000002")
    ann = await agent(tenant, "Ann")
    support = await team(api, key, agentIds=[ann])
    live = await (await Live.open(client.ws_connect, key)).acked()
    await live.subscribe("only", conversation_id=str(second.id))
    await subscribed(services.redis, services.settings.redis_prefix, tenant.org_id)
    await assign(api, key, conversationId=str(first.id), teamId=support["teamId"])
    await assign(api, key, conversationId=str(second.id), teamId=support["teamId"])
    update = await live.update()
    assert (update["type"], update["conversationId"]) == ("conversation:assigned", str(second.id))
    await live.nothing(0.3)
    # An unknown (or another organisation's) conversation: that subscription ends with the error.
    await live.subscribe("unknown", conversation_id=str(ObjectId()))
    message = await live.receive()
    assert (message["id"], message["type"], message["payload"]["data"]) == ("unknown", "next", None), message
    assert message["payload"]["errors"][0]["extensions"]["code"] == "CONVERSATION_NOT_FOUND"
    assert await live.receive() == {"id": "unknown", "type": "complete"}
    await live.close()


async def test_the_socket_carries_subscriptions_only(client, api, tenant):
    """A query or mutation over the socket would escape HTTP's per-request rate limit: refused, not run."""
    live = await (await Live.open(client.ws_connect, tenant.legacy_key)).acked()
    for op_id, query in (("q", "{ inboxStatuses { key } }"),
                         ("m", 'mutation { createInboxStatus(key: "sneaky", label: "Sneaky") { key } }')):
        await live.subscribe(op_id, query=query)
        message = await live.receive()
        assert (message["id"], message["type"]) == (op_id, "error"), message
        assert message["payload"][0]["extensions"] == {"code": "VALIDATION_ERROR", "status": 400}
        assert "POST /graphql" in message["payload"][0]["message"]
    await live.nothing(0.3)
    keys = [s["key"] for s in (await api.get("/v2.0/conversations/statuses", tenant.legacy_key)).body["data"]]
    assert "sneaky" not in keys
    # A document that does not parse, or names no operation of its own, is refused the same way; the socket
    # stays usable.
    for op_id, query in (("bad", "subscription {"), ("huge", "subscription { " + "a " * 3000 + "}")):
        await live.subscribe(op_id, query=query)
        message = await live.receive()
        assert (message["id"], message["type"]) == (op_id, "error"), message
        assert message["payload"][0]["extensions"]["code"] == "VALIDATION_ERROR"
    await live.ws.send_json({"id": "unnamed", "type": "subscribe", "payload": {
        "query": "subscription A { inboxUpdates { type } }", "operationName": "B"}})
    message = await live.receive()
    assert (message["id"], message["type"], message["payload"][0]["extensions"]["code"]) == (
        "unnamed", "error", "VALIDATION_ERROR"), message
    await live.subscribe("good")
    await live.nothing(0.3)
    await live.close()


async def test_graphql_over_http_refuses_a_subscription(api, tenant):
    resp = await api.graphql("subscription { inboxUpdates { type } }", tenant.legacy_key)
    assert resp.status == 400 and resp.body["code"] == "VALIDATION_ERROR", resp.body
    assert "websocket" in resp.body["message"]


async def test_an_open_subscription_ends_when_its_key_is_revoked_or_the_plan_loses_the_feature(
        client, tenant, services, monkeypatch):
    monkeypatch.setattr("leadline.resolvers.inbox.live.RECHECK_SECONDS", 0.2)
    key = await tenant.key("conversations:read", "soon revoked")
    revoked = await (await Live.open(client.ws_connect, key)).acked()
    downgraded = await (await Live.open(client.ws_connect, tenant.legacy_key)).acked()
    await revoked.subscribe("r")
    await downgraded.subscribe("d")
    await joined(services, tenant.org_id, 2)
    await revoked.nothing(0.5)  # checks pass while nothing changed
    key_id = next(k["keyId"] for k in await list_keys(tenant.org_id) if k["label"] == "soon revoked")
    await revoke_key(services.redis, services.settings.redis_prefix, tenant.org_id, key_id)
    message = await revoked.receive()
    assert (message["id"], message["type"]) == ("r", "next")
    assert message["payload"]["errors"][0]["extensions"]["code"] == "INVALID_API_KEY"
    assert await revoked.receive() == {"id": "r", "type": "complete"}
    await downgraded.nothing(0.5)  # the revocation changed the token: the legacy key was read again, and passes
    await tenant.set_plan("free")
    message = await downgraded.receive()
    assert message["payload"]["errors"][0]["extensions"]["code"] == "FEATURE_NOT_ENABLED"
    assert await downgraded.receive() == {"id": "d", "type": "complete"}


async def test_too_many_connections_in_a_second_close_with_4429(client, tenant):
    await tenant.set_plan("free")  # 5 requests per second per key; a connection counts as one
    key = await tenant.key("conversations:read")
    sockets = [await Live.open(client.ws_connect, key) for _ in range(8)]
    answers = [await live.receive() for live in sockets]
    assert {"type": "connection_ack"} in answers
    assert {"closed": 4429, "kind": "CLOSE"} in answers, answers


async def test_in_production_only_the_dashboard_origins_may_open_a_socket(aiohttp_client, settings, tenant):
    production = replace(settings, environment="production", cors_origins=("https://dash.example.com",))
    client = await aiohttp_client(create_app(production))
    live = await (await Live.open(client.ws_connect, tenant.legacy_key,
                                  headers={"Origin": "https://dash.example.com"})).acked()
    await live.close()
    refused = await client.get("/graphql", headers={"Origin": "https://evil.example.com", "Connection": "Upgrade",
                                                    "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                                                    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
                                                    "Sec-WebSocket-Protocol": "graphql-transport-ws"})
    assert refused.status == 403
