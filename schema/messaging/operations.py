"""Chat messaging and scheduled-message operations (spec: Endpoints → Chat messaging, Scheduled messages)."""
from __future__ import annotations

from typing import Annotated

from leadline.resolvers.context import RequestContext
from leadline.resolvers.messaging import schedules, send
from leadline.resolvers.messaging.status import message_status
from leadline.schema.bindings import McpTool, Reply, Rest, shaped, spread
from leadline.schema.common import Paged, limit_argument, page_argument, paged
from leadline.schema.messaging.inputs import SendMessageInput, SendTemplateInput
from leadline.schema.messaging.types import MessageStatus, ScheduledMessageType, SendResult
from leadline.schema.operations import Operations

ops = Operations("messaging")

# What every send can refuse: the parties, the number, the schedule, the provider and the tier.
SEND_ERRORS = ("MISSING_RECIPIENT", "BRAND_NUMBER_MISSING", "INVALID_PHONE_NUMBER", "BIZACCT_NOT_FOUND",
               "INVALID_SCHEDULE_TIME", "PROVIDER_API_ERROR", "MESSAGING_LIMIT_REACHED")


@shaped(lambda out: {200: {"data": out.pick("messageId", "status", "recipient", optional=("template", "type"))},
                     201: {"data": out.pick("scheduleId", "recipient", "scheduledAt", "timezone",
                                            optional=("template", "type"))}})
def _send_reply(result: dict) -> Reply:
    """200 `{messageId, status, recipient, ...}` when sent now; 201 `{scheduleId, ...}` when scheduled."""
    detail = {"template": result["template"]} if result["template"] is not None else {"type": result["type"]}
    if result["scheduled"]:
        return Reply({"data": {"scheduleId": result["scheduleId"], "recipient": result["recipient"],
                               "scheduledAt": result["scheduledAt"], "timezone": result["timezone"], **detail}},
                     status=201)
    return Reply({"data": {"messageId": result["messageId"], "status": result["status"],
                           "recipient": result["recipient"], **detail}}, status=200)


@ops.mutation(scope="messages:send", description="Send an approved template now, or schedule it with scheduledAt.",
              limits=("max_contacts",), events=("chatapp.message_sent", "contact.created"),
              errors=(*SEND_ERRORS, "MISSING_TEMPLATE", "TEMPLATE_NOT_FOUND", "PARAMETER_VALIDATION_ERROR",
                      "CONTACT_OPTED_OUT"),
              rest=Rest("POST", "/v2.0/chatapp/send", reply=_send_reply), mcp=McpTool("send_template_message"))
async def send_template_message(ctx: RequestContext, input: SendTemplateInput) -> SendResult:
    return SendResult.from_domain(await send.send_template(ctx, input.to_domain()))


@ops.mutation(scope="messages:send",
              description="Send a freeform message inside the 24-hour window, or schedule it.",
              limits=("max_contacts",), events=("chatapp.message_sent", "contact.created"),
              errors=(*SEND_ERRORS, "MISSING_CONTENT", "MISSING_TEXT_BODY", "MISSING_MEDIA_LINK",
                      "SERVICE_WINDOW_CLOSED"),
              rest=Rest("POST", "/v2.0/chatapp/message", reply=_send_reply), mcp=McpTool("send_message"))
async def send_chat_message(ctx: RequestContext, input: SendMessageInput) -> SendResult:
    return SendResult.from_domain(await send.send_message(ctx, input.to_domain()))


@ops.query(scope="messages:read",
           description="Delivery status of an outbound message; `retry` waits 5 s once when not found.",
           errors=("BRAND_NUMBER_MISSING", "BIZACCT_NOT_FOUND", "MESSAGE_NOT_FOUND"),
           rest=Rest("GET", "/v2.0/chatapp/message/status"), mcp=McpTool("get_message_status"))
async def chat_message_status(ctx: RequestContext, message_id: str | None = None, brand_number: str | None = None,
                              retry: bool | None = None) -> MessageStatus:
    return MessageStatus.from_domain(await message_status(ctx, message_id, brand_number, bool(retry)))


@ops.query(scope="messages:read", description="Scheduled messages, newest first.",
           rest=Rest("GET", "/v2.0/scheduled-messages", reply=spread), mcp=McpTool("list_scheduled_messages"))
async def scheduled_messages(ctx: RequestContext, page: Annotated[int | None, page_argument()] = None,
                             limit: Annotated[int | None, limit_argument(schedules.DEFAULT_PAGE, schedules.MAX_PAGE)] = None,
                             status: str | None = None) -> Paged[ScheduledMessageType]:
    return paged(await schedules.list_schedules(ctx, status, page, limit), ScheduledMessageType.from_domain)


@ops.query(scope="messages:read", description="One scheduled message.", errors=("SCHEDULE_NOT_FOUND",),
           rest=Rest("GET", "/v2.0/scheduled-messages/{scheduleId}"),
           mcp=McpTool("list_scheduled_messages", variant="scheduleId"))
async def scheduled_message(ctx: RequestContext, schedule_id: str) -> ScheduledMessageType:
    return ScheduledMessageType.from_domain(await schedules.get_schedule(ctx, schedule_id))


@ops.mutation(scope="messages:send", description="Cancel a scheduled message while it is still scheduled.",
              errors=("SCHEDULE_NOT_FOUND", "SCHEDULE_NOT_CANCELLABLE"),
              rest=Rest("DELETE", "/v2.0/scheduled-messages/{scheduleId}"), mcp=McpTool("cancel_scheduled_message"))
async def cancel_scheduled_message(ctx: RequestContext, schedule_id: str) -> ScheduledMessageType:
    return ScheduledMessageType.from_domain(await schedules.cancel(ctx, schedule_id))
