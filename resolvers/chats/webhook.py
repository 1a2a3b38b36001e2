"""The `messages` change handler: route each change to its organisation, then its inbound messages and
statuses, a batch of changes at a time.

Returns one outcome per change: `unmatched` when a status named a message not (yet) stored, so the
queued job can retry it shortly (the send may still be writing the provider id); otherwise `applied`,
`unchanged`, `ignored` or `unrouted`.
"""
from __future__ import annotations

import logging
from collections import Counter

from typing import Any

from leadline.resolvers.chats.inbound import Inbound, receive_many
from leadline.resolvers.chats.routing import route
from leadline.resolvers.chats.statuses import apply_many
from leadline.resolvers.context import RequestContext, Services
from leadline.resolvers.webhooks.change import WebhookChange
from leadline.resolvers.webhooks.handlers import webhook_handler

log = logging.getLogger("leadline.chats.webhooks")


@webhook_handler("messages", queued=True, batch=True)
async def on_messages(services: Services, changes: list[WebhookChange]) -> list[str]:
    """Outcome per change. Inbound messages and statuses: several writes each, so they are queued for
    a worker, which hands them over in batches: every database step below runs once per batch (or once
    per organisation in it), not once per message."""
    outcomes: list[str] = [""] * len(changes)
    accounts, contexts = await route(services, [c.value.get("metadata") for c in changes])
    inbound: dict[Any, list[tuple[int, Inbound]]] = {}
    reports: list[tuple[int, RequestContext, Any]] = []
    for index, (change, account) in enumerate(zip(changes, accounts)):
        value = change.value
        messages = value.get("messages") if isinstance(value.get("messages"), list) else []
        items = value.get("statuses") if isinstance(value.get("statuses"), list) else []
        if not messages and not items:
            log.info("messages change without messages or statuses acknowledged", extra={"keys": sorted(value)})
            outcomes[index] = "ignored"
            continue
        ctx = contexts.get(account.org_id) if account is not None else None
        if account is None or ctx is None:
            log.warning("messages change for an unknown business number acknowledged, not routed",
                        extra={"metadata": value.get("metadata")})
            outcomes[index] = "unrouted"
            continue
        inbound.setdefault(account.org_id, []).extend((index, Inbound(account, value, m)) for m in messages)
        reports.extend((index, ctx, item) for item in items)
    per_change: dict[int, Counter[str]] = {}
    for org_id, items in inbound.items():
        results = await receive_many(contexts[org_id], [item for _, item in items])
        for (index, _), outcome in zip(items, results):
            per_change.setdefault(index, Counter())[outcome] += 1
    results = await apply_many([(ctx, item) for _, ctx, item in reports])
    for (index, _, _), outcome in zip(reports, results):
        per_change.setdefault(index, Counter())[outcome] += 1
    for index, counted in per_change.items():
        outcomes[index] = _outcome(counted)
    return outcomes


def _outcome(outcomes: Counter[str]) -> str:
    if outcomes["unmatched"]:
        return "unmatched"
    if outcomes["stored"] or outcomes["applied"] or outcomes["reacted"]:
        return "applied"
    return "unchanged" if outcomes["duplicate"] or outcomes["unchanged"] else "ignored"
