"""The same operations through /graphql, as the dashboard uses them: tools as a union, assistants, errors in
`extensions`."""
from __future__ import annotations

from tests.tools.support import example

CREATE_TOOL = """mutation($input: ToolInput!) { createTool(input: $input) {
  __typename ... on FunctionTool { _id name auth timeout async } ... on StaticTool { _id name response } } }"""


async def test_tools_through_graphql(api, tenant):
    key = tenant.legacy_key
    made = await api.graphql(CREATE_TOOL, key, {"input": example("function")})
    tool = made.body["data"]["createTool"]
    assert tool["__typename"] == "FunctionTool" and tool["auth"] == {"type": "bearer", "token": "********"}
    assert (tool["timeout"], tool["async"]) == (30, False)
    static = (await api.graphql(CREATE_TOOL, key, {"input": example("static_tool")})).body["data"]["createTool"]
    listed = await api.graphql("{ tools(toolType: \"static_tool\") { data { __typename ... on StaticTool { name } } "
                               "pagination { total } } }", key)
    assert listed.body["data"]["tools"] == {"data": [{"__typename": "StaticTool", "name": "opening_hours"}],
                                            "pagination": {"total": 1}}
    updated = await api.graphql('mutation($id: String!) { updateTool(toolId: $id, input: {timeout: 5}) '
                                '{ ... on FunctionTool { timeout } } }', key, {"id": tool["_id"]})
    assert updated.body["data"]["updateTool"] == {"timeout": 5}
    refused = await api.graphql(CREATE_TOOL, key, {"input": example("static_tool", name="x", response="")})
    ext = refused.body["errors"][0]["extensions"]
    assert (ext["code"], ext["status"], ext["details"][0]["path"]) == ("TOOL_VALIDATION_FAILED", 422, "response")
    history = await api.graphql('query($id: String!) { toolHistory(toolId: $id) { data { versionNumber changeType } } }',
                                key, {"id": static["_id"]})
    assert history.body["data"]["toolHistory"]["data"] == [{"versionNumber": 1, "changeType": "create"}]
    schema = await api.graphql('{ toolSchema(type: "storeapp") { ... on ToolTypeSchema { toolType example } } }', key)
    assert schema.body["data"]["toolSchema"]["toolType"] == "storeapp"


async def test_assistants_through_graphql(api, tenant):
    key = tenant.legacy_key
    made = await api.graphql('mutation { createAssistant(input: {name: "Bot", provider: "sandbox", '
                             'model: "sandbox-echo", maxTokens: 100}) { modelId maxTokens channel { '
                             '... on AssistantChatChannel { phone } } } }', key)
    bot = made.body["data"]["createAssistant"]
    assert (bot["maxTokens"], bot["channel"]) == (100, None)
    options = await api.graphql("{ assistantOptions { providers limits { maxTokens { min max default } } } }", key)
    assert options.body["data"]["assistantOptions"]["limits"]["maxTokens"] == {"min": 1, "max": 8000, "default": 250}
    toggled = await api.graphql(f'mutation {{ toggleAssistant(modelId: "{bot["modelId"]}") {{ isActive }} }}', key)
    assert toggled.body["errors"][0]["extensions"]["code"] == "IS_ACTIVE_REQUIRED"
    bad = await api.graphql('mutation { createAssistant(input: {name: "B", provider: "openai", model: "claude-haiku-4-5"}) '
                            '{ modelId } }', key)
    assert bad.body["errors"][0]["extensions"]["code"] == "MODEL_INVALID_FOR_PROVIDER"
