"""Which handler serves which change `field`. Domains add their line here (messaging: `messages`)."""
from __future__ import annotations

from typing import Awaitable, Callable

from resolvers.context import Services
from resolvers.templates import review
from resolvers.webhooks.change import WebhookChange

Handler = Callable[[Services, WebhookChange], Awaitable[str]]

HANDLERS: dict[str, Handler] = {
    "message_template_status_update": review.on_status_update,
    "message_template_quality_update": review.on_quality_update,
    "template_category_update": review.on_category_update,
}
