"""Options and create through HTTP: the catalogue, defaults, every bound and catalogue rule checked together,
provider/model mismatch, platforms, tool references, the max_models limit, scopes."""
from __future__ import annotations

from tests.assistants.support import body, create
from tests.helpers import assert_error, make_tenant
from tests.tools.support import create as create_tool, example

DEFAULTS = {"systemPrompt": "", "maxTokens": 250, "temperature": 0.7, "topP": 1.0, "voiceEnabled": False,
            "imageEnabled": False, "mediaInToolResponses": False, "memoryMinutes": 60, "messageDelay": 3,
            "typingEnabled": True, "sendSeen": True, "enableCommand": None, "disableCommand": None,
            "disableDuration": 30, "disableOnInterrupt": True, "groupChatEnabled": False,
            "groupActivateOnMention": True, "voiceResponseEnabled": False, "voiceProvider": None, "voiceModel": None,
            "voiceName": None, "voicePrompt": None, "phoneNumbersList": [], "isNumbersExcluded": True}


async def test_options(api, tenant):
    resp = await api.get("/v2.0/assistants/options", await tenant.key("assistants:read"))
    assert resp.status == 200, resp.body
    data = resp.body["data"]
    assert list(data) == ["providers", "platforms", "providerModels", "voiceProviders", "ttsModels", "voiceNames",
                          "limits"]
    assert {"openai", "anthropic", "google", "sandbox"} <= set(data["providers"])
    assert set(data["providerModels"]) == set(data["providers"])
    assert all(len(models) >= 2 for models in data["providerModels"].values())
    assert data["platforms"] == ["chatapp", "photoapp", "pageapp"]
    assert len(data["voiceProviders"]) == 4
    assert set(data["ttsModels"]) == set(data["voiceNames"]) == set(data["voiceProviders"])
    assert data["limits"] == {"maxTokens": {"min": 1, "max": 8000, "default": 250},
                              "temperature": {"min": 0.0, "max": 1.0, "default": 0.7},
                              "topP": {"min": 0.0, "max": 1.0, "default": 1.0},
                              "memoryMinutes": {"min": 0, "max": 10080, "default": 60},
                              "messageDelay": {"min": 3, "max": 60, "default": 3},
                              "disableDuration": {"min": 0, "max": 10080, "default": 30}}


async def test_create_returns_the_whole_assistant_with_defaults(api, tenant):
    resp = await api.post("/v2.0/assistants", tenant.legacy_key, json=body())
    assert resp.status == 201, resp.body
    data = resp.body["data"]
    assert list(data) == ["modelId", "name", "provider", "model", "isActive", "isConnected", "channel", *DEFAULTS,
                          "tools", "createdAt", "updatedAt"]
    assert {k: data[k] for k in DEFAULTS} == DEFAULTS
    assert (data["name"], data["isActive"], data["isConnected"], data["channel"], data["tools"]) == (
        "Sales bot", True, False, None, [])
    got = await api.get(f"/v2.0/assistants/{data['modelId']}", tenant.legacy_key)
    assert got.body["data"] == data
    off = await create(api, tenant.legacy_key, name="Off", isActive=False, temperature=0, maxTokens=8000,
                       voiceResponseEnabled=True, voiceProvider="elevenlabs", voiceModel="eleven_turbo_v2_5",
                       voiceName="Rachel", phoneNumbersList=["+1 (415) 555-2671", "14155552671"],
                       isNumbersExcluded=False, systemPrompt="x" * 32000)
    assert (off["isActive"], off["temperature"], off["maxTokens"], off["phoneNumbersList"]) == (
        False, 0.0, 8000, ["14155552671"])


async def test_out_of_bounds_and_catalogue_values_are_reported_together(api, tenant):
    resp = await api.post("/v2.0/assistants", tenant.legacy_key, json=body(
        maxTokens=8001, temperature=1.5, topP=-0.1, memoryMinutes=10081, messageDelay=2, disableDuration=-1,
        systemPrompt="x" * 32001, voiceProvider="acme-voice", voiceName="alloy", phoneNumbersList=["12"],
        enableCommand="c" * 65))
    err = assert_error(resp, 422, "ASSISTANT_VALIDATION_FAILED", marker="error")
    assert {d["path"]: d["code"] for d in err["details"]} == {
        "maxTokens": "OUT_OF_RANGE", "temperature": "OUT_OF_RANGE", "topP": "OUT_OF_RANGE",
        "memoryMinutes": "OUT_OF_RANGE", "messageDelay": "OUT_OF_RANGE", "disableDuration": "OUT_OF_RANGE",
        "systemPrompt": "TOO_LONG", "enableCommand": "TOO_LONG", "voiceProvider": "INVALID_VALUE",
        "phoneNumbersList[0]": "INVALID_PHONE_NUMBER"}
    assert all(set(d) == {"path", "code", "message"} for d in err["details"])
    err = assert_error(await api.post("/v2.0/assistants", tenant.legacy_key, json={}), 422,
                       "ASSISTANT_VALIDATION_FAILED", marker="error")
    assert [d["path"] for d in err["details"]] == ["name", "provider", "model"]
    err = assert_error(await api.post("/v2.0/assistants", tenant.legacy_key, json=body(
        provider="mistral", voiceProvider="openai", voiceModel="eleven_turbo_v2_5")), 422,
        "ASSISTANT_VALIDATION_FAILED", marker="error")
    assert {d["path"]: d["code"] for d in err["details"]} == {"provider": "INVALID_VALUE", "voiceModel": "INVALID_VALUE"}
    err = assert_error(await api.post("/v2.0/assistants", tenant.legacy_key, json=body(voiceResponseEnabled=True,
                                                                                       voiceName="alloy")),
                       422, "ASSISTANT_VALIDATION_FAILED", marker="error")
    assert {d["path"]: d["code"] for d in err["details"]} == {"voiceName": "VOICE_PROVIDER_REQUIRED",
                                                              "voiceProvider": "REQUIRED"}


async def test_wrong_json_types_are_400(api, tenant):
    for bad in ({"maxTokens": "250"}, {"temperature": "hot"}, {"tools": [1]}, {"isActive": "yes"},
                {"channel": "chatapp"}, {"unknown": 1}, {"maxTokens": 1.5}):
        resp = await api.post("/v2.0/assistants", tenant.legacy_key, json=body(**bad))
        err = assert_error(resp, 400, "VALIDATION_ERROR")
        assert err["details"][0]["path"].split(".")[0].split("[")[0] in bad, err


async def test_model_must_belong_to_the_provider(api, tenant):
    resp = await api.post("/v2.0/assistants", tenant.legacy_key, json=body(provider="anthropic", model="gpt-4o"))
    err = assert_error(resp, 422, "MODEL_INVALID_FOR_PROVIDER", marker="error")
    assert "claude" in err["message"]
    resp = await api.post("/v2.0/assistants", tenant.legacy_key, json=body(provider="anthropic", model="gpt-4o",
                                                                           maxTokens=0))
    err = assert_error(resp, 422, "ASSISTANT_VALIDATION_FAILED", marker="error")
    assert {d["path"]: d["code"] for d in err["details"]} == {"maxTokens": "OUT_OF_RANGE",
                                                              "model": "MODEL_INVALID_FOR_PROVIDER"}
    for provider, model in (("sandbox", "sandbox-echo"), ("google", "gemini-2.5-flash"),
                            ("anthropic", "claude-haiku-4-5")):
        assert (await create(api, tenant.legacy_key, provider=provider, model=model, name=model))["model"] == model


async def test_platform_must_be_known(api, tenant):
    resp = await api.post("/v2.0/assistants", tenant.legacy_key,
                          json=body(channel={"activate": True, "platform": "smsapp"}))
    assert_error(resp, 400, "PLATFORM_INVALID")
    resp = await api.post("/v2.0/assistants", tenant.legacy_key, json=body(channel={"activate": True}))
    assert_error(resp, 400, "PLATFORM_INVALID")
    assert_error(await api.get("/v2.0/assistants", tenant.legacy_key, params={"platform": "fax"}), 400,
                 "PLATFORM_INVALID")


async def test_tools_must_be_tools_of_the_organisation(api, client, tenant):
    key = tenant.legacy_key
    mine = await create_tool(api, key, example("static_tool"))
    other = await make_tenant(client, name="Other")
    theirs = await create_tool(api, other.legacy_key, example("static_tool"))
    resp = await api.post("/v2.0/assistants", key, json=body(tools=[mine["_id"], theirs["_id"], "nope"]))
    err = assert_error(resp, 422, "ASSISTANT_VALIDATION_FAILED", marker="error")
    assert {d["path"]: d["code"] for d in err["details"]} == {"tools[1]": "TOOL_NOT_FOUND", "tools[2]": "INVALID_ID"}
    made = await create(api, key, tools=[mine["_id"], mine["_id"]])
    assert made["tools"] == [mine["_id"]]


async def test_assistants_count_toward_max_models(api, tenant):
    await tenant.set_plan("free")  # max_models 1
    key = await tenant.key("assistants:write")
    await create(api, key)
    err = assert_error(await api.post("/v2.0/assistants", key, json=body(name="Second")), 403, "LIMIT_EXCEEDED")
    assert (err["limitKey"], err["current"], err["limit"]) == ("max_models", 1, 1)


async def test_scopes(api, tenant):
    reader = await tenant.key("assistants:read")
    err = assert_error(await api.post("/v2.0/assistants", reader, json=body()), 403, "INSUFFICIENT_SCOPE",
                       marker="error")
    assert err["required_scope"] == "assistants:write"
    tools_only = await tenant.key("tools:read")
    err = assert_error(await api.get("/v2.0/assistants", tools_only), 403, "INSUFFICIENT_SCOPE", marker="error")
    assert err["required_scope"] == "assistants:read"
