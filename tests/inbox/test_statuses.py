"""GET /v2.0/conversations/statuses, POST /v2.0/conversations/status and the GraphQL catalogue mutations:
the system statuses, the default, UNKNOWN_STATUS, statusFrom, the activity log entry, the event."""
from __future__ import annotations

from bson import ObjectId

from leadline.models.events import DomainEvent
from tests.helpers import assert_error
from tests.inbox.support import conversation

SYSTEM = [
    {"key": "pending", "label": "Pending", "color": "#F59E0B", "order": 10, "isDefault": False, "isSystem": True},
    {"key": "open", "label": "Open", "color": "#3B82F6", "order": 20, "isDefault": True, "isSystem": True},
    {"key": "resolved", "label": "Resolved", "color": "#10B981", "order": 30, "isDefault": False, "isSystem": True},
]
STATUS_FIELDS = "key label color order isDefault isSystem"


async def gql(api, key, query, **variables):
    resp = await api.graphql(query, key, variables)
    assert resp.status == 200, resp.body
    return resp.body


async def test_the_catalogue_has_the_system_statuses(api, tenant, key):
    resp = await api.get("/v2.0/conversations/statuses", key)
    assert resp.status == 200 and resp.body == {"success": True, "data": SYSTEM}


async def test_new_conversations_start_open_and_change_status(api, tenant, brand, key):
    row = await conversation(tenant)
    cid = str(row.id)
    assert row.inbox_status == "open"
    resp = await api.post("/v2.0/conversations/status", key, json={"conversationId": cid, "status": "pending"})
    assert resp.status == 200, resp.body
    assert resp.body == {"success": True, "data": {"conversationId": cid, "status": "pending", "statusFrom": "open"}}
    resp = await api.post("/v2.0/conversations/status", key, json={"phone": "447911123456", "status": "resolved"})
    assert resp.body["data"] == {"conversationId": cid, "status": "resolved", "statusFrom": "pending"}
    rows = (await api.get("/v2.0/chats/conversations", key)).body["data"]
    assert rows[0]["inboxStatus"] == "resolved"
    # The activity log, attributed to the key.
    body = await gql(api, key, "query($c: ID!) { conversationActivity(conversationId: $c) "
                               "{ kind status statusFrom at by { source keyId label } } }", c=cid)
    entries = body["data"]["conversationActivity"]
    assert [(e["kind"], e["status"], e["statusFrom"]) for e in entries] == [
        ("status-changed", "pending", "open"), ("status-changed", "resolved", "pending")]
    assert all(e["by"]["source"] == "api" and e["by"]["label"] == "inbox-tests" and ObjectId.is_valid(e["by"]["keyId"])
               for e in entries)
    # The event, for the events work to deliver.
    events = await DomainEvent.find_in(ObjectId(tenant.org_id), {"kind": "inbox.conversation_status_changed"}).to_list()
    payloads = sorted((e.payload for e in events), key=lambda p: p["changedAt"])
    assert [(p["conversationId"], p["status"], p["statusFrom"]) for p in payloads] == [
        (cid, "pending", "open"), (cid, "resolved", "pending")]
    assert payloads[0]["brandNumber"] == row.brand_number and payloads[0]["phone"] == "447911123456"
    assert payloads[0]["by"] == entries[0]["by"]


async def test_setting_the_current_status_changes_nothing(api, tenant, brand, key):
    row = await conversation(tenant)
    resp = await api.post("/v2.0/conversations/status", key, json={"conversationId": str(row.id), "status": "open"})
    assert resp.body["data"] == {"conversationId": str(row.id), "status": "open", "statusFrom": "open"}
    assert await DomainEvent.count_in(ObjectId(tenant.org_id), {"kind": "inbox.conversation_status_changed"}) == 0


async def test_status_refusals(api, tenant, brand, key):
    row = await conversation(tenant)
    cid = str(row.id)
    body = assert_error(await api.post("/v2.0/conversations/status", key, json={"conversationId": cid,
                                                                                 "status": "closed"}),
                        400, "UNKNOWN_STATUS")
    assert "closed" in body["message"]
    body = assert_error(await api.post("/v2.0/conversations/status", key, json={"conversationId": cid}), 400,
                        "VALIDATION_ERROR")
    assert body["details"][0]["path"] == "status"
    assert_error(await api.post("/v2.0/conversations/status", key, json={"status": "open"}), 400,
                 "IDENTIFIER_REQUIRED")
    assert_error(await api.post("/v2.0/conversations/status", key, json={"conversationId": str(ObjectId()),
                                                                          "status": "open"}),
                 404, "CONVERSATION_NOT_FOUND")
    reader = await tenant.key("conversations:read")
    body = assert_error(await api.post("/v2.0/conversations/status", reader, json={"conversationId": cid,
                                                                                    "status": "open"}),
                        403, "INSUFFICIENT_SCOPE", marker="error")
    assert body["required_scope"] == "conversations:write"
    assert (await api.get("/v2.0/conversations/statuses", reader)).status == 200


async def test_the_workspace_adds_changes_and_deletes_its_own_statuses(api, tenant, brand, key):
    row = await conversation(tenant)
    body = await gql(api, key, f"mutation {{ createInboxStatus(key: \"waiting_customer\", label: \"Waiting\", "
                               f"color: \"#999\") {{ {STATUS_FIELDS} }} }}")
    assert body["data"]["createInboxStatus"] == {"key": "waiting_customer", "label": "Waiting", "color": "#999",
                                                 "order": 40, "isDefault": False, "isSystem": False}
    body = await gql(api, key, f"mutation {{ createInboxStatus(key: \"urgent\", label: \"Urgent\", order: 1) "
                               f"{{ {STATUS_FIELDS} }} }}")
    assert body["data"]["createInboxStatus"]["order"] == 1
    body = await gql(api, key, f"mutation {{ updateInboxStatus(key: \"open\", label: \"Active\", order: 5) "
                               f"{{ {STATUS_FIELDS} }} }}")
    assert body["data"]["updateInboxStatus"] == {**SYSTEM[1], "label": "Active", "order": 5}
    keys = [s["key"] for s in (await api.get("/v2.0/conversations/statuses", key)).body["data"]]
    assert keys == ["urgent", "open", "pending", "resolved", "waiting_customer"]
    # Duplicates and system keys are refused.
    for dup in ("urgent", "resolved"):
        body = await gql(api, key, f"mutation {{ createInboxStatus(key: \"{dup}\", label: \"x\") {{ key }} }}")
        assert body["errors"][0]["extensions"]["code"] == "STATUS_EXISTS"
    body = await gql(api, key, "mutation { createInboxStatus(key: \"Bad Key\", label: \"\") { key } }")
    assert body["errors"][0]["extensions"]["code"] == "VALIDATION_ERROR"
    assert [d["path"] for d in body["errors"][0]["extensions"]["details"]] == ["key", "label"]
    # A conversation in a deleted status goes back to open.
    resp = await api.post("/v2.0/conversations/status", key, json={"conversationId": str(row.id), "status": "urgent"})
    assert resp.body["data"]["status"] == "urgent"
    body = await gql(api, key, "mutation { deleteInboxStatus(key: \"urgent\") { key deleted movedConversations } }")
    assert body["data"]["deleteInboxStatus"] == {"key": "urgent", "deleted": True, "movedConversations": 1}
    rows = (await api.get("/v2.0/chats/conversations", key)).body["data"]
    assert rows[0]["inboxStatus"] == "open"
    body = await gql(api, key, "mutation { deleteInboxStatus(key: \"resolved\") { key } }")
    assert body["errors"][0]["extensions"]["code"] == "SYSTEM_STATUS_NOT_DELETABLE"
    body = await gql(api, key, "mutation { deleteInboxStatus(key: \"urgent\") { key } }")
    assert body["errors"][0]["extensions"]["code"] == "UNKNOWN_STATUS"
    body = await gql(api, key, "mutation { updateInboxStatus(key: \"nope\", label: \"x\") { key } }")
    assert body["errors"][0]["extensions"]["code"] == "UNKNOWN_STATUS"
    reader = await tenant.key("conversations:read")
    body = await gql(api, reader, "mutation { createInboxStatus(key: \"x\", label: \"x\") { key } }")
    assert body["errors"][0]["extensions"]["code"] == "INSUFFICIENT_SCOPE"


async def test_another_organisations_statuses_are_its_own(api, tenant, key, client):
    from tests.helpers import make_tenant

    other = await make_tenant(client, name="Other")
    await gql(api, other.legacy_key, "mutation { createInboxStatus(key: \"theirs\", label: \"Theirs\") { key } }")
    keys = [s["key"] for s in (await api.get("/v2.0/conversations/statuses", key)).body["data"]]
    assert keys == ["pending", "open", "resolved"]
    # Their key is not a status here; ours is not one there.
    for mutation in ("updateInboxStatus(key: \"theirs\", label: \"Mine\") { key }",
                     "deleteInboxStatus(key: \"theirs\") { key }"):
        body = await gql(api, key, f"mutation {{ {mutation} }}")
        assert body["errors"][0]["extensions"]["code"] == "UNKNOWN_STATUS"
    theirs = [s for s in (await api.get("/v2.0/conversations/statuses", other.legacy_key)).body["data"]
              if s["key"] == "theirs"]
    assert theirs[0]["label"] == "Theirs"
    await gql(api, other.legacy_key, "mutation { updateInboxStatus(key: \"open\", label: \"Theirs too\") { key } }")
    labels = {s["key"]: s["label"] for s in (await api.get("/v2.0/conversations/statuses", key)).body["data"]}
    assert labels["open"] == "Open"
