"""GraphQL calls of the events domain, and a change that records events (a contact upsert)."""
from __future__ import annotations

import asyncio
import time
from typing import Any

from bson import ObjectId

from leadline.models.events import DomainEvent, WebhookDelivery

ENDPOINT_FIELDS = "endpointId url description events isActive disabledReason failingSince createdAt"
DELIVERY_FIELDS = ("deliveryId endpointId eventId eventType status nextAttemptAt failure payload eventAt createdAt "
                   "deliveredAt attempts { attempt at httpStatus durationMs error responseSnippet }")


async def gql(api, key: str, query: str, **variables: Any) -> dict:
    resp = await api.graphql(query, key, variables)
    assert resp.status == 200 and not resp.body.get("errors"), resp.body
    return resp.body["data"]


async def gql_error(api, key: str, query: str, **variables: Any) -> dict:
    """The first error's extensions (the call must fail)."""
    resp = await api.graphql(query, key, variables)
    assert resp.body.get("errors"), resp.body
    return resp.body["errors"][0]["extensions"]


CREATE = f"""mutation($input: WebhookEndpointInput!) {{
  createWebhookEndpoint(input: $input) {{ secret endpoint {{ {ENDPOINT_FIELDS} }} }} }}"""
UPDATE = f"""mutation($id: String!, $input: WebhookEndpointInput!) {{
  updateWebhookEndpoint(endpointId: $id, input: $input) {{ {ENDPOINT_FIELDS} }} }}"""
LIST = f"query {{ webhookEndpoints {{ {ENDPOINT_FIELDS} }} }}"
DELETE = "mutation($id: String!) { deleteWebhookEndpoint(endpointId: $id) { endpointId deleted } }"
ROTATE = "mutation($id: String!) { rotateWebhookSecret(endpointId: $id) { endpointId secret previousSecretValidUntil } }"
DELIVERIES = f"""query($id: String!, $status: String, $page: Int, $limit: Int) {{
  webhookDeliveries(endpointId: $id, status: $status, page: $page, limit: $limit) {{
    data {{ {DELIVERY_FIELDS} }} pagination {{ page limit total totalPages hasNext }} }} }}"""
REPLAY = f"mutation($id: String!) {{ replayWebhookDelivery(deliveryId: $id) {{ {DELIVERY_FIELDS} }} }}"


async def create_endpoint(api, key: str, url: str, **fields: Any) -> tuple[str, str]:
    """(endpointId, secret)."""
    data = await gql(api, key, CREATE, input={"url": url, **fields})
    created = data["createWebhookEndpoint"]
    return created["endpoint"]["endpointId"], created["secret"]


async def endpoint_of(api, key: str, endpoint_id: str) -> dict:
    return next(e for e in (await gql(api, key, LIST))["webhookEndpoints"] if e["endpointId"] == endpoint_id)


async def deliveries(api, key: str, endpoint_id: str, **args: Any) -> list[dict]:
    return (await gql(api, key, DELIVERIES, id=endpoint_id, **args))["webhookDeliveries"]["data"]


async def upsert_contact(api, key: str, phone: str, **fields: Any) -> dict:
    resp = await api.post("/v2.0/contacts", key, json={"phone": phone, **fields})
    assert resp.status in (200, 201), resp.body
    return resp.body["data"]


async def wait_until(check, timeout: float = 20.0, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while True:
        value = await check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not reached after {timeout} s")
        await asyncio.sleep(0.05)


async def delivery_rows(org: str, endpoint_id: str) -> list[WebhookDelivery]:
    return await WebhookDelivery.find_in(ObjectId(org), {"endpoint_id": ObjectId(endpoint_id)}).to_list()


async def all_dispatched(org: str) -> bool:
    return await DomainEvent.count_in(ObjectId(org), {"dispatched_at": None}) == 0


async def make_due_now(org: str, delivery_id: str) -> None:
    """Bring a scheduled retry forward (the schedule itself is asserted from the stored times)."""
    from leadline.models.base import utcnow

    await WebhookDelivery.update_one_in(ObjectId(org), {"_id": ObjectId(delivery_id)}, {"$set": {"due_at": utcnow()}})
