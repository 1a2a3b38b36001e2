"""Send inputs: every field optional so the resolvers raise the spec's own codes for what is missing.
`storeInAIContext` keeps the spec's spelling (auto camel case would give `storeInAiContext`)."""
from __future__ import annotations

import strawberry

from leadline.resolvers.messaging.requests import MessageSendRequest, TemplateSendRequest
from leadline.schema.scalars import JSON


@strawberry.input
class SendTemplateInput:
    to: str | None = None
    brand_number: str | None = None
    template_id: str | None = None
    template_name: str | None = None
    language: str | None = None
    default_country_code: str | None = None
    header_parameters: list[str] | None = None
    body_parameters: list[str] | None = None
    button_parameters: list[str] | None = None
    otp: JSON | None = strawberry.field(default=None, description="String or number.")
    media_url: str | None = None
    scheduled_at: str | None = None
    timezone: str | None = None
    store_in_ai_context: bool | None = strawberry.field(default=None, name="storeInAIContext")

    def to_domain(self) -> TemplateSendRequest:
        return TemplateSendRequest(
            to=self.to, brand_number=self.brand_number, template_id=self.template_id,
            template_name=self.template_name, language=self.language,
            default_country_code=self.default_country_code, header_parameters=list(self.header_parameters or []),
            body_parameters=list(self.body_parameters or []), button_parameters=list(self.button_parameters or []),
            otp=self.otp, media_url=self.media_url, scheduled_at=self.scheduled_at, timezone=self.timezone,
            store_in_ai_context=bool(self.store_in_ai_context))


@strawberry.input
class SendMessageInput:
    to: str | None = None
    brand_number: str | None = None
    type: str | None = None
    content: JSON | None = None
    scheduled_at: str | None = None
    timezone: str | None = None
    store_in_ai_context: bool | None = strawberry.field(default=None, name="storeInAIContext")

    def to_domain(self) -> MessageSendRequest:
        return MessageSendRequest(to=self.to, brand_number=self.brand_number, type=self.type, content=self.content,
                                  scheduled_at=self.scheduled_at, timezone=self.timezone,
                                  store_in_ai_context=bool(self.store_in_ai_context))
