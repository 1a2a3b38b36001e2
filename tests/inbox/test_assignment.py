"""POST /v2.0/conversations/assign and /unassign, GET /v2.0/conversations/assignment-history: the locator,
the three target forms, round-robin (concurrent too), the refusals, the history, the conversation rows."""
from __future__ import annotations

import asyncio
from collections import Counter

from bson import ObjectId

from leadline.resolvers.channels.admin import connect_channel
from tests.chats.support import BRAND
from tests.helpers import assert_error, make_tenant
from tests.inbox.support import agent, assign, conversation, team


async def test_assign_to_an_agent_of_a_team(api, tenant, brand, key):
    row = await conversation(tenant)
    ann = await agent(tenant, "Ann")
    support = await team(api, key, agentIds=[ann])
    resp = await assign(api, key, conversationId=str(row.id), agentId=ann, teamId=support["teamId"])
    assert resp.status == 200, resp.body
    data = resp.body["data"]
    assert list(data) == ["conversationId", "agentId", "teamId", "assignedAt"]
    assert (data["conversationId"], data["agentId"], data["teamId"]) == (str(row.id), ann, support["teamId"])
    rows = (await api.get("/v2.0/chats/conversations", key)).body["data"]
    assert (rows[0]["assignedAgentId"], rows[0]["assignedTeamId"], rows[0]["inboxStatus"]) == (
        ann, support["teamId"], "open")


async def test_the_agent_must_be_in_the_team(api, tenant, brand, key):
    row = await conversation(tenant)
    ann, bob = await agent(tenant, "Ann"), await agent(tenant, "Bob")
    support = await team(api, key, agentIds=[ann])
    assert_error(await assign(api, key, conversationId=str(row.id), agentId=bob, teamId=support["teamId"]), 400,
                 "AGENT_NOT_IN_TEAM")


async def test_team_only_is_round_robin_over_active_members(api, tenant, brand, key):
    row = await conversation(tenant)
    ann, bob = await agent(tenant, "Ann"), await agent(tenant, "Bob")
    invited = await agent(tenant, "Ivy", status="invited")
    support = await team(api, key, agentIds=[ann, invited, bob])
    picked = []
    for _ in range(5):
        resp = await assign(api, key, conversationId=str(row.id), teamId=support["teamId"])
        assert resp.status == 200, resp.body
        assert resp.body["data"]["teamId"] == support["teamId"]
        picked.append(resp.body["data"]["agentId"])
    assert picked == [ann, bob, ann, bob, ann]


async def test_ten_concurrent_team_assignments_over_two_agents_give_five_each(api, tenant, brand, key):
    rows = [await conversation(tenant, sender=f"44791112{i:04d}") for i in range(10)]
    ann, bob = await agent(tenant, "Ann"), await agent(tenant, "Bob")
    support = await team(api, key, agentIds=[ann, bob])
    keys = [key, await tenant.key("assignments:write")]  # two keys: 10 requests stay within a key's rate
    responses = await asyncio.gather(*(assign(api, keys[i % 2], conversationId=str(r.id), teamId=support["teamId"])
                                       for i, r in enumerate(rows)))
    assert all(r.status == 200 for r in responses), [r.body for r in responses]
    assert Counter(r.body["data"]["agentId"] for r in responses) == {ann: 5, bob: 5}


async def test_a_team_without_active_members_has_no_available_agent(api, tenant, brand, key):
    row = await conversation(tenant)
    invited = await agent(tenant, "Ivy", status="invited")
    for members in ([], [invited]):
        empty = await team(api, key, agentIds=members)
        assert_error(await assign(api, key, conversationId=str(row.id), teamId=empty["teamId"]), 409,
                     "NO_AVAILABLE_AGENT")


async def test_agent_only_infers_the_one_team(api, tenant, brand, key):
    row = await conversation(tenant)
    ann, bob = await agent(tenant, "Ann"), await agent(tenant, "Bob")
    sales = await team(api, key, "Sales", agentIds=[ann, bob])
    old = await team(api, key, "Old", agentIds=[ann])
    await api.call("PATCH", f"/v2.0/teams/{old['teamId']}", key, json={"isActive": False})  # not inferred
    resp = await assign(api, key, conversationId=str(row.id), agentId=ann)
    assert (resp.body["data"]["agentId"], resp.body["data"]["teamId"]) == (ann, sales["teamId"])
    await team(api, key, "Support", agentIds=[bob])
    assert_error(await assign(api, key, conversationId=str(row.id), agentId=bob), 400, "TEAM_REQUIRED")
    loner = await agent(tenant, "Lone")
    assert_error(await assign(api, key, conversationId=str(row.id), agentId=loner), 400, "TEAM_REQUIRED")


async def test_unknown_targets_invited_agents_and_inactive_teams(api, tenant, brand, key, client):
    row = await conversation(tenant)
    ann = await agent(tenant, "Ann")
    invited = await agent(tenant, "Ivy", status="invited")
    support = await team(api, key, agentIds=[ann, invited])
    other = await make_tenant(client, name="Other")
    stranger = await agent(other, "Eve")
    cid = str(row.id)
    for agent_id in (str(ObjectId()), "x", stranger):
        assert_error(await assign(api, key, conversationId=cid, agentId=agent_id, teamId=support["teamId"]), 404,
                     "AGENT_NOT_FOUND")
    for team_id in (str(ObjectId()), "x"):
        assert_error(await assign(api, key, conversationId=cid, teamId=team_id), 404, "TEAM_NOT_FOUND")
    assert_error(await assign(api, key, conversationId=cid, agentId=invited, teamId=support["teamId"]), 409,
                 "AGENT_NOT_ACTIVE")
    await api.call("PATCH", f"/v2.0/teams/{support['teamId']}", key, json={"isActive": False})
    assert_error(await assign(api, key, conversationId=cid, teamId=support["teamId"]), 409, "TEAM_INACTIVE")
    body = assert_error(await assign(api, key, conversationId=cid), 400, "VALIDATION_ERROR")
    assert body["details"][0]["path"] == "agentId"


async def test_the_locator(api, tenant, brand, key, client):
    row = await conversation(tenant, sender="447911123456")
    ann = await agent(tenant, "Ann")
    await team(api, key, agentIds=[ann])
    for locator in ({"phone": "+44 7911 123456"}, {"phone": "447911123456", "channel": "chatapp"},
                    {"phone": "447911123456", "businessNumber": f"+{BRAND}"}):
        resp = await assign(api, key, agentId=ann, **locator)
        assert resp.body["data"]["conversationId"] == str(row.id), (locator, resp.body)
    assert_error(await assign(api, key, agentId=ann), 400, "IDENTIFIER_REQUIRED")
    assert_error(await assign(api, key, agentId=ann, phone="447911123456", channel="fax"), 400, "INVALID_CHANNEL")
    assert_error(await assign(api, key, agentId=ann, phone="447911999999"), 404, "CONVERSATION_NOT_FOUND")
    assert_error(await assign(api, key, agentId=ann, phone="447911123456", businessNumber="15550009999"), 404,
                 "CONVERSATION_NOT_FOUND")
    assert_error(await assign(api, key, agentId=ann, phone="447911123456", channel="photoapp"), 400,
                 "NO_CHATAPP_CHANNEL")
    for cid in (str(ObjectId()), "nope"):
        assert_error(await assign(api, key, agentId=ann, conversationId=cid), 404, "CONVERSATION_NOT_FOUND")
    await connect_channel(tenant.org_id, "chatapp", "15550002222", "Acme 2", "APPROVED")
    assert_error(await assign(api, key, agentId=ann, phone="447911123456"), 400, "CHANNEL_AMBIGUOUS")
    resp = await assign(api, key, agentId=ann, phone="447911123456", businessNumber=BRAND)
    assert resp.status == 200
    bare = await make_tenant(client, name="Bare")
    assert_error(await assign(api, bare.legacy_key, agentId=ann, phone="447911123456"), 400, "NO_CHATAPP_CHANNEL")
    assert_error(await assign(api, bare.legacy_key, agentId=ann, conversationId=str(row.id)), 404,
                 "CONVERSATION_NOT_FOUND")


async def test_history_reassign_and_unassign(api, tenant, brand, key):
    row = await conversation(tenant)
    cid = str(row.id)
    ann, bob = await agent(tenant, "Ann"), await agent(tenant, "Bob")
    support = await team(api, key, agentIds=[ann, bob])
    history = await api.get("/v2.0/conversations/assignment-history", key, params={"conversationId": cid})
    assert history.status == 200 and history.body == {"success": True, "data": []}
    # Unassigning what is not assigned changes nothing and records nothing.
    resp = await api.post("/v2.0/conversations/unassign", key, json={"conversationId": cid})
    assert resp.body["data"] == {"conversationId": cid, "agentId": None, "teamId": None, "assignedAt": None}
    first = (await assign(api, key, conversationId=cid, agentId=ann)).body["data"]
    second = (await assign(api, key, conversationId=cid, agentId=bob, teamId=support["teamId"])).body["data"]
    resp = await api.post("/v2.0/conversations/unassign", key, json={"phone": "447911123456"})
    assert resp.status == 200, resp.body
    assert resp.body["data"] == {"conversationId": cid, "agentId": None, "teamId": None, "assignedAt": None}
    rows = (await api.get("/v2.0/chats/conversations", key)).body["data"]
    assert (rows[0]["assignedAgentId"], rows[0]["assignedTeamId"]) == (None, None)
    history = await api.get("/v2.0/conversations/assignment-history", key, params={"phone": "447911123456"})
    entries = history.body["data"]
    by = {"source": "api", "keyId": entries[0]["by"]["keyId"], "label": "inbox-tests"}
    assert ObjectId.is_valid(by["keyId"])
    assert entries == [
        {"action": "assigned", "agentId": ann, "teamId": support["teamId"], "at": first["assignedAt"], "by": by},
        {"action": "assigned", "agentId": bob, "teamId": support["teamId"], "at": second["assignedAt"], "by": by},
        {"action": "unassigned", "agentId": bob, "teamId": support["teamId"], "at": entries[2]["at"], "by": by},
    ]
    assert entries[2]["at"] >= second["assignedAt"]
    legacy = await api.get("/v2.0/conversations/assignment-history", tenant.legacy_key, params={"conversationId": cid})
    assert legacy.body["data"] == entries
    assert_error(await api.get("/v2.0/conversations/assignment-history", key), 400, "IDENTIFIER_REQUIRED")
    assert_error(await api.get("/v2.0/conversations/assignment-history", key, params={"conversationId": "x"}), 404,
                 "CONVERSATION_NOT_FOUND")


async def test_scopes(api, tenant, brand, key):
    row = await conversation(tenant)
    reader = await tenant.key("assignments:read")
    body = assert_error(await assign(api, reader, conversationId=str(row.id), agentId="x"), 403, "INSUFFICIENT_SCOPE",
                        marker="error")
    assert body["required_scope"] == "assignments:write"
    writer = await tenant.key("assignments:write")
    body = assert_error(await api.get("/v2.0/conversations/assignment-history", writer,
                                      params={"conversationId": str(row.id)}), 403, "INSUFFICIENT_SCOPE",
                        marker="error")
    assert body["required_scope"] == "assignments:read"
    assert (await api.get("/v2.0/conversations/assignment-history", reader,
                          params={"conversationId": str(row.id)})).status == 200
