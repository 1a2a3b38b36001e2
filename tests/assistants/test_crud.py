"""Get, list (filters, pages), update (partial, clearChatHistory), toggle, delete; other organisations' ids."""
from __future__ import annotations

from tests.assistants.support import CHAT_A, PAGE, connect, create, history
from tests.helpers import assert_error, make_tenant


async def test_list_filters_and_pages(api, tenant):
    key = tenant.legacy_key
    await connect(tenant, "chatapp", CHAT_A)
    await connect(tenant, "pageapp", PAGE)
    sales = await create(api, key, name="Sales Bot", channel={"activate": True, "platform": "chatapp"})
    support = await create(api, key, name="Support", isActive=False, channel={"activate": True, "platform": "pageapp"})
    spare = await create(api, key, name="Spare sales")

    async def names(**query) -> list[str]:
        resp = await api.get("/v2.0/assistants", key, params={k: str(v) for k, v in query.items()})
        assert resp.status == 200, resp.body
        return [a["name"] for a in resp.body["data"]]

    assert await names() == ["Spare sales", "Support", "Sales Bot"]
    assert await names(platform="chatapp") == ["Sales Bot"]
    assert await names(platform="pageapp") == ["Support"]
    assert await names(platform="photoapp") == []
    assert await names(name="SALES") == ["Spare sales", "Sales Bot"]
    assert await names(isActive="false") == ["Support"]
    assert await names(isConnected="false") == ["Spare sales"]
    assert await names(isConnected="true", isActive="true") == ["Sales Bot"]
    page = await api.get("/v2.0/assistants", key, params={"limit": "2", "page": "2"})
    assert [a["modelId"] for a in page.body["data"]] == [sales["modelId"]]
    assert page.body["pagination"] == {"page": 2, "limit": 2, "total": 3, "totalPages": 2, "hasNext": False}
    first = await api.get("/v2.0/assistants", key)
    assert first.body["pagination"]["limit"] == 20 and first.body["data"][0] == (
        await api.get(f"/v2.0/assistants/{spare['modelId']}", key)).body["data"]
    assert_error(await api.get("/v2.0/assistants", key, params={"limit": "101"}), 400, "VALIDATION_ERROR")
    assert_error(await api.get("/v2.0/assistants", key, params={"page": "0"}), 400, "VALIDATION_ERROR")
    assert support["isActive"] is False


async def test_update_is_partial(api, tenant):
    key = tenant.legacy_key
    bot = await create(api, key, systemPrompt="Be brief.", temperature=0.2)
    path = f"/v2.0/assistants/{bot['modelId']}"
    resp = await api.call("PATCH", path, key, json={"maxTokens": 600, "provider": "sandbox", "model": "sandbox-echo"})
    assert resp.status == 200, resp.body
    data = resp.body["data"]
    assert (data["maxTokens"], data["systemPrompt"], data["temperature"], data["provider"]) == (600, "Be brief.", 0.2,
                                                                                                "sandbox")
    assert data["createdAt"] == bot["createdAt"] and data["updatedAt"] > bot["updatedAt"]
    err = assert_error(await api.call("PATCH", path, key, json={"model": "gpt-4o"}), 422,
                       "MODEL_INVALID_FOR_PROVIDER", marker="error")
    assert err["details"][0]["path"] == "model"
    err = assert_error(await api.call("PATCH", path, key, json={"messageDelay": 61, "name": " "}), 422,
                       "ASSISTANT_VALIDATION_FAILED", marker="error")
    assert {d["path"] for d in err["details"]} == {"messageDelay", "name"}
    reset = await api.call("PATCH", path, key, json={"temperature": None})
    assert reset.body["data"]["temperature"] == 0.7
    cleared = await api.call("PATCH", path, key, json={"clearChatHistory": True})
    assert cleared.status == 200 and cleared.body["data"] == reset.body["data"] | {
        "updatedAt": cleared.body["data"]["updatedAt"]}
    when = await api.graphql(f'{{ assistant(modelId: "{bot["modelId"]}") {{ chatHistoryClearedAt }} }}', key)
    assert when.body["data"]["assistant"]["chatHistoryClearedAt"] is not None
    assert [e["changeType"] for e in await history(api, key, bot["modelId"])] == [
        "config_update", "config_update", "create"]  # clearChatHistory alone is no version
    assert_error(await api.call("PATCH", path, key, json={"maxTokens": "600"}), 400, "VALIDATION_ERROR")


async def test_toggle(api, tenant):
    key = tenant.legacy_key
    bot = await create(api, key)
    path = f"/v2.0/assistants/{bot['modelId']}/toggle"
    assert_error(await api.post(path, key, json={}), 400, "IS_ACTIVE_REQUIRED")
    assert_error(await api.post(path, key), 400, "IS_ACTIVE_REQUIRED")
    assert_error(await api.post(path, key, json={"isActive": "false"}), 400, "VALIDATION_ERROR")
    off = await api.post(path, key, json={"isActive": False})
    assert off.status == 200 and off.body["data"]["isActive"] is False
    still = await api.post(path, key, json={"isActive": False})
    assert still.body["data"]["isActive"] is False
    entries = await history(api, key, bot["modelId"])
    assert [(e["changeType"], e["changeDescription"]) for e in entries[:2]] == [("toggle", "Deactivated"),
                                                                                 ("toggle", "Deactivated")]
    assert_error(await api.post(f"/v2.0/assistants/{'c' * 24}/toggle", key, json={"isActive": True}), 404,
                 "ASSISTANT_NOT_FOUND")


async def test_delete_removes_the_assistant_and_its_history(api, tenant):
    key = tenant.legacy_key
    await connect(tenant, "chatapp", CHAT_A)
    bot = await create(api, key, channel={"activate": True, "platform": "chatapp"})
    path = f"/v2.0/assistants/{bot['modelId']}"
    deleted = await api.call("DELETE", path, key)
    assert deleted.status == 200
    assert deleted.body["data"] == {"modelId": bot["modelId"], "name": "Sales bot", "deleted": True}
    for method, suffix, json in (("GET", "", None), ("GET", "/history", None), ("DELETE", "", None),
                                 ("PATCH", "", {"maxTokens": 5}), ("POST", "/toggle", {"isActive": True}),
                                 ("POST", "/restore", {"versionNumber": 1})):
        assert_error(await api.call(method, path + suffix, key, json=json), 404, "ASSISTANT_NOT_FOUND")
    assert_error(await api.get("/v2.0/assistants/not-an-id", key), 404, "ASSISTANT_NOT_FOUND")
    # The channel is free again.
    again = await create(api, key, name="Next", channel={"activate": True, "platform": "chatapp"})
    assert again["isConnected"] is True


async def test_another_organisations_assistants_are_not_found(api, client, tenant):
    bot = await create(api, tenant.legacy_key)
    other = await make_tenant(client, name="Other")
    key = other.legacy_key
    path = f"/v2.0/assistants/{bot['modelId']}"
    for method, suffix, json in (("GET", "", None), ("GET", "/history", None), ("PATCH", "", {"name": "Stolen"}),
                                 ("POST", "/toggle", {"isActive": False}), ("POST", "/restore", {"versionNumber": 1}),
                                 ("DELETE", "", None)):
        assert_error(await api.call(method, path + suffix, key, json=json), 404, "ASSISTANT_NOT_FOUND")
    assert (await api.get(path, tenant.legacy_key)).body["data"] == bot
    assert (await api.get("/v2.0/assistants", key)).body["data"] == []
