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

ID_NAME = re.compile(r"(Id|Ids|^id|^tags)$")
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


def test_every_route_taking_an_id_has_an_isolation_case():
    assert set(ROUTES_WITH_IDS) - set(CASES) == set(), "add an isolation case for these routes"
    # The filter's ids (tags) sit inside its free-form JSON, where no type names them.
    assert set(CASES) - set(ROUTES_WITH_IDS) == {("POST", "/v2.0/contacts/filter")}


@pytest.mark.parametrize("route", sorted(CASES), ids=lambda r: f"{r[0]} {r[1]}")
async def test_another_organisations_id_is_like_a_missing_one(world, route):
    await CASES[route](world, await _a_objects(world))
