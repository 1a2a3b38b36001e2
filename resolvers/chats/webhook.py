"""The `messages` change handler: route to the organisation, then each inbound message and status in order.

Returns one outcome for the change: `unmatched` when a status named a message not (yet) stored, so the
queued job can retry it shortly (the send may still be writing the provider id); otherwise `applied`,
`unchanged`, `ignored` or `unrouted`.
"""
from __future__ import annotations

import logging
from collections import Counter

from leadline.resolvers.chats import inbound, statuses
from leadline.resolvers.chats.routing import account_for, org_context
from leadline.resolvers.context import Services
from leadline.resolvers.webhooks.change import WebhookChange
from leadline.resolvers.webhooks.handlers import webhook_handler

log = logging.getLogger("leadline.chats.webhooks")


# Inbound messages and statuses: several writes each, so they are queued for a worker.
@webhook_handler("messages", queued=True)
async def on_messages(services: Services, change: WebhookChange) -> str:
    value = change.value
    messages = value.get("messages") if isinstance(value.get("messages"), list) else []
    items = value.get("statuses") if isinstance(value.get("statuses"), list) else []
    if not messages and not items:
        log.info("messages change without messages or statuses acknowledged", extra={"keys": sorted(value)})
        return "ignored"
    account = await account_for(value.get("metadata"))
    ctx = await org_context(services, account.org_id) if account is not None else None
    if account is None or ctx is None:
        log.warning("messages change for an unknown business number acknowledged, not routed",
                    extra={"metadata": value.get("metadata")})
        return "unrouted"
    outcomes: Counter[str] = Counter()
    for item in messages:
        outcomes[await inbound.receive(ctx, account, value, item)] += 1
    for item in items:
        outcomes[await statuses.apply(ctx, item)] += 1
    if outcomes["unmatched"]:
        return "unmatched"
    if outcomes["stored"] or outcomes["applied"] or outcomes["reacted"]:
        return "applied"
    return "unchanged" if outcomes["duplicate"] or outcomes["unchanged"] else "ignored"
