"""Outgoing events operations (docs/events.md), each declared once: the dashboard's webhook endpoints and
their delivery log. GraphQL only (no REST route, no MCP tool); full-access keys only (scope `*`)."""
from __future__ import annotations

from leadline.resolvers.context import RequestContext
from leadline.resolvers.events import deliveries, endpoints
from leadline.schema.common import Paged, paged
from leadline.schema.events.inputs import WebhookEndpointInput
from leadline.schema.events.types import (CreatedWebhookEndpoint, RotatedWebhookSecret, WebhookDeliveryType,
                                          WebhookEndpointDeleted, WebhookEndpointType)
from leadline.schema.operations import Operations

ops = Operations("events")

FULL_ACCESS = "*"
NOT_FOUND = ("WEBHOOK_ENDPOINT_NOT_FOUND",)


@ops.query(scope=FULL_ACCESS, description="The organisation's webhook endpoints (secrets never shown).")
async def webhook_endpoints(ctx: RequestContext) -> list[WebhookEndpointType]:
    return [WebhookEndpointType.from_domain(e) for e in await endpoints.list_endpoints(ctx)]


@ops.mutation(scope=FULL_ACCESS, description="Add a webhook endpoint (at most 10); its secret is shown once.",
              errors=("WEBHOOK_URL_INVALID", "WEBHOOK_ENDPOINT_LIMIT_REACHED"))
async def create_webhook_endpoint(ctx: RequestContext, input: WebhookEndpointInput) -> CreatedWebhookEndpoint:
    return CreatedWebhookEndpoint.from_domain(await endpoints.create_endpoint(ctx, input.to_domain()))


@ops.mutation(scope=FULL_ACCESS, description="Change an endpoint's URL, description, events or isActive.",
              errors=(*NOT_FOUND, "WEBHOOK_URL_INVALID"))
async def update_webhook_endpoint(ctx: RequestContext, endpoint_id: str,
                                  input: WebhookEndpointInput) -> WebhookEndpointType:
    return WebhookEndpointType.from_domain(await endpoints.update_endpoint(ctx, endpoint_id, input.to_domain()))


@ops.mutation(scope=FULL_ACCESS, description="Delete an endpoint and its delivery log.", errors=NOT_FOUND)
async def delete_webhook_endpoint(ctx: RequestContext, endpoint_id: str) -> WebhookEndpointDeleted:
    return WebhookEndpointDeleted(endpoint_id=await endpoints.delete_endpoint(ctx, endpoint_id), deleted=True)


@ops.mutation(scope=FULL_ACCESS,
              description="A new signing secret, shown once; the old one keeps signing for 24 hours.",
              errors=NOT_FOUND)
async def rotate_webhook_secret(ctx: RequestContext, endpoint_id: str) -> RotatedWebhookSecret:
    return RotatedWebhookSecret.from_domain(await endpoints.rotate_secret(ctx, endpoint_id))


@ops.query(scope=FULL_ACCESS, description="An endpoint's deliveries with their attempts, newest first (30 days).",
           errors=NOT_FOUND)
async def webhook_deliveries(ctx: RequestContext, endpoint_id: str, status: str | None = None,
                             page: int | None = None, limit: int | None = None) -> Paged[WebhookDeliveryType]:
    result = await deliveries.list_deliveries(ctx, endpoint_id, status, page, limit)
    return paged(result, WebhookDeliveryType.from_domain)


@ops.mutation(scope=FULL_ACCESS, description="Send a delivery again now, with the same webhook-id.",
              errors=(*NOT_FOUND, "WEBHOOK_DELIVERY_NOT_FOUND", "WEBHOOK_ENDPOINT_INACTIVE"))
async def replay_webhook_delivery(ctx: RequestContext, delivery_id: str) -> WebhookDeliveryType:
    return WebhookDeliveryType.from_domain(await deliveries.replay(ctx, delivery_id))
