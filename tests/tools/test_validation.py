"""Tool validation through POST/PATCH /v2.0/tools: every rule of every type, all problems at once (422
TOOL_VALIDATION_FAILED), wrong JSON types (400), names, extra messages, limits."""
from __future__ import annotations

import asyncio

import pytest

from tests.helpers import assert_error
from tests.tools.support import codes, create, example, function_body, params


async def refused(api, key, body, code="TOOL_VALIDATION_FAILED", status=422) -> dict:
    return assert_error(await api.post("/v2.0/tools", key, json=body), status, code, marker="error")


async def test_every_problem_is_reported_at_once(api, tenant):
    body = await refused(api, tenant.legacy_key, {
        "name": "Bad Name", "toolType": "function", "serverUrl": "ftp://x", "timeout": 301, "requestMethod": "FETCH",
        "auth": {"type": "basic", "username": "u"}, "pixelEvent": "Click",
        "headers": [{"key": "X-A", "value": "1"}, {"key": "x-a", "value": "2"}]})
    assert codes(body) == {
        "name": "INVALID_FORMAT", "description": "REQUIRED", "pixelEvent": "INVALID_VALUE",
        "requestMethod": "INVALID_VALUE", "timeout": "OUT_OF_RANGE", "serverUrl": "INVALID_URL",
        "auth.password": "REQUIRED", "headers[1].key": "DUPLICATE_HEADER"}
    by_path = {d["path"]: d for d in body["details"]}
    assert by_path["name"]["example"] == "check_order_status"
    assert by_path["serverUrl"]["example"].startswith("https://")
    assert "example" not in by_path["headers[1].key"]


async def test_required_common_fields_and_type(api, tenant):
    body = await refused(api, tenant.legacy_key, {})
    assert codes(body) == {"name": "REQUIRED", "description": "REQUIRED", "toolType": "REQUIRED"}
    body = await refused(api, tenant.legacy_key, {"name": "x", "description": "d", "toolType": "webhook"})
    assert codes(body) == {"toolType": "INVALID_VALUE"}
    body = await refused(api, tenant.legacy_key, example("static_tool", serverUrl="https://x.example", tags=["zz"]))
    assert codes(body) == {"serverUrl": "FIELD_NOT_FOR_TYPE", "tags[0]": "INVALID_FORMAT"}


async def test_wrong_json_types_are_400(api, tenant):
    key = tenant.legacy_key
    for body, path in ((example("function", timeout="30"), "timeout"), (example("function", name=5), "name"),
                       (example("function", headers=[{"key": 1, "enabled": "yes"}]), "headers[0]"),
                       (example("function", parameters="x"), "parameters"),
                       (example("message_templates", components=[1]), "components"),
                       (example("function", unknown=1), "unknown")):
        err = assert_error(await api.post("/v2.0/tools", key, json=body), 400, "VALIDATION_ERROR", marker="error")
        assert err["details"][0]["path"].startswith(path), err


async def test_function_rules(api, tenant):
    key = tenant.legacy_key
    body = await refused(api, key, function_body("https://api.example.com/o/{{order_id}}/{{Bad}}"))
    assert [(d["path"], d["code"]) for d in body["details"]] == [
        ("serverUrl", "INVALID_PLACEHOLDER"), ("serverUrl", "PLACEHOLDER_NOT_DECLARED")]
    assert body["details"][1]["example"]["properties"] == {"order_id": {"type": "string"}}
    body = await refused(api, key, function_body("https://api.example.com", auth={"type": "api_key", "apiKeyIn": "cookie"},
                                                 bodyMode="custom", customPayload="{not json",
                                                 parameters={"type": "array", "properties": {"Order": {"type": "date"}},
                                                             "required": ["missing"]}))
    assert codes(body) == {
        "auth.apiKeyIn": "INVALID_VALUE", "auth.apiKeyName": "REQUIRED", "auth.apiKeyValue": "REQUIRED",
        "customPayload": "INVALID_JSON_TEMPLATE", "parameters.type": "INVALID_VALUE",
        "parameters.properties.Order": "INVALID_PROPERTY_NAME", "parameters.properties.Order.type": "INVALID_VALUE",
        "parameters.required[0]": "UNKNOWN_PARAMETER"}
    body = await refused(api, key, function_body("https://api.example.com", bodyMode="custom", requestMethod="GET"))
    assert codes(body) == {"customPayload": "REQUIRED"}
    body = await refused(api, key, function_body("https://api.example.com", bodyMode="custom", requestMethod="GET",
                                                 customPayload='{"a": "{{x}}"}', parameters=params("x")))
    assert codes(body) == {"bodyMode": "BODY_NOT_ALLOWED"}
    ok = await create(api, key, function_body("https://api.example.com/{{id}}", bodyMode="custom",
                                              customPayload='{"id": "{{id}}", "n": {{n}}}', parameters=params("id", "n")))
    assert ok["bodyMode"] == "custom" and ok["timeout"] == 30 and ok["async"] is False and ok["strict"] is False
    assert ok["auth"] == {"type": "none"} and ok["headers"] == [] and ok["secretToken"] is None
    for timeout in (0, 301):
        assert codes(await refused(api, key, function_body("https://x.example", name="t", timeout=timeout))) == {
            "timeout": "OUT_OF_RANGE"}


async def test_static_and_media_rules(api, tenant):
    key = tenant.legacy_key
    body = await refused(api, key, example("static_tool", response="Now {{current_date}} {{weather}}"))
    assert codes(body) == {"response": "UNKNOWN_PLACEHOLDER"}
    assert body["details"][0]["example"] == "{{current_date}}"
    assert codes(await refused(api, key, example("static_tool", response=""))) == {"response": "REQUIRED"}
    ids = ["65f1c0a2b3c4d5e6f7a8b9c%d" % i for i in range(6)]
    assert codes(await refused(api, key, example("media_attachments", mediaIds=ids))) == {"mediaIds": "TOO_MANY"}
    assert codes(await refused(api, key, example("media_attachments", mediaIds=[]))) == {"mediaIds": "TOO_FEW"}
    assert codes(await refused(api, key, example("media_attachments", mediaIds=["x", ids[0], ids[0]]))) == {
        "mediaIds[0]": "INVALID_FORMAT", "mediaIds[2]": "DUPLICATE"}


def _button(i: int, title: str | None = None) -> dict:
    return {"type": "reply", "reply": {"id": f"b{i}", "title": title or f"Option {i}"}}


async def test_message_template_limits(api, tenant):
    key = tenant.legacy_key
    components = {"type": "button", "header": {"type": "text", "text": "h" * 61}, "body": {"text": "b" * 1025},
                  "footer": {"text": "f" * 61}, "action": {"buttons": [_button(i) for i in range(4)]}}
    body = await refused(api, key, example("message_templates", components=components))
    assert codes(body) == {"components.header.text": "TOO_LONG", "components.body.text": "TOO_LONG",
                           "components.footer.text": "TOO_LONG", "components.action.buttons": "TOO_MANY"}
    dupes = {"type": "button", "body": {"text": "Pick"}, "action": {"buttons": [_button(1, "Yes"), _button(2, "yes")]}}
    assert codes(await refused(api, key, example("message_templates", components=dupes))) == {
        "components.action.buttons[1].reply.title": "DUPLICATE"}
    rows = [{"id": f"r{i}", "title": "t" * 25, "description": "d" * 73} for i in range(11)]
    listing = {"type": "list", "body": {"text": "Choose"}, "action": {"button": "Menu", "sections": [{"rows": rows}]}}
    body = await refused(api, key, example("message_templates", templateType="list", components=listing, extraMessages=[]))
    assert codes(body) == {"components.action.sections[0].rows": "TOO_MANY",
                           **{f"components.action.sections[0].rows[{i}].title": "TOO_LONG" for i in range(10)},
                           **{f"components.action.sections[0].rows[{i}].description": "TOO_LONG" for i in range(10)}}
    cta = {"type": "cta_url", "body": {"text": "Go"},
           "action": {"name": "cta_url", "parameters": {"display_text": "x" * 21, "url": "notaurl"}}}
    assert codes(await refused(api, key, example("message_templates", templateType="cta_url", components=cta,
                                                 extraMessages=[]))) == {
        "components.action.parameters.display_text": "TOO_LONG", "components.action.parameters.url": "INVALID_URL"}
    products = [{"product_retailer_id": f"p{i}"} for i in range(16)]
    plist = {"type": "product_list", "header": {"type": "text", "text": "Shop"}, "body": {"text": "Ours"},
             "action": {"catalog_id": "c1", "sections": [{"title": "A", "product_items": products},
                                                         {"title": "B", "product_items": products}]}}
    assert codes(await refused(api, key, example("message_templates", templateType="product_list", components=plist,
                                                 extraMessages=[]))) == {"components.action.sections": "TOO_MANY"}
    carousel = {"type": "carousel", "body": {"text": "Look"}, "action": {"cards": [{"header": {"type": "image"}}]}}
    assert codes(await refused(api, key, example("message_templates", templateType="carousel", components=carousel,
                                                 extraMessages=[]))) == {"components.action.cards": "TOO_FEW"}
    media = {"type": "button", "header": {"type": "image", "image": {}}, "body": {"text": "Pick"},
             "action": {"buttons": [_button(1)]}}
    assert codes(await refused(api, key, example("message_templates", components=media))) == {
        "components.header.image": "MEDIA_REQUIRED"}
    made = await create(api, key, example("message_templates", components=media, mediaId="65f1c0a2b3c4d5e6f7a8b9c0",
                                          extraMessages=[]))
    assert made["headerType"] == "media" and made["mediaId"] == "65f1c0a2b3c4d5e6f7a8b9c0"


async def test_photoapp_and_pageapp_limits(api, tenant):
    key = tenant.legacy_key
    replies = [{"content_type": "text", "title": f"q{i}", "payload": f"P{i}"} for i in range(14)]
    body = await refused(api, key, example("photoapp_templates", photoappComponents={"message": {"quick_replies": replies}}))
    assert codes(body) == {"photoappComponents.message.quick_replies": "TOO_MANY"}
    assert codes(await refused(api, key, example("photoapp_templates", photoappComponents={"message": {}}))) == {
        "photoappComponents.message": "MESSAGE_EMPTY"}
    buttons = [{"type": "web_url", "title": "Site"}, {"type": "postback", "title": "Call"},
               {"type": "postback", "title": "A", "payload": "A"}, {"type": "postback", "title": "B", "payload": "B"}]
    template = {"message": {"attachment": {"type": "template", "payload": {"template_type": "button", "text": "Hi",
                                                                            "buttons": buttons}}}}
    body = await refused(api, key, example("pageapp_templates", pageappComponents=template))
    base = "pageappComponents.message.attachment.payload.buttons"
    assert codes(body) == {base: "TOO_MANY", f"{base}[0].url": "REQUIRED", f"{base}[1].payload": "REQUIRED"}
    elements = [{"title": f"e{i}", "buttons": [{"type": "postback", "title": "x", "payload": "x"}] * 4} for i in range(11)]
    generic = {"message": {"attachment": {"type": "template", "payload": {"template_type": "generic",
                                                                          "elements": elements}}}}
    body = await refused(api, key, example("photoapp_templates", photoappComponents=generic))
    gbase = "photoappComponents.message.attachment.payload.elements"
    assert codes(body) == {gbase: "TOO_MANY", **{f"{gbase}[{i}].buttons": "TOO_MANY" for i in range(10)}}
    image = {"message": {"attachment": {"type": "image", "payload": {}}}}
    assert codes(await refused(api, key, example("pageapp_templates", pageappComponents=image))) == {
        "pageappComponents.message.attachment.payload.url": "REQUIRED"}


async def test_catalog_and_storeapp_rules(api, tenant):
    key = tenant.legacy_key
    body = await refused(api, key, example("native_catalog", catalogAction={"type": "get_collection_products",
                                                                           "catalogId": "abc", "defaultLimit": 21}))
    assert codes(body) == {"catalogAction.catalogId": "INVALID_FORMAT", "catalogAction.defaultLimit": "OUT_OF_RANGE",
                           "catalogAction.collectionId": "REQUIRED"}
    assert codes(await refused(api, key, example("storeapp", storeappAction={"type": "refund"}))) == {
        "storeappAction.type": "INVALID_VALUE"}
    assert codes(await refused(api, key, example("storeapp", storeappAction=None))) == {"storeappAction": "REQUIRED"}
    made = await create(api, key, example("storeapp", storeappAction={"type": "get_order"}))
    assert made["storeappAction"] == {"type": "get_order", "defaultLimit": 10}


async def test_extra_messages(api, tenant):
    key = tenant.legacy_key
    extra = example("message_templates")["extraMessages"][0]
    body = await refused(api, key, example("message_templates", extraMessages=[extra] * 3), code="EXTRA_MESSAGES_MAX")
    assert body["details"][0]["path"] == "extraMessages"
    missing = {"templateType": "button", "components": {"body": {"text": "x"}, "action": {"buttons": [_button(1)]}}}
    other = {"templateType": "button", "components": {"type": "list", "body": {"text": "b" * 1100},
                                                      "action": {"buttons": [_button(1)]}}}
    body = await refused(api, key, example("message_templates", extraMessages=[missing, other]))
    assert codes(body) == {"extraMessages[0].components.type": "COMPONENTS_TYPE_REQUIRED",
                           "extraMessages[1].components.type": "COMPONENTS_TYPE_MISMATCH",
                           "extraMessages[1].components.body.text": "TOO_LONG"}
    messages = [d["message"] for d in body["details"]]
    assert messages[0].startswith("Message 2: ") and messages[1].startswith("Message 3: ")
    assert messages[2].startswith("Message 3: ")
    page_extra = [{"components": {"message": {"text": "x" * 2001}}}]
    body = await refused(api, key, example("pageapp_templates", extraMessages=page_extra))
    assert codes(body) == {"extraMessages[0].components.message.text": "TOO_LONG"}
    assert body["details"][0]["message"].startswith("Message 2: ")
    body = await refused(api, key, example("static_tool", extraMessages=[{"components": {"message": {"text": "x"}}}]))
    assert codes(body) == {"extraMessages": "NOT_ALLOWED_FOR_TYPE"}

    tool = await create(api, key, example("message_templates"))
    assert len(tool["extraMessages"]) == 1 and tool["extraMessages"][0]["headerType"] is None
    kept = await api.call("PATCH", f"/v2.0/tools/{tool['_id']}", key, json={"description": "Still two messages."})
    assert kept.status == 200 and kept.body["data"]["extraMessages"] == tool["extraMessages"]
    removed = await api.call("PATCH", f"/v2.0/tools/{tool['_id']}", key, json={"extraMessages": []})
    assert removed.status == 200 and removed.body["data"]["extraMessages"] == []
    err = assert_error(await api.call("PATCH", f"/v2.0/tools/{tool['_id']}", key, json={"extraMessages": [extra] * 3}),
                       422, "EXTRA_MESSAGES_MAX", marker="error")
    assert err["details"][0]["code"] == "EXTRA_MESSAGES_MAX"


async def test_names_are_unique_even_under_a_race(api, tenant):
    key = tenant.legacy_key
    await create(api, key, example("static_tool"))
    body = await refused(api, key, example("static_tool"), code="TOOL_NAME_EXISTS", status=409)
    assert "opening_hours" in body["message"]
    racers = await asyncio.gather(*(api.post("/v2.0/tools", key, json=example("static_tool", name="raced"))
                                    for _ in range(4)))
    assert sorted(r.status for r in racers) == [201, 409, 409, 409]
    other = await create(api, key, example("static_tool", name="other_name"))
    err = assert_error(await api.call("PATCH", f"/v2.0/tools/{other['_id']}", key, json={"name": "raced"}), 409,
                       "TOOL_NAME_EXISTS", marker="error")
    assert err["code"] == "TOOL_NAME_EXISTS"


async def test_tool_type_is_immutable_before_anything_else(api, tenant):
    key = tenant.legacy_key
    tool = await create(api, key, example("static_tool"))
    resp = await api.call("PATCH", f"/v2.0/tools/{tool['_id']}", key,
                          json={"toolType": "function", "name": "BAD NAME", "response": ""})
    assert_error(resp, 400, "TOOL_TYPE_IMMUTABLE", marker="error")
    same = await api.call("PATCH", f"/v2.0/tools/{tool['_id']}", key, json={"toolType": "static_tool"})
    assert same.status == 200


async def test_a_patch_is_merged_and_revalidated(api, tenant):
    key = tenant.legacy_key
    tool = await create(api, key, example("function", headers=[{"key": "A", "value": "1"}, {"key": "B", "value": "2"}]))
    path = f"/v2.0/tools/{tool['_id']}"
    resp = await api.call("PATCH", path, key, json={"timeout": 10, "auth": {"type": "basic", "username": "u"}})
    body = assert_error(resp, 422, "TOOL_VALIDATION_FAILED", marker="error")
    assert codes(body) == {"auth.password": "REQUIRED"}
    resp = await api.call("PATCH", path, key, json={"timeout": 10, "headers": [{"key": "C", "value": "3"}],
                                                    "parameters": {"type": "object", "properties": {
                                                        "order_id": {"type": "string"}, "n": {"type": "integer"}}}})
    assert resp.status == 200, resp.body
    data = resp.body["data"]
    assert data["timeout"] == 10 and data["requestMethod"] == "GET"
    assert data["headers"] == [{"key": "C", "value": "3", "enabled": True}]  # replaced whole
    assert data["parameters"]["properties"]["n"] == {"type": "integer"}
    assert "required" not in data["parameters"]  # replaced whole, not merged
    assert data["auth"] == {"type": "bearer", "token": "********"}  # merged: the token is kept
    reset = await api.call("PATCH", path, key, json={"timeout": None, "pixelEvent": "Purchase"})
    assert reset.body["data"]["timeout"] == 30 and reset.body["data"]["pixelEvent"] == "Purchase"
    catalog = await create(api, key, example("native_catalog"))
    moved = await api.call("PATCH", f"/v2.0/tools/{catalog['_id']}", key,
                           json={"catalogAction": {"type": "list_collections", "catalogId": "65f1c0a2b3c4d5e6f7a8b9c9"}})
    assert moved.body["data"]["catalogAction"] == {"type": "list_collections", "catalogId": "65f1c0a2b3c4d5e6f7a8b9c9",
                                                   "collectionId": None, "defaultLimit": 5}
    store = await create(api, key, example("storeapp", storeappAction={"type": "search_products", "defaultLimit": 3}))
    moved = await api.call("PATCH", f"/v2.0/tools/{store['_id']}", key, json={"storeappAction": {"type": "get_order"}})
    assert moved.body["data"]["storeappAction"] == {"type": "get_order", "defaultLimit": 10}  # replaced whole
    chat = await create(api, key, example("message_templates"))
    replaced = {"type": "button", "body": {"text": "Pick one"}, "action": {"buttons": [_button(1)]}}
    moved = await api.call("PATCH", f"/v2.0/tools/{chat['_id']}", key, json={"components": replaced})
    assert moved.status == 200, moved.body
    assert moved.body["data"]["components"] == replaced  # no header or footer left over from the example
    assert moved.body["data"]["headerType"] is None  # follows the header: none left
    media = {**replaced, "header": {"type": "image", "image": {"link": "https://example.com/a.png"}}}
    moved = await api.call("PATCH", f"/v2.0/tools/{chat['_id']}", key, json={"components": media})
    assert moved.body["data"]["headerType"] == "media"
    err = assert_error(await api.call("PATCH", f"/v2.0/tools/{chat['_id']}", key, json={"headerType": "text"}), 422,
                       "TOOL_VALIDATION_FAILED", marker="error")
    assert codes(err) == {"headerType": "HEADER_TYPE_MISMATCH"}


async def test_tools_count_toward_max_tools(api, tenant):
    key = tenant.legacy_key
    for i in range(5):
        await create(api, key, example("static_tool", name=f"tool_{i}"))
    await tenant.set_plan("free")  # max_tools 5
    fresh = await tenant.key("tools:write")
    body = await refused(api, fresh, example("static_tool", name="sixth"), code="LIMIT_EXCEEDED", status=403)
    assert (body["limitKey"], body["current"], body["limit"]) == ("max_tools", 5, 5)


@pytest.mark.parametrize("name", ["1abc", "_abc", "abc-def", "abcD", "a" * 65])
async def test_name_rules(api, tenant, name):
    body = await refused(api, tenant.legacy_key, example("static_tool", name=name))
    assert codes(body)["name"] in ("INVALID_FORMAT", "TOO_LONG")
