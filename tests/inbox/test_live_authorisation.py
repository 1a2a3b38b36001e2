"""Live updates are authorised per update: each carries the organisation's authentication token as it stood
when it was published, and a subscriber whose snapshot is of another token reads its key and organisation
again before sending it. Over real websockets through the running app, with the real database and Redis;
the periodic check of quiet subscriptions is left at its 30 seconds, so what ends a subscription here is
the update itself."""
from __future__ import annotations

from bson import ObjectId

from leadline.resolvers.auth.admin import list_keys, revoke_key, set_allowed_origins
from leadline.resolvers.auth.cache import invalidate_org
from leadline.resolvers.inbox import live
from leadline.resolvers.webhooks.dispatch import drain
from tests.chats.support import inbound, post, wamid
from tests.helpers import RoundTrips, make_tenant
from tests.inbox.support import agent, assign, conversation, team
from tests.inbox.ws import Live, joined, subscribed


async def _key_id(tenant, label: str) -> str:
    return next(k["keyId"] for k in await list_keys(tenant.org_id) if k["label"] == label)


async def _ended_with(live: Live, op_id: str, code: str) -> None:
    message = await live.receive()
    assert (message.get("id"), message.get("type"), message["payload"]["data"]) == (op_id, "next", None), message
    assert message["payload"]["errors"][0]["extensions"]["code"] == code, message
    assert await live.receive() == {"id": op_id, "type": "complete"}


async def test_an_update_published_after_a_revocation_never_reaches_the_revoked_key(
        client, api, tenant, brand, key, services):
    assert live.RECHECK_SECONDS == 30.0
    row = await conversation(tenant)
    support = await team(api, key, agentIds=[await agent(tenant, "Ann")])
    doomed_key = await tenant.key("conversations:read", "doomed")
    doomed = await (await Live.open(client.ws_connect, doomed_key)).acked()
    kept = await (await Live.open(client.ws_connect, key)).acked()
    await doomed.subscribe("d")
    await kept.subscribe("k")
    await joined(services, tenant.org_id, 2)
    await revoke_key(services.redis, services.settings.redis_prefix, tenant.org_id, await _key_id(tenant, "doomed"))

    assigned = (await assign(api, key, conversationId=str(row.id), teamId=support["teamId"])).body["data"]
    # The other key of the organisation is read again too, still valid: it gets the update.
    assert (await kept.update())["payload"] == assigned
    # The revoked key's subscription ends on that update, without it.
    await _ended_with(doomed, "d", "INVALID_API_KEY")
    await doomed.nothing(0.3)
    # A new subscription on the revoked key's open connection is refused at its start.
    await doomed.subscribe("again")
    await _ended_with(doomed, "again", "INVALID_API_KEY")
    await doomed.close()
    await kept.close()


async def test_a_downgrade_ends_the_subscription_at_the_next_update(client, api, tenant, brand, key, services):
    await conversation(tenant)
    live_socket = await (await Live.open(client.ws_connect, key)).acked()
    await live_socket.subscribe("s")
    await subscribed(services.redis, services.settings.redis_prefix, tenant.org_id)
    await tenant.set_plan("free")  # no team_inbox
    # An inbound message still arrives (webhooks need no plan feature) and is published: not to this key.
    assert (await post(api, inbound("After the downgrade", mid=wamid()))).status == 200
    assert await drain(services, "test") == 1
    await _ended_with(live_socket, "s", "FEATURE_NOT_ENABLED")
    await live_socket.close()


async def test_an_origin_no_longer_allowed_ends_the_subscription(client, api, tenant, brand, key, services):
    row = await conversation(tenant)
    prefix = services.settings.redis_prefix
    await set_allowed_origins(services.redis, prefix, tenant.org_id, "https://dash.example.com")
    socket = await (await Live.open(client.ws_connect, key, headers={"Origin": "https://dash.example.com"})).acked()
    await socket.subscribe("s")
    await subscribed(services.redis, prefix, tenant.org_id)
    await set_allowed_origins(services.redis, prefix, tenant.org_id, "https://other.example.com")
    await api.post("/v2.0/conversations/status", key, json={"conversationId": str(row.id), "status": "pending"})
    await _ended_with(socket, "s", "DOMAIN_NOT_WHITELISTED")
    await socket.close()


async def test_a_token_change_costs_one_read_of_the_key_and_one_of_the_organisation_for_all_subscribers(
        client, tenant, services):
    sockets = [await (await Live.open(client.ws_connect, tenant.legacy_key)).acked() for _ in range(5)]
    for i, socket in enumerate(sockets):
        await socket.subscribe(f"s{i}")
    await joined(services, tenant.org_id, len(sockets))
    org = ObjectId(tenant.org_id)
    with RoundTrips() as trips:  # the token the connections were opened under: nothing is read
        await live.publish(services, [(org, live.Update(live.MESSAGE_STATUS, "c", {"n": 0}))])
        assert [(await s.update())["payload"] for s in sockets] == [{"n": 0}] * 5
    assert dict(trips.db) == {}
    await invalidate_org(services.redis, services.settings.redis_prefix, org)  # e.g. a template approved
    with RoundTrips() as trips:
        await live.publish(services, [(org, live.Update(live.MESSAGE_STATUS, "c", {"n": 1}))])
        assert [(await s.update())["payload"] for s in sockets] == [{"n": 1}] * 5
    assert dict(trips.db) == {"find": 2}
    with RoundTrips() as trips:  # the same token again: no read at all
        await live.publish(services, [(org, live.Update(live.MESSAGE_STATUS, "c", {"n": 2}))])
        assert [(await s.update())["payload"] for s in sockets] == [{"n": 2}] * 5
    assert dict(trips.db) == {}
    for socket in sockets:
        await socket.close()


async def test_another_organisations_conversation_cannot_be_followed(client, tenant, brand, services):
    other = await make_tenant(client, name="Other")
    theirs = await conversation(tenant)
    socket = await (await Live.open(client.ws_connect, other.legacy_key)).acked()
    for op_id, conversation_id in (("foreign", str(theirs.id)), ("not-an-id", "x")):
        await socket.subscribe(op_id, conversation_id=conversation_id)
        await _ended_with(socket, op_id, "CONVERSATION_NOT_FOUND")
    await socket.close()


async def test_a_connection_holds_at_most_50_subscriptions(client, tenant, services):
    socket = await (await Live.open(client.ws_connect, tenant.legacy_key)).acked()
    # A subscription that ended gives its place back.
    await socket.subscribe("gone", conversation_id=str(ObjectId()))
    await _ended_with(socket, "gone", "CONVERSATION_NOT_FOUND")
    for i in range(live.MAX_SUBSCRIPTIONS):
        await socket.subscribe(f"s{i}")
    await joined(services, tenant.org_id, live.MAX_SUBSCRIPTIONS)
    await live.publish(services, [(ObjectId(tenant.org_id), live.Update(live.MESSAGE_STATUS, "c", {"n": 1}))])
    ids = {(await socket.receive())["id"] for _ in range(live.MAX_SUBSCRIPTIONS)}
    assert ids == {f"s{i}" for i in range(live.MAX_SUBSCRIPTIONS)}
    await socket.subscribe("one-too-many")
    message = await socket.receive()
    assert message["id"] == "one-too-many" and message["payload"]["errors"][0]["extensions"]["code"] == \
        "VALIDATION_ERROR", message
    assert "at most 50 subscriptions" in message["payload"]["errors"][0]["message"]
    assert await socket.receive() == {"id": "one-too-many", "type": "complete"}
    await socket.close()
