"""Splitting a verified webhook payload into changes and handing each to the handler of its `field`.

Two entry points:
- `accept` (POST /webhooks/chatapp): changes of a QUEUED field (`messages`) become one arq job each,
  under a deterministic `_job_id` derived from the provider ids they carry, so the request is
  acknowledged as soon as Redis holds the work; other fields (template updates: one conditional write)
  run inline. Without a queue, everything runs inline.
- `ingest`: everything inline, now (the sandbox's simulated statuses and the jobs themselves).

A change nobody handles, or one whose value is malformed, is acknowledged and logged: the provider
must not redeliver what will never be processed. An infrastructure failure propagates (the
provider redelivers, or the job retries; the handlers are idempotent).
"""
from __future__ import annotations

import hashlib
import json
import logging
import time
from collections import Counter
from dataclasses import asdict
from typing import Any

from leadline.resolvers.context import Services
from leadline.resolvers.webhooks.change import WebhookChange
from leadline.resolvers.webhooks.handlers import handler_for, is_queued

log = logging.getLogger("leadline.webhooks")
JOB = "chatapp_webhook_change"


def changes_of(payload: dict[str, Any]) -> list[WebhookChange]:
    changes = []
    now = int(time.time())
    entries = payload.get("entry")
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        raw_time = entry.get("time")
        when = int(raw_time) if isinstance(raw_time, (int, float)) and not isinstance(raw_time, bool) else now
        entry_id = str(entry["id"]) if entry.get("id") is not None else None
        for change in entry.get("changes") or []:
            if isinstance(change, dict) and isinstance(change.get("value"), dict):
                changes.append(WebhookChange(str(change.get("field") or ""), change["value"], entry_id, when))
    return changes


async def process(services: Services, change: WebhookChange) -> str:
    handler = handler_for(change.field)
    if handler is None:
        log.info("webhook change '%s' acknowledged, not handled", change.field,
                 extra={"field": change.field, "entry_id": change.entry_id})
        return "unhandled"
    outcome = await handler(services, change)
    if outcome == "malformed":
        log.warning("webhook change '%s' malformed, skipped", change.field, extra={"field": change.field})
    return outcome


async def ingest(services: Services, payload: dict[str, Any]) -> Counter[str]:
    """Process every change now. Outcome counts, e.g. {'applied': 1, 'unhandled': 2}."""
    outcomes: Counter[str] = Counter()
    for change in changes_of(payload):
        outcome = await process(services, change)
        if outcome == "unmatched":
            log.info("webhook status for a message not stored here acknowledged", extra={"field": change.field})
        outcomes[outcome] += 1
    return outcomes


def job_id(services: Services, change: WebhookChange) -> str | None:
    """`{prefix}:chatwh:<hash>` of the field, the business number and the provider ids (and statuses) in
    the change; None when it carries no id to key on."""
    value = change.value
    messages = value.get("messages") if isinstance(value.get("messages"), list) else []
    statuses = value.get("statuses") if isinstance(value.get("statuses"), list) else []
    ids = [str(m.get("id")) for m in messages if isinstance(m, dict) and m.get("id")]
    ids += [f"{s.get('id')}:{s.get('status')}" for s in statuses if isinstance(s, dict) and s.get("id")]
    if not ids:
        return None
    metadata = value.get("metadata") if isinstance(value.get("metadata"), dict) else {}
    key = [change.field, str(metadata.get("phone_number_id")), str(metadata.get("display_phone_number")), *ids]
    return services.rkey("chatwh", hashlib.sha256(json.dumps(key).encode()).hexdigest()[:40])


async def accept(services: Services, payload: dict[str, Any]) -> Counter[str]:
    """Queue the heavy changes, run the rest inline. Outcome counts ('queued', 'already_queued', ...)."""
    outcomes: Counter[str] = Counter()
    for change in changes_of(payload):
        key = job_id(services, change) if is_queued(change.field) and services.arq is not None else None
        if key is None:
            outcomes[await process(services, change)] += 1
            continue
        job = await services.arq.enqueue_job(JOB, asdict(change), _job_id=key)
        # None: a job with this id is queued, running or finished recently (a redelivery).
        outcomes["queued" if job is not None else "already_queued"] += 1
    return outcomes
