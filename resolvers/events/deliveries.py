"""The delivery log an organisation reads (one endpoint's deliveries with their attempts), replay, and
the rules every delivery follows: the retry schedule and what an attempt's outcome leads to.

Retries follow the Standard Webhooks schedule, each delay counted from the end of the previous
attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h; a delivery still failing after the last
one (ten attempts in all) is `failed`. A replay sends the delivery again now, with the same
`webhook-id`: a pending one keeps its schedule afterwards; a finished one ends with that one attempt.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from bson import ObjectId

from leadline.models.base import utcnow
from leadline.models.events import WebhookDelivery
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError
from leadline.resolvers.events.endpoints import get_endpoint
from leadline.resolvers.pagination import Page, one_of, page_request

RETRY_SCHEDULE = (timedelta(seconds=5), timedelta(minutes=5), timedelta(minutes=30), timedelta(hours=2),
                  timedelta(hours=5), timedelta(hours=10), timedelta(hours=14), timedelta(hours=20),
                  timedelta(hours=24))
MAX_ATTEMPTS = 1 + len(RETRY_SCHEDULE)
STATUSES = ("pending", "delivered", "failed")
SNIPPET_BYTES = 1024
# The attempts kept in a delivery's log (replays could otherwise grow it without end).
MAX_LOG = 50


@dataclass(frozen=True)
class Next:
    """What a failed attempt leads to: the next attempt's time, or None (the delivery is `failed`)."""

    due_at: datetime | None


def after_failure(tries: int, finished_at: datetime, *, replay: bool) -> Next:
    """`tries`: scheduled attempts made, this one included (a replay of a finished delivery is not one)."""
    if replay or tries >= MAX_ATTEMPTS:
        return Next(None)
    return Next(finished_at + RETRY_SCHEDULE[tries - 1])


async def list_deliveries(ctx: RequestContext, endpoint_id: str, status: str | None, page: int | None,
                          limit: int | None) -> Page[WebhookDelivery]:
    request = page_request(page, limit, default=20, maximum=100)
    status = one_of(status, STATUSES, "status")
    endpoint = await get_endpoint(ctx, endpoint_id)
    filter = {"endpoint_id": endpoint.id, **({"status": status} if status else {})}
    total = await WebhookDelivery.count_in(ctx, filter)
    items = await WebhookDelivery.find_in(ctx, filter).sort("-created_at").skip(request.skip).limit(
        request.limit).to_list()
    return Page(items, request.page, request.limit, total)


async def replay(ctx: RequestContext, delivery_id: str) -> WebhookDelivery:
    """Offer the delivery again now (the delivery workers pick it up within a second)."""
    if not isinstance(delivery_id, str) or len(delivery_id) != 24 or not ObjectId.is_valid(delivery_id):
        raise _not_found()
    delivery = await WebhookDelivery.get_in(ctx, ObjectId(delivery_id))
    if delivery is None:
        raise _not_found()
    endpoint = await get_endpoint(ctx, str(delivery.endpoint_id))
    if not endpoint.is_active:
        raise ApiError("WEBHOOK_ENDPOINT_INACTIVE",
                       "This delivery's endpoint is disabled; enable it (updateWebhookEndpoint) to replay.")
    now = utcnow()
    # A pending delivery is simply due now (a claimed one in flight keeps its claimer, who writes its
    # outcome); a finished one becomes pending again for one attempt.
    if delivery.status == "pending":
        changes = {"due_at": now} if delivery.claim is None else {}
    else:
        changes = {"status": "pending", "due_at": now, "claim": None, "replay": True, "failure": None}
    if changes:
        changes["updated_at"] = now
        await WebhookDelivery.update_one_in(ctx, {"_id": delivery.id, "claim": delivery.claim}, {"$set": changes})
        for name, value in changes.items():
            setattr(delivery, name, value)
    return delivery


def _not_found() -> ApiError:
    return ApiError("WEBHOOK_DELIVERY_NOT_FOUND", "No webhook delivery with this id.")
