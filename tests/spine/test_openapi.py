"""The generated OpenAPI document (`GET /v2.0/openapi.json`), the docs page, and a client generated from it."""
from __future__ import annotations

import importlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import strawberry
from openapi_spec_validator import validate

from leadline.app import create_app
from leadline.resolvers.context import RequestContext
from leadline.rest_compat.compile import compile_routes
from leadline.rest_compat.openapi import OpenApiError, build_openapi
from leadline.schema import OPERATIONS, build_schema, schema
from leadline.schema.bindings import Reply, Rest
from leadline.schema.operations import Operations
from tests.helpers import assert_error


async def test_the_document_is_public_valid_openapi_31_and_covers_every_route(api):
    resp = await api.get("/v2.0/openapi.json")
    assert resp.status == 200 and resp.headers["Content-Type"].startswith("application/json")
    doc = resp.body
    assert doc["openapi"] == "3.1.0"
    validate(doc)
    routes = {(op.rest.method.lower(), op.rest.path) for op in OPERATIONS if op.rest}
    documented = {(method, path) for path, item in doc["paths"].items() for method in item}
    assert documented == routes
    for path, item in doc["paths"].items():
        for method, operation in item.items():
            op = next(o for o in OPERATIONS if o.rest and (o.rest.method.lower(), o.rest.path) == (method, path))
            assert operation["operationId"] == op.name and operation["tags"] == [op.domain]
            assert operation["x-required-scope"] == op.spec.scope and op.spec.scope in operation["description"]
            assert operation["summary"]
            codes = {code for status, response in operation["responses"].items() if int(status) >= 400
                     for code in _codes(response)}
            assert set(op.spec.errors) <= codes, (path, set(op.spec.errors) - codes)
            assert {"API_KEY_MISSING", "INVALID_API_KEY", "INSUFFICIENT_SCOPE", "INTERNAL_SERVER_ERROR"} <= codes
    assert doc["components"]["securitySchemes"]["bearerAuth"] == {
        "type": "http", "scheme": "bearer", "description": "An API key: `Authorization: Bearer <key>`."}


def _codes(response: dict) -> set[str]:
    schema = response["content"]["application/json"]["schema"]
    variants = schema.get("anyOf", [schema])
    return {code for v in variants for code in v["properties"]["code"]["enum"]}


def _operation(doc: dict, method: str, path: str) -> dict:
    return doc["paths"][path][method]


async def test_parameters_bodies_envelopes_and_markers_are_derived(api):
    doc = (await api.get("/v2.0/openapi.json")).body
    schemas = doc["components"]["schemas"]

    contacts = _operation(doc, "get", "/v2.0/contacts")
    params = {p["name"]: p for p in contacts["parameters"]}
    assert params["limit"]["in"] == "query" and params["limit"]["required"] is False
    assert params["limit"]["schema"]["type"] == "integer"
    ok = contacts["responses"]["200"]["content"]["application/json"]["schema"]
    assert set(ok["required"]) == {"success", "data", "pagination"} and ok["properties"]["success"] == {"const": True}

    upsert = _operation(doc, "post", "/v2.0/contacts")
    body = upsert["requestBody"]["content"]["application/json"]["schema"]
    assert body == {"$ref": "#/components/schemas/ContactInput"}
    assert schemas["ContactInput"]["additionalProperties"] is False
    assert {"200", "201"} <= set(upsert["responses"])
    created = upsert["responses"]["201"]["content"]["application/json"]["schema"]["properties"]["data"]
    assert created["properties"]["isNew"] == {"type": "boolean"} and "phone" in created["properties"]
    assert "Idempotency-Key" in {p["name"] for p in upsert["parameters"]}

    field = _operation(doc, "put", "/v2.0/contacts/custom_fields/{fieldId}")
    [path_param] = [p for p in field["parameters"] if p["in"] == "path"]
    assert path_param == {"name": "fieldId", "in": "path", "required": True,
                          "schema": {"type": "string", "minLength": 1, "pattern": "^[^/]+$"}}

    # The templates group answers `error: true`; scope refusals too, everywhere.
    template = _operation(doc, "get", "/v2.0/templates/{id}")
    not_found = template["responses"]["404"]["content"]["application/json"]["schema"]
    variants = not_found.get("anyOf", [not_found])
    assert any("error" in v["properties"] and "TEMPLATE_NOT_FOUND" in v["properties"]["code"]["enum"]
               for v in variants)
    forbidden = contacts["responses"]["403"]["content"]["application/json"]["schema"]["anyOf"]
    marked = {next(k for k in ("success", "error") if k in v["properties"]): set(v["properties"]["code"]["enum"])
              for v in forbidden}
    assert "INSUFFICIENT_SCOPE" in marked["error"] and "ORG_INACTIVE" in marked["success"]

    # The billing plan's custom reply reports limits and features as maps.
    plan = _operation(doc, "get", "/v2.0/billing/plan")["responses"]["200"]["content"]["application/json"]["schema"]
    data = plan["properties"]["data"]
    assert data["properties"]["features"] == {"type": "object", "additionalProperties": {"type": "boolean"}}
    assert "key" not in data["properties"]["limits"]["additionalProperties"]["properties"]

    # Reads take no Idempotency-Key; sends and creates do.
    assert "parameters" not in _operation(doc, "get", "/v2.0/billing/plan")
    for method, path in (("post", "/v2.0/chatapp/send"), ("post", "/v2.0/chatapp/message"),
                         ("post", "/v2.0/templates"), ("post", "/v2.0/campaigns")):
        operation = _operation(doc, method, path)
        assert "Idempotency-Key" in {p["name"] for p in operation["parameters"]}
        assert {"409", "422"} <= set(operation["responses"])


@strawberry.type
class Thing:
    name: str


def test_a_route_whose_envelope_cannot_be_derived_stops_start_up(settings):
    bad = Operations("bad")

    @bad.query(scope="contacts:read", description="x",
               rest=Rest("GET", "/v2.0/thing", reply=lambda result: Reply({"thing": result})))
    async def thing(ctx: RequestContext) -> Thing:
        return Thing(name="x")

    bad_schema = build_schema(tuple(bad.items))
    with pytest.raises(OpenApiError, match=r"GET /v2.0/thing \(thing\): the reply .* declares no shape"):
        create_app(settings, graphql_schema=bad_schema, operations=bad.items)
    # In production the route is left out of the document (and logged) instead.
    doc = build_openapi(bad_schema, compile_routes(bad_schema, bad.items), strict=False)
    assert doc["paths"] == {}


def test_the_document_is_built_from_the_table_in_well_under_a_second():
    # Start-up cost only: it is built once per process.
    doc = build_openapi(schema, compile_routes(schema, OPERATIONS))
    assert len(doc["paths"]) >= 50


async def test_docs_page_works_offline_with_a_key_box(api):
    page = await api.get("/docs")
    assert page.status == 200 and page.headers["Content-Type"].startswith("text/html")
    assert 'id="apikey"' in page.body and "preauthorizeApiKey" in page.body and "/v2.0/openapi.json" in page.body
    assert "http://" not in page.body and "https://" not in page.body  # nothing from a CDN
    for asset in ("swagger-ui-bundle.js", "swagger-ui-standalone-preset.js", "swagger-ui.css"):
        resp = await api.get(f"/docs/assets/{asset}")
        assert resp.status == 200, asset


async def test_documented_requests_need_a_key_the_document_does_not(api):
    assert_error(await api.get("/v2.0/contacts"), 401, "API_KEY_MISSING")
    assert (await api.get("/v2.0/openapi.json")).status == 200


@pytest.fixture(scope="module")
def generated_client(tmp_path_factory):
    """A Python client generated from the document by openapi-python-client (once per module)."""
    out = tmp_path_factory.mktemp("client")
    spec = out / "openapi.json"
    spec.write_text(json.dumps(build_openapi(schema, compile_routes(schema, OPERATIONS))))
    (out / "config.yaml").write_text("post_hooks: []\n")
    generator = shutil.which("openapi-python-client") or str(Path(sys.executable).parent / "openapi-python-client")
    done = subprocess.run([generator, "generate", "--path", str(spec), "--meta", "none", "--output-path",
                           str(out / "leadline_client"), "--config", str(out / "config.yaml")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Warning" not in done.stdout + done.stderr, done.stdout + done.stderr
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module("leadline_client")
    finally:
        sys.path.remove(str(out))
        for name in [m for m in sys.modules if m == "leadline_client" or m.startswith("leadline_client.")]:
            del sys.modules[name]


async def test_a_generated_client_creates_and_reads_a_contact(client, tenant, generated_client):
    from leadline_client import AuthenticatedClient
    from leadline_client.api.contacts import contact_by_phone, upsert_contact
    from leadline_client.models import ContactInput, ContactPhoneInput

    key = await tenant.key("contacts:read,contacts:write")
    async with AuthenticatedClient(base_url=str(client.make_url("")).rstrip("/"), token=key) as api_client:
        created = await upsert_contact.asyncio_detailed(
            client=api_client, body=ContactInput(phone="+1 (415) 555-2671", contact_name="Ann"),
            idempotency_key="create-ann-1")
        assert created.status_code == 201, created.content
        assert created.parsed.success is True and created.parsed.data.is_new is True
        assert created.parsed.data.phone == "14155552671" and created.parsed.data.contact_name == "Ann"

        found = await contact_by_phone.asyncio_detailed(client=api_client, body=ContactPhoneInput(phone="14155552671"))
        assert found.status_code == 200 and found.parsed.data.contact_name == "Ann"

        refused = await upsert_contact.asyncio_detailed(client=api_client, body=ContactInput(contact_name="Bob"))
        assert refused.status_code == 400 and refused.parsed.code.value == "MISSING_PHONE"


async def test_graphiql_prefills_the_authorization_header(api):
    resp = await api.call("GET", "/graphql", headers={"Accept": "text/html"})
    assert resp.status == 200
    assert "parameters.headers || " in resp.body and "Bearer <paste your API key>" in resp.body
    assert "Every request needs an API key" in resp.body


async def test_declared_page_sizes_are_the_ones_the_service_enforces(api, tenant):
    """A declared `limit` maximum (schema/common.py: limit_argument) is what the domain code accepts."""
    doc = (await api.get("/v2.0/openapi.json")).body
    checked = 0
    for path, item in doc["paths"].items():
        operation = item.get("get")
        params = {p["name"]: p for p in (operation or {}).get("parameters", ())}
        if "limit" not in params or params["limit"]["schema"].get("maximum", 2**31 - 1) >= 2**31 - 1 or "{" in path:
            continue  # no declared page size
        maximum = params["limit"]["schema"]["maximum"]
        extra = {"phone": "14155552671"} if path == "/v2.0/chats/history" else {}
        over = await api.get(path, tenant.legacy_key, params={"limit": str(maximum + 1), **extra})
        assert over.status == 400 and over.body["code"] == "VALIDATION_ERROR", (path, over.body)
        assert any(d["path"] == "limit" for d in over.body["details"]), (path, over.body)
        at_max = await api.get(path, tenant.legacy_key, params={"limit": str(maximum), **extra})
        assert not (at_max.status == 400 and any(d.get("path") == "limit" for d in at_max.body.get("details") or [])), \
            (path, at_max.body)
        checked += 1
    assert checked >= 6
