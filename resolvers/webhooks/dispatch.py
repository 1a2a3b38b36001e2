"""Splitting a verified webhook payload into changes and handing each to the handler of its `field`.

A change nobody handles, or one whose value is malformed, is acknowledged and logged: the provider
must not redeliver what will never be processed. An infrastructure failure propagates (the
provider redelivers; the handlers are idempotent).
"""
from __future__ import annotations

import logging
import time
from collections import Counter
from typing import Any

from resolvers.context import Services
from resolvers.webhooks.change import WebhookChange
from resolvers.webhooks.handlers import HANDLERS

log = logging.getLogger("leadline.webhooks")


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


async def ingest(services: Services, payload: dict[str, Any]) -> Counter[str]:
    """Outcome counts, e.g. {'applied': 1, 'unhandled': 2}."""
    outcomes: Counter[str] = Counter()
    for change in changes_of(payload):
        handler = HANDLERS.get(change.field)
        if handler is None:
            log.info("webhook change '%s' acknowledged, not handled", change.field,
                     extra={"field": change.field, "entry_id": change.entry_id})
            outcomes["unhandled"] += 1
            continue
        outcome = await handler(services, change)
        if outcome == "malformed":
            log.warning("webhook change '%s' malformed, skipped", change.field, extra={"field": change.field})
        outcomes[outcome] += 1
    return outcomes
