"""Delivery statuses of outbound messages (`value.statuses[]`), from real webhooks and the sandbox alike.

A status moves the message forward only: accepted → sent → delivered → read (`played` counts as read);
`failed` is terminal from any other state and records the provider's error. The move is one
conditional update (`status` among the earlier states), so a late or redelivered status changes
nothing. `chatapp.message_status` is recorded once per (message, status); the provider's
undeliverable code marks the contact `chatapp_undeliverable`.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from pymongo import UpdateOne

from leadline.models.base import utcnow
from leadline.models.chats import DELIVERY_ORDER, ChatMessage
from leadline.resolvers.events import Event, emit_many
from leadline.resolvers.chats.hooks import AppliedStatus, statuses_applied
from leadline.resolvers.chats.parse import sent_at
from leadline.resolvers.chats.undeliverable import UNDELIVERABLE_CODES, mark_undeliverable
from leadline.resolvers.context import RequestContext
from leadline.resolvers.inbox import live
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


@dataclass(frozen=True)
class _Report:
    index: int
    ctx: RequestContext
    item: dict[str, Any]
    status: str
    at: Any


def _rank(status: str) -> int:
    return len(DELIVERY_ORDER) if status == "failed" else DELIVERY_ORDER.index(status)


def _moves(current: str, status: str) -> bool:
    """Whether `status` moves a message that is at `current` (forward only; failed is terminal)."""
    return current != "failed" and (status == "failed" or _rank(status) > _rank(current))


_FIELDS = {"_id": 1, "org_id": 1, "direction": 1, "status": 1, "cmid": 1, "phone": 1, "bsuid": 1, "brand_number": 1,
           "campaign_id": 1, "campaign_slot": 1, "error": 1, "cost": 1, "contact_id": 1}


async def apply_many(reports: list[tuple[RequestContext, Any]]) -> list[str]:
    """Outcome per status: applied, unchanged, unmatched (no such message yet), ignored or malformed.

    One read finds every message of the batch, one bulk write moves each message once (to the furthest
    status reported, with every applied status's time), one insert records the events.
    """
    outcomes: list[str] = [""] * len(reports)
    valid: list[_Report] = []
    for index, (ctx, item) in enumerate(reports):
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            outcomes[index] = "malformed"
            continue
        status = ALIASES.get(str(item.get("status") or "").lower(), str(item.get("status") or "").lower())
        if status not in (*DELIVERY_ORDER[1:], "failed"):
            log.info("status '%s' acknowledged, not applied", status, extra={"cmid": item["id"]})
            outcomes[index] = "ignored"
            continue
        valid.append(_Report(index, ctx, item, status, sent_at(item.get("timestamp"))))
    if not valid:
        return outcomes
    found = await ChatMessage.find_raw_across_orgs_each("cmid", [r.item["id"] for r in valid], _FIELDS)
    messages = {(doc["org_id"], doc["cmid"]): doc for doc in found if doc.get("direction") == "outbound"}
    per_message: dict[Any, list[_Report]] = {}
    for report in valid:
        doc = messages.get((report.ctx.org_id, report.item["id"]))
        if doc is None:
            outcomes[report.index] = "unmatched"
        else:
            per_message.setdefault(doc["_id"], []).append(report)
    updates, events, undeliverable, hooked = [], [], [], []
    moved: list[tuple[RequestContext, dict[str, Any]]] = []  # for the live updates
    for message_id, group in per_message.items():
        doc = messages[(group[0].ctx.org_id, group[0].item["id"])]
        current = doc["status"]
        changes: dict[str, Any] = {"updated_at": utcnow()}
        applied: list[_Report] = []
        for report in sorted(group, key=lambda r: _rank(r.status)):
            if _moves(current, report.status):
                current = report.status
                applied.append(report)
                changes[f"status_times.{report.status}"] = report.at
                outcomes[report.index] = "applied"
                if report.status == "failed":
                    changes["error"] = _error_of(_errors(report.item))
            else:
                outcomes[report.index] = "unchanged"
            if (cost := _cost(changes.get("cost", doc.get("cost")), report.item)) is not None:
                changes["cost"] = cost
            user_id = report.item.get("user_id")
            if doc.get("bsuid") is None and isinstance(user_id, str) and is_bsuid(user_id):
                changes["bsuid"] = user_id
        if applied:
            changes["status"] = current
            updates.append(UpdateOne({"_id": message_id, "org_id": doc["org_id"],
                                      "status": {"$in": earlier_states(current)}}, {"$set": changes}))
        after = {**doc, **changes}
        if applied:
            moved.append((group[0].ctx, after))
        if applied or ("cost" in changes and not doc.get("cost")):
            hooked.append(AppliedStatus(group[0].ctx, after, current, "cost" in changes and not doc.get("cost")))
        # A status reported again as it stands is recorded again too (a no-op unless its first record
        # was interrupted after the update): the event's id is derived from the message and status.
        again = [r for r in group if r.status == doc["status"]]
        for report in [*applied, *again[:1]]:
            events.append(_status_event(report.ctx, after, report))
            if report.status == "failed" and any(e.get("code") in UNDELIVERABLE_CODES for e in _errors(report.item)):
                undeliverable.append((report.ctx, after))
    if updates:
        await ChatMessage.bulk_write_across_orgs(updates)
    if events:
        await emit_many(None, events)
    await live.publish_statuses(moved)
    for ctx, doc in undeliverable:
        await mark_undeliverable(ctx, doc.get("contact_id"), doc.get("phone"))
    await statuses_applied(hooked)
    return outcomes


async def apply(ctx: RequestContext, item: Any) -> str:
    """One status (see `apply_many`)."""
    return (await apply_many([(ctx, item)]))[0]


def _status_event(ctx: RequestContext, doc: dict[str, Any], report: _Report) -> Event:
    campaign = doc.get("campaign_id")
    return Event(ctx.org_id, "chatapp.message_status", {
        "messageId": str(doc["_id"]), "cmid": doc["cmid"], "status": report.status, "to": doc.get("phone"),
        "phone": doc.get("phone"), "bsuid": doc.get("bsuid"), "brandNumber": doc.get("brand_number"),
        "campaignId": str(campaign) if campaign else None, "error": doc.get("error"), "cost": doc.get("cost"),
        "timestamp": report.at.isoformat(),
    }, once_for=(doc["_id"], report.status))
