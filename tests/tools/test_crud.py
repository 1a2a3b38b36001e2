"""Tools CRUD through HTTP: shapes of get and list rows, list filters and pages, toggle, delete (with the
assistants that used the tool), tool tags through GraphQL, other organisations' ids."""
from __future__ import annotations

from leadline.models.tools import Tool, ToolRun, ToolVersion
from tests.helpers import assert_error, make_tenant
from tests.tools.support import create, example

COMMON = ["_id", "name", "description", "toolType", "isActive", "tags", "pixelEvent"]
TAIL = ["extraMessages", "createdAt", "updatedAt"]


async def test_get_shape_per_type(api, tenant):
    key = tenant.legacy_key
    expected = {
        "function": ["serverUrl", "requestMethod", "auth", "headers", "bodyMode", "customPayload", "parameters",
                     "timeout", "strict", "async", "secretToken"],
        "static_tool": ["response", "isStrict"], "media_attachments": ["mediaIds", "response", "isStrict"],
        "message_templates": ["templateType", "components", "headerType", "mediaId"],
        "photoapp_templates": ["photoappComponents"], "pageapp_templates": ["pageappComponents"],
        "native_catalog": ["catalogAction"], "storeapp": ["storeappAction"]}
    for tool_type, fields in expected.items():
        made = await create(api, key, example(tool_type))
        got = await api.get(f"/v2.0/tools/{made['_id']}", key)
        assert got.status == 200, got.body
        assert list(got.body["data"]) == COMMON + fields + TAIL, tool_type
        assert got.body["data"] == made


async def test_list_filters_and_pages(api, tenant):
    key = tenant.legacy_key
    tag = (await api.graphql('mutation { createToolTag(name: "Sales") { _id name } }', key)).body["data"]["createToolTag"]
    a = await create(api, key, example("static_tool", name="greet_customer", tags=[tag["_id"]]))
    b = await create(api, key, example("static_tool", name="say_goodbye"))
    c = await create(api, key, example("function", name="lookup_greeting", tags=[tag["_id"]]))
    await api.post(f"/v2.0/tools/{b['_id']}/toggle", key, json={"isActive": False})

    async def names(**query) -> list[str]:
        resp = await api.get("/v2.0/tools", key, params={k: str(v) for k, v in query.items()})
        assert resp.status == 200, resp.body
        return [t["name"] for t in resp.body["data"]]

    assert await names() == ["lookup_greeting", "say_goodbye", "greet_customer"]
    assert await names(toolType="static_tool") == ["say_goodbye", "greet_customer"]
    assert await names(isActive="false") == ["say_goodbye"]
    assert await names(tag=tag["_id"]) == ["lookup_greeting", "greet_customer"]
    assert await names(name="GREET") == ["lookup_greeting", "greet_customer"]
    assert await names(name="greet", toolType="function", tag=tag["_id"]) == ["lookup_greeting"]
    page = await api.get("/v2.0/tools", key, params={"limit": "2", "page": "2"})
    assert [t["_id"] for t in page.body["data"]] == [a["_id"]]
    assert page.body["pagination"] == {"page": 2, "limit": 2, "total": 3, "totalPages": 2, "hasNext": False}
    first = await api.get("/v2.0/tools", key)
    assert first.body["pagination"]["limit"] == 20 and [t["_id"] for t in first.body["data"]][0] == c["_id"]
    assert_error(await api.get("/v2.0/tools", key, params={"limit": "101"}), 400, "VALIDATION_ERROR", marker="error")
    assert_error(await api.get("/v2.0/tools", key, params={"toolType": "x"}), 400, "VALIDATION_ERROR", marker="error")
    assert_error(await api.get("/v2.0/tools", key, params={"tag": "x"}), 400, "VALIDATION_ERROR", marker="error")


async def test_toggle_sets_or_flips(api, tenant):
    key = tenant.legacy_key
    tool = await create(api, key, example("static_tool"))
    path = f"/v2.0/tools/{tool['_id']}/toggle"
    assert (await api.post(path, key)).body["data"]["isActive"] is False
    assert (await api.post(path, key, json={})).body["data"]["isActive"] is True
    assert (await api.post(path, key, json={"isActive": True})).body["data"]["isActive"] is True
    assert (await api.post(path, key, json={"isActive": False})).body["data"]["isActive"] is False
    assert_error(await api.post(path, key, json={"isActive": "no"}), 400, "VALIDATION_ERROR", marker="error")
    assert_error(await api.post(f"/v2.0/tools/{'a' * 24}/toggle", key), 404, "TOOL_NOT_FOUND", marker="error")


async def test_tool_tags_through_graphql(api, tenant):
    key = tenant.legacy_key
    made = await api.graphql('mutation { createToolTag(name: " VIP  leads ") { _id name createdAt } }', key)
    tag = made.body["data"]["createToolTag"]
    assert tag["name"] == "VIP leads"
    dup = await api.graphql('mutation { createToolTag(name: "vip LEADS") { _id } }', key)
    assert dup.body["errors"][0]["extensions"]["code"] == "TOOL_TAG_EXISTS"
    listed = await api.graphql("{ toolTags { _id name } }", key)
    assert listed.body["data"]["toolTags"] == [{"_id": tag["_id"], "name": "VIP leads"}]
    missing = "b" * 24
    body = assert_error(await api.post("/v2.0/tools", key, json=example("static_tool", tags=[tag["_id"], missing])),
                        422, "TOOL_VALIDATION_FAILED", marker="error")
    assert [(d["path"], d["code"]) for d in body["details"]] == [("tags[1]", "TOOL_TAG_NOT_FOUND")]
    tool = await create(api, key, example("static_tool", tags=[tag["_id"]]))
    assert tool["tags"] == [tag["_id"]]
    gone = await api.graphql(f'mutation {{ deleteToolTag(tagId: "{tag["_id"]}") {{ _id name }} }}', key)
    assert gone.body["data"]["deleteToolTag"]["name"] == "VIP leads"
    assert (await api.get(f"/v2.0/tools/{tool['_id']}", key)).body["data"]["tags"] == []
    again = await api.graphql(f'mutation {{ deleteToolTag(tagId: "{tag["_id"]}") {{ _id }} }}', key)
    assert again.body["errors"][0]["extensions"]["code"] == "TOOL_TAG_NOT_FOUND"
    reader = await tenant.key("tools:read")
    refused = await api.graphql('mutation { createToolTag(name: "x") { _id } }', reader)
    assert refused.body["errors"][0]["extensions"]["code"] == "INSUFFICIENT_SCOPE"


async def test_delete_removes_history_runs_and_assistant_references(api, tenant, endpoint):
    key = tenant.legacy_key
    keep = await create(api, key, example("static_tool", name="keep_me"))
    doomed = await create(api, key, example("static_tool", name="doomed"))
    bot = await api.post("/v2.0/assistants", key, json={"name": "Bot", "provider": "sandbox", "model": "sandbox-echo",
                                                         "tools": [doomed["_id"], keep["_id"]]})
    idle = await api.post("/v2.0/assistants", key, json={"name": "Idle", "provider": "sandbox", "model": "sandbox-echo"})
    run = await api.graphql(f'mutation {{ testTool(toolId: "{doomed["_id"]}") {{ status }} }}', key)
    assert run.body["data"]["testTool"]["status"] == "success"
    deleted = await api.call("DELETE", f"/v2.0/tools/{doomed['_id']}", key)
    assert deleted.status == 200
    assert deleted.body["data"] == {"toolId": doomed["_id"], "name": "doomed", "deleted": True}
    assistant = (await api.get(f"/v2.0/assistants/{bot.body['data']['modelId']}", key)).body["data"]
    assert assistant["tools"] == [keep["_id"]]
    history = (await api.get(f"/v2.0/assistants/{assistant['modelId']}/history", key)).body["data"]
    assert history[0]["changeType"] == "config_update" and history[0]["versionNumber"] == 2
    assert history[0]["snapshot"]["tools"] == [keep["_id"]] and "doomed" in history[0]["changeDescription"]
    idle_history = (await api.get(f"/v2.0/assistants/{idle.body['data']['modelId']}/history", key)).body["data"]
    assert len(idle_history) == 1
    for path in (f"/v2.0/tools/{doomed['_id']}", f"/v2.0/tools/{doomed['_id']}/history",
                 f"/v2.0/tools/{doomed['_id']}/runs"):
        assert_error(await api.get(path, key), 404, "TOOL_NOT_FOUND", marker="error")
    assert_error(await api.call("DELETE", f"/v2.0/tools/{doomed['_id']}", key), 404, "TOOL_NOT_FOUND", marker="error")
    from bson import ObjectId
    org = ObjectId(tenant.org_id)
    assert await ToolVersion.count_in(org, {"tool_id": ObjectId(doomed["_id"])}) == 0
    assert await ToolRun.count_in(org, {"tool_id": ObjectId(doomed["_id"])}) == 0
    assert await Tool.count_in(org) == 1


async def test_another_organisations_tools_are_not_found(api, client, tenant):
    tool = await create(api, tenant.legacy_key, example("static_tool"))
    other = await make_tenant(client, name="Other")
    key = other.legacy_key
    for method, path, body in (("GET", "", None), ("PATCH", "", {"description": "stolen"}), ("POST", "/toggle", None),
                               ("GET", "/history", None), ("POST", "/restore", {"versionNumber": 1}),
                               ("GET", "/runs", None), ("DELETE", "", None)):
        resp = await api.call(method, f"/v2.0/tools/{tool['_id']}{path}", key, json=body)
        assert_error(resp, 404, "TOOL_NOT_FOUND", marker="error")
    run = await api.graphql(f'mutation {{ testTool(toolId: "{tool["_id"]}") {{ status }} }}', key)
    assert run.body["errors"][0]["extensions"]["code"] == "TOOL_NOT_FOUND"
    mine = await api.get(f"/v2.0/tools/{tool['_id']}", tenant.legacy_key)
    assert mine.body["data"] == tool
    assert (await api.get("/v2.0/tools", key)).body["data"] == []
