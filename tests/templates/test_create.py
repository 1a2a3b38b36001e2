"""POST /v2.0/templates end to end: stored shape, account checks, caps, plan limit, media, scopes."""
from __future__ import annotations

import asyncio
import re
import time

import pytest
from aiohttp import web
from bson import ObjectId

from leadline.models.templates import MessageTemplate
from leadline.resolvers.templates.caps import cap_keys
from tests.helpers import assert_error, make_tenant
from tests.templates.support import authentication, connect_brand, marketing

def tenant_org(tenant) -> ObjectId:
    return ObjectId(tenant.org_id)


PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 512


@pytest.fixture
async def media(aiohttp_server):
    async def logo(request):
        return web.Response(body=PNG, content_type="image/png")

    async def big(request):
        return web.Response(body=PNG * 200, content_type="image/png")

    async def page(request):
        return web.Response(text="<html></html>", content_type="text/html")

    async def slow(request):
        await asyncio.sleep(3)
        return web.Response(body=PNG, content_type="image/png")

    async def missing(request):
        return web.Response(status=404)

    app = web.Application()
    app.router.add_get("/logo.png", logo)
    app.router.add_get("/big.png", big)
    app.router.add_get("/page.html", page)
    app.router.add_get("/slow.png", slow)
    app.router.add_get("/missing.png", missing)
    server = await aiohttp_server(app, host="127.0.0.1", port=0)
    return lambda path: str(server.make_url(path))


async def test_created_template_is_pending_and_stored_in_cloud_api_shape(api, brand, writer):
    resp = await api.post("/v2.0/templates", writer, json=marketing())
    assert resp.status == 201, resp.body
    data = resp.body["data"]
    assert resp.body["success"] is True
    assert re.fullmatch(r"[0-9a-f]{24}", data["templateDbId"])
    assert re.fullmatch(r"\d{16}", data["templateId"])
    assert {k: data[k] for k in ("name", "language", "category", "status")} == {
        "name": "summer_sale", "language": "en_US", "category": "MARKETING", "status": "PENDING"}

    by_db_id = await api.get(f"/v2.0/templates/{data['templateDbId']}", writer)
    by_provider_id = await api.get(f"/v2.0/templates/{data['templateId']}", writer)
    assert by_db_id.status == 200 and by_db_id.body == by_provider_id.body
    got = by_db_id.body["data"]
    assert got["_id"] == data["templateDbId"] and got["status"] == "PENDING" and got["quality_score"] == "UNKNOWN"
    assert got["group"] == {"_id": data["templateDbId"], "name": "summer_sale"}
    assert got["components"] == [
        {"type": "HEADER", "format": "TEXT", "text": "Hello {{1}}", "example": {"header_text": ["Ann"]}},
        {"type": "BODY", "text": "Hi {{1}}, your order {{2}} ships today.",
         "example": {"body_text": [["Ann", "A-17"]]}},
        {"type": "FOOTER", "text": "Reply STOP to opt out"},
        {"type": "BUTTONS", "buttons": [
            {"type": "QUICK_REPLY", "text": "Yes"},
            {"type": "QUICK_REPLY", "text": "No"},
            {"type": "URL", "text": "Track", "url": "https://shop.example.com/track/{{1}}",
             "example": ["https://shop.example.com/track/A-17"]},
            {"type": "PHONE_NUMBER", "text": "Call us", "phone_number": "+15550002222"},
            {"type": "COPY_CODE", "example": "SUMMER10"}]},
    ]

    variant = await api.post("/v2.0/templates", writer, json=marketing(language="es"))
    assert variant.status == 201
    got = (await api.get(f"/v2.0/templates/{variant.body['data']['templateDbId']}", writer)).body["data"]
    assert got["group"] == {"_id": data["templateDbId"], "name": "summer_sale"}


async def test_authentication_components(api, brand, writer):
    resp = await api.post("/v2.0/templates", writer, json=authentication())
    assert resp.status == 201, resp.body
    got = (await api.get(f"/v2.0/templates/{resp.body['data']['templateId']}", writer)).body["data"]
    assert got["category"] == "AUTHENTICATION"
    assert got["components"] == [
        {"type": "BODY", "add_security_recommendation": True},
        {"type": "FOOTER", "code_expiration_minutes": 10},
        {"type": "BUTTONS", "buttons": [{"type": "OTP", "otp_type": "COPY_CODE"}]},
    ]


async def test_list_filters_are_case_insensitive(api, brand, writer):
    assert (await api.post("/v2.0/templates", writer, json=marketing())).status == 201
    assert (await api.post("/v2.0/templates", writer, json=authentication())).status == 201
    every = await api.get("/v2.0/templates", writer)
    assert every.status == 200 and every.body["total"] == 2
    assert [t["name"] for t in every.body["data"]] == ["login_code", "summer_sale"]  # newest first
    auth = await api.get("/v2.0/templates", writer, params={"category": "authentication"})
    assert auth.body["total"] == 1 and auth.body["data"][0]["category"] == "AUTHENTICATION"
    pending = await api.get("/v2.0/templates", writer, params={"status": "pending", "category": "Marketing"})
    assert [t["name"] for t in pending.body["data"]] == ["summer_sale"]
    approved = await api.get("/v2.0/templates", writer, params={"status": "APPROVED"})
    assert approved.body == {"success": True, "data": [], "total": 0}
    bad = await api.get("/v2.0/templates", writer, params={"status": "done"})
    assert assert_error(bad, 400, "VALIDATION_ERROR", marker="error")["details"][0]["path"] == "status"


async def test_get_refuses_malformed_ids_and_reports_absent_ones(api, tenant):
    key = tenant.legacy_key
    for bad in ("abc", "12ab", "1234567890abcdef1234567g", "-1"):
        assert_error(await api.get(f"/v2.0/templates/{bad}", key), 400, "INVALID_TEMPLATE_ID", marker="error")
    for absent in ("65f1a2b3c4d5e6f708192a3b", "1689556908129832"):
        assert_error(await api.get(f"/v2.0/templates/{absent}", key), 404, "TEMPLATE_NOT_FOUND", marker="error")


async def test_business_account_must_exist_and_be_approved(api, tenant, writer):
    missing = await api.post("/v2.0/templates", writer, json=marketing(brandNumber=None))
    assert_error(missing, 400, "BRAND_NUMBER_MISSING", marker="error")
    unknown = await api.post("/v2.0/templates", writer, json=marketing())
    assert_error(unknown, 404, "BIZACCT_NOT_FOUND", marker="error")
    await connect_brand(tenant, review_status="PENDING")
    pending = await api.post("/v2.0/templates", writer, json=marketing(brandNumber="+1 555 000 1111"))
    assert_error(pending, 409, "BIZACCT_NOT_REVIEWED", marker="error")
    await connect_brand(tenant, review_status="REJECTED")
    assert_error(await api.post("/v2.0/templates", writer, json=marketing()), 409, "BIZACCT_NOT_REVIEWED",
                 marker="error")
    await connect_brand(tenant, review_status="APPROVED")
    assert (await api.post("/v2.0/templates", writer, json=marketing())).status == 201


async def test_two_submissions_a_minute_then_429_with_retry_after(api, brand, writer):
    # Refused requests take no slot.
    assert (await api.post("/v2.0/templates", writer, json=marketing(name="Bad"))).status == 422
    assert (await api.post("/v2.0/templates", writer, json=marketing(name="first"))).status == 201
    assert (await api.post("/v2.0/templates", writer, json=marketing(name="second"))).status == 201
    third = await api.post("/v2.0/templates", writer, json=marketing(name="third"))
    err = assert_error(third, 429, "TEMPLATE_RATE_LIMITED", marker="error")
    assert 1 <= int(third.headers["Retry-After"]) <= 60
    assert err["retryAfter"] == int(third.headers["Retry-After"])
    assert (await api.get("/v2.0/templates", writer)).body["total"] == 2


async def test_thirty_submissions_a_day(api, services, tenant, brand, writer):
    # Thirty submissions made two hours ago fill the day window; the minute window is empty.
    keys = cap_keys(services, tenant_org(tenant))
    two_hours_ago_us = int((time.time() - 7200) * 1_000_000)
    await services.redis.zadd(keys.day, {f"old{i}": two_hours_ago_us + i for i in range(30)})
    resp = await api.post("/v2.0/templates", writer, json=marketing())
    assert_error(resp, 429, "TEMPLATE_RATE_LIMITED", marker="error")
    assert 22 * 3600 - 60 <= int(resp.headers["Retry-After"]) <= 22 * 3600 + 1
    # One entry ages out: a slot frees.
    await services.redis.zrem(keys.day, "old0")
    assert (await api.post("/v2.0/templates", writer, json=marketing())).status == 201


async def test_templates_count_toward_max_templates(api, client, tenant):
    free = await make_tenant(client, plan="free")
    await connect_brand(free)
    for i in range(10):  # the free plan's max_templates
        await MessageTemplate.new(tenant_org(free), name=f"seeded_{i}", language="en", category="UTILITY").insert()
    resp = await api.post("/v2.0/templates", free.legacy_key, json=marketing())
    err = assert_error(resp, 403, "LIMIT_EXCEEDED", marker="error")
    assert (err["limitKey"], err["current"], err["limit"]) == ("max_templates", 10, 10)
    plan = await api.get("/v2.0/billing/plan", free.legacy_key)
    assert plan.body["data"]["limits"]["max_templates"] == {"limit": 10, "used": 10, "remaining": 0}


async def test_media_url_is_fetched_and_uploaded(api, brand, writer, media):
    body = marketing(header={"format": "IMAGE", "mediaUrl": media("/logo.png")})
    resp = await api.post("/v2.0/templates", writer, json=body)
    assert resp.status == 201, resp.body
    got = (await api.get(f"/v2.0/templates/{resp.body['data']['templateDbId']}", writer)).body["data"]
    header = got["components"][0]
    assert header["type"] == "HEADER" and header["format"] == "IMAGE"
    assert header["example"]["header_handle"][0].startswith("sandbox:")


@pytest.mark.parametrize("path,why", [("/big.png", "larger than"), ("/page.html", "needs image/jpeg"),
                                      ("/missing.png", "HTTP 404"), ("/slow.png", "did not answer")])
async def test_media_url_failures(api, brand, writer, media, path, why):
    resp = await api.post("/v2.0/templates", writer, json=marketing(header={"format": "IMAGE", "mediaUrl": media(path)}))
    err = assert_error(resp, 502, "MEDIA_UPLOAD_FAILED", marker="error")
    assert why in err["message"]
    assert (await api.get("/v2.0/templates", writer)).body["total"] == 0


async def test_media_handle_is_used_as_given(api, brand, writer):
    body = marketing(header={"format": "DOCUMENT", "mediaHandle": "4::aGVsbG8=", "filename": "terms.pdf"})
    resp = await api.post("/v2.0/templates", writer, json=body)
    assert resp.status == 201, resp.body
    got = (await api.get(f"/v2.0/templates/{resp.body['data']['templateDbId']}", writer)).body["data"]
    assert got["components"][0] == {"type": "HEADER", "format": "DOCUMENT",
                                    "example": {"header_handle": ["4::aGVsbG8="]}}


async def test_scopes_are_required(api, tenant, brand):
    reader = await tenant.key("templates:read")
    refused = await api.post("/v2.0/templates", reader, json=marketing())
    err = assert_error(refused, 403, "INSUFFICIENT_SCOPE", marker="error")
    assert err["required_scope"] == "templates:write"
    other = await tenant.key("contacts:read")
    for path in ("/v2.0/templates", "/v2.0/templates/1234"):
        err = assert_error(await api.get(path, other), 403, "INSUFFICIENT_SCOPE", marker="error")
        assert err["required_scope"] == "templates:read"
    assert (await api.get("/v2.0/templates", reader)).status == 200


async def test_organisations_see_only_their_templates(api, client, brand, writer):
    created = (await api.post("/v2.0/templates", writer, json=marketing())).body["data"]
    other = await make_tenant(client, name="Other")
    for ident in (created["templateDbId"], created["templateId"]):
        assert_error(await api.get(f"/v2.0/templates/{ident}", other.legacy_key), 404, "TEMPLATE_NOT_FOUND",
                     marker="error")
    assert (await api.get("/v2.0/templates", other.legacy_key)).body["total"] == 0
    # The first organisation's number is not the other's business account.
    assert_error(await api.post("/v2.0/templates", other.legacy_key, json=marketing()), 404, "BIZACCT_NOT_FOUND",
                 marker="error")


async def test_graphql_create_and_read(api, brand, writer):
    mutation = """mutation($input: CreateTemplateInput!) {
        createTemplate(input: $input) { templateDbId templateId status } }"""
    resp = await api.graphql(mutation, writer, {"input": marketing()})
    created = resp.body["data"]["createTemplate"]
    assert created["status"] == "PENDING"
    query = "query($id: String!) { template(id: $id) { name group { _id name } } }"
    got = await api.graphql(query, writer, {"id": created["templateId"]})
    assert got.body["data"]["template"] == {"name": "summer_sale",
                                            "group": {"_id": created["templateDbId"], "name": "summer_sale"}}
    refused = await api.graphql(mutation, writer, {"input": marketing(name="Bad")})
    ext = refused.body["errors"][0]["extensions"]
    assert ext["code"] == "TEMPLATE_VALIDATION_FAILED" and ext["details"][0]["path"] == "name"
