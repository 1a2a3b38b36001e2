"""Chats: inbound messages and delivery statuses from the provider's webhooks, conversation rows,
the 24-hour customer-service window, and the history and conversation-list reads (docs/chats.md)."""
# The module that registers the `messages` webhook handler, loaded with any part of the domain.
from leadline.resolvers.chats import webhook  # noqa: F401
