"""Review outcomes reaching a template: provider webhooks (any organisation holding the provider id)
and the sandbox's simulated review (a deferred arq job).

Webhook updates are idempotent and ordered by the provider's event time: a redelivery sets the
same values again, an older event than the last one applied changes nothing. The sandbox's
decision applies only while the template is still PENDING, so it never overturns a decision.
"""
from __future__ import annotations

import logging
import time
from datetime import timedelta
from typing import Any

from bson import ObjectId

from leadline.models.base import utcnow
from leadline.models.templates import CATEGORIES, MessageTemplate
from leadline.resolvers.auth.cache import invalidate_org
from leadline.resolvers.context import Services
from leadline.resolvers.webhooks.change import WebhookChange
from leadline.resolvers.webhooks.handlers import webhook_handler

log = logging.getLogger("leadline.templates.review")

# Provider review events -> our status. Other events (PAUSED, FLAGGED, DELETED, ...) keep the
# status and are recorded in `provider_status` (see models/templates.py: UNSENDABLE_PROVIDER_STATUSES).
STATUS_OF_EVENT = {
    "APPROVED": "APPROVED", "REINSTATED": "APPROVED",
    "REJECTED": "REJECTED", "DISABLED": "REJECTED",
    "PENDING": "PENDING", "IN_APPEAL": "PENDING",
}
QUALITY_SCORES = ("GREEN", "YELLOW", "RED", "UNKNOWN")
SANDBOX_JOB = "sandbox_template_review"


def _provider_id(value: dict[str, Any]) -> str | None:
    raw = value.get("message_template_id")
    text = str(raw) if isinstance(raw, (int, str)) and not isinstance(raw, bool) else ""
    return text if text.isdigit() else None


def _review_update(event: str, reason: str | None, rejection_info: Any, event_time: int) -> dict[str, Any]:
    update: dict[str, Any] = {"provider_status": event, "last_event_time": event_time, "updated_at": utcnow()}
    status = STATUS_OF_EVENT.get(event)
    if status is not None:
        update["status"] = status
    if status == "REJECTED":
        update["rejected_reason"] = reason if reason and reason != "NONE" else None
        update["rejection_info"] = rejection_info if isinstance(rejection_info, dict) else None
    elif status == "APPROVED":
        update["rejected_reason"] = None
        update["rejection_info"] = None
    return update


# --- webhook handlers (one conditional write each: run inline) -----------------------------
@webhook_handler("message_template_status_update")
async def on_status_update(services: Services, change: WebhookChange) -> str:
    value = change.value
    template_id, event = _provider_id(value), str(value.get("event") or "").upper()
    if template_id is None or not event:
        return "malformed"
    update = _review_update(event, value.get("reason"), value.get("rejection_info"), change.time)
    result = await MessageTemplate.find_across_orgs(
        {"template_id": template_id, "last_event_time": {"$lte": change.time}}).update({"$set": update})
    return await _outcome(services, result, template_id)


@webhook_handler("message_template_quality_update")
async def on_quality_update(services: Services, change: WebhookChange) -> str:
    value = change.value
    template_id, score = _provider_id(value), str(value.get("new_quality_score") or "").upper()
    if template_id is None or score not in QUALITY_SCORES:
        return "malformed"
    result = await MessageTemplate.find_across_orgs(
        {"template_id": template_id, "last_quality_time": {"$lte": change.time}}).update(
        {"$set": {"quality_score": score, "last_quality_time": change.time, "updated_at": utcnow()}})
    return await _outcome(services, result, template_id)


@webhook_handler("template_category_update")
async def on_category_update(services: Services, change: WebhookChange) -> str:
    value = change.value
    template_id, category = _provider_id(value), str(value.get("new_category") or "").upper()
    if template_id is None or category not in CATEGORIES:
        return "malformed"
    result = await MessageTemplate.find_across_orgs({"template_id": template_id}).update(
        {"$set": {"category": category, "updated_at": utcnow()}})
    return await _outcome(services, result, template_id)


async def _outcome(services: Services, result: Any, template_id: str) -> str:
    if result is not None and getattr(result, "matched_count", 0):
        # Sends cache approved templates per organisation: the owners' caches are dropped.
        for doc in await MessageTemplate.find_raw_across_orgs({"template_id": template_id}, {"org_id": 1}):
            await invalidate_org(services.redis, services.settings.redis_prefix, doc["org_id"])
        return "applied"
    # Unknown id, or an event older than the one already applied.
    log.info("template event for %s changed nothing", template_id, extra={"template_id": template_id})
    return "unchanged"


# --- the sandbox's simulated review ------------------------------------------------------------
async def schedule_sandbox_review(services: Services, template: MessageTemplate, decision: str,
                                  reason: str | None) -> None:
    if services.arq is None:
        log.warning("no job queue: the sandbox review of %s is not scheduled", template.id)
        return
    delay = timedelta(seconds=services.settings.sandbox_template_review_seconds)
    await services.arq.enqueue_job(SANDBOX_JOB, str(template.org_id), str(template.id), decision, reason,
                                   _job_id=f"{SANDBOX_JOB}:{template.id}", _defer_by=delay)


async def apply_sandbox_decision(services: Services, org_id: str, template_db_id: str, decision: str,
                                 reason: str | None) -> bool:
    """True when the decision was applied; False when the template was no longer PENDING."""
    update = _review_update(decision, reason, None, int(time.time()))
    result = await MessageTemplate.find_in(ObjectId(org_id), {"_id": ObjectId(template_db_id), "status": "PENDING"}
                                           ).update({"$set": update})
    applied = bool(result is not None and result.matched_count)
    if applied:
        await invalidate_org(services.redis, services.settings.redis_prefix, ObjectId(org_id))
    return applied
