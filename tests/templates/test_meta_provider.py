"""The `meta` adapter against a fake Graph API server on loopback: submission, resumable upload, refusal."""
from __future__ import annotations

from dataclasses import replace

import pytest
from aiohttp import web

from tests.helpers import assert_error
from tests.templates.support import BRAND, connect_brand, marketing

PNG = b"\x89PNG\r\n\x1a\n" + b"\x01" * 256
REFUSAL = {"error": {"message": "Invalid parameter", "type": "OAuthException", "code": 100,
                     "error_subcode": 2388024, "is_transient": False,
                     "error_user_title": "Content in this language already exists",
                     "error_user_msg": "There is already English (US) content for this template.",
                     "fbtrace_id": "AbCdEfGh123"}}


class FakeGraph:
    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.app = web.Application()
        self.app.router.add_post("/{waba}/message_templates", self.templates)
        self.app.router.add_post("/app/uploads", self.start_upload)
        self.app.router.add_post("/upload:session1", self.upload)
        self.app.router.add_get("/media/logo.png", self.media)

    async def templates(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.requests.append({"path": request.path, "auth": request.headers.get("Authorization"), "json": body})
        if body["name"].startswith("refused_"):
            return web.json_response(REFUSAL, status=400)
        if body["name"].startswith("broken_"):
            return web.Response(status=503, text="unavailable")
        return web.json_response({"id": "1689556908129832", "status": "PENDING", "category": body["category"]})

    async def start_upload(self, request: web.Request) -> web.Response:
        self.requests.append({"path": request.path, "auth": request.headers.get("Authorization"),
                              "query": dict(request.query)})
        return web.json_response({"id": "upload:session1"})

    async def upload(self, request: web.Request) -> web.Response:
        data = await request.read()
        self.requests.append({"path": request.path, "auth": request.headers.get("Authorization"),
                              "offset": request.headers.get("file_offset"), "size": len(data)})
        return web.json_response({"h": "4::aW1hZ2UvcG5n:ARb"})

    async def media(self, request: web.Request) -> web.Response:
        return web.Response(body=PNG, content_type="image/png")


@pytest.fixture
async def graph(aiohttp_server):
    fake = FakeGraph()
    fake.server = await aiohttp_server(fake.app, host="127.0.0.1", port=0)
    return fake


@pytest.fixture
def settings(settings, graph):
    return replace(settings, chatapp_graph_url=str(graph.server.make_url("")).rstrip("/"))


@pytest.fixture
async def meta_brand(tenant) -> str:
    await connect_brand(tenant, provider="meta", provider_id="109876543210", access_token="EAAG-token",
                        provider_account_id="102290129340398")  # the WABA id template submission goes to
    return BRAND


async def test_submission_goes_to_the_waba_with_the_token(api, tenant, meta_brand, graph):
    resp = await api.post("/v2.0/templates", tenant.legacy_key, json=marketing())
    assert resp.status == 201, resp.body
    assert resp.body["data"]["templateId"] == "1689556908129832"
    sent = graph.requests[-1]
    assert sent["path"] == "/102290129340398/message_templates" and sent["auth"] == "Bearer EAAG-token"
    assert sent["json"]["name"] == "summer_sale" and sent["json"]["category"] == "MARKETING"
    assert [c["type"] for c in sent["json"]["components"]] == ["HEADER", "BODY", "FOOTER", "BUTTONS"]


async def test_media_goes_through_the_resumable_upload(api, tenant, meta_brand, graph):
    media_url = str(graph.server.make_url("/media/logo.png"))
    resp = await api.post("/v2.0/templates", tenant.legacy_key,
                          json=marketing(header={"format": "IMAGE", "mediaUrl": media_url}))
    assert resp.status == 201, resp.body
    start, upload, submit = graph.requests
    assert start["path"] == "/app/uploads"
    assert start["query"] == {"file_name": "logo.png", "file_length": str(len(PNG)), "file_type": "image/png"}
    assert (upload["auth"], upload["offset"], upload["size"]) == ("OAuth EAAG-token", "0", len(PNG))
    assert submit["json"]["components"][0] == {"type": "HEADER", "format": "IMAGE",
                                               "example": {"header_handle": ["4::aW1hZ2UvcG5n:ARb"]}}


async def test_provider_refusal_is_a_502_with_the_six_details(api, tenant, meta_brand):
    resp = await api.post("/v2.0/templates", tenant.legacy_key, json=marketing(name="refused_one"))
    err = assert_error(resp, 502, "PROVIDER_REJECTED", marker="error")
    assert err["details"] == {
        "providerErrorCode": 100, "providerErrorSubcode": 2388024, "providerMessage": "Invalid parameter",
        "providerUserTitle": "Content in this language already exists",
        "providerUserMsg": "There is already English (US) content for this template.",
        "providerTraceId": "AbCdEfGh123",
    }
    assert (await api.get("/v2.0/templates", tenant.legacy_key)).body["total"] == 0


async def test_provider_outage_is_a_502_without_provider_codes(api, tenant, meta_brand):
    resp = await api.post("/v2.0/templates", tenant.legacy_key, json=marketing(name="broken_one"))
    err = assert_error(resp, 502, "PROVIDER_REJECTED", marker="error")
    assert err["details"]["providerErrorCode"] is None and "503" in err["details"]["providerMessage"]


async def test_account_without_credentials_is_refused_before_any_call(api, tenant, graph):
    await connect_brand(tenant, provider="meta")
    resp = await api.post("/v2.0/templates", tenant.legacy_key, json=marketing())
    assert_error(resp, 502, "PROVIDER_REJECTED", marker="error")
    assert graph.requests == []
