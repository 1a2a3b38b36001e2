"""`testTool` through /graphql against a real HTTP endpoint on loopback, and the run logs
(`GET /v2.0/tools/{toolId}/runs`): every field of a run, each request shape, timeouts, async, SSRF."""
from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import re
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from aiohttp import web
from bson import ObjectId

from leadline.models.tools import RUN_RETENTION_SECONDS, ToolRun
from leadline.resolvers import netguard
from tests.helpers import assert_error
from tests.tools.support import create, example, function_body, params

RUN_FIELDS = ["traceId", "toolName", "toolType", "status", "errorMessage", "durationMs", "httpStatus", "requestUrl",
              "requestMethod", "args", "result", "createdAt"]
TEST_TOOL = "mutation($id: ID!, $args: JSON) { testTool(toolId: $id, args: $args) { %s } }" % " ".join(RUN_FIELDS)


async def run(api, key, tool_id: str, args=None) -> dict:
    resp = await api.graphql(TEST_TOOL, key, {"id": tool_id, "args": args})
    assert resp.status == 200 and "errors" not in resp.body, resp.body
    return resp.body["data"]["testTool"]


async def test_a_get_call_with_url_placeholders_and_query_arguments(api, tenant, endpoint):
    key = tenant.legacy_key
    tool = await create(api, key, function_body(endpoint.url("/orders/{{order_id}}"), requestMethod="GET",
                                                 parameters=params("order_id", "status"),
                                                 headers=[{"key": "X-On", "value": "1"},
                                                          {"key": "X-Off", "value": "0", "enabled": False}]))
    entry = await run(api, key, tool["_id"], {"order_id": "A 17/b", "status": "open", "limit": 5, "full": True})
    assert list(entry) == RUN_FIELDS
    assert re.fullmatch(r"[0-9a-f]{32}", entry["traceId"])
    assert (entry["toolName"], entry["toolType"], entry["status"], entry["httpStatus"]) == ("call_api", "function",
                                                                                          "success", 200)
    assert entry["errorMessage"] is None and entry["durationMs"] >= 0 and entry["requestMethod"] == "GET"
    assert entry["args"] == {"order_id": "A 17/b", "status": "open", "limit": 5, "full": True}
    sent = endpoint.requests[-1]
    assert sent["method"] == "GET" and sent["path"] == "/orders/A 17/b"
    assert sent["query"] == {"status": "open", "limit": "5", "full": "true"}
    assert sent["headers"].get("X-On") == "1" and "X-Off" not in sent["headers"] and sent["body"] == ""
    assert entry["requestUrl"].startswith(endpoint.url("/orders/A%2017%2Fb"))
    assert entry["result"]["ok"] is True and entry["result"]["query"]["status"] == "open"


async def test_post_put_patch_send_the_other_arguments_as_json(api, tenant, endpoint):
    key = tenant.legacy_key
    for method in ("POST", "PUT", "PATCH"):
        tool = await create(api, key, function_body(endpoint.url("/items/{{item}}"), name=f"send_{method.lower()}",
                                                    requestMethod=method, parameters=params("item", "qty")))
        entry = await run(api, key, tool["_id"], {"item": "x1", "qty": 3})
        sent = endpoint.requests[-1]
        assert (sent["method"], sent["path"], json.loads(sent["body"])) == (method, "/items/x1", {"qty": 3})
        assert sent["headers"]["Content-Type"] == "application/json" and entry["status"] == "success"
    tool = await create(api, key, function_body(endpoint.url("/items"), name="remove", requestMethod="DELETE",
                                                parameters=params("item")))
    await run(api, key, tool["_id"], {"item": "x1"})
    assert (endpoint.requests[-1]["method"], endpoint.requests[-1]["query"]) == ("DELETE", {"item": "x1"})
    none = await create(api, key, function_body(endpoint.url("/ping"), name="ping", bodyMode="none"))
    await run(api, key, none["_id"], {"ignored": 1})
    assert endpoint.requests[-1]["body"] == "" and endpoint.requests[-1]["query"] == {}


async def test_custom_payload_and_signature(api, tenant, endpoint):
    key = tenant.legacy_key
    tool = await create(api, key, function_body(
        endpoint.url("/hook"), bodyMode="custom", secretToken="sign-me-please",
        customPayload='{"id": "{{order_id}}", "note": "order {{order_id}}", "qty": {{qty}}, "fixed": true}',
        parameters={"type": "object", "properties": {"order_id": {"type": "string"}, "qty": {"type": "integer"}}}))
    await run(api, key, tool["_id"], {"order_id": 'A"1', "qty": 2})
    sent = endpoint.requests[-1]
    assert json.loads(sent["body"]) == {"id": 'A"1', "note": 'order A"1', "qty": 2, "fixed": True}
    expected = hmac.new(b"sign-me-please", sent["body"].encode(), hashlib.sha256).hexdigest()
    assert sent["headers"]["X-Leadline-Signature"] == f"sha256={expected}"


@pytest.mark.parametrize("auth, check", [
    ({"type": "bearer", "token": "tok-123"}, lambda r: r["headers"]["Authorization"] == "Bearer tok-123"),
    ({"type": "basic", "username": "ann", "password": "pw-9"},
     lambda r: r["headers"]["Authorization"] == "Basic " + base64.b64encode(b"ann:pw-9").decode()),
    ({"type": "api_key", "apiKeyIn": "header", "apiKeyName": "X-Api-Key", "apiKeyValue": "k-1"},
     lambda r: r["headers"]["X-Api-Key"] == "k-1"),
    ({"type": "api_key", "apiKeyIn": "query", "apiKeyName": "key", "apiKeyValue": "k-2"},
     lambda r: r["query"] == {"key": "k-2", "q": "x"}),
])
async def test_auth_kinds(api, tenant, endpoint, auth, check):
    key = tenant.legacy_key
    tool = await create(api, key, function_body(endpoint.url("/auth"), requestMethod="GET", auth=auth,
                                                parameters=params("q")))
    entry = await run(api, key, tool["_id"], {"q": "x"})
    assert check(endpoint.requests[-1]), endpoint.requests[-1]
    secret = auth.get("token") or auth.get("password") or auth.get("apiKeyValue")
    assert secret not in json.dumps(entry)
    if auth.get("apiKeyIn") == "query":
        assert "key=%2A%2A%2A%2A%2A%2A%2A%2A" in entry["requestUrl"] or "key=********" in entry["requestUrl"]


async def test_errors_timeouts_and_missing_arguments(api, tenant, endpoint):
    key = tenant.legacy_key
    failing = await create(api, key, function_body(endpoint.url("/fail"), name="failing"))
    entry = await run(api, key, failing["_id"], {})
    assert (entry["status"], entry["httpStatus"], entry["result"]) == ("error", 503, {"error": "nope"})
    assert "503" in entry["errorMessage"]
    slow = await create(api, key, function_body(endpoint.url("/slow"), name="slow", timeout=1))
    entry = await run(api, key, slow["_id"], {})
    assert (entry["status"], entry["httpStatus"]) == ("timeout", None) and 900 <= entry["durationMs"] < 3000
    text = await create(api, key, function_body(endpoint.url("/text"), name="text"))
    assert (await run(api, key, text["_id"], {}))["result"] == "plain answer"
    placeholder = await create(api, key, function_body(endpoint.url("/o/{{order_id}}"), name="needs_id",
                                                       parameters=params("order_id")))
    count = len(endpoint.requests)
    entry = await run(api, key, placeholder["_id"], {})
    assert entry["status"] == "error" and "order_id" in entry["errorMessage"] and len(endpoint.requests) == count
    closed = await create(api, key, function_body("http://127.0.0.1:9/", name="closed_port"))
    entry = await run(api, key, closed["_id"], {})
    assert entry["status"] == "error" and entry["errorMessage"].startswith("the call failed")


async def test_async_calls_do_not_wait(api, tenant, endpoint):
    key = tenant.legacy_key
    tool = await create(api, key, function_body(endpoint.url("/slow"), name="fire", **{"async": True}))
    entry = await run(api, key, tool["_id"], {"a": 1})
    assert entry["status"] == "success" and entry["httpStatus"] is None and entry["result"]["async"] is True
    assert entry["durationMs"] < 2000
    for _ in range(50):
        if any(r["path"] == "/slow" for r in endpoint.requests):
            break
        await asyncio.sleep(0.05)
    assert json.loads(endpoint.requests[-1]["body"]) == {"a": 1}


async def test_static_tool_fills_its_placeholders(api, tenant):
    key = tenant.legacy_key
    tool = await create(api, key, example("static_tool", response="On {{current_date}} at {{current_time}} "
                                                                  "({{current_datetime}}) for {{phone_number}}."))
    entry = await run(api, key, tool["_id"], {"phone_number": "14155552671"})
    today = datetime.now(ZoneInfo("UTC")).strftime("%Y-%m-%d")
    assert entry["status"] == "success" and entry["requestUrl"] is None and entry["httpStatus"] is None
    assert entry["result"]["response"].startswith(f"On {today} at ") and entry["result"]["response"].endswith(
        "for 14155552671.")


async def test_other_types_record_what_they_would_send(api, tenant):
    key = tenant.legacy_key
    chat = await create(api, key, example("message_templates"))
    entry = await run(api, key, chat["_id"])
    sends = entry["result"]["wouldSend"]
    assert entry["status"] == "success" and [s["templateType"] for s in sends] == ["button", "cta_url"]
    media = await create(api, key, example("media_attachments"))
    assert (await run(api, key, media["_id"]))["result"]["wouldSend"][0]["caption"] == "Here is our price list."
    store = await create(api, key, example("storeapp"))
    sent = (await run(api, key, store["_id"], {"orderNumber": "1001"}))["result"]["wouldSend"][0]
    assert sent == {"action": "track_order", "limit": 10, "arguments": {"orderNumber": "1001"}}


async def test_run_logs_are_listed_newest_first_and_expire(api, tenant, endpoint):
    key = tenant.legacy_key
    tool = await create(api, key, example("static_tool"))
    empty = await api.get(f"/v2.0/tools/{tool['_id']}/runs", key)
    assert empty.body["data"] == [] and empty.body["pagination"]["total"] == 0
    traces = [(await run(api, key, tool["_id"], {"n": i}))["traceId"] for i in range(3)]
    page = await api.get(f"/v2.0/tools/{tool['_id']}/runs", key, params={"limit": "2"})
    assert page.status == 200
    assert [r["traceId"] for r in page.body["data"]] == traces[::-1][:2]
    assert page.body["pagination"] == {"page": 1, "limit": 2, "total": 3, "totalPages": 2, "hasNext": True}
    assert list(page.body["data"][0]) == RUN_FIELDS
    last = await api.get(f"/v2.0/tools/{tool['_id']}/runs", key, params={"limit": "2", "page": "2"})
    assert [r["args"] for r in last.body["data"]] == [{"n": 0}]
    indexes = await ToolRun.get_pymongo_collection().index_information()
    assert indexes["runs_ttl"]["expireAfterSeconds"] == RUN_RETENTION_SECONDS == 15 * 24 * 3600


async def test_run_logs_older_than_15_days_are_removed_by_the_database(api, tenant):
    key = tenant.legacy_key
    tool = await create(api, key, example("static_tool"))
    old, recent, fresh = [(await run(api, key, tool["_id"], {"n": i}))["traceId"] for i in range(3)]
    now = datetime.now(timezone.utc)
    org = ObjectId(tenant.org_id)
    for trace, age in ((old, timedelta(days=15, minutes=5)), (recent, timedelta(days=14, hours=23))):
        await ToolRun.update_one_in(org, {"trace_id": trace}, {"$set": {"created_at": now - age}})
    # The TTL monitor's pass (SecantusDB runs it every 60 s; its admin command runs one now).
    await ToolRun.get_pymongo_collection().database.client.admin.command("secantusAdmin.pruneTtl")
    listed = await api.get(f"/v2.0/tools/{tool['_id']}/runs", key)
    assert [r["traceId"] for r in listed.body["data"]] == [fresh, recent]
    assert listed.body["pagination"]["total"] == 2


async def test_test_tool_needs_tools_write_and_object_args(api, tenant):
    tool = await create(api, tenant.legacy_key, example("static_tool"))
    reader = await tenant.key("tools:read")
    resp = await api.graphql(TEST_TOOL, reader, {"id": tool["_id"]})
    assert resp.body["errors"][0]["extensions"]["required_scope"] == "tools:write"
    resp = await api.graphql(TEST_TOOL, tenant.legacy_key, {"id": tool["_id"], "args": [1]})
    assert resp.body["errors"][0]["extensions"]["code"] == "VALIDATION_ERROR"
    resp = await api.graphql(TEST_TOOL, tenant.legacy_key, {"id": "nope"})
    assert resp.body["errors"][0]["extensions"]["code"] == "TOOL_NOT_FOUND"


class TestOutsideDevelopment:
    """Production refuses private and loopback destinations, also after a redirect."""

    @pytest.fixture
    def settings(self, settings):
        return replace(settings, environment="production", secret_key="a-production-key-of-at-least-32-chars")

    async def test_loopback_is_refused(self, api, tenant, endpoint):
        key = tenant.legacy_key
        for url in (endpoint.url("/x"), "http://localhost:9/x", "http://10.0.0.8/x", "http://[::1]/x",
                    "http://169.254.169.254/latest/meta-data"):
            tool = await create(api, key, function_body(url, name=f"t{abs(hash(url))}"))
            entry = await run(api, key, tool["_id"], {})
            assert entry["status"] == "error" and entry["errorMessage"].startswith("refused"), (url, entry)
        assert endpoint.requests == []

    async def test_a_redirect_to_a_private_address_is_not_followed(self, api, tenant, aiohttp_server, monkeypatch):
        hits = []

        async def redirect(request):
            hits.append(request.path)
            raise web.HTTPFound("http://127.0.0.2:9/internal")

        app = web.Application()
        app.router.add_get("/start", redirect)
        server = await aiohttp_server(app, host="127.0.0.1", port=0)
        real = netguard._blocked
        # Stand in for a public first hop: only 127.0.0.1 counts as public here.
        monkeypatch.setattr(netguard, "_blocked", lambda ip: str(ip) != "127.0.0.1" and real(ip))
        tool = await create(api, tenant.legacy_key, function_body(str(server.make_url("/start")), requestMethod="GET"))
        entry = await run(api, tenant.legacy_key, tool["_id"], {})
        assert hits == ["/start"]
        assert entry["status"] == "error" and "127.0.0.2" in entry["errorMessage"]


async def test_a_redirect_is_followed_in_development(api, tenant, endpoint, aiohttp_server):
    async def redirect(request):
        raise web.HTTPFound(endpoint.url("/landed"))

    app = web.Application()
    app.router.add_get("/start", redirect)
    server = await aiohttp_server(app, host="127.0.0.1", port=0)
    tool = await create(api, tenant.legacy_key, function_body(str(server.make_url("/start")), requestMethod="GET",
                                                              auth={"type": "bearer", "token": "not-for-others"}))
    entry = await run(api, tenant.legacy_key, tool["_id"], {})
    assert entry["status"] == "success" and endpoint.requests[-1]["path"] == "/landed"
    # Same host (127.0.0.1), so the credentials go along; another host would not get them.
    assert endpoint.requests[-1]["headers"]["Authorization"] == "Bearer not-for-others"
