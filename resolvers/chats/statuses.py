"""Delivery statuses of outbound messages (`value.statuses[]`), from real webhooks and the sandbox alike.

A status moves the message forward only: accepted → sent → delivered → read (`played` counts as read);
`failed` is terminal from any other state and records the provider's error. The move is one
conditional update (`status` among the earlier states), so a late or redelivered status changes
nothing. `chatapp.message_status` is recorded once per (message, status); the provider's
undeliverable code marks the contact `chatapp_undeliverable`.
"""
from __future__ import annotations

import logging
from typing import Any

from leadline.models.base import utcnow
from leadline.models.chats import DELIVERY_ORDER, ChatMessage
from leadline.resolvers.events import emit
from leadline.resolvers.chats.parse import sent_at
from leadline.resolvers.chats.undeliverable import UNDELIVERABLE_CODES, mark_undeliverable
from leadline.resolvers.context import RequestContext
from leadline.resolvers.phones import is_bsuid

log = logging.getLogger("leadline.chats.webhooks")

ALIASES = {"played": "read"}


def earlier_states(status: str) -> list[str]:
    if status == "failed":
        return list(DELIVERY_ORDER)
    return list(DELIVERY_ORDER[:DELIVERY_ORDER.index(status)])


def _errors(item: dict[str, Any]) -> list[dict[str, Any]]:
    raw = item.get("errors")
    return [e for e in raw if isinstance(e, dict)] if isinstance(raw, list) else []


def _error_of(errors: list[dict[str, Any]]) -> dict[str, Any] | None:
    if not errors:
        return None
    first = errors[0]
    details = first.get("error_data", {}).get("details") if isinstance(first.get("error_data"), dict) else None
    code = first.get("code")
    return {"code": code if isinstance(code, int) else None, "title": first.get("title"),
            "message": first.get("message") or first.get("title"), "details": details}


def _cost(current: dict[str, Any] | None, item: dict[str, Any]) -> dict[str, Any] | None:
    """Cloud API `pricing` gives the category (no amount); `conversation.origin.type` is the older spelling."""
    pricing = item.get("pricing") if isinstance(item.get("pricing"), dict) else {}
    origin = item.get("conversation", {}).get("origin") if isinstance(item.get("conversation"), dict) else None
    category = pricing.get("category") or (origin.get("type") if isinstance(origin, dict) else None)
    if not category:
        return None
    cost = {"amount": None, "currency": None, **(current or {}), "category": category}
    for key in ("amount", "currency"):
        if pricing.get(key) is not None:
            cost[key] = pricing[key]
    return cost


async def apply(ctx: RequestContext, item: Any) -> str:
    """Outcome: applied, unchanged, unmatched (no such message yet), ignored or malformed."""
    if not isinstance(item, dict) or not isinstance(item.get("id"), str):
        return "malformed"
    status = str(item.get("status") or "").lower()
    status = ALIASES.get(status, status)
    if status not in (*DELIVERY_ORDER[1:], "failed"):
        log.info("status '%s' acknowledged, not applied", status, extra={"cmid": item["id"]})
        return "ignored"
    found = await ChatMessage.find_across_orgs({"cmid": item["id"]}).to_list()
    message = next((m for m in found if m.org_id == ctx.org_id and m.direction == "outbound"), None)
    if message is None:
        return "unmatched"
    at = sent_at(item.get("timestamp"))
    errors = _errors(item)
    changes: dict[str, Any] = {"status": status, f"status_times.{status}": at, "updated_at": utcnow()}
    if status == "failed":
        changes["error"] = _error_of(errors)
    if (cost := _cost(message.cost, item)) is not None:
        changes["cost"] = cost
    if message.bsuid is None and isinstance(item.get("user_id"), str) and is_bsuid(item["user_id"]):
        changes["bsuid"] = item["user_id"]
    result = await ChatMessage.update_one_in(
        message, {"_id": message.id, "status": {"$in": earlier_states(status)}}, {"$set": changes})
    if not result.matched_count:
        current = await ChatMessage.get_in(ctx, message.id)
        if current is None or current.status != status:
            return "unchanged"  # a late or stale status
        message = current  # applied before (a retry or redelivery): the event below is a no-op then
    else:
        previous = message.status
        message = message.model_copy(update={"status": status, "error": changes.get("error", message.error),
                                             "cost": changes.get("cost", message.cost)})
        log.debug("message %s: %s -> %s", message.id, previous, status)
    await emit(ctx, "chatapp.message_status", {
        "messageId": str(message.id), "cmid": message.cmid, "status": status, "to": message.phone,
        "phone": message.phone, "bsuid": message.bsuid or changes.get("bsuid"), "brandNumber": message.brand_number,
        "campaignId": str(message.campaign_id) if message.campaign_id else None, "error": message.error,
        "cost": message.cost, "timestamp": at.isoformat(),
    }, once_for=(message.id, status))
    if status == "failed" and any(e.get("code") in UNDELIVERABLE_CODES for e in errors):
        await mark_undeliverable(ctx, message.contact_id, message.phone)
    return "applied" if result.matched_count else "unchanged"
