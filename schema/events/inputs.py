"""Webhook endpoint inputs: every field optional, so the domain answers a missing URL with its own code."""
from __future__ import annotations

import strawberry

from leadline.resolvers.events.endpoints import EndpointWrite


@strawberry.input
class WebhookEndpointInput:
    url: str | None = strawberry.field(default=None, description="https (http and loopback in development).")
    description: str | None = None
    events: list[str] | None = strawberry.field(default=None, description="Event kinds to receive; empty = all.")
    is_active: bool | None = strawberry.field(default=None, description="true re-enables a disabled endpoint.")

    def to_domain(self) -> EndpointWrite:
        return EndpointWrite(self.url, self.description, self.events, self.is_active)
