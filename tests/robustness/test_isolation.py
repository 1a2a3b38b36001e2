"""Tenant isolation, route by route: for every REST route that takes an object id (in its path, its query
or its body), another organisation's id answers exactly like an id that does not exist, and changes
nothing. The routes that take ids are found from the operation declarations; a new one without a case
here fails `test_every_route_taking_an_id_has_an_isolation_case`.
"""
from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest
from bson import ObjectId
from graphql import GraphQLInputObjectType, get_named_type

from leadline.models.contacts import CustomField, Tag
from leadline.models.messaging import ScheduledMessage
from leadline.models.templates import MessageTemplate
from leadline.rest_compat.compile import compile_routes
from leadline.schema import OPERATIONS, schema
from tests.helpers import make_tenant
from tests.messaging.support import PHONE, seed_template, send_body
from tests.templates.support import BRAND, connect_brand, template_settings

ID_NAME = re.compile(r"(Id|Ids|^id|^tags|^tag|^tools)$")
OTHER_BRAND = "15550002222"


def _id_arguments(compiled) -> set[str]:
    """The route's path/query arguments and (nested) body input fields that name object ids."""
    found = {name for name in compiled.variables if ID_NAME.search(name)}
    graphql = schema._schema
    root = graphql.query_type if compiled.operation.kind == "query" else graphql.mutation_type
    for name, arg in root.fields[compiled.operation.name].args.items():
        named = get_named_type(arg.type)
        if isinstance(named, GraphQLInputObjectType):
            found |= {f"{name}.{field}" for field in named.fields if ID_NAME.search(field)}
    return found


ROUTES_WITH_IDS = {(c.method, c.path): _id_arguments(c) for c in compile_routes(schema, OPERATIONS)
                   if _id_arguments(c)}


@pytest.fixture
def settings(settings):
    return replace(template_settings(settings), sandbox_status_delays=(60.0, 61.0, 62.0))


def _normalised(body: dict, *ids: str) -> dict:
    """The body with the two ids (foreign and missing) made equal, so only the behaviour is compared."""
    text = repr(body)
    for value in ids:
        text = text.replace(value, "<id>")
    return {"repr": text}


class World:
    """Organisation A owns one of everything; B (with its own number) tries A's ids."""

    def __init__(self, api, a, b, a_key, b_key):
        self.api, self.a, self.b, self.a_key, self.b_key = api, a, b, a_key, b_key

    async def same(self, method: str, path: str, foreign: str, *, params=None, json=None, missing: str | None = None):
        """B calling with A's id answers as B calling with an id that does not exist."""
        missing = missing or str(ObjectId())

        def fill(value):
            if isinstance(value, str):
                return value.replace("{id}", "{x}")
            if isinstance(value, dict):
                return {k: fill(v) for k, v in value.items()}
            if isinstance(value, list):
                return [fill(v) for v in value]
            return value

        def put(template, value):
            if isinstance(template, str):
                return template.replace("{x}", value)
            if isinstance(template, dict):
                return {k: put(v, value) for k, v in template.items()}
            if isinstance(template, list):
                return [put(v, value) for v in template]
            return template

        shape = (fill(path), fill(params), fill(json))
        answers = []
        for value in (foreign, missing):
            p, q, j = (put(part, value) for part in shape)
            resp = await self.api.call(method, p, self.b_key, params=q, json=j)
            answers.append((resp.status, _normalised(resp.body, foreign, missing)))
        assert answers[0] == answers[1], (method, path, answers)
        return answers[0][0]


@pytest.fixture
async def world(api, client, tenant):
    await connect_brand(tenant)
    other = await make_tenant(client, name="Other")
    await connect_brand(other, OTHER_BRAND)
    await seed_template(tenant)
    await seed_template(other, template_id="1689556908120000")
    return World(api, tenant, other, tenant.legacy_key, other.legacy_key)


async def _a_objects(world) -> dict:
    api, key, org = world.api, world.a_key, ObjectId(world.a.org_id)
    field = (await api.post("/v2.0/contacts/custom_fields", key, json={"fieldName": "Plan"})).body["data"]
    tag = (await api.post("/v2.0/contacts/tags", key, json={"name": "vip"})).body["data"]
    contact = (await api.post("/v2.0/contacts", key, json={"phone": PHONE, "tags": [tag["_id"]]})).body["data"]
    sent = (await api.post("/v2.0/chatapp/send", key, json=send_body())).body["data"]
    at = (datetime.now(timezone.utc) + timedelta(days=1)).isoformat().replace("+00:00", "Z")
    schedule = (await api.post("/v2.0/chatapp/send", key, json=send_body(scheduledAt=at))).body["data"]
    template = await MessageTemplate.find_one_in(org, {})
    return {"field": field["_id"], "tag": tag["_id"], "contact": contact["_id"], "message": sent["messageId"],
            "schedule": schedule["scheduleId"], "template": str(template.id), "templateId": template.template_id}


CASES = {}


def case(method: str, path: str):
    def register(fn):
        CASES[(method, path)] = fn
        return fn
    return register


@case("PUT", "/v2.0/contacts/custom_fields/{fieldId}")
async def _(w, o):
    await w.same("PUT", "/v2.0/contacts/custom_fields/{id}", o["field"], json={"fieldName": "Stolen"})
    assert (await CustomField.get_in(ObjectId(w.a.org_id), o["field"])).fieldName == "Plan"


@case("DELETE", "/v2.0/contacts/custom_fields/{fieldId}")
async def _(w, o):
    await w.same("DELETE", "/v2.0/contacts/custom_fields/{id}", o["field"])
    assert await CustomField.get_in(ObjectId(w.a.org_id), o["field"]) is not None


@case("PUT", "/v2.0/contacts/tags/{tagId}")
async def _(w, o):
    await w.same("PUT", "/v2.0/contacts/tags/{id}", o["tag"], json={"name": "stolen"})
    assert (await Tag.get_in(ObjectId(w.a.org_id), o["tag"])).name == "vip"


@case("DELETE", "/v2.0/contacts/tags/{tagId}")
async def _(w, o):
    await w.same("DELETE", "/v2.0/contacts/tags/{id}", o["tag"])
    assert await Tag.get_in(ObjectId(w.a.org_id), o["tag"]) is not None


@case("POST", "/v2.0/contacts")
async def _(w, o):
    assert await w.same("POST", "/v2.0/contacts", o["tag"], json={"phone": "447911123456", "tags": ["{id}"]}) == 404


@case("POST", "/v2.0/contacts/filter")
async def _(w, o):
    assert await w.same("POST", "/v2.0/contacts/filter", o["tag"], json={"filter": {"tags": "{id}"}}) == 200


@case("GET", "/v2.0/templates/{id}")
async def _(w, o):
    await w.same("GET", "/v2.0/templates/{id}", o["template"])
    await w.same("GET", "/v2.0/templates/{id}", o["templateId"], missing="1689556908129999")


@case("POST", "/v2.0/chatapp/send")
async def _(w, o):
    body = send_body(brandNumber=OTHER_BRAND, templateId="{id}")
    await w.same("POST", "/v2.0/chatapp/send", o["templateId"], json=body, missing="1689556908129999")


@case("GET", "/v2.0/chatapp/message/status")
async def _(w, o):
    await w.same("GET", "/v2.0/chatapp/message/status", o["message"],
                 params={"messageId": "{id}", "brandNumber": OTHER_BRAND})


@case("GET", "/v2.0/scheduled-messages/{scheduleId}")
async def _(w, o):
    await w.same("GET", "/v2.0/scheduled-messages/{id}", o["schedule"])


@case("DELETE", "/v2.0/scheduled-messages/{scheduleId}")
async def _(w, o):
    await w.same("DELETE", "/v2.0/scheduled-messages/{id}", o["schedule"])
    assert (await ScheduledMessage.get_in(ObjectId(w.a.org_id), o["schedule"])).status == "scheduled"


@case("GET", "/v2.0/chats/history")
async def _(w, o):
    await w.same("GET", "/v2.0/chats/history", o["contact"], params={"contactId": "{id}"})


# --- Team inbox (docs/inbox.md) ---------------------------------------------------------------------
async def _inbox(w) -> dict:
    """A's agent, team and assigned conversation; B's own team and conversation (so B's requests pass the
    locator and reach the id under test)."""
    from leadline.models.chats import Conversation
    from leadline.resolvers.inbox.agents import add_agent

    ids = {}
    for side, tenant, key, brand in (("a", w.a, w.a_key, BRAND), ("b", w.b, w.b_key, OTHER_BRAND)):
        agent = (await add_agent(tenant.org_id, "Agent", f"agent@{side}.example.com"))["agentId"]
        team = (await w.api.post("/v2.0/teams", key, json={"name": "Team", "agentIds": [agent]})).body["data"]
        row = Conversation.new(ObjectId(tenant.org_id), contact_id=ObjectId(), brand_number=brand, phone=PHONE)
        await row.insert()
        ids.update({f"{side}_agent": agent, f"{side}_team": team["teamId"], f"{side}_conversation": str(row.id)})
    resp = await w.api.post("/v2.0/conversations/assign", w.a_key, json={"conversationId": ids["a_conversation"],
                                                                          "agentId": ids["a_agent"]})
    assert resp.status == 200, resp.body
    return ids


async def _a_conversation(w, ids):
    from leadline.models.chats import Conversation

    return await Conversation.get_in(ObjectId(w.a.org_id), ids["a_conversation"])


@case("PATCH", "/v2.0/teams/{teamId}")
async def _(w, o):
    ids = await _inbox(w)
    assert await w.same("PATCH", "/v2.0/teams/{id}", ids["a_team"], json={"name": "Stolen"}) == 404
    for field in ("agentIds", "managerIds"):
        assert await w.same("PATCH", f"/v2.0/teams/{ids['b_team']}", ids["a_agent"], json={field: ["{id}"]}) == 400
    team = (await w.api.get("/v2.0/teams", w.a_key)).body["data"][0]
    assert (team["name"], team["agentIds"]) == ("Team", [ids["a_agent"]])


@case("POST", "/v2.0/teams")
async def _(w, o):
    ids = await _inbox(w)
    for field in ("agentIds", "managerIds"):
        assert await w.same("POST", "/v2.0/teams", ids["a_agent"], json={"name": "x", field: ["{id}"]}) == 400


@case("POST", "/v2.0/conversations/assign")
async def _(w, o):
    ids = await _inbox(w)
    path = "/v2.0/conversations/assign"
    assert await w.same("POST", path, ids["a_conversation"], json={"conversationId": "{id}",
                                                                    "agentId": ids["b_agent"]}) == 404
    assert await w.same("POST", path, ids["a_agent"], json={"conversationId": ids["b_conversation"],
                                                             "agentId": "{id}", "teamId": ids["b_team"]}) == 404
    assert await w.same("POST", path, ids["a_team"], json={"conversationId": ids["b_conversation"],
                                                            "teamId": "{id}"}) == 404
    assert str((await _a_conversation(w, ids)).assigned_agent_id) == ids["a_agent"]


@case("POST", "/v2.0/conversations/unassign")
async def _(w, o):
    ids = await _inbox(w)
    assert await w.same("POST", "/v2.0/conversations/unassign", ids["a_conversation"],
                        json={"conversationId": "{id}"}) == 404
    assert str((await _a_conversation(w, ids)).assigned_agent_id) == ids["a_agent"]


@case("GET", "/v2.0/conversations/assignment-history")
async def _(w, o):
    ids = await _inbox(w)
    assert await w.same("GET", "/v2.0/conversations/assignment-history", ids["a_conversation"],
                        params={"conversationId": "{id}"}) == 404


@case("POST", "/v2.0/conversations/status")
async def _(w, o):
    ids = await _inbox(w)
    assert await w.same("POST", "/v2.0/conversations/status", ids["a_conversation"],
                        json={"conversationId": "{id}", "status": "resolved"}) == 404
    assert (await _a_conversation(w, ids)).inbox_status == "open"


# --- Campaigns (docs/campaigns.md) ------------------------------------------------------------------
CAMPAIGN_VARIABLES = {"header": {"text": "A-17"}, "body": [{"field": "name", "default": "you"}, "A-17"],
                      "buttons": [{"index": 1, "params": ["A-17"]}]}


async def _a_campaign(w, o) -> str:
    """A's campaign, scheduled for tomorrow so it stays cancellable."""
    at = (datetime.now(timezone.utc) + timedelta(days=1)).isoformat().replace("+00:00", "Z")
    resp = await w.api.post("/v2.0/campaigns", w.a_key, json={
        "brandNumber": BRAND, "campaignName": "A's", "templateId": o["template"], "audience": {},
        "variables": CAMPAIGN_VARIABLES, "schedule": {"sendAt": at, "timezone": "UTC"}})
    assert resp.status == 201, resp.body
    return resp.body["data"]["campaignId"]


@case("GET", "/v2.0/campaigns/{campaignId}/report")
async def _(w, o):
    assert await w.same("GET", "/v2.0/campaigns/{id}/report", await _a_campaign(w, o)) == 404


@case("POST", "/v2.0/campaigns/{campaignId}/cancel")
async def _(w, o):
    from leadline.models.campaigns import Campaign

    campaign_id = await _a_campaign(w, o)
    assert await w.same("POST", "/v2.0/campaigns/{id}/cancel", campaign_id) == 404
    assert (await Campaign.get_in(ObjectId(w.a.org_id), campaign_id)).status == "scheduled"


@case("POST", "/v2.0/campaigns")
async def _(w, o):
    from leadline.models.campaigns import Segment

    await w.api.post("/v2.0/contacts", w.b_key, json={"phone": PHONE})
    body = {"brandNumber": OTHER_BRAND, "campaignName": "B's", "templateId": "{id}", "audience": {},
            "variables": CAMPAIGN_VARIABLES, "dryRun": True}
    assert await w.same("POST", "/v2.0/campaigns", o["template"], json=body) == 404
    # A's segment and tag in B's audience are unknown to B, in a preview as in a create.
    segment = Segment.new(ObjectId(w.a.org_id), name="A's", filter={})
    await segment.insert()
    segment = str(segment.id)
    preview = "/v2.0/campaigns/preview"
    for audience in ({"segmentIds": ["{id}"]}, {"excludeSegmentIds": ["{id}"]}):
        assert await w.same("POST", preview, segment, json={"brandNumber": OTHER_BRAND, "audience": audience}) == 400
    # A tag id matches B's contacts carrying it: none.
    assert await w.same("POST", preview, o["tag"], json={"brandNumber": OTHER_BRAND, "audience": {"tags": ["{id}"]}}) == 200



# --- assistants and tools -----------------------------------------------------------------------
async def _a_assistant(w) -> str:
    resp = await w.api.post("/v2.0/assistants", w.a_key, json={"name": "A's", "provider": "sandbox",
                                                               "model": "sandbox-echo"})
    assert resp.status == 201, resp.body
    return resp.body["data"]["modelId"]


async def _a_assistant_unchanged(w, model_id: str) -> None:
    from leadline.models.assistants import Assistant, AssistantVersion

    assistant = await Assistant.get_in(ObjectId(w.a.org_id), model_id)
    assert (assistant.name, assistant.is_active, assistant.version) == ("A's", True, 1)
    assert await AssistantVersion.count_in(ObjectId(w.a.org_id), {"assistant_id": assistant.id}) == 1


async def _a_tool(w) -> str:
    from tests.tools.support import create, example

    return (await create(w.api, w.a_key, example("static_tool")))["_id"]


async def _a_tool_unchanged(w, tool_id: str) -> None:
    from leadline.models.tools import Tool

    tool = await Tool.get_in(ObjectId(w.a.org_id), tool_id)
    assert (tool.name, tool.is_active, tool.version) == ("opening_hours", True, 1)


for _method, _suffix, _json in (("GET", "", None), ("PATCH", "", {"name": "Stolen"}),
                                ("POST", "/toggle", {"isActive": False}), ("DELETE", "", None),
                                ("GET", "/history", None), ("POST", "/restore", {"versionNumber": 1})):
    @case(_method, "/v2.0/assistants/{modelId}" + _suffix)
    async def _(w, o, method=_method, suffix=_suffix, json=_json):
        model_id = await _a_assistant(w)
        assert await w.same(method, "/v2.0/assistants/{id}" + suffix, model_id, json=json) == 404
        await _a_assistant_unchanged(w, model_id)


for _method, _suffix, _json in (("GET", "", None), ("PATCH", "", {"name": "stolen"}), ("POST", "/toggle", None),
                                ("DELETE", "", None), ("GET", "/history", None),
                                ("POST", "/restore", {"versionNumber": 1}), ("GET", "/runs", None)):
    @case(_method, "/v2.0/tools/{toolId}" + _suffix)
    async def _(w, o, method=_method, suffix=_suffix, json=_json):
        tool_id = await _a_tool(w)
        assert await w.same(method, "/v2.0/tools/{id}" + suffix, tool_id, json=json) == 404
        await _a_tool_unchanged(w, tool_id)


@case("POST", "/v2.0/tools")
async def _(w, o):
    from tests.tools.support import example

    tag = await w.api.graphql('mutation { createToolTag(name: "A") { _id } }', w.a_key)
    tag_id = tag.body["data"]["createToolTag"]["_id"]
    # A's tool tag on B's tool is unknown to B (details name the missing tag).
    assert await w.same("POST", "/v2.0/tools", tag_id, json=example("static_tool", tags=["{id}"])) == 422


@case("GET", "/v2.0/tools")
async def _(w, o):
    from tests.tools.support import create, example

    tag = await w.api.graphql('mutation { createToolTag(name: "A") { _id } }', w.a_key)
    tag_id = tag.body["data"]["createToolTag"]["_id"]
    await create(w.api, w.a_key, example("static_tool", tags=[tag_id]))
    # Filtering B's tools by A's tag finds nothing, as an unknown tag does.
    assert await w.same("GET", "/v2.0/tools", tag_id, params={"tag": "{id}"}) == 200


@case("POST", "/v2.0/assistants")
async def _(w, o):
    from leadline.models.assistants import Assistant

    tool_id = await _a_tool(w)
    body = {"name": "B's", "provider": "sandbox", "model": "sandbox-echo", "tools": ["{id}"]}
    # A's tool is not a tool of B's: the same 422 (tools[0] TOOL_NOT_FOUND) as an unknown id.
    assert await w.same("POST", "/v2.0/assistants", tool_id, json=body) == 422
    assert await Assistant.count_in(ObjectId(w.b.org_id)) == 0


@case("PATCH", "/v2.0/assistants/{modelId}")
async def _(w, o):
    model_id = await _a_assistant(w)
    assert await w.same("PATCH", "/v2.0/assistants/{id}", model_id, json={"name": "Stolen"}) == 404
    await _a_assistant_unchanged(w, model_id)
    # B's own assistant cannot take A's tool either.
    mine = await w.api.post("/v2.0/assistants", w.b_key, json={"name": "B's", "provider": "sandbox",
                                                               "model": "sandbox-echo"})
    tool_id = await _a_tool(w)
    path = f"/v2.0/assistants/{mine.body['data']['modelId']}"
    assert await w.same("PATCH", path, tool_id, json={"tools": ["{id}"]}) == 422
    assert (await w.api.get(path, w.b_key)).body["data"]["tools"] == []

# --- Lead segmentation (docs/leads.md): categories and insights are addressed by name and key -------------
ROUTES_WITH_NAMES = {(c.method, c.path) for c in compile_routes(schema, OPERATIONS)
                     if re.search(r"\{(name|key)\}", c.path)}


async def _a_leads(w) -> None:
    """A's category and insight; B has its own (so B's configuration exists and is not empty)."""
    for key, name in ((w.a_key, "Hot A"), (w.b_key, "Hot B")):
        assert (await w.api.post("/v2.0/leads/categories", key, json={"name": name})).status == 201
        assert (await w.api.post("/v2.0/leads/insights", key, json={"key": name.replace(" ", "_"),
                                                                    "name": name})).status == 201
    assert (await w.api.post("/v2.0/contacts", w.a_key, json={"phone": PHONE, "lead_category": "Hot A"})).status == 200


async def _a_leads_unchanged(w) -> None:
    data = (await w.api.get("/v2.0/leads/segmentation", w.a_key)).body["data"]
    assert [(c["name"], c["description"], c["followups"]) for c in data["categories"]] == [("Hot A", "", [])]
    assert [(i["key"], i["name"]) for i in data["audienceSegments"]] == [("Hot_A", "Hot A")]
    contact = (await w.api.post("/v2.0/contacts/phone", w.a_key, json={"phone": PHONE})).body["data"]
    assert contact["lead_category"] == "Hot A"
    b = (await w.api.get("/v2.0/leads/segmentation", w.b_key)).body["data"]
    assert [c["name"] for c in b["categories"]] == ["Hot B"] and [i["key"] for i in b["audienceSegments"]] == ["Hot_B"]


for _method, _path, _json in (("GET", "/v2.0/leads/categories/{id}", None),
                              ("PATCH", "/v2.0/leads/categories/{id}", {"name": "Stolen", "description": "x"}),
                              ("DELETE", "/v2.0/leads/categories/{id}", None),
                              ("PUT", "/v2.0/leads/categories/{id}/followups", {"followups": [{"delay": 1, "prompt": "x"}]}),
                              ("GET", "/v2.0/leads/insights/{id}", None),
                              ("PATCH", "/v2.0/leads/insights/{id}", {"name": "Stolen"}),
                              ("DELETE", "/v2.0/leads/insights/{id}", None)):
    @case(_method, _path.replace("{id}", "{key}" if "insights" in _path else "{name}"))
    async def _(w, o, method=_method, path=_path, json=_json):
        await _a_leads(w)
        foreign = "Hot_A" if "insights" in path else "Hot A"
        assert await w.same(method, path, foreign, json=json, missing="Missing_one") == 404
        if (method, path) == ("DELETE", "/v2.0/leads/categories/{id}"):
            # B moving its own contacts onto A's category: unknown to B, like a missing one.
            assert await w.same("DELETE", "/v2.0/leads/categories/Hot%20B", "Hot A", params={"reassignTo": "{id}"},
                                missing="Missing one") == 404
            # B's contact naming A's category: unknown to B.
            body = {"phone": "447911123459", "lead_category": "{id}"}
            assert await w.same("POST", "/v2.0/contacts", "Hot A", json=body, missing="Missing one") == 400
        await _a_leads_unchanged(w)


def test_every_route_taking_an_id_has_an_isolation_case():
    assert set(ROUTES_WITH_IDS) - set(CASES) == set(), "add an isolation case for these routes"
    # The filter's ids (tags) sit inside its free-form JSON, where no type names them.
    assert set(CASES) - set(ROUTES_WITH_IDS) - ROUTES_WITH_NAMES == {("POST", "/v2.0/contacts/filter")}
    # Categories and insights are addressed by name and key: another organisation's answers as a missing one.
    assert ROUTES_WITH_NAMES and ROUTES_WITH_NAMES - set(CASES) == set(), "add an isolation case for these routes"


@pytest.mark.parametrize("route", sorted(CASES), ids=lambda r: f"{r[0]} {r[1]}")
async def test_another_organisations_id_is_like_a_missing_one(world, route):
    await CASES[route](world, await _a_objects(world))

