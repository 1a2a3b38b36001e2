"""The generic /v2.0 handler: bodies, variables, envelopes and markers, exercised with a small schema."""
from __future__ import annotations

import pytest
import strawberry
from strawberry.types import Info

from leadline.app import create_app
from leadline.resolvers.errors import ApiError
from leadline.rest_compat.compile import compile_route
from leadline.rest_compat.table import ERROR_MARKER, Reply, Route
from leadline.schema import LeadlineSchema, _MaskUnexpectedErrors
from leadline.schema.permissions import needs
from leadline.schema.scalars import SCALAR_OVERRIDES
from tests.helpers import Api, assert_error, make_tenant


@strawberry.input
class EchoInput:
    name: str | None = None
    count: int | None = None


@strawberry.type
class Echo:
    name: str | None
    count: int | None


@strawberry.type
class Query:
    @strawberry.field(permission_classes=needs("contacts:read"))
    def echo_query(self, info: Info, page: int | None = None, flag: bool | None = None) -> Echo:
        return Echo(name=str(flag), count=page)


@strawberry.type
class Mutation:
    @strawberry.field(permission_classes=needs("contacts:write"))
    def echo(self, info: Info, input: EchoInput) -> Echo:
        if input.name == "refuse":
            raise ApiError("MISSING_PHONE", "phone is required")
        if input.name == "crash":
            raise RuntimeError("secret internal detail")
        return Echo(name=input.name, count=input.count)


test_schema = LeadlineSchema(query=Query, mutation=Mutation, scalar_overrides=SCALAR_OVERRIDES,
                             extensions=[_MaskUnexpectedErrors])
ROUTES = [
    Route("POST", "/v2.0/echo", "contacts:write", summary="echo", body="input", status=201,
          operation="mutation($input: EchoInput!) { echo(input: $input) { name count } }"),
    Route("POST", "/v2.0/echo-templates", "contacts:write", summary="echo", body="input", marker=ERROR_MARKER,
          operation="mutation($input: EchoInput!) { echo(input: $input) { name count } }"),
    Route("GET", "/v2.0/echo/{page}", "contacts:read", summary="echo",
          operation="query($page: Int, $flag: Boolean) { echoQuery(page: $page, flag: $flag) { name count } }",
          reply=lambda r: Reply({"data": r, "meta": {"seen": True}})),
]


@pytest.fixture
async def echo(aiohttp_client, settings):
    client = await aiohttp_client(create_app(settings, graphql_schema=test_schema, routes=ROUTES))
    tenant = await make_tenant(client)
    return Api(client), tenant.legacy_key


async def test_body_becomes_input_and_route_status_applies(echo):
    api, key = echo
    resp = await api.post("/v2.0/echo", key, json={"name": "a", "count": 3})
    assert resp.status == 201
    assert resp.body == {"success": True, "data": {"name": "a", "count": 3}}


async def test_malformed_json_non_object_and_wrong_media_type(echo):
    api, key = echo
    bad = await api.post("/v2.0/echo", key, data="{not json", headers={"Content-Type": "application/json"})
    assert_error(bad, 400, "INVALID_JSON")
    arr = await api.post("/v2.0/echo", key, json=[1, 2])
    assert_error(arr, 400, "INVALID_BODY")
    form = await api.post("/v2.0/echo", key, data="name=a", headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert_error(form, 415, "UNSUPPORTED_MEDIA_TYPE")


async def test_wrong_types_and_unknown_fields_are_validation_errors_with_paths(echo):
    api, key = echo
    resp = await api.post("/v2.0/echo", key, json={"count": "three"})
    body = assert_error(resp, 400, "VALIDATION_ERROR")
    assert body["details"][0]["path"] == "count"
    resp = await api.post("/v2.0/echo", key, json={"nmae": "typo"})
    body = assert_error(resp, 400, "VALIDATION_ERROR")
    assert body["details"][0] == {"path": "nmae", "code": "UNKNOWN_FIELD", "message": "'nmae' is not a known field"}


async def test_domain_error_uses_the_route_groups_marker(echo):
    api, key = echo
    assert_error(await api.post("/v2.0/echo", key, json={"name": "refuse"}), 400, "MISSING_PHONE")
    assert_error(await api.post("/v2.0/echo-templates", key, json={"name": "refuse"}), 400, "MISSING_PHONE",
                 marker="error")


async def test_unexpected_exception_is_a_500_without_internals(echo):
    api, key = echo
    resp = await api.post("/v2.0/echo", key, json={"name": "crash"})
    assert_error(resp, 500, "INTERNAL_SERVER_ERROR")
    assert "secret" not in str(resp.body) and "Traceback" not in str(resp.body)


async def test_path_and_query_parameters_are_coerced(echo):
    api, key = echo
    resp = await api.get("/v2.0/echo/7", key, params={"flag": "true"})
    assert resp.status == 200
    assert resp.body == {"success": True, "data": {"name": "True", "count": 7}, "meta": {"seen": True}}
    bad = await api.get("/v2.0/echo/seven", key)
    assert assert_error(bad, 400, "VALIDATION_ERROR")["details"][0]["path"] == "page"
    bad = await api.get("/v2.0/echo/1", key, params={"flag": "maybe"})
    assert assert_error(bad, 400, "VALIDATION_ERROR")["details"][0]["path"] == "flag"


def test_a_route_whose_scope_differs_from_its_field_stops_start_up():
    wrong = Route("GET", "/v2.0/x", "billing:read", summary="x",
                  operation="query { echoQuery { name } }")
    with pytest.raises(RuntimeError, match="differs from field scope"):
        compile_route(test_schema, wrong)


def test_an_operation_that_does_not_validate_stops_start_up():
    broken = Route("GET", "/v2.0/x", "contacts:read", summary="x", operation="query { echoQuery { nope } }")
    with pytest.raises(RuntimeError, match="does not validate"):
        compile_route(test_schema, broken)
