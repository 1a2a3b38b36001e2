"""The generic /v2.0 handler: bodies, variables, envelopes and markers, exercised with a small schema."""
from __future__ import annotations

import pytest
import strawberry

from leadline.app import create_app
from leadline.resolvers.errors import ApiError
from leadline.resolvers.context import RequestContext
from leadline.rest_compat.compile import compile_route
from leadline.schema import build_schema
from leadline.schema.bindings import ERROR_MARKER, Reply, Rest, shaped
from leadline.schema.operations import Operations
from tests.helpers import Api, assert_error, make_tenant


@strawberry.input
class EchoInput:
    name: str | None = None
    count: int | None = None


@strawberry.type
class Echo:
    name: str | None
    count: int | None


ops = Operations("echo")


@ops.query(scope="contacts:read", description="echo", rest=Rest("GET", "/v2.0/echo/{page}",
           reply=shaped(lambda out: {None: {"data": out, "meta": out.map_of(out.boolean())}})(
               lambda r: Reply({"data": r, "meta": {"seen": True}}))))
async def echo_query(ctx: RequestContext, page: int | None = None, flag: bool | None = None) -> Echo:
    return Echo(name=str(flag), count=page)


async def _echo(input: EchoInput) -> Echo:
    if input.name == "refuse":
        raise ApiError("MISSING_PHONE", "phone is required")
    if input.name == "crash":
        raise RuntimeError("secret internal detail")
    return Echo(name=input.name, count=input.count)


@ops.mutation(scope="contacts:write", description="echo", errors=("MISSING_PHONE",),
              rest=Rest("POST", "/v2.0/echo", status=201))
async def echo(ctx: RequestContext, input: EchoInput) -> Echo:
    return await _echo(input)


@ops.mutation(scope="contacts:write", description="echo", errors=("MISSING_PHONE",), marker=ERROR_MARKER,
              rest=Rest("POST", "/v2.0/echo-templates"))
async def echo_templates(ctx: RequestContext, input: EchoInput) -> Echo:
    return await _echo(input)


test_schema = build_schema(tuple(ops.items))


@pytest.fixture
async def echo(aiohttp_client, settings):
    client = await aiohttp_client(create_app(settings, graphql_schema=test_schema, operations=ops.items))
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


def test_a_path_parameter_that_is_no_argument_stops_start_up():
    bad = Operations("bad")

    @bad.query(scope="contacts:read", description="x", rest=Rest("GET", "/v2.0/x/{nope}"))
    async def echo_query(ctx: RequestContext, page: int | None = None) -> Echo:
        return Echo(name=None, count=page)

    with pytest.raises(RuntimeError, match=r"path parameters \['nope'\]"):
        compile_route(build_schema(tuple(bad.items)), bad.items[0])


def test_an_input_object_from_the_query_string_stops_start_up():
    bad = Operations("bad")

    @bad.query(scope="contacts:read", description="x", rest=Rest("GET", "/v2.0/x"))
    async def echo_query(ctx: RequestContext, input: EchoInput) -> Echo:
        return Echo(name=input.name, count=None)

    with pytest.raises(RuntimeError, match="cannot come from a path or query string"):
        compile_route(build_schema(tuple(bad.items)), bad.items[0])
