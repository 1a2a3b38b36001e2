"""Tool history and restore: one numbered entry per change (snapshot after it), newest first, the last 30
kept; restore brings back the configuration of create/config_update versions, never isActive."""
from __future__ import annotations

from tests.helpers import assert_error
from tests.tools.support import create, example


async def history(api, key, tool_id) -> list[dict]:
    resp = await api.get(f"/v2.0/tools/{tool_id}/history", key)
    assert resp.status == 200, resp.body
    assert resp.body["meta"] == {"total": len(resp.body["data"])}
    return resp.body["data"]


async def test_every_change_is_a_version(api, tenant):
    key = await tenant.key("tools:read,tools:write", label="ci-bot")
    tool = await create(api, key, example("static_tool"))
    path = f"/v2.0/tools/{tool['_id']}"
    await api.call("PATCH", path, key, json={"response": "We open at 10."})
    await api.post(f"{path}/toggle", key)
    await api.call("PATCH", path, key, json={"isActive": True})
    unchanged = await api.call("PATCH", path, key, json={"response": "We open at 10."})
    assert unchanged.status == 200
    entries = await history(api, key, tool["_id"])
    assert [(e["versionNumber"], e["changeType"]) for e in entries] == [
        (4, "toggle"), (3, "toggle"), (2, "config_update"), (1, "create")]
    assert entries[2]["changeDescription"] == "Updated response"
    assert entries[1]["changeDescription"] == "Deactivated" and entries[0]["changeDescription"] == "Activated"
    assert entries[3]["changedBy"] == {"name": "ci-bot", "email": None, "source": "api"}
    assert entries[2]["snapshot"]["response"] == "We open at 10." and entries[3]["snapshot"]["response"] == tool["response"]
    assert entries[1]["snapshot"]["isActive"] is False and entries[0]["snapshot"]["isActive"] is True
    assert set(entries[0]) == {"versionNumber", "changeType", "changeDescription", "changedAt", "changedBy", "snapshot"}


async def test_restore(api, tenant):
    key = tenant.legacy_key
    tool = await create(api, key, example("static_tool", isStrict=True))
    path = f"/v2.0/tools/{tool['_id']}"
    await api.call("PATCH", path, key, json={"response": "Changed.", "isStrict": False, "name": "renamed"})
    await api.post(f"{path}/toggle", key, json={"isActive": False})
    restored = await api.post(f"{path}/restore", key, json={"versionNumber": 1})
    assert restored.status == 200, restored.body
    data = restored.body["data"]
    assert (data["name"], data["response"], data["isStrict"]) == (tool["name"], tool["response"], True)
    assert data["isActive"] is False  # never restored
    entries = await history(api, key, tool["_id"])
    assert [(e["versionNumber"], e["changeType"]) for e in entries][:1] == [(4, "restore")]
    assert entries[0]["changeDescription"] == "Restored version 1" and entries[0]["snapshot"]["isActive"] is False
    for version, code, status in ((3, "VERSION_NOT_RESTORABLE", 400), (4, "VERSION_NOT_RESTORABLE", 400),
                                  (99, "HISTORY_VERSION_NOT_FOUND", 404), (None, "VERSION_REQUIRED", 400)):
        body = {} if version is None else {"versionNumber": version}
        assert_error(await api.post(f"{path}/restore", key, json=body), status, code, marker="error")
    again = await api.post(f"{path}/restore", key, json={"versionNumber": 2})
    assert again.body["data"]["response"] == "Changed." and again.body["data"]["name"] == "renamed"
    assert_error(await api.post(f"{path}/restore", key, json={"versionNumber": "2"}), 400, "VALIDATION_ERROR",
                 marker="error")


async def test_restore_drops_deleted_tags_and_respects_names(api, tenant):
    key = tenant.legacy_key
    tag = (await api.graphql('mutation { createToolTag(name: "Old") { _id } }', key)).body["data"]["createToolTag"]
    tool = await create(api, key, example("static_tool", tags=[tag["_id"]]))
    path = f"/v2.0/tools/{tool['_id']}"
    await api.call("PATCH", path, key, json={"name": "new_name", "tags": []})
    await api.graphql(f'mutation {{ deleteToolTag(tagId: "{tag["_id"]}") {{ _id }} }}', key)
    await create(api, key, example("static_tool"))  # takes the old name
    assert_error(await api.post(f"{path}/restore", key, json={"versionNumber": 1}), 409, "TOOL_NAME_EXISTS",
                 marker="error")
    await api.call("PATCH", path, key, json={"response": "x"})
    entries = await history(api, key, tool["_id"])
    assert entries[0]["versionNumber"] == 3  # the refused restore wrote nothing


async def test_only_the_last_30_versions_are_kept(api, tenant):
    key = await tenant.key("tools:read,tools:write")
    tool = await create(api, key, example("static_tool"))
    for i in range(34):
        resp = await api.post(f"/v2.0/tools/{tool['_id']}/toggle", key)
        assert resp.status == 200
    entries = await history(api, key, tool["_id"])
    assert [e["versionNumber"] for e in entries] == list(range(35, 5, -1))
    assert_error(await api.post(f"/v2.0/tools/{tool['_id']}/restore", key, json={"versionNumber": 1}), 404,
                 "HISTORY_VERSION_NOT_FOUND", marker="error")
