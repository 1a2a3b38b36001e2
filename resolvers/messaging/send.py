"""POST /v2.0/chatapp/send (templates) and POST /v2.0/chatapp/message (freeform): validate, then send
now or store a schedule. Cheap checks come first, then the lookups, so a bad request costs no reads."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from leadline.models.chats import ChatMessage
from leadline.models.messaging import ScheduledMessage
from leadline.resolvers.channels.accounts import active_chat_account
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError
from leadline.resolvers.messaging import schedules
from leadline.resolvers.messaging.content import preview, validate_content
from leadline.resolvers.messaging.deliver import PreparedSend, deliver
from leadline.resolvers.messaging.recipients import parse_recipient
from leadline.resolvers.messaging.requests import MessageSendRequest, TemplateSendRequest
from leadline.resolvers.messaging.templates import build_outbound, rendered_text, sendable_template, template_ref
from leadline.resolvers.messaging.timing import schedule_time
from leadline.resolvers.phones import digits_only


@dataclass(frozen=True)
class SendOutcome:
    """Either `message` (sent now) or `schedule` (stored for later)."""

    recipient: str
    template: dict[str, Any] | None
    type: str
    message: ChatMessage | None = None
    schedule: ScheduledMessage | None = None

    @property
    def scheduled_at(self) -> datetime | None:
        return self.schedule.scheduled_at if self.schedule else None


def _require_parties(to: str | None, brand_number: str | None) -> None:
    if not (to or "").strip():
        raise ApiError("MISSING_RECIPIENT", "'to' is required: a phone number or a BSUID.")
    if not digits_only(brand_number or ""):
        raise ApiError("BRAND_NUMBER_MISSING", "brandNumber is required.")


async def send_template(ctx: RequestContext, req: TemplateSendRequest) -> SendOutcome:
    _require_parties(req.to, req.brand_number)
    if req.template_id in (None, "") and not (req.template_name or "").strip():
        raise ApiError("MISSING_TEMPLATE", "Send templateId, or templateName (with language).")
    recipient = parse_recipient(req.to, req.default_country_code)
    when = schedule_time(req.scheduled_at, req.timezone)
    account = await active_chat_account(ctx, req.brand_number, cached=True)
    template = await sendable_template(ctx, req, account.number)
    outbound = build_outbound(template, req)
    ref = template_ref(template)
    prepared = PreparedSend(recipient=recipient, text=rendered_text(template, outbound),
                            store_in_ai_context=bool(req.store_in_ai_context), template=ref, outbound=outbound)
    if when is not None:
        schedule = await schedules.create(ctx, account, prepared, when[0], when[1], template_db_id=template.id)
        return SendOutcome(recipient.to, ref, "template", schedule=schedule)
    message = await deliver(ctx, account, prepared)
    return SendOutcome(recipient.to, ref, "template", message=message)


async def send_message(ctx: RequestContext, req: MessageSendRequest) -> SendOutcome:
    _require_parties(req.to, req.brand_number)
    kind, content = validate_content(req.type, req.content)
    recipient = parse_recipient(req.to)
    when = schedule_time(req.scheduled_at, req.timezone)
    account = await active_chat_account(ctx, req.brand_number, cached=True)
    prepared = PreparedSend(recipient=recipient, text=preview(kind, content),
                            store_in_ai_context=bool(req.store_in_ai_context), type=kind, content=content)
    if when is not None:
        # The window is checked when the message is dispatched: the recipient may write before then.
        schedule = await schedules.create(ctx, account, prepared, when[0], when[1])
        return SendOutcome(recipient.to, None, kind, schedule=schedule)
    message = await deliver(ctx, account, prepared)
    return SendOutcome(recipient.to, None, kind, message=message)
