"""The inbox application's GraphQL: conversations with assignment and status (filtered), markConversationRead,
setConversationFlags; scopes, feature and isolation."""
from __future__ import annotations

from bson import ObjectId

from leadline.models.chats import Conversation
from tests.helpers import make_tenant
from tests.inbox.support import agent, assign, conversation, team

LIST = ("query($s: String, $a: ID, $t: ID, $u: Boolean, $p: Int, $l: Int) { inboxConversations(status: $s, "
        "agentId: $a, teamId: $t, unassigned: $u, page: $p, limit: $l) { data { contactName assignedAgentId "
        "assignedTeamId inboxStatus } pagination { total } } }")


async def names(api, key, **variables) -> list[str]:
    resp = await api.graphql(LIST, key, variables)
    assert resp.status == 200 and "errors" not in resp.body, resp.body
    return [r["contactName"] for r in resp.body["data"]["inboxConversations"]["data"]]


async def test_conversations_by_status_agent_team_and_unassigned(api, tenant, brand, key):
    ann_row = await conversation(tenant, sender="447911000001", name="Ann", ts=1_800_000_001)
    bob_row = await conversation(tenant, sender="447911000002", name="Bob", ts=1_800_000_002)
    cy_row = await conversation(tenant, sender="447911000003", name="Cy", ts=1_800_000_003)
    await conversation(tenant, sender="447911000004", name="Dee", ts=1_800_000_004)
    amy, ben = await agent(tenant, "Amy"), await agent(tenant, "Ben")
    sales = await team(api, key, "Sales", agentIds=[amy])
    support = await team(api, key, "Support", agentIds=[ben, amy])
    await assign(api, key, conversationId=str(ann_row.id), agentId=amy, teamId=sales["teamId"])
    await assign(api, key, conversationId=str(bob_row.id), agentId=amy, teamId=support["teamId"])
    await assign(api, key, conversationId=str(cy_row.id), agentId=ben)
    await api.post("/v2.0/conversations/status", key, json={"conversationId": str(bob_row.id), "status": "resolved"})
    # A row written before the team inbox has no status field: it reads, and filters, as open.
    await Conversation.update_one_in(ObjectId(tenant.org_id), {"_id": cy_row.id}, {"$unset": {"inbox_status": ""}})
    assert await names(api, key) == ["Dee", "Cy", "Bob", "Ann"]
    assert await names(api, key, s="open") == ["Dee", "Cy", "Ann"]
    assert await names(api, key, s="resolved") == ["Bob"]
    assert await names(api, key, a=amy) == ["Bob", "Ann"]
    assert await names(api, key, a=amy, s="open") == ["Ann"]
    assert await names(api, key, t=support["teamId"]) == ["Cy", "Bob"]
    assert await names(api, key, t=support["teamId"], s="resolved") == ["Bob"]
    assert await names(api, key, u=True) == ["Dee"]
    assert await names(api, key, u=True, s="resolved") == []
    assert await names(api, key, l=2, p=2) == ["Bob", "Ann"]
    resp = await api.graphql(LIST, key, {"a": amy})
    rows = resp.body["data"]["inboxConversations"]
    assert rows["pagination"]["total"] == 2
    assert rows["data"][0] == {"contactName": "Bob", "assignedAgentId": amy, "assignedTeamId": support["teamId"],
                               "inboxStatus": "resolved"}
    for variables in ({"a": amy, "t": sales["teamId"]}, {"a": "x"}, {"l": 101}):
        resp = await api.graphql(LIST, key, variables)
        assert resp.body["errors"][0]["extensions"]["code"] == "VALIDATION_ERROR", variables


async def test_mark_read_and_flags(api, tenant, brand, key):
    row = await conversation(tenant)
    await conversation(tenant, text="again")
    assert (await Conversation.get_in(ObjectId(tenant.org_id), row.id)).unread_count == 2
    resp = await api.graphql("mutation($c: ID!) { markConversationRead(conversationId: $c) { conversationId "
                             "unreadCount } }", key, {"c": str(row.id)})
    assert resp.body["data"]["markConversationRead"] == {"conversationId": str(row.id), "unreadCount": 0}
    rows = (await api.get("/v2.0/chats/conversations", key)).body["data"]
    assert rows[0]["unreadCount"] == 0
    flags = ("mutation($c: ID!, $a: Boolean, $m: Boolean, $p: Boolean, $s: Boolean) { setConversationFlags("
             "conversationId: $c, isArchived: $a, isMuted: $m, isPinned: $p, isStarred: $s) { isArchived isMuted "
             "isPinned isStarred } }")
    resp = await api.graphql(flags, key, {"c": str(row.id), "a": True, "p": True})
    assert resp.body["data"]["setConversationFlags"] == {"isArchived": True, "isMuted": False, "isPinned": True,
                                                         "isStarred": False}
    resp = await api.graphql(flags, key, {"c": str(row.id), "a": False, "m": True, "s": True})
    assert resp.body["data"]["setConversationFlags"] == {"isArchived": False, "isMuted": True, "isPinned": True,
                                                         "isStarred": True}
    rows = (await api.get("/v2.0/chats/conversations", key)).body["data"]
    assert (rows[0]["isArchived"], rows[0]["isMuted"], rows[0]["isPinned"], rows[0]["isStarred"]) == (
        False, True, True, True)
    for cid in (str(ObjectId()), "x"):
        resp = await api.graphql(flags, key, {"c": cid, "a": True})
        assert resp.body["errors"][0]["extensions"]["code"] == "CONVERSATION_NOT_FOUND"


async def test_scope_feature_and_isolation(api, tenant, brand, key, client):
    row = await conversation(tenant)
    reader = await tenant.key("conversations:read")
    resp = await api.graphql("mutation($c: ID!) { markConversationRead(conversationId: $c) { unreadCount } }",
                             reader, {"c": str(row.id)})
    assert resp.body["errors"][0]["extensions"]["required_scope"] == "conversations:write"
    other = await make_tenant(client, name="Other")
    resp = await api.graphql("mutation($c: ID!) { markConversationRead(conversationId: $c) { unreadCount } }",
                             other.legacy_key, {"c": str(row.id)})
    assert resp.body["errors"][0]["extensions"]["code"] == "CONVERSATION_NOT_FOUND"
    assert await names(api, other.legacy_key) == []
    assert (await Conversation.get_in(ObjectId(tenant.org_id), row.id)).unread_count == 1
    # Another organisation's conversation, agent and team are unknown to the other organisation's key.
    ann = await agent(tenant, "Ann")
    sales = await team(api, key, "Sales", agentIds=[ann])
    await assign(api, key, conversationId=str(row.id), agentId=ann)
    for query in ("query($c: ID!) { conversationActivity(conversationId: $c) { kind } }",
                  "mutation($c: ID!) { setConversationFlags(conversationId: $c, isArchived: true) { isArchived } }"):
        resp = await api.graphql(query, other.legacy_key, {"c": str(row.id)})
        assert resp.body["errors"][0]["extensions"]["code"] == "CONVERSATION_NOT_FOUND", resp.body
    assert await names(api, other.legacy_key, a=ann) == []
    assert await names(api, other.legacy_key, t=sales["teamId"]) == []
    assert (await Conversation.get_in(ObjectId(tenant.org_id), row.id)).is_archived is False
    assert await names(api, key, a=ann) == ["Ann"]
    await tenant.set_plan("free")
    resp = await api.graphql(LIST, key, {})
    assert resp.body["errors"][0]["extensions"]["code"] == "FEATURE_NOT_ENABLED"
