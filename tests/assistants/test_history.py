"""Assistant history and restore: what each change records, snapshots after the change, numbering, the
last 30 kept, and restore (configuration only; never isActive nor the channel; deleted tools dropped)."""
from __future__ import annotations

from tests.assistants.support import CHAT_A, CHAT_B, connect, create, history
from tests.helpers import assert_error
from tests.tools.support import create as create_tool, example


async def test_what_each_change_records(api, tenant):
    key = await tenant.key("assistants:read,assistants:write", label="dashboard-sync")
    await connect(tenant, "chatapp", CHAT_A)
    await connect(tenant, "chatapp", CHAT_B)
    bot = await create(api, key, channel={"activate": True, "platform": "chatapp", "brandNumber": CHAT_A})
    path = f"/v2.0/assistants/{bot['modelId']}"
    await api.call("PATCH", path, key, json={"maxTokens": 400, "channel": {"activate": True, "platform": "chatapp",
                                                                           "brandNumber": CHAT_B}})
    await api.call("PATCH", path, key, json={"channel": {"activate": True, "platform": "chatapp",
                                                         "brandNumber": CHAT_A}})
    await api.post(f"{path}/toggle", key, json={"isActive": False})
    await api.call("PATCH", path, key, json={"isActive": True})
    await api.call("PATCH", path, key, json={"maxTokens": 400})  # no change: no version
    entries = await history(api, key, bot["modelId"])
    assert [(e["versionNumber"], e["changeType"]) for e in entries] == [
        (5, "toggle"), (4, "toggle"), (3, "channel_update"), (2, "config_update"), (1, "create")]
    assert entries[3]["changeDescription"] == f"Updated maxTokens; moved from chatapp {CHAT_A} to chatapp {CHAT_B}"
    assert entries[2]["changeDescription"] == f"Moved from chatapp {CHAT_B} to chatapp {CHAT_A}"
    assert entries[3]["snapshot"]["maxTokens"] == 400 and entries[4]["snapshot"]["maxTokens"] == 250
    assert entries[3]["snapshot"]["channel"] == {"platform": "chatapp", "phone": CHAT_B}
    assert entries[1]["snapshot"]["isActive"] is False and entries[0]["snapshot"]["isActive"] is True
    for entry in entries:
        assert entry["changedBy"] == {"name": "dashboard-sync", "email": None, "source": "api"}
        assert set(entry) == {"versionNumber", "changeType", "changeDescription", "changedAt", "changedBy", "snapshot"}
    assert set(entries[0]["snapshot"]) >= {"name", "provider", "model", "isActive", "isConnected", "channel",
                                           "maxTokens", "tools"}


async def test_restore(api, tenant):
    key = tenant.legacy_key
    await connect(tenant, "chatapp", CHAT_A)
    keep = await create_tool(api, key, example("static_tool", name="keep"))
    gone = await create_tool(api, key, example("static_tool", name="gone"))
    bot = await create(api, key, systemPrompt="v1", tools=[gone["_id"], keep["_id"]])
    path = f"/v2.0/assistants/{bot['modelId']}"
    await api.call("PATCH", path, key, json={"systemPrompt": "v2", "maxTokens": 900, "tools": [], "name": "Renamed"})
    await api.post(f"{path}/toggle", key, json={"isActive": False})
    await api.call("PATCH", path, key, json={"channel": {"activate": True, "platform": "chatapp"}})
    await api.call("DELETE", f"/v2.0/tools/{gone['_id']}", key)
    restored = await api.post(f"{path}/restore", key, json={"versionNumber": 1, "clearChatHistory": True})
    assert restored.status == 200, restored.body
    data = restored.body["data"]
    assert (data["name"], data["systemPrompt"], data["maxTokens"], data["tools"]) == ("Sales bot", "v1", 250,
                                                                                     [keep["_id"]])
    assert data["isActive"] is False  # not restored
    assert data["channel"] == {"platform": "chatapp", "phone": CHAT_A}  # not restored
    entries = await history(api, key, bot["modelId"])
    assert (entries[0]["versionNumber"], entries[0]["changeType"], entries[0]["changeDescription"]) == (
        5, "restore", "Restored version 1")
    assert entries[0]["snapshot"]["systemPrompt"] == "v1"
    cleared = await api.graphql(f'{{ assistant(modelId: "{bot["modelId"]}") {{ chatHistoryClearedAt }} }}', key)
    assert cleared.body["data"]["assistant"]["chatHistoryClearedAt"] is not None
    second = await api.post(f"{path}/restore", key, json={"versionNumber": 2})
    assert (second.body["data"]["systemPrompt"], second.body["data"]["name"]) == ("v2", "Renamed")
    for version, status, code in ((3, 400, "VERSION_NOT_RESTORABLE"), (4, 400, "VERSION_NOT_RESTORABLE"),
                                  (5, 400, "VERSION_NOT_RESTORABLE"), (77, 404, "HISTORY_VERSION_NOT_FOUND")):
        assert_error(await api.post(f"{path}/restore", key, json={"versionNumber": version}), status, code)
    assert_error(await api.post(f"{path}/restore", key, json={}), 400, "VERSION_REQUIRED")
    assert_error(await api.post(f"{path}/restore", key, json={"versionNumber": "1"}), 400, "VALIDATION_ERROR")


async def test_only_the_last_30_versions_are_kept(api, tenant):
    key = await tenant.key("assistants:read,assistants:write")
    bot = await create(api, key)
    for i in range(33):
        resp = await api.post(f"/v2.0/assistants/{bot['modelId']}/toggle", key, json={"isActive": i % 2 == 0})
        assert resp.status == 200
    entries = await history(api, key, bot["modelId"])
    assert [e["versionNumber"] for e in entries] == list(range(34, 4, -1))
    assert_error(await api.post(f"/v2.0/assistants/{bot['modelId']}/restore", key, json={"versionNumber": 1}), 404,
                 "HISTORY_VERSION_NOT_FOUND")
