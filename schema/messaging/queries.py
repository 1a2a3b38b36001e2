"""Messaging root fields: thin calls into resolvers.messaging."""
from __future__ import annotations

import strawberry
from strawberry.types import Info

from leadline.resolvers.messaging import schedules, send
from leadline.resolvers.messaging.status import message_status
from leadline.schema.common import Paged, paged
from leadline.schema.messaging.inputs import SendMessageInput, SendTemplateInput
from leadline.schema.messaging.types import MessageStatus, ScheduledMessageType, SendResult
from leadline.schema.permissions import needs


@strawberry.type
class MessagingQuery:
    @strawberry.field(permission_classes=needs("messages:read"),
                      description="Delivery status of an outbound message; `retry` waits 5 s once when not found.")
    async def chat_message_status(self, info: Info, message_id: str | None = None, brand_number: str | None = None,
                                  retry: bool | None = None) -> MessageStatus:
        return MessageStatus.from_model(
            await message_status(info.context, message_id, brand_number, bool(retry)))

    @strawberry.field(permission_classes=needs("messages:read"), description="Scheduled messages, newest first.")
    async def scheduled_messages(self, info: Info, page: int | None = None, limit: int | None = None,
                                 status: str | None = None) -> Paged[ScheduledMessageType]:
        return paged(await schedules.list_schedules(info.context, status, page, limit),
                     ScheduledMessageType.from_model)

    @strawberry.field(permission_classes=needs("messages:read"))
    async def scheduled_message(self, info: Info, schedule_id: str) -> ScheduledMessageType:
        return ScheduledMessageType.from_model(await schedules.get_schedule(info.context, schedule_id))


@strawberry.type
class MessagingMutation:
    @strawberry.mutation(permission_classes=needs("messages:send"),
                         description="Send an approved template now, or schedule it with scheduledAt.")
    async def send_template_message(self, info: Info, input: SendTemplateInput) -> SendResult:
        return SendResult.from_domain(await send.send_template(info.context, input.to_request()))

    @strawberry.mutation(permission_classes=needs("messages:send"),
                         description="Send a freeform message inside the 24-hour window, or schedule it.")
    async def send_chat_message(self, info: Info, input: SendMessageInput) -> SendResult:
        return SendResult.from_domain(await send.send_message(info.context, input.to_request()))

    @strawberry.mutation(permission_classes=needs("messages:send"), description="Cancel while still scheduled.")
    async def cancel_scheduled_message(self, info: Info, schedule_id: str) -> ScheduledMessageType:
        return ScheduledMessageType.from_model(await schedules.cancel(info.context, schedule_id))
