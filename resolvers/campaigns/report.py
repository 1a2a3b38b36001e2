"""A campaign's counters, report and list rows, counted from its recipients' outcomes.

Each recipient's state is its slot in its chunk (models/campaigns.py): `pending`, `sent`, `delivered`,
`read`, `failed:<code>` or `skipped`; delivery statuses move it on (resolvers/campaigns/feedback.py).
Counters are a recount of those slots (one read of the campaign's chunks, outcomes only), so they are
exact by construction and add up to `total`.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import phonenumbers

from leadline.models.campaigns import CAMPAIGN_STATUSES, Campaign, CampaignChunk
from leadline.resolvers.campaigns.ids import campaign_of
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError
from leadline.resolvers.pagination import Page, page_request
from leadline.resolvers.phones import digits_only

STATES = ("pending", "sent", "delivered", "read", "failed", "skipped")
LIST_DEFAULT, LIST_MAX = 20, 100
# What our own failure codes mean (a provider's code is described by its error title when it gives one).
FAILURE_MESSAGES = {
    "VARIABLE_MISSING": "A personalised value was missing for this recipient and had no default.",
    "INTERRUPTED": "The worker stopped between handing the message to the provider and recording the outcome.",
    "BIZACCT_NOT_FOUND": "The business number is no longer connected.",
    "TEMPLATE_NOT_FOUND": "The template no longer exists.",
    "PROVIDER_API_ERROR": "The provider could not be reached.",
    "131026": "Message undeliverable.",
}


@dataclass
class Report:
    campaign: Campaign
    counters: dict[str, int]
    failures: list[dict[str, Any]] = field(default_factory=list)
    button_clicks: list[dict[str, Any]] = field(default_factory=list)
    cost: dict[str, Any] = field(default_factory=dict)

    @property
    def rates(self) -> dict[str, float]:
        c = self.counters
        attempted = c["total"] - c["pending"] - c["skipped"]
        if attempted <= 0:
            return {"success": 0.0, "read": 0.0, "reply": 0.0, "click": 0.0}
        return {"success": round((c["delivered"] + c["read"]) / attempted, 4), "read": round(c["read"] / attempted, 4),
                "reply": round(c["replied"] / attempted, 4), "click": round(c["clicked"] / attempted, 4)}


async def _chunks(campaign: Campaign) -> list[dict[str, Any]]:
    return await CampaignChunk.find_raw_in(campaign, {"campaign_id": campaign.id},
                                           {"outcomes": 1, "replied": 1, "clicked": 1})


def _tally(chunks: list[dict[str, Any]]) -> tuple[dict[str, int], Counter]:
    states: Counter = Counter()
    codes: Counter = Counter()
    replied = clicked = 0
    for chunk in chunks:
        for outcome in chunk["outcomes"]:
            state, _, code = outcome.partition(":")
            states[state] += 1
            if code:
                codes[code] += 1
        replied += len(set(chunk.get("replied") or ()))
        clicked += len(set(chunk.get("clicked") or ()))
    counters = {"total": sum(states.values()), **{s: states[s] for s in STATES}, "replied": replied,
                "clicked": clicked}
    return counters, codes


async def outcome_counts(campaign: Campaign) -> dict[str, int]:
    return _tally(await _chunks(campaign))[0]


async def report(ctx: RequestContext, campaign_id: str) -> Report:
    campaign = await campaign_of(ctx, campaign_id)
    counters, codes = _tally(await _chunks(campaign))
    failures = [{"code": code, "count": n,
                 "message": campaign.failure_messages.get(code) or FAILURE_MESSAGES.get(code, "The provider refused the message.")}
                for code, n in codes.most_common()]
    clicks = []
    for key, n in sorted(campaign.button_clicks.items()):
        index, _, payload = key.partition("|")
        clicks.append({"index": int(index), "payload": payload or None, "count": n})
    return Report(campaign, counters, failures, clicks, _cost(campaign))


def _cost(campaign: Campaign) -> dict[str, Any]:
    """Costs the provider reported on the campaign's messages (kept as statuses arrive: feedback.py)."""
    cost = campaign.cost or {}
    return {"currency": cost.get("currency", "USD"), "total": round(cost.get("total", 0.0), 6),
            "byCategory": {k: round(v, 6) for k, v in (cost.get("byCategory") or {}).items()},
            "byCountry": {k: round(v, 6) for k, v in (cost.get("byCountry") or {}).items()}}


def country_of(phone: str | None) -> str:
    try:
        return phonenumbers.region_code_for_number(phonenumbers.parse("+" + digits_only(phone or ""))) or "ZZ"
    except phonenumbers.NumberParseException:
        return "ZZ"


async def list_campaigns(ctx: RequestContext, status: str | None, brand_number: str | None, page: int | None,
                         limit: int | None) -> tuple[Page[Campaign], dict[Any, dict[str, int]]]:
    """Newest first; each row's counters with it."""
    req = page_request(page, limit, default=LIST_DEFAULT, maximum=LIST_MAX)
    filt: dict[str, Any] = {}
    if status is not None:
        if status not in CAMPAIGN_STATUSES:
            raise ApiError("INVALID_CAMPAIGN_STATUS", f"status must be one of: {', '.join(CAMPAIGN_STATUSES)}.")
        filt["status"] = status
    if brand_number:
        filt["brand_number"] = digits_only(brand_number)
    total = await Campaign.count_in(ctx, filt)
    rows = await Campaign.find_in(ctx, filt).sort("-created_at").skip(req.skip).limit(req.limit).to_list()
    counters = {}
    for row in rows:
        counters[row.id] = await outcome_counts(row)
    return Page(rows, req.page, req.limit, total), counters
