"""The two send requests as the resolvers receive them (every field optional: the resolvers raise
the spec's own codes for what is missing)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class TemplateSendRequest:
    to: str | None = None
    brand_number: str | None = None
    template_id: str | None = None
    template_name: str | None = None
    language: str | None = None
    default_country_code: str | None = None
    header_parameters: list[str] = field(default_factory=list)
    body_parameters: list[str] = field(default_factory=list)
    button_parameters: list[str] = field(default_factory=list)
    otp: Any = None
    media_url: str | None = None
    scheduled_at: str | None = None
    timezone: str | None = None
    store_in_ai_context: bool = False


@dataclass(frozen=True)
class MessageSendRequest:
    to: str | None = None
    brand_number: str | None = None
    type: str | None = None
    content: Any = None
    scheduled_at: str | None = None
    timezone: str | None = None
    store_in_ai_context: bool = False
