"""The organisation's lead segmentation document: created on first read, written atomically, plan-gated.

`write(ctx, change)` reads the document, lets `change` edit a copy (it raises to refuse), checks the
plan on the result (`gate`), and replaces the document only if its `version` is still the one read;
a concurrent writer makes it start again from the newer document, so no write is lost and a refused
write applies nothing.
"""
from __future__ import annotations

import asyncio
import random
from typing import Callable, TypeVar

from pymongo.errors import DuplicateKeyError

from leadline.models.base import utcnow
from leadline.models.leads import LeadSegmentation
from leadline.resolvers.billing.limits import check_limit, limit_of
from leadline.resolvers.billing.plans import require_feature
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError

T = TypeVar("T")
ATTEMPTS = 50
# Plan features a write may not switch on without (spec: Lead segmentation 8).
GATED_FLAGS = (("isCategorizationEnabled", "lead_categorization"), ("isFollowupEnabled", "ai_followups"))
STORED_FIELDS = ("isCategorizationEnabled", "isFollowupEnabled", "delay", "model", "provider", "triggerPrompt",
                 "categorizationToolDescription", "categories", "defaultFollowups", "audienceSegments")


def usage(config: LeadSegmentation) -> dict[str, int]:
    """What the configuration uses of each plan limit: follow-ups are every category's plus the defaults."""
    return {
        "max_lead_categories": len(config.categories),
        "max_ai_followups": sum(len(c.followups) for c in config.categories) + len(config.defaultFollowups),
        "max_ai_insights": len(config.audienceSegments),
    }


async def read(ctx: RequestContext) -> LeadSegmentation | None:
    """The stored document, or None before the first write or read of the routes (no write here)."""
    return await LeadSegmentation.find_one_in(ctx)


async def load(ctx: RequestContext) -> LeadSegmentation:
    """The document, created with the defaults when the organisation has none yet."""
    for _ in range(3):
        config = await read(ctx)
        if config is not None:
            return config
        try:
            await LeadSegmentation.new(ctx).insert()
        except DuplicateKeyError:  # created concurrently: read that one
            pass
    raise ApiError("INTERNAL_SERVER_ERROR", "The lead segmentation could not be created; try again.")


def gate(ctx: RequestContext, before: LeadSegmentation, after: LeadSegmentation) -> None:
    """Enabling a flag the plan lacks: PLAN_FEATURE_DISABLED. A write that grows a count past the plan's
    limit: PLAN_LIMIT_EXCEEDED with the usage before it. A write that does not grow a count (or shrinks
    one that a plan change left over the limit) passes."""
    for flag, feature in GATED_FLAGS:
        if getattr(after, flag) and not getattr(before, flag):
            require_feature(ctx, feature, code="PLAN_FEATURE_DISABLED")
    used_before, used_after = usage(before), usage(after)
    for key, count in used_after.items():
        if count > used_before[key]:
            check_limit(key, used_before[key], limit_of(ctx, key), adding=count - used_before[key],
                        code="PLAN_LIMIT_EXCEEDED")


async def write(ctx: RequestContext, change: Callable[[LeadSegmentation], T]) -> tuple[LeadSegmentation, T]:
    """Apply `change` atomically; returns the stored document and what `change` returned."""
    for attempt in range(ATTEMPTS):
        current = await load(ctx)
        draft = current.model_copy(deep=True)
        result = change(draft)
        gate(ctx, current, draft)
        draft.version = current.version + 1
        draft.updated_at = utcnow()
        fields = draft.model_dump(include={*STORED_FIELDS, "version", "updated_at"})
        # One document per organisation: {org_id, version} is that document at the version read.
        stored = await LeadSegmentation.update_one_in(ctx, {"version": current.version}, {"$set": fields})
        if stored.matched_count:
            return draft, result
        # Another write landed first: back off a little (more with each collision) and start again.
        await asyncio.sleep(random.uniform(0, 0.002 * (attempt + 1)))
    raise ApiError("INTERNAL_SERVER_ERROR", "The lead segmentation changed concurrently too often; try again.")
