"""GET /v2.0/tools/schema: all eight types described from the definitions that validate them, and every
example a complete valid create payload."""
from __future__ import annotations

import pytest

from leadline.resolvers.tools.definitions import TOOL_TYPES
from tests.helpers import assert_error


async def test_the_catalogue_describes_every_type(api, tenant):
    resp = await api.get("/v2.0/tools/schema", tenant.legacy_key)
    assert resp.status == 200, resp.body
    data = resp.body["data"]
    assert set(data) == {"toolTypes", "commonFields", "types"}
    assert data["toolTypes"] == list(TOOL_TYPES) and len(TOOL_TYPES) == 8
    assert set(data["types"]) == set(TOOL_TYPES)
    assert [f["name"] for f in data["commonFields"]] == ["name", "description", "toolType", "isActive",
                                                         "pixelEvent", "tags"]
    for tool_type, described in data["types"].items():
        assert set(described) == {"title", "summary", "fields", "example"}, tool_type
        assert described["example"]["toolType"] == tool_type
    function = {f["name"]: f for f in data["types"]["function"]["fields"]}
    assert function["timeout"] == {"name": "timeout", "type": "integer", "required": False,
                                   "description": function["timeout"]["description"], "default": 30,
                                   "minimum": 1, "maximum": 300}
    assert function["requestMethod"]["enum"] == ["GET", "POST", "PUT", "PATCH", "DELETE"]
    assert {f["name"]: f.get("secret") for f in function["auth"]["fields"]}["token"] is True
    chat = {f["name"]: f for f in data["types"]["message_templates"]["fields"]}
    assert chat["extraMessages"]["maxItems"] == 2


@pytest.mark.parametrize("tool_type", TOOL_TYPES)
async def test_one_type_and_its_example_creates_a_tool(api, tenant, tool_type):
    key = tenant.legacy_key
    resp = await api.get("/v2.0/tools/schema", key, params={"type": tool_type})
    assert resp.status == 200, resp.body
    data = resp.body["data"]
    assert list(data) == ["toolType", "title", "summary", "commonFields", "fields", "example"]
    assert data["toolType"] == tool_type
    example = {**data["example"], "name": f"fresh_{tool_type}"}
    created = await api.post("/v2.0/tools", key, json=example)
    assert created.status == 201, created.body
    assert created.body["data"]["toolType"] == tool_type and created.body["data"]["name"] == f"fresh_{tool_type}"


async def test_an_unknown_type_is_refused(api, tenant):
    resp = await api.get("/v2.0/tools/schema", tenant.legacy_key, params={"type": "webhook"})
    body = assert_error(resp, 400, "VALIDATION_ERROR", marker="error")
    assert body["details"][0]["path"] == "type"


async def test_scopes_and_feature(api, tenant):
    reader = await tenant.key("tools:read")
    assert (await api.get("/v2.0/tools/schema", reader)).status == 200
    other = await tenant.key("assistants:read")
    body = assert_error(await api.get("/v2.0/tools/schema", other), 403, "INSUFFICIENT_SCOPE", marker="error")
    assert body["required_scope"] == "tools:read"
    body = assert_error(await api.post("/v2.0/tools", reader, json={}), 403, "INSUFFICIENT_SCOPE", marker="error")
    assert body["required_scope"] == "tools:write"
