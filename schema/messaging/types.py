"""Messaging types and their explicit conversion from models and domain results."""
from __future__ import annotations

from datetime import datetime

import strawberry

from leadline.models.chats import ChatMessage
from leadline.models.messaging import ScheduledMessage
from leadline.resolvers.messaging.send import SendOutcome
from leadline.schema.scalars import JSON


@strawberry.type
class TemplateRef:
    name: str
    id: str
    language: str

    @classmethod
    def from_domain(cls, ref: dict | None) -> "TemplateRef | None":
        return cls(name=ref["name"], id=str(ref["id"]), language=ref["language"]) if ref else None


@strawberry.type
class SendResult:
    """An immediate send (`messageId`, `status`) or a schedule (`scheduleId`, `scheduledAt`, `timezone`)."""

    scheduled: bool
    message_id: str | None
    status: str | None
    schedule_id: str | None
    scheduled_at: datetime | None
    timezone: str | None
    recipient: str
    type: str
    template: TemplateRef | None

    @classmethod
    def from_domain(cls, o: SendOutcome) -> "SendResult":
        s, m = o.schedule, o.message
        return cls(scheduled=s is not None, message_id=str(m.id) if m else None, status=m.status if m else None,
                   schedule_id=str(s.id) if s else None, scheduled_at=s.scheduled_at if s else None,
                   timezone=s.timezone if s else None, recipient=o.recipient, type=o.type,
                   template=TemplateRef.from_domain(o.template))


@strawberry.type
class DeliveryError:
    code: int | None
    title: str | None
    message: str | None

    @classmethod
    def from_domain(cls, error: dict | None) -> "DeliveryError | None":
        if not error:
            return None
        code = error.get("code")
        return cls(code=int(code) if isinstance(code, (int, str)) and str(code).isdigit() else None,
                   title=error.get("title"), message=error.get("message") or error.get("title"))


@strawberry.type
class StatusTimes:
    accepted: datetime | None
    sent: datetime | None
    delivered: datetime | None
    read: datetime | None
    failed: datetime | None


@strawberry.type
class MessageStatus:
    message_id: str
    cmid: str | None
    status: str
    recipient: str | None
    brand_number: str
    type: str
    template: TemplateRef | None
    schedule_id: str | None
    error: DeliveryError | None
    timestamps: StatusTimes
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_domain(cls, m: ChatMessage) -> "MessageStatus":
        t = m.status_times or {}
        return cls(message_id=str(m.id), cmid=m.cmid, status=m.status, recipient=m.phone or m.bsuid,
                   brand_number=m.brand_number, type=m.type, template=TemplateRef.from_domain(m.template),
                   schedule_id=str(m.schedule_id) if m.schedule_id else None, error=DeliveryError.from_domain(m.error),
                   timestamps=StatusTimes(**{k: t.get(k) for k in ("accepted", "sent", "delivered", "read", "failed")}),
                   created_at=m.created_at, updated_at=m.updated_at)


@strawberry.type
class ScheduleError:
    code: str
    message: str


@strawberry.type
class ScheduledMessageType:
    schedule_id: str
    status: str
    kind: str
    type: str
    recipient: str
    brand_number: str
    scheduled_at: datetime
    timezone: str
    template: TemplateRef | None
    content: JSON | None
    message_id: str | None
    error: ScheduleError | None
    sent_at: datetime | None
    cancelled_at: datetime | None
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_domain(cls, s: ScheduledMessage) -> "ScheduledMessageType":
        content = s.request.get("content") if s.kind == "message" else None
        # A message id is reported once the message exists (a claim reserves one before sending).
        message_id = str(s.message_id) if s.message_id and s.status == "sent" else None
        return cls(schedule_id=str(s.id), status=s.status, kind=s.kind, type=s.message_type or "template",
                   recipient=s.recipient, brand_number=s.brand_number, scheduled_at=s.scheduled_at,
                   timezone=s.timezone, template=TemplateRef.from_domain(s.template), content=content,
                   message_id=message_id,
                   error=ScheduleError(code=s.error["code"], message=s.error["message"]) if s.error else None,
                   sent_at=s.sent_at, cancelled_at=s.cancelled_at, created_at=s.created_at, updated_at=s.updated_at)
