"""Webhook endpoints of an organisation (docs/events.md): at most MAX_ENDPOINTS, each with its URL, the
event kinds it receives (none listed = all), and a signing secret shown once (at creation and rotation)
and stored sealed like tool secrets (resolvers/secrets.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from bson import ObjectId

from leadline.models.base import utcnow
from leadline.models.events import WebhookDelivery, WebhookEndpoint
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError, detail, validation_error
from leadline.resolvers.events import EVENT_KINDS
from leadline.resolvers.netguard import check_resolves, url_problem
from leadline.resolvers.events.signing import new_secret
from leadline.resolvers.secrets import keyring

MAX_ENDPOINTS = 10
MAX_DESCRIPTION = 500
# After a rotation the previous secret keeps signing (both signatures are sent) this long.
ROTATION_GRACE = timedelta(hours=24)


@dataclass(frozen=True)
class EndpointWrite:
    """Fields of a create or update; None = not given."""

    url: str | None = None
    description: str | None = None
    events: list[str] | None = None
    is_active: bool | None = None


@dataclass(frozen=True)
class CreatedEndpoint:
    endpoint: WebhookEndpoint
    secret: str


@dataclass(frozen=True)
class RotatedSecret:
    endpoint: WebhookEndpoint
    secret: str
    previous_valid_until: datetime


def endpoint_object_id(value: str | None) -> ObjectId:
    """A malformed id is just an unknown one."""
    if not isinstance(value, str) or not ObjectId.is_valid(value) or len(value) != 24:
        raise ApiError("WEBHOOK_ENDPOINT_NOT_FOUND", "No webhook endpoint with this id.")
    return ObjectId(value)


async def get_endpoint(ctx: RequestContext, endpoint_id: str | None) -> WebhookEndpoint:
    endpoint = await WebhookEndpoint.get_in(ctx, endpoint_object_id(endpoint_id))
    if endpoint is None:
        raise ApiError("WEBHOOK_ENDPOINT_NOT_FOUND", "No webhook endpoint with this id.")
    return endpoint


async def list_endpoints(ctx: RequestContext) -> list[WebhookEndpoint]:
    return await WebhookEndpoint.find_in(ctx).sort("+created_at").to_list()


async def _checked_url(ctx: RequestContext, url: str | None) -> str:
    if url is None or not url.strip():
        raise ApiError("WEBHOOK_URL_INVALID", "url is required.")
    url = url.strip()
    development = ctx.services.settings.is_development
    problem = url_problem(url, development=development)
    if problem is None and not development:
        problem = await check_resolves(urlsplit(url).hostname or "")
    if problem is not None:
        raise ApiError("WEBHOOK_URL_INVALID", f"This URL cannot receive events: {problem}.")
    return url


def _checked_events(events: list[str]) -> list[str]:
    problems = [detail(f"events[{i}]", "INVALID_VALUE", f"unknown event kind; one of: {', '.join(sorted(EVENT_KINDS))}")
                for i, kind in enumerate(events) if kind not in EVENT_KINDS]
    if problems:
        raise validation_error(problems)
    return list(dict.fromkeys(events))


def _checked_description(description: str | None) -> str | None:
    if description is not None and len(description) > MAX_DESCRIPTION:
        raise validation_error([detail("description", "TOO_LARGE",
                                       f"description is at most {MAX_DESCRIPTION} characters")])
    return description or None


async def create_endpoint(ctx: RequestContext, write: EndpointWrite) -> CreatedEndpoint:
    url = await _checked_url(ctx, write.url)
    events = _checked_events(write.events or [])
    description = _checked_description(write.description)
    if await WebhookEndpoint.count_in(ctx) >= MAX_ENDPOINTS:
        raise _limit()
    secret = new_secret()
    sealed = (await keyring(ctx.services.settings)).seal(secret)
    active = True if write.is_active is None else write.is_active
    endpoint = WebhookEndpoint.new(ctx, url=url, description=description, events=events, is_active=active,
                                   secret=sealed, disabled_reason=None if active else "manual",
                                   disabled_at=None if active else utcnow())
    await endpoint.insert()
    # Two concurrent creations may both have counted nine: the later one over the limit is taken back.
    kept = await WebhookEndpoint.find_raw_in(ctx, {}, {"_id": 1}, sort=[("created_at", 1), ("_id", 1)])
    if endpoint.id not in [row["_id"] for row in kept[:MAX_ENDPOINTS]]:
        await WebhookEndpoint.delete_one_in(ctx, {"_id": endpoint.id})
        raise _limit()
    return CreatedEndpoint(endpoint, secret)


def _limit() -> ApiError:
    return ApiError("WEBHOOK_ENDPOINT_LIMIT_REACHED",
                    f"An organisation has at most {MAX_ENDPOINTS} webhook endpoints; delete one first.")


async def update_endpoint(ctx: RequestContext, endpoint_id: str, write: EndpointWrite) -> WebhookEndpoint:
    endpoint = await get_endpoint(ctx, endpoint_id)
    changes: dict = {}
    if write.url is not None:
        changes["url"] = await _checked_url(ctx, write.url)
    if write.events is not None:
        changes["events"] = _checked_events(write.events)
    if write.description is not None:
        changes["description"] = _checked_description(write.description)
    if write.is_active is True and not endpoint.is_active:
        # Enabled again (after a 410, five failing days or by hand): a fresh start.
        changes.update(is_active=True, disabled_at=None, disabled_reason=None, failing_since=None)
    elif write.is_active is False and endpoint.is_active:
        changes.update(is_active=False, disabled_at=utcnow(), disabled_reason="manual")
    if changes:
        changes["updated_at"] = utcnow()
        await WebhookEndpoint.update_one_in(ctx, {"_id": endpoint.id}, {"$set": changes})
        for name, value in changes.items():
            setattr(endpoint, name, value)
    return endpoint


async def delete_endpoint(ctx: RequestContext, endpoint_id: str) -> str:
    """Deletes the endpoint and its delivery log (pending deliveries are not attempted)."""
    endpoint = await get_endpoint(ctx, endpoint_id)
    await WebhookEndpoint.delete_one_in(ctx, {"_id": endpoint.id})
    await WebhookDelivery.delete_many_in(ctx, {"endpoint_id": endpoint.id})
    return str(endpoint.id)


async def rotate_secret(ctx: RequestContext, endpoint_id: str) -> RotatedSecret:
    """A new secret; the current one keeps signing for ROTATION_GRACE (a third rotation within it drops
    the oldest)."""
    endpoint = await get_endpoint(ctx, endpoint_id)
    secret = new_secret()
    now = utcnow()
    until = now + ROTATION_GRACE
    sealed = (await keyring(ctx.services.settings)).seal(secret)
    # The previous secret is the one this write replaces (a concurrent rotation's, if it came first).
    before = await WebhookEndpoint.find_one_and_update_in(ctx, {"_id": endpoint.id}, [{"$set": {
        "secret": sealed, "previous_secret": "$secret", "previous_secret_until": until, "updated_at": now}}],
        projection={"secret": 1})
    if before is None:
        raise ApiError("WEBHOOK_ENDPOINT_NOT_FOUND", "No webhook endpoint with this id.")
    endpoint.secret, endpoint.previous_secret = sealed, before["secret"]
    endpoint.previous_secret_until, endpoint.updated_at = until, now
    return RotatedSecret(endpoint, secret, until)
