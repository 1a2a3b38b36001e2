"""Which handler serves which change `field`, and which fields are queued to arq rather than run inline."""
from __future__ import annotations

from typing import Awaitable, Callable

from leadline.resolvers.chats.webhook import on_messages
from leadline.resolvers.context import Services
from leadline.resolvers.templates import review
from leadline.resolvers.webhooks.change import WebhookChange

Handler = Callable[[Services, WebhookChange], Awaitable[str]]

HANDLERS: dict[str, Handler] = {
    "message_template_status_update": review.on_status_update,
    "message_template_quality_update": review.on_quality_update,
    "template_category_update": review.on_category_update,
    "messages": on_messages,
}

# Inbound messages and statuses: several writes each, so POST /webhooks/chatapp queues them (one job
# per change) and acknowledges at once. Template updates are one conditional write: inline.
QUEUED_FIELDS = frozenset({"messages"})
