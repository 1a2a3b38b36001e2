"""What comes back from a campaign's recipients, recorded for its report: delivery statuses move the
recipient's slot (delivered, read, failed:<code>) and add the provider's costs; replies and quick-reply
clicks on a campaign message mark the recipient and record `campaign.reply` / `campaign.button_click`.

Registered with the chats domain's hooks (resolvers/chats/hooks.py): one bulk write per batch.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any

from pymongo import UpdateOne

from leadline.models.campaigns import Campaign, CampaignChunk
from leadline.models.chats import ChatMessage
from leadline.resolvers.campaigns.report import country_of
from leadline.resolvers.chats.hooks import AppliedStatus, StoredInbound, after_inbound, after_statuses
from leadline.resolvers.events import Event, emit_many


def slot_state(status: str, error: dict[str, Any] | None) -> str:
    """A recipient's slot for its message's delivery status."""
    return f"failed:{(error or {}).get('code') or 'UNKNOWN'}" if status == "failed" else status


@after_statuses
async def on_statuses(applied: list[AppliedStatus]) -> None:
    # One update per chunk and one per campaign for the whole batch: a chunk document holds 500
    # recipients (~60 KB), and the embedded database rewrites all of it on every update.
    chunk_sets: dict[tuple, dict[str, str]] = defaultdict(dict)
    campaign_changes: dict[tuple, dict[str, dict[str, Any]]] = defaultdict(lambda: {"$inc": {}, "$set": {}})
    for a in applied:
        doc = a.message
        if not doc.get("campaign_id") or not doc.get("campaign_slot"):
            continue
        index, slot = doc["campaign_slot"]
        state = slot_state(a.status, doc.get("error"))
        if state != "accepted":
            chunk_sets[(doc["org_id"], doc["campaign_id"], index)][f"outcomes.{slot}"] = state
        campaign = campaign_changes[(doc["org_id"], doc["campaign_id"])]
        cost = doc.get("cost") or {}
        if a.cost_set and cost.get("amount") is not None:
            amount = float(cost["amount"])
            for key in ("cost.total", f"cost.byCategory.{cost.get('category') or 'unknown'}",
                        f"cost.byCountry.{country_of(doc.get('phone'))}"):
                campaign["$inc"][key] = campaign["$inc"].get(key, 0.0) + amount
            campaign["$set"]["cost.currency"] = cost.get("currency") or "USD"
        if a.status == "failed" and (error := doc.get("error") or {}).get("code") is not None:
            campaign["$set"][f"failure_messages.{error['code']}"] = error.get("message") or error.get("title") or ""
    if chunk_sets:
        await CampaignChunk.bulk_write_across_orgs([
            UpdateOne({"org_id": org_id, "campaign_id": campaign_id, "index": index}, {"$set": changes})
            for (org_id, campaign_id, index), changes in chunk_sets.items()])
    campaign_updates = [UpdateOne({"_id": campaign_id, "org_id": org_id}, {k: v for k, v in change.items() if v})
                        for (org_id, campaign_id), change in campaign_changes.items() if change["$inc"] or change["$set"]]
    if campaign_updates:
        await Campaign.bulk_write_across_orgs(campaign_updates)


@after_inbound
async def on_inbound(stored: list[StoredInbound]) -> None:
    """An inbound message whose context names a campaign message: a click when it is a quick-reply
    button (its payload set by the campaign), else a reply."""
    replying = {s.message.content["context"]["id"]: s for s in stored
                if isinstance((s.message.content or {}).get("context"), dict)
                and isinstance(s.message.content["context"].get("id"), str)}
    if not replying:
        return
    originals = [m for m in await ChatMessage.find_raw_across_orgs_each(
        "cmid", replying, {"_id": 1, "org_id": 1, "cmid": 1, "campaign_id": 1, "campaign_slot": 1,
                          "campaign_payloads": 1, "contact_id": 1, "phone": 1, "direction": 1})
                 if m.get("campaign_id") and m.get("direction") == "outbound"]
    chunk_updates, campaign_updates, events = [], [], []
    for original in originals:
        s = replying[original["cmid"]]
        if s.ctx.org_id != original["org_id"] or not original.get("campaign_slot"):
            continue
        index, slot = original["campaign_slot"]
        key = {"org_id": original["org_id"], "campaign_id": original["campaign_id"], "index": index}
        payload, button = _click(s.message, original)
        base: dict[str, Any] = {"campaignId": str(original["campaign_id"]), "messageId": str(s.message.id),
                                "campaignMessageId": str(original["_id"]), "contactId": str(s.message.contact_id)
                                if s.message.contact_id else None, "phone": s.message.phone, "bsuid": s.message.bsuid,
                                "createdAt": s.message.created_at.isoformat()}
        if s.message.type == "button" or payload is not None and s.message.type == "interactive":
            chunk_updates.append(UpdateOne(key, {"$addToSet": {"clicked": slot}}))
            campaign_updates.append(UpdateOne({"_id": original["campaign_id"], "org_id": original["org_id"]},
                                              {"$inc": {f"button_clicks.{button}|{payload or ''}": 1}}))
            events.append(Event(original["org_id"], "campaign.button_click",
                                {**base, "payload": payload, "buttonIndex": int(button) if button.isdigit() else None,
                                 "text": s.message.text}, once_for=(s.message.cmid,)))
        else:
            chunk_updates.append(UpdateOne(key, {"$addToSet": {"replied": slot}}))
            events.append(Event(original["org_id"], "campaign.reply",
                                {**base, "text": s.message.text, "type": s.message.type,
                                 "payload": None}, once_for=(s.message.cmid,)))
    if chunk_updates:
        await CampaignChunk.bulk_write_across_orgs(chunk_updates)
    if campaign_updates:
        await Campaign.bulk_write_across_orgs(campaign_updates)
    if events:
        await emit_many(None, events)


def _click(message: ChatMessage, original: dict[str, Any]) -> tuple[str | None, str]:
    """(the payload the click carries, the template button index it belongs to, or "?")."""
    content = message.content or {}
    payload = content.get("payload")
    payloads = original.get("campaign_payloads") or {}
    button = next((i for i, p in payloads.items() if p == payload), "?") if payload is not None else "?"
    return payload, button
