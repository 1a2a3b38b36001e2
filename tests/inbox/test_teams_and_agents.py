"""GET /v2.0/agents, GET/POST /v2.0/teams, PATCH /v2.0/teams/{teamId}: shapes, usage, membership, the
validation details, plan feature and limit, scopes."""
from __future__ import annotations

from bson import ObjectId

from tests.helpers import assert_error, make_tenant
from tests.inbox.conftest import INBOX_SCOPES
from tests.inbox.support import agent, team

TEAM_KEYS = ["teamId", "name", "description", "color", "emoji", "agentIds", "managerIds", "isActive", "members",
             "managers", "createdAt", "updatedAt"]


async def test_the_agent_roster_with_teams_and_seat_usage(api, tenant, key):
    ann = await agent(tenant, "Ann", role="owner", email="Ann@Example.com")
    bob = await agent(tenant, "Bob", status="invited", email="bob@example.com")
    sales = await team(api, key, "Sales", agentIds=[ann])
    resp = await api.get("/v2.0/agents", key)
    assert resp.status == 200, resp.body
    assert resp.body == {"success": True, "data": [
        {"agentId": ann, "name": "Ann", "email": "Ann@Example.com", "role": "owner", "status": "active",
         "teams": [{"teamId": sales["teamId"], "name": "Sales"}]},
        {"agentId": bob, "name": "Bob", "email": "bob@example.com", "role": "agent", "status": "invited",
         "teams": []}],
        "usage": {"maxAgents": 250, "agentCount": 2, "unlimited": False, "over": False, "behavior": "block_new"}}


async def test_create_a_team_with_members_and_managers(api, tenant, key):
    ann, bob = await agent(tenant, "Ann", email="ann@example.com"), await agent(tenant, "Bob", email="bob@example.com")
    resp = await api.post("/v2.0/teams", key, json={"name": " Support ", "description": "Tier 1", "color": "#3366ff",
                                                    "emoji": "🛟", "agentIds": [bob, ann, bob], "managerIds": [ann]})
    assert resp.status == 201, resp.body
    data = resp.body["data"]
    assert list(data) == TEAM_KEYS
    assert data["name"] == "Support" and data["description"] == "Tier 1" and data["isActive"] is True
    assert data["agentIds"] == [bob, ann]  # duplicates dropped, order kept (the round-robin order)
    assert data["managerIds"] == [ann]
    assert data["members"] == [{"agentId": bob, "name": "Bob", "email": "bob@example.com"},
                               {"agentId": ann, "name": "Ann", "email": "ann@example.com"}]
    assert data["managers"] == [{"agentId": ann, "name": "Ann", "email": "ann@example.com"}]
    listed = await api.get("/v2.0/teams", key)
    assert listed.body["data"] == [data]
    assert listed.body["usage"] == {"maxTeams": 100, "teamCount": 1, "unlimited": False, "over": False,
                                    "behavior": "block_new"}


async def test_every_manager_must_be_a_member_and_every_id_an_agent(api, tenant, key, client):
    ann, bob = await agent(tenant, "Ann"), await agent(tenant, "Bob")
    other = await make_tenant(client, name="Other")
    stranger = await agent(other, "Eve")
    resp = await api.post("/v2.0/teams", key, json={"name": "T", "agentIds": [ann], "managerIds": [bob]})
    body = assert_error(resp, 400, "VALIDATION_ERROR")
    assert body["details"] == [{"path": "managerIds[0]", "code": "MANAGER_NOT_AGENT",
                                "message": f"manager {bob} must also be in agentIds"}]
    resp = await api.post("/v2.0/teams", key, json={"name": "T", "agentIds": [ann, stranger, "nope"],
                                                    "managerIds": [ann, str(ObjectId())]})
    body = assert_error(resp, 400, "VALIDATION_ERROR")
    assert [(d["path"], d["code"]) for d in body["details"]] == [
        ("agentIds[1]", "UNKNOWN_AGENT"), ("agentIds[2]", "UNKNOWN_AGENT"), ("managerIds[1]", "UNKNOWN_AGENT")]
    for payload, path in (({}, "name"), ({"name": "  "}, "name"), ({"name": "x" * 101}, "name")):
        body = assert_error(await api.post("/v2.0/teams", key, json=payload), 400, "VALIDATION_ERROR")
        assert body["details"][0]["path"] == path
    assert (await api.get("/v2.0/teams", key)).body["data"] == []


async def test_update_a_team_and_membership_follows(api, tenant, key):
    ann, bob, cy = await agent(tenant, "Ann"), await agent(tenant, "Bob"), await agent(tenant, "Cy")
    created = await team(api, key, "Support", agentIds=[ann, bob], managerIds=[ann], description="old")
    path = f"/v2.0/teams/{created['teamId']}"
    resp = await api.call("PATCH", path, key, json={"name": "Help desk", "agentIds": [cy, ann], "emoji": "🙂",
                                                     "description": "", "isActive": False})
    assert resp.status == 200, resp.body
    data = resp.body["data"]
    assert (data["name"], data["agentIds"], data["managerIds"], data["emoji"], data["description"],
            data["isActive"]) == ("Help desk", [cy, ann], [ann], "🙂", None, False)
    assert data["createdAt"] == created["createdAt"] and data["updatedAt"] >= created["updatedAt"]
    roster = {a["agentId"]: a["teams"] for a in (await api.get("/v2.0/agents", key)).body["data"]}
    assert roster == {ann: [{"teamId": created["teamId"], "name": "Help desk"}], bob: [],
                      cy: [{"teamId": created["teamId"], "name": "Help desk"}]}
    # Removing a manager from the members without changing the managers is refused.
    body = assert_error(await api.call("PATCH", path, key, json={"agentIds": [cy]}), 400, "VALIDATION_ERROR")
    assert (body["details"][0]["path"], body["details"][0]["code"]) == ("managerIds[0]", "MANAGER_NOT_AGENT")
    resp = await api.call("PATCH", path, key, json={"agentIds": [cy], "managerIds": []})
    assert (resp.body["data"]["agentIds"], resp.body["data"]["managerIds"]) == ([cy], [])
    body = assert_error(await api.call("PATCH", path, key, json={"managerIds": [ann]}), 400, "VALIDATION_ERROR")
    assert body["details"][0]["code"] == "MANAGER_NOT_AGENT"
    assert (await api.call("PATCH", path, key, json={})).body["data"]["name"] == "Help desk"


async def test_unknown_team(api, tenant, key):
    for team_id in (str(ObjectId()), "not-an-id"):
        assert_error(await api.call("PATCH", f"/v2.0/teams/{team_id}", key, json={"name": "x"}), 404,
                     "TEAM_NOT_FOUND")


async def test_max_teams(api, tenant, key):
    await tenant.set_plan("growth")
    for i in range(5):
        await team(api, key, f"T{i}")
    body = assert_error(await api.post("/v2.0/teams", key, json={"name": "one too many"}), 403, "LIMIT_EXCEEDED")
    assert (body["limitKey"], body["current"], body["limit"]) == ("max_teams", 5, 5)
    await tenant.set_plan("pro")
    await team(api, key, "T5")
    await tenant.set_plan("growth")
    usage = (await api.get("/v2.0/teams", key)).body["usage"]
    assert usage == {"maxTeams": 5, "teamCount": 6, "unlimited": False, "over": True, "behavior": "block_new"}


ROUTES = (("GET", "/v2.0/teams"), ("POST", "/v2.0/teams"), ("PATCH", "/v2.0/teams/{teamId}"),
          ("GET", "/v2.0/agents"), ("POST", "/v2.0/conversations/assign"), ("POST", "/v2.0/conversations/unassign"),
          ("GET", "/v2.0/conversations/assignment-history"), ("GET", "/v2.0/conversations/statuses"),
          ("POST", "/v2.0/conversations/status"))
GRAPHQL_ONLY = ("{ inboxConversations { pagination { total } } }",
                "{ conversationActivity(conversationId: \"%s\") { kind } }",
                "mutation { markConversationRead(conversationId: \"%s\") { unreadCount } }",
                "mutation { setConversationFlags(conversationId: \"%s\", isMuted: true) { isMuted } }",
                "mutation { createInboxStatus(key: \"waiting\", label: \"Waiting\") { key } }",
                "mutation { updateInboxStatus(key: \"open\", label: \"Active\") { key } }",
                "mutation { deleteInboxStatus(key: \"waiting\") { key } }")


async def test_the_routes_need_the_team_inbox_feature_and_their_scopes(api, tenant, key):
    from leadline.rest_compat.compile import compile_routes
    from leadline.schema import OPERATIONS, schema

    declared = {(c.method, c.path) for c in compile_routes(schema, OPERATIONS)
                if c.path.startswith(("/v2.0/teams", "/v2.0/agents", "/v2.0/conversations/"))}
    assert declared == set(ROUTES)  # the nine routes of the spec's Team inbox table
    created = await team(api, key, "Kept")
    await tenant.set_plan("free")
    # The free plan allows 5 requests per second per key: the 16 calls are spread over four new keys.
    keys = [await tenant.key(INBOX_SCOPES) for _ in range(4)]
    conversation_id = str(ObjectId())
    for i, (method, path) in enumerate(ROUTES):
        path = path.replace("{teamId}", created["teamId"])
        body = {"name": "x", "conversationId": conversation_id, "agentId": str(ObjectId()), "status": "open"}
        resp = await api.call(method, path, keys[i % 4], json=body if method != "GET" else None,
                              params={"conversationId": conversation_id} if method == "GET" else None)
        body = assert_error(resp, 403, "FEATURE_NOT_ENABLED")
        assert "team_inbox" in body["message"], body
    for i, query in enumerate(GRAPHQL_ONLY):
        resp = await api.graphql(query.replace("%s", conversation_id), keys[i % 4])
        assert resp.body["errors"][0]["extensions"]["code"] == "FEATURE_NOT_ENABLED", (query, resp.body)
    await tenant.set_plan("growth")
    reader = await tenant.key("teams:read")
    body = assert_error(await api.post("/v2.0/teams", reader, json={"name": "x"}), 403, "INSUFFICIENT_SCOPE",
                        marker="error")
    assert body["required_scope"] == "teams:write"
    body = assert_error(await api.get("/v2.0/agents", reader), 403, "INSUFFICIENT_SCOPE", marker="error")
    assert body["required_scope"] == "agents:read"
    assert (await api.get("/v2.0/teams", reader)).status == 200


async def test_another_organisations_teams_and_agents_are_invisible(api, tenant, key, client):
    other = await make_tenant(client, name="Other")
    await agent(other, "Eve")
    other_team = await team(api, other.legacy_key, "Theirs")
    assert (await api.get("/v2.0/agents", key)).body["data"] == []
    assert (await api.get("/v2.0/teams", key)).body["data"] == []
    assert_error(await api.call("PATCH", f"/v2.0/teams/{other_team['teamId']}", key, json={"name": "Mine"}), 404,
                 "TEAM_NOT_FOUND")
