"""Webhook endpoints through GraphQL (full-access keys only) and `leadline admin add-webhook`: fields,
the secret shown once and stored sealed, rotation, the limit of 10, validation errors as documented,
another organisation's endpoint, the delivery log's page and filters, and its 30-day TTL."""
from __future__ import annotations

import asyncio
import base64
import json
import os
import subprocess
import sys

from bson import ObjectId

from leadline.models.events import DELIVERY_LOG_SECONDS, WebhookDelivery, WebhookEndpoint
from tests.events.support import (CREATE, DELETE, DELIVERIES, LIST, REPLAY, ROTATE, UPDATE, create_endpoint, deliveries,
                                  gql, gql_error, upsert_contact, wait_until)
from tests.helpers import make_tenant

URL = "https://hooks.example.com/leadline"


async def test_create_list_update_delete(api, tenant):
    key = tenant.legacy_key
    created = (await gql(api, key, CREATE, input={"url": URL, "description": "CRM", "events": [
        "contact.created", "campaign.completed", "contact.created"]}))["createWebhookEndpoint"]
    secret, endpoint = created["secret"], created["endpoint"]
    assert secret.startswith("whsec_") and len(base64.b64decode(secret[len("whsec_"):])) == 24
    assert endpoint["url"] == URL and endpoint["description"] == "CRM" and endpoint["isActive"] is True
    assert endpoint["events"] == ["contact.created", "campaign.completed"] and endpoint["createdAt"].endswith("Z")
    endpoint_id = endpoint["endpointId"]
    # The secret is never shown again, and is stored sealed.
    listed = (await gql(api, key, LIST))["webhookEndpoints"]
    assert [e["endpointId"] for e in listed] == [endpoint_id] and secret not in json.dumps(listed)
    stored = await WebhookEndpoint.get_in(ObjectId(tenant.org_id), endpoint_id)
    assert stored.secret.startswith("enc:v1:") and secret not in stored.secret

    updated = (await gql(api, key, UPDATE, id=endpoint_id, input={
        "url": "http://127.0.0.1:9/x", "events": [], "isActive": False}))["updateWebhookEndpoint"]
    assert updated["url"] == "http://127.0.0.1:9/x" and updated["events"] == [] and updated["isActive"] is False
    assert updated["disabledReason"] == "manual" and updated["description"] == "CRM"

    deleted = (await gql(api, key, DELETE, id=endpoint_id))["deleteWebhookEndpoint"]
    assert deleted == {"endpointId": endpoint_id, "deleted": True}
    assert (await gql(api, key, LIST))["webhookEndpoints"] == []
    ext = await gql_error(api, key, DELETE, id=endpoint_id)
    assert ext["code"] == "WEBHOOK_ENDPOINT_NOT_FOUND" and ext["status"] == 404


async def test_rotation_returns_a_new_secret_once(api, tenant):
    key = tenant.legacy_key
    endpoint_id, first = await create_endpoint(api, key, URL)
    rotated = (await gql(api, key, ROTATE, id=endpoint_id))["rotateWebhookSecret"]
    assert rotated["endpointId"] == endpoint_id and rotated["secret"] != first
    stored = await WebhookEndpoint.get_in(ObjectId(tenant.org_id), endpoint_id)
    assert stored.previous_secret and stored.previous_secret.startswith("enc:v1:")
    assert first not in stored.previous_secret and rotated["secret"] not in stored.secret


async def test_only_full_access_keys(api, tenant):
    scoped = await tenant.key("contacts:read,contacts:write,campaigns:write")
    for query, variables in ((LIST, {}), (CREATE, {"input": {"url": URL}}), (ROTATE, {"id": "0" * 24}),
                             (DELIVERIES, {"id": "0" * 24}), (REPLAY, {"id": "0" * 24})):
        ext = await gql_error(api, scoped, query, **variables)
        assert ext["code"] == "INSUFFICIENT_SCOPE" and ext["status"] == 403 and ext["required_scope"] == "*"
    full = await tenant.key("*")
    assert (await gql(api, full, LIST))["webhookEndpoints"] == []


async def test_bad_input_gets_the_documented_errors(api, tenant):
    key = tenant.legacy_key
    for url in (None, "", "ftp://example.com/x", "not a url", "https://", "https://user:pw@example.com/x",
                "https://example.com/" + "a" * 2100):
        ext = await gql_error(api, key, CREATE, input={"url": url})
        assert ext["code"] == "WEBHOOK_URL_INVALID" and ext["status"] == 400, (url, ext)
    ext = await gql_error(api, key, CREATE, input={"url": URL, "events": ["contact.created", "contact.deleted"]})
    assert ext["code"] == "VALIDATION_ERROR" and ext["details"][0]["path"] == "events[1]"
    ext = await gql_error(api, key, CREATE, input={"url": URL, "description": "x" * 501})
    assert ext["code"] == "VALIDATION_ERROR" and ext["details"][0]["path"] == "description"
    for bad in ("nope", "0" * 24, "zz" * 12):
        for query in (UPDATE, DELETE, ROTATE, DELIVERIES):
            variables = {"id": bad, **({"input": {"description": "d"}} if query is UPDATE else {})}
            ext = await gql_error(api, key, query, **variables)
            assert ext["code"] == "WEBHOOK_ENDPOINT_NOT_FOUND", (query, bad, ext)
        ext = await gql_error(api, key, REPLAY, id=bad)
        assert ext["code"] == "WEBHOOK_DELIVERY_NOT_FOUND" and ext["status"] == 404
    endpoint_id, _ = await create_endpoint(api, key, URL)
    for args in ({"status": "lost"}, {"page": 0}, {"limit": 101}):
        ext = await gql_error(api, key, DELIVERIES, id=endpoint_id, **args)
        assert ext["code"] == "VALIDATION_ERROR", (args, ext)


async def test_at_most_ten_endpoints(api, tenant):
    key = tenant.legacy_key
    await asyncio.gather(*(create_endpoint(api, key, f"{URL}/{i}") for i in range(9)))
    # Two at once for the last place: one wins.
    results = await asyncio.gather(*(api.graphql(CREATE, key, {"input": {"url": f"{URL}/x{i}"}}) for i in range(2)))
    errors = [r.body["errors"][0]["extensions"]["code"] for r in results if r.body.get("errors")]
    assert errors == ["WEBHOOK_ENDPOINT_LIMIT_REACHED"]
    assert len((await gql(api, key, LIST))["webhookEndpoints"]) == 10
    ext = await gql_error(api, key, CREATE, input={"url": URL})
    assert ext["code"] == "WEBHOOK_ENDPOINT_LIMIT_REACHED" and ext["status"] == 409


async def test_another_organisations_endpoint_and_delivery_are_not_found(api, tenant, client, receiver, engine):
    other = await make_tenant(client, name="Other")
    endpoint_id, _ = await create_endpoint(api, tenant.legacy_key, receiver.url)
    await upsert_contact(api, tenant.legacy_key, "14155550100")
    [row] = await wait_until(lambda: deliveries(api, tenant.legacy_key, endpoint_id), what="a delivery")
    key = other.legacy_key
    assert (await gql(api, key, LIST))["webhookEndpoints"] == []
    for query, variables in ((UPDATE, {"id": endpoint_id, "input": {"url": URL}}), (DELETE, {"id": endpoint_id}),
                             (ROTATE, {"id": endpoint_id}), (DELIVERIES, {"id": endpoint_id})):
        assert (await gql_error(api, key, query, **variables))["code"] == "WEBHOOK_ENDPOINT_NOT_FOUND"
    assert (await gql_error(api, key, REPLAY, id=row["deliveryId"]))["code"] == "WEBHOOK_DELIVERY_NOT_FOUND"
    # The other organisation's events do not reach this endpoint.
    await upsert_contact(api, key, "14155550101")
    await upsert_contact(api, tenant.legacy_key, "14155550102")
    await receiver.wait_for(2)
    phones = sorted(json.loads(r.body)["data"]["phone"] for r in receiver.received)
    assert phones == ["14155550100", "14155550102"]


async def test_the_log_pages_and_filters_by_status_and_is_kept_30_days(api, tenant, receiver_factory, engine):
    from aiohttp import web

    async def every_other(receiver, receipt):
        return web.Response(status=200 if len(receiver.received) % 2 else 500)

    receiver = await receiver_factory(every_other)
    key = tenant.legacy_key
    endpoint_id, _ = await create_endpoint(api, key, receiver.url)
    for i in range(6):
        await upsert_contact(api, key, f"1415555020{i}")
    await receiver.wait_for(6)

    async def settled():
        rows = await WebhookDelivery.find_in(ObjectId(tenant.org_id), {"endpoint_id": ObjectId(endpoint_id)}).to_list()
        return len(rows) == 6 and all(r.claim is None for r in rows)

    await wait_until(settled, what="six outcomes written")
    page = (await gql(api, key, DELIVERIES, id=endpoint_id, limit=4))["webhookDeliveries"]
    assert page["pagination"] == {"page": 1, "limit": 4, "total": 6, "totalPages": 2, "hasNext": True}
    second = (await gql(api, key, DELIVERIES, id=endpoint_id, limit=4, page=2))["webhookDeliveries"]
    everything = page["data"] + second["data"]
    assert len({d["deliveryId"] for d in everything}) == 6
    created = [d["createdAt"] for d in everything]
    assert created == sorted(created, reverse=True)
    delivered = await deliveries(api, key, endpoint_id, status="delivered")
    pending = await deliveries(api, key, endpoint_id, status="pending")
    assert len(delivered) == 3 and len(pending) == 3
    assert all(d["nextAttemptAt"] for d in pending) and all(d["attempts"][0]["httpStatus"] == 500 for d in pending)
    indexes = await WebhookDelivery.get_pymongo_collection().index_information()
    ttl = [i for i in indexes.values() if "expireAfterSeconds" in i]
    assert [(i["key"], i["expireAfterSeconds"]) for i in ttl] == [([("created_at", 1)], 30 * 24 * 3600)]
    assert DELIVERY_LOG_SECONDS == 30 * 24 * 3600
    # Deleting the endpoint deletes its log.
    await gql(api, key, DELETE, id=endpoint_id)
    assert await WebhookDelivery.count_in(ObjectId(tenant.org_id)) == 0


def _admin(settings, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "MONGODB_URL": settings.mongodb_url, "REDIS_URL": settings.redis_url,
           "MONGODB_DATABASE": settings.database_name, "LEADLINE_REDIS_PREFIX": settings.redis_prefix}
    return subprocess.run([sys.executable, "-m", "leadline.cli", "admin", *args], env=env, capture_output=True,
                          text=True, timeout=60)


async def test_admin_add_webhook(api, tenant, settings):
    proc = await asyncio.to_thread(_admin, settings, "add-webhook", "--org", tenant.org_id, "--url", URL,
                                   "--events", "contact.created, chatapp.new_message", "--description", "ops")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) == {"endpointId", "secret"} and out["secret"].startswith("whsec_")
    [endpoint] = (await gql(api, tenant.legacy_key, LIST))["webhookEndpoints"]
    assert endpoint["endpointId"] == out["endpointId"] and endpoint["description"] == "ops"
    assert endpoint["events"] == ["contact.created", "chatapp.new_message"]
    bad = await asyncio.to_thread(_admin, settings, "add-webhook", "--org", tenant.org_id, "--url", URL,
                                  "--events", "contact.nope")
    assert bad.returncode == 2 and "events[0]" in bad.stderr
    bad = await asyncio.to_thread(_admin, settings, "add-webhook", "--org", tenant.org_id, "--url", "ftp://x")
    assert bad.returncode == 2 and "must use http or https" in bad.stderr
