"""The MCP server against a real `leadline up` (its --mcp-port), with the official `mcp` client.

Over streamable HTTP (the 2026 per-request protocol and the handshake protocol with sessions) and the
legacy SSE transport: the 75 tools for a full-access key and only the permitted ones for a scoped key,
valid input schemas, a round of calls that answers what REST answers (byte for byte where nothing
changes in between), scope refusals as `isError` results, keys refused at connect, the three prompts,
two organisations' sessions that never meet, and bad input as error envelopes.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import httpx2
import pytest
from bson import ObjectId
from jsonschema import Draft202012Validator
from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from redis.asyncio import Redis

from leadline.database import connect_database
from leadline.embedded import free_port, read_state
from leadline.mcp_server.prompts import PLAYBOOKS
from leadline.models.templates import MessageTemplate
from leadline.resolvers.auth import admin
from leadline.resolvers.channels.admin import connect_channel
from leadline.resolvers.contacts.fields import FIELD_TYPES
from leadline.resolvers.tools.definitions import TYPES as TOOL_TYPE_DEFS
from leadline.schema import OPERATIONS
from tests.messaging.support import TEMPLATE_ID, UTILITY_COMPONENTS, send_body
from tests.spine.test_operations import MCP_TOOLS
from tests.templates.support import BRAND

LEADLINE = [sys.executable, "-m", "leadline.cli"]
DATABASE = "leadline"
TRANSPORTS = [("streamable", "auto"), ("streamable", "legacy"), ("sse", "legacy")]
TRANSPORT_IDS = ["streamable-http", "streamable-http-handshake", "sse"]


# --- the stack ---------------------------------------------------------------------------------------------
@dataclass
class Up:
    url: str
    mcp_url: str
    mongodb_url: str
    redis_url: str


def _get(url: str) -> tuple[int, dict | None]:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")
    except (urllib.error.URLError, OSError):
        return 0, None


def _wait(check, what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def up(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("mcp-up")
    port, mcp_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items()
           if k not in ("MONGODB_URL", "REDIS_URL", "MONGODB_DATABASE", "LEADLINE_REDIS_PREFIX", "LEADLINE_MCP_PORT")}
    env.update(LEADLINE_LOG_LEVEL="WARNING", LEADLINE_SANDBOX_STATUS_DELAYS="0.05,0.1,0.15")
    out, err = cwd / "up.out", cwd / "up.err"
    proc = subprocess.Popen([*LEADLINE, "up", "--port", str(port), "--mcp-port", str(mcp_port), "--data-dir",
                             ".leadline"], cwd=cwd, env=env, stdout=open(out, "wb"), stderr=open(err, "wb"),
                            start_new_session=True)
    try:
        def ready() -> bool:
            if proc.poll() is not None:
                raise AssertionError(f"leadline up exited:\n{out.read_text()}\n{err.read_text()[-3000:]}")
            return "Leadline is up" in out.read_text()

        _wait(ready, "leadline up", 120)
        mcp_url = f"http://127.0.0.1:{mcp_port}"
        _wait(lambda: _get(f"{mcp_url}/health") == (200, {"status": "ok"}), "the MCP server's /health", 60)
        state = read_state(str(cwd / ".leadline"))
        assert state["mcp_url"] == mcp_url
        yield Up(f"http://127.0.0.1:{port}", mcp_url, state["mongodb_url"], state["redis_url"])
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)


@dataclass
class Orgs:
    a: str
    b: str
    a_key: str  # legacy: full access
    b_key: str
    a_scoped: str  # contacts:read, billing:read
    a_scoped_id: str


@asynccontextmanager
async def database(up: Up):
    """The stack's database, for what tests set up through the admin code (as `leadline admin` does)."""
    mongo = await connect_database(up.mongodb_url, DATABASE)
    try:
        yield
    finally:
        await mongo.close()


@pytest.fixture(scope="module")
async def orgs(up) -> Orgs:
    async with database(up):
        a = await admin.create_org("Org A", plan="business")
        b = await admin.create_org("Org B", plan="business")
        scoped = await admin.create_key(a["orgId"], "contacts:read,billing:read", "mcp")
        await connect_channel(a["orgId"], "chatapp", BRAND, "Org A", "APPROVED")
        await MessageTemplate.new(ObjectId(a["orgId"]), name="order_update", template_id=TEMPLATE_ID, language="en",
                                  category="UTILITY", status="APPROVED", brand_number=BRAND,
                                  components=UTILITY_COMPONENTS).insert()
    return Orgs(a["orgId"], b["orgId"], a["legacyKey"], b["legacyKey"], scoped["key"], scoped["keyId"])


# --- clients -----------------------------------------------------------------------------------------------
def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@asynccontextmanager
async def session(up: Up, key: str, transport: str = "streamable", mode: str = "auto"):
    """An official MCP client session with the key (streamable HTTP in `mode`, or SSE)."""
    if transport == "sse":
        async with Client(sse_client(f"{up.mcp_url}/sse", headers=bearer(key)), mode="legacy") as client:
            yield client
        return
    async with httpx2.AsyncClient(headers=bearer(key), timeout=httpx2.Timeout(30, read=300)) as http:
        async with Client(streamable_http_client(f"{up.mcp_url}/mcp", http_client=http), mode=mode) as client:
            yield client


async def rest(up: Up, method: str, path: str, key: str | None = None, *, body=None) -> tuple[int, str]:
    headers = bearer(key) if key else {}
    async with aiohttp.ClientSession() as http:
        async with http.request(method, f"{up.url}{path}", json=body, headers=headers) as resp:
            return resp.status, await resp.text()


def text_of(result) -> str:
    assert len(result.content) == 1 and result.content[0].type == "text"
    return result.content[0].text


def status_of(result) -> int:
    return result.meta["leadline.dev/status"]


def declared_names() -> set[str]:
    return {op.mcp.name for op in OPERATIONS if op.mcp is not None}


# --- connect and list --------------------------------------------------------------------------------------
def test_health_needs_no_key(up):
    assert _get(f"{up.mcp_url}/health") == (200, {"status": "ok"})


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def test_a_missing_or_bad_key_is_refused_at_connect_with_the_rest_body(up, orgs):
    async with aiohttp.ClientSession() as http:
        for key, code in ((None, "API_KEY_MISSING"), ("not-a-key", "INVALID_API_KEY"), ("a" * 64, "INVALID_API_KEY")):
            headers = {**MCP_HEADERS, **(bearer(key) if key else {})}
            rest_status, rest_text = await rest(up, "GET", "/v2.0/contacts", key)
            async with http.post(f"{up.mcp_url}/mcp", json=INITIALIZE, headers=headers) as resp:
                assert (resp.status, await resp.text()) == (rest_status, rest_text) == (401, rest_text)
                assert json.loads(rest_text)["code"] == code
                assert "mcp-session-id" not in resp.headers
            async with http.get(f"{up.mcp_url}/sse", headers=bearer(key) if key else {}) as resp:
                assert (resp.status, await resp.text()) == (401, rest_text)
            async with http.post(f"{up.mcp_url}/messages/?session_id={'0' * 32}", json=INITIALIZE,
                                 headers=headers) as resp:
                assert resp.status == 401
    for transport, mode in TRANSPORTS:
        with pytest.raises(Exception) as refused:
            async with session(up, "a" * 64, transport, mode) as client:
                await client.list_tools()
        assert "401" in repr(refused.value) or "Server returned an error" in repr(refused.value)


@pytest.mark.parametrize("transport,mode", TRANSPORTS, ids=TRANSPORT_IDS)
async def test_a_full_access_key_lists_exactly_the_75_tools_with_valid_schemas(up, orgs, transport, mode):
    async with session(up, orgs.a_key, transport, mode) as client:
        tools = (await client.list_tools()).tools
    names = [t.name for t in tools]
    assert len(names) == 75 == len(set(names))
    assert set(names) == MCP_TOOLS == declared_names()
    queries = {op.mcp.name for op in OPERATIONS if op.mcp and op.kind == "query"}
    deletes = {op.mcp.name for op in OPERATIONS if op.mcp and op.rest and op.rest.method == "DELETE"}
    for tool in tools:
        schema = tool.input_schema
        Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object" and set(schema.get("required", ())) <= set(schema["properties"])
        assert tool.description and "\n" not in tool.description
        assert tool.annotations.read_only_hint is (tool.name in queries)
        assert tool.annotations.destructive_hint is (None if tool.name in queries else tool.name in deletes)
    assert {t.name for t in tools if t.annotations.destructive_hint} == deletes


async def test_input_schemas_say_what_rest_validates(up, orgs):
    async with session(up, orgs.a_key) as client:
        tools = {t.name: t.input_schema for t in (await client.list_tools()).tools}
    # path parameters, required fields (spec), enums and bounds from the domain's own constants
    assert tools["update_custom_field"]["required"] == ["fieldId"]
    assert tools["create_custom_field"]["properties"]["fieldType"]["enum"] == list(FIELD_TYPES)
    assert tools["create_custom_field"]["required"] == ["fieldName"]
    assert tools["send_template_message"]["required"] == ["to", "brandNumber"]
    assert tools["list_contacts"]["properties"]["limit"]["maximum"] == 100
    assert tools["filter_contacts"]["properties"]["limit"]["maximum"] == 500
    assert {"minimum": 1, "maximum": 8000}.items() <= tools["create_assistant"]["properties"]["maxTokens"].items()
    assert tools["update_lead_category"]["properties"].keys() >= {"name", "newName"}  # path {name} and the rename
    assert "category" in tools["set_lead_followups"]["properties"]
    assert tools["set_lead_followups"]["required"] == ["followups"]
    # every published example of a tool type is a valid create_tool call
    validator = Draft202012Validator(tools["create_tool"])
    for type_def in TOOL_TYPE_DEFS.values():
        assert not list(validator.iter_errors(type_def.example)), type_def.name


async def test_a_scoped_key_lists_only_what_its_scopes_allow(up, orgs):
    scopes = {"contacts:read", "billing:read"}
    expected = {op.mcp.name for op in OPERATIONS if op.mcp and op.spec.scope in scopes}
    assert expected == {"list_contacts", "filter_contacts", "find_contact_by_phone", "get_plan", "list_subscriptions",
                        "list_payments", "get_wallet_balance"}
    for transport, mode in TRANSPORTS:
        async with session(up, orgs.a_scoped, transport, mode) as client:
            assert {t.name for t in (await client.list_tools()).tools} == expected


# --- calls -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("transport,mode", TRANSPORTS, ids=TRANSPORT_IDS)
async def test_a_round_of_calls_answers_what_rest_answers(up, orgs, transport, mode):
    phone = f"1415555{TRANSPORTS.index((transport, mode)):04d}"
    key = orgs.a_key
    async with session(up, key, transport, mode) as client:
        # the plan: the same bytes
        plan = await client.call_tool("get_plan", {})
        assert (200, text_of(plan)) == await rest(up, "GET", "/v2.0/billing/plan", key)
        assert plan.structured_content == json.loads(text_of(plan)) and not plan.is_error

        # upsert, then find: the contact REST finds is the one the tool wrote, byte for byte
        created = await client.call_tool("upsert_contact", {"phone": phone, "contactName": "Ann", "city": "Pune"})
        assert not created.is_error and status_of(created) == 201
        assert created.structured_content["data"]["isNew"] is True
        found = await client.call_tool("find_contact_by_phone", {"phone": phone})
        assert (200, text_of(found)) == await rest(up, "POST", "/v2.0/contacts/phone", key, body={"phone": phone})
        assert found.structured_content["data"]["contactName"] == "Ann"

        # a campaign audience preview: the same bytes
        audience = {"brandNumber": BRAND, "audience": {"contacts": [{"phone": phone, "name": "Ann"}]}}
        preview = await client.call_tool("preview_campaign_audience", audience)
        assert (200, text_of(preview)) == await rest(up, "POST", "/v2.0/campaigns/preview", key, body=audience)
        assert preview.structured_content["data"]["totalContacts"] == 1

        # a template send on the sandbox channel: the same envelope but for the new message's id
        sent = await client.call_tool("send_template_message", send_body(to=phone))
        rest_status, rest_text = await rest(up, "POST", "/v2.0/chatapp/send", key, body=send_body(to=phone))
        assert not sent.is_error and status_of(sent) == rest_status == 200
        by_tool, by_rest = json.loads(text_of(sent)), json.loads(rest_text)
        message_id = by_tool["data"].pop("messageId")
        assert message_id != by_rest["data"].pop("messageId")
        assert by_tool == by_rest and by_tool["data"]["status"] == "accepted"
        status = await client.call_tool("get_message_status", {"messageId": message_id, "brandNumber": BRAND})
        assert not status.is_error and status.structured_content["success"] is True


async def test_variant_arguments_select_the_other_route(up, orgs):
    key = orgs.a_key
    async with session(up, key) as client:
        custom = await client.call_tool("list_contact_fields", {"type": "custom"})
        assert (200, text_of(custom)) == await rest(up, "GET", "/v2.0/contacts/custom_fields", key)
        every = await client.call_tool("list_contact_fields", {"type": "all"})
        assert (200, text_of(every)) == await rest(up, "GET", "/v2.0/contacts/fields?type=all", key)
        missing = await client.call_tool("list_scheduled_messages", {"scheduleId": "6b0000000000000000000000"})
        assert missing.is_error
        assert (status_of(missing), text_of(missing)) == await rest(
            up, "GET", "/v2.0/scheduled-messages/6b0000000000000000000000", key)
        followups = {"followups": [{"delay": 3600, "prompt": "Still interested?"}]}
        one = await client.call_tool("set_lead_followups", {"category": "nobody", **followups})
        assert (status_of(one), text_of(one)) == await rest(up, "PUT", "/v2.0/leads/categories/nobody/followups", key,
                                                            body=followups)


async def test_a_tool_outside_the_keys_scopes_is_an_error_result_and_does_nothing(up, orgs):
    phone = "14155559999"
    async with session(up, orgs.a_scoped, "streamable", "legacy") as client:
        refused = await client.call_tool("upsert_contact", {"phone": phone})
        assert refused.is_error and status_of(refused) == 403
        assert refused.structured_content == {"error": True, "code": "INSUFFICIENT_SCOPE",
                                              "message": refused.structured_content["message"],
                                              "required_scope": "contacts:write"}
        assert (403, text_of(refused)) == await rest(up, "POST", "/v2.0/contacts", orgs.a_scoped, body={"phone": phone})
        tags = await client.call_tool("list_tags", {})
        assert tags.is_error and tags.structured_content["required_scope"] == "config:read"
        allowed = await client.call_tool("find_contact_by_phone", {"phone": phone})
        assert allowed.is_error and allowed.structured_content["code"] == "CONTACT_NOT_FOUND"


async def test_bad_input_is_an_error_envelope_never_a_crash(up, orgs):
    key = orgs.a_key
    async with session(up, key) as client:
        wrong_type = await client.call_tool("list_contacts", {"limit": "many"})
        assert wrong_type.is_error and wrong_type.structured_content["code"] == "VALIDATION_ERROR"
        assert (status_of(wrong_type), text_of(wrong_type)) == await rest(up, "GET", "/v2.0/contacts?limit=many", key)
        too_big = await client.call_tool("list_contacts", {"limit": 1000})
        assert (status_of(too_big), text_of(too_big)) == await rest(up, "GET", "/v2.0/contacts?limit=1000", key)
        unknown = await client.call_tool("upsert_contact", {"phone": "14155550000", "colour": "red"})
        assert unknown.is_error and unknown.structured_content["details"][0]["code"] == "UNKNOWN_FIELD"
        shape = await client.call_tool("send_message", {"to": 5, "brandNumber": BRAND, "type": "text", "content": []})
        assert shape.is_error and shape.structured_content["code"] == "VALIDATION_ERROR"
        missing = await client.call_tool("update_custom_field", {"fieldName": "x"})
        assert missing.is_error and missing.structured_content["code"] == "VALIDATION_ERROR"
        missing_phone = await client.call_tool("upsert_contact", {})
        assert (status_of(missing_phone), text_of(missing_phone)) == await rest(up, "POST", "/v2.0/contacts", key,
                                                                                body={})
        with pytest.raises(MCPError, match="Unknown tool"):
            await client.call_tool("no_such_tool", {})
        assert not (await client.call_tool("get_plan", {})).is_error  # the session goes on


# --- prompts -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("transport,mode", TRANSPORTS, ids=TRANSPORT_IDS)
async def test_the_three_prompts(up, orgs, transport, mode):
    arguments = {"launch_campaign": {"brandNumber": BRAND, "goal": "Bring back customers for the summer sale"},
                 "triage_inbox": {"teamId": "6b0000000000000000000001"},
                 "setup_lead_studio": {"businessDescription": "A bakery selling wedding cakes"}}
    async with session(up, orgs.a_key, transport, mode) as client:
        listed = {p.name: p for p in (await client.list_prompts()).prompts}
        assert set(listed) == set(arguments)
        assert [a.name for a in listed["launch_campaign"].arguments] == ["brandNumber", "goal"]
        assert listed["triage_inbox"].arguments[0].required is False
        for name, args in arguments.items():
            result = await client.get_prompt(name, args)
            text = result.messages[0].content.text
            assert all(value in text for value in args.values())
            positions = [text.find(tool) for tool in PLAYBOOKS[name].tools]
            assert -1 not in positions and positions == sorted(positions), name
            assert set(PLAYBOOKS[name].tools) <= MCP_TOOLS
        assert "6b0000000000000000000001" not in (await client.get_prompt("triage_inbox", {})).messages[0].content.text
        with pytest.raises(MCPError, match="brandNumber"):
            await client.get_prompt("launch_campaign", {"goal": "x"})


# --- tenancy -----------------------------------------------------------------------------------------------
async def test_two_organisations_sessions_never_see_each_others_data(up, orgs):
    phone = "14155558888"
    async with session(up, orgs.a_key, "streamable", "legacy") as a, session(up, orgs.b_key, "sse") as b:
        assert not (await a.call_tool("upsert_contact", {"phone": phone, "contactName": "Only A"})).is_error
        hidden = await b.call_tool("find_contact_by_phone", {"phone": phone})
        assert hidden.is_error and hidden.structured_content["code"] == "CONTACT_NOT_FOUND"
        listed = await b.call_tool("list_contacts", {})
        assert phone not in text_of(listed)
        own = await b.call_tool("upsert_contact", {"phone": phone, "contactName": "Only B"})
        assert own.structured_content["data"]["isNew"] is True
        seen_by_a = await a.call_tool("find_contact_by_phone", {"phone": phone})
        assert seen_by_a.structured_content["data"]["contactName"] == "Only A"
        a_plan = await a.call_tool("get_plan", {})
        b_plan = await b.call_tool("get_plan", {})
        assert a_plan.structured_content["data"]["subscription"] != b_plan.structured_content["data"]["subscription"]


async def test_a_session_answers_only_the_key_that_opened_it(up, orgs):
    async with aiohttp.ClientSession() as http:
        async with http.post(f"{up.mcp_url}/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **bearer(orgs.a_key)}) as resp:
            assert resp.status == 200
            session_id = resp.headers["mcp-session-id"]
            await resp.read()
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        headers = {**MCP_HEADERS, "mcp-session-id": session_id, "mcp-protocol-version": "2025-11-25"}
        async with http.post(f"{up.mcp_url}/mcp", json=listing, headers={**headers, **bearer(orgs.b_key)}) as resp:
            assert resp.status == 404  # another organisation's key: no such session
        async with http.post(f"{up.mcp_url}/mcp", json=listing, headers={**headers, **bearer(orgs.a_scoped)}) as resp:
            assert resp.status == 404  # another key of the same organisation either
        async with http.post(f"{up.mcp_url}/mcp", json=listing, headers={**headers, **bearer(orgs.a_key)}) as resp:
            assert resp.status == 200 and "find_contact_by_phone" in await resp.text()
        async with http.delete(f"{up.mcp_url}/mcp", headers={**headers, **bearer(orgs.a_key)}) as resp:
            assert resp.status in (200, 204)


async def test_a_revoked_key_is_refused_on_its_next_message(up, orgs):
    async with database(up):
        created = await admin.create_key(orgs.a, "billing:read", "to revoke")
    async with session(up, created["key"], "streamable", "legacy") as client:
        assert not (await client.call_tool("get_plan", {})).is_error
        redis = Redis.from_url(up.redis_url)
        try:
            async with database(up):
                await admin.revoke_key(redis, "leadline", orgs.a, created["keyId"])
        finally:
            await redis.aclose()
        with pytest.raises(MCPError, match="Server returned an error response"):
            await client.call_tool("get_plan", {})  # the SDK's report of the HTTP 401 below
    async with aiohttp.ClientSession() as http:
        async with http.post(f"{up.mcp_url}/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **bearer(created["key"])}) as resp:
            assert resp.status == 401 and (await resp.json())["code"] == "INVALID_API_KEY"


async def test_each_tool_call_is_one_request_against_the_keys_rate_limits(up, orgs):
    async with database(up):
        created = await admin.create_key(orgs.a, "billing:read,contacts:read", "rate")
    day_log = f"leadline:rl:{created['keyId']}:d"  # the gate's per-day window of this key
    redis = Redis.from_url(up.redis_url)
    try:
        async with session(up, created["key"], "streamable", "legacy") as client:
            await client.list_tools()
            before = await redis.zcard(day_log)
            await client.list_tools()  # protocol messages are not requests of the API
            await client.list_prompts()
            assert await redis.zcard(day_log) == before
            assert not (await client.call_tool("get_plan", {})).is_error
            assert not (await client.call_tool("find_contact_by_phone", {"phone": "1"})).structured_content["success"]
            assert await redis.zcard(day_log) == before + 2

            # the day's window full (Business: 50,000): the tool call is refused as REST refuses the request
            seconds, micros = await redis.time()
            now = seconds * 1_000_000 + micros
            for start in range(0, 50_000, 10_000):
                await redis.zadd(day_log, {f"filler{i}": now for i in range(start, start + 10_000)})
            refused = await client.call_tool("get_plan", {})
            rest_status, rest_text = await rest(up, "GET", "/v2.0/billing/plan", created["key"])
            assert refused.is_error and (status_of(refused), text_of(refused)) == (rest_status, rest_text)
            assert refused.structured_content["code"] == "RATE_LIMIT_EXCEEDED_PER_DAY" and rest_status == 429
            assert refused.meta["leadline.dev/retryAfter"] >= 1
    finally:
        await redis.delete(day_log)
        await redis.aclose()


def test_every_tool_of_the_playbooks_is_in_the_catalogue():
    for playbook in PLAYBOOKS.values():
        assert set(playbook.tools) <= MCP_TOOLS, playbook.name


def test_the_docs_list_every_tool_and_the_endpoints():
    docs = Path(__file__).resolve().parents[2] / "docs" / "mcp.md"
    text = docs.read_text()
    assert "/mcp" in text and "/sse" in text
    assert all(name in text for name in MCP_TOOLS)
