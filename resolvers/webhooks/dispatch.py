"""Splitting a verified webhook payload into changes and handing them to the handler of their `field`.

Three entry points:
- `accept` (POST /webhooks/chatapp): changes of a queued field (`messages`) are appended to the
  durable ingestion stream in one round trip, so the request is acknowledged as soon as Redis holds
  the work; other fields (template updates: one conditional write each) run inline.

Two lanes share the stream. Changes carrying inbound messages enter it at once (live: a person is
waiting for them in the inbox). Status-only changes and the service's own (the sandbox's statuses,
a campaign's conversation rows and events) wait in its delayed set and join it as batches allow:
while a bulk sender (a campaign's fan-out) is sending, at most `ingest_bulk_while_sending` of them
per second per worker (a change standing for a campaign chunk's messages counting one per message),
so on a one-core database the statuses trail the campaign instead of halving its pace, and an
inbound reply never queues behind a hundred thousand statuses.
- `drain` (the worker): claims up to a batch of queued changes and processes them together.
- `ingest`: everything inline, now (tests, and changes the service makes up itself).

A change nobody handles, or one whose value is malformed, is acknowledged and logged: the provider
must not redeliver what will never be processed. A status naming a message not stored yet (its send
may still be writing) is offered again a few times, later. An infrastructure failure leaves the
batch unacknowledged: another try follows, and the handlers are idempotent.
"""
from __future__ import annotations

import json
import logging
import time
from collections import Counter
from dataclasses import asdict
from typing import Any

from leadline.resolvers.context import Services
from leadline.resolvers.streams import Entry, WorkStream
from leadline.resolvers.webhooks.change import WebhookChange
from leadline.resolvers.webhooks.handlers import handler_for, is_queued

log = logging.getLogger("leadline.webhooks")
STREAM = "chatwh"
INTERNAL_PREFIX = "leadline."
# How often a status naming a message not stored yet is offered again before it is acknowledged.
UNMATCHED_TRIES = 3


def ingestion_stream(services: Services) -> WorkStream:
    stream = services.stream(STREAM, stale_ms=int(services.settings.ingest_stale_seconds * 1000))
    if services.settings.ingest_bulk_while_sending > 0:
        stream.gate(bulk_sending_key(services), services.settings.ingest_bulk_while_sending)
    return stream


def bulk_sending_key(services: Services) -> str:
    """Set (with a short expiry, refreshed while sending) by a bulk sender: the bulk lane slows down."""
    return services.rkey("ingest", "bulk-sending")


def _is_live(change: WebhookChange) -> bool:
    return bool(change.value.get("messages"))


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


async def process_many(services: Services, changes: list[WebhookChange]) -> list[str]:
    """Outcome per change, each field's changes handed to its handler together."""
    outcomes = [""] * len(changes)
    by_field: dict[str, list[int]] = {}
    for index, change in enumerate(changes):
        by_field.setdefault(change.field, []).append(index)
    for field, indexes in by_field.items():
        handler = handler_for(field)
        if handler is None:
            log.info("webhook change '%s' acknowledged, not handled", field, extra={"field": field})
            results = ["unhandled"] * len(indexes)
        else:
            results = await handler(services, [changes[i] for i in indexes])
        for index, outcome in zip(indexes, results):
            if outcome == "malformed":
                log.warning("webhook change '%s' malformed, skipped", field, extra={"field": field})
            outcomes[index] = outcome
    return outcomes


async def process(services: Services, change: WebhookChange) -> str:
    return (await process_many(services, [change]))[0]


async def ingest(services: Services, payload: dict[str, Any]) -> Counter[str]:
    """Process every change now. Outcome counts, e.g. {'applied': 1, 'unhandled': 2}."""
    outcomes = Counter(await process_many(services, changes_of(payload)))
    if outcomes["unmatched"]:
        log.info("webhook status for a message not stored here acknowledged", extra={"count": outcomes["unmatched"]})
    return outcomes


async def accept(services: Services, payload: dict[str, Any]) -> Counter[str]:
    """Queue the heavy changes, run the rest inline. Outcome counts ('queued', 'applied', ...)."""
    # Fields of the service's own queued work (`leadline.*`) never come from outside.
    changes = [c for c in changes_of(payload) if not c.field.startswith(INTERNAL_PREFIX)]
    queued = [c for c in changes if is_queued(c.field)]
    inline = [c for c in changes if not is_queued(c.field)]
    outcomes: Counter[str] = Counter(await process_many(services, inline)) if inline else Counter()
    if queued:
        stream, now = ingestion_stream(services), time.time()
        pipe = services.redis.pipeline(transaction=False)
        for change in queued:
            if _is_live(change):
                pipe.xadd(stream.key, {"d": json.dumps({"change": asdict(change)}, separators=(",", ":"))})
            else:
                stream.add_later_to(pipe, {"change": asdict(change)}, now)
        await pipe.execute()
        outcomes["queued"] += len(queued)
    return outcomes


async def queue_changes(services: Services, changes: list[tuple[WebhookChange, float]], weight: int = 1) -> None:
    """Changes the service makes up itself (the sandbox's statuses), each entering the queue at its time.
    `weight`: what each change counts against the bulk lane's allowance (a change standing for a
    campaign chunk's 500 messages weighs 500)."""
    await ingestion_stream(services).add_later(({"change": asdict(c)}, due, weight) for c, due in changes)


async def drain(services: Services, consumer: str, *, count: int | None = None, block_ms: int | None = None) -> int:
    """Claim up to a batch of queued changes, process them together, acknowledge them. Returns how many."""
    stream = ingestion_stream(services)
    count = count or services.settings.ingest_batch
    entries = await stream.claim(consumer, count, block_ms)
    if not entries:
        return 0
    changes = [WebhookChange(**entry.payload["change"]) for entry in entries]
    try:
        outcomes = await process_many(services, changes)
        done = list(zip(entries, outcomes))
    except Exception:
        # One bad change must not hold back the rest: retry the batch one change at a time; a change that
        # still fails stays pending (offered again later, dead-lettered after too many tries).
        log.exception("ingestion batch of %d failed; retrying one by one", len(entries))
        done = []
        for entry, change in zip(entries, changes):
            try:
                done.append((entry, await process(services, change)))
            except Exception:
                log.exception("queued webhook change failed", extra={"entry": entry.id})
    await _offer_again(services, stream, [entry for entry, outcome in done if outcome == "unmatched"])
    await stream.ack(entry.id for entry, _ in done)
    return len(done)


async def _offer_again(services: Services, stream: WorkStream, unmatched: list[Entry]) -> None:
    later, delay = [], services.settings.chatapp_webhook_retry_seconds
    for entry in unmatched:
        attempt = int(entry.payload.get("attempt", 0)) + 1
        if attempt < UNMATCHED_TRIES:
            later.append(({**entry.payload, "attempt": attempt}, time.time() + delay * attempt))
        else:
            log.info("webhook status for a message not stored here acknowledged", extra={"entry": entry.id})
    if later:
        await stream.add_later(later)
