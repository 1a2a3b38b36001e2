"""One outbound send, immediate or dispatched from a schedule: tier, window, provider call, the stored
message, the conversation row, the `chatapp.message_sent` event and the sandbox's feedback."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bson import ObjectId

from leadline.models.base import utcnow
from leadline.models.channels import ChannelAccount
from leadline.models.chats import ChatMessage
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError
from leadline.resolvers.events import emit
from leadline.resolvers.messaging import sandbox, tier
from leadline.resolvers.messaging.recipients import Recipient, contact_for_send, find_contact
from leadline.resolvers.providers.base import OutboundTemplate, ProviderRejected, SentMessage


@dataclass(frozen=True)
class PreparedSend:
    """A validated send. Template sends carry `outbound`, freeform ones `type` and `content`."""

    recipient: Recipient
    text: str | None
    store_in_ai_context: bool = False
    template: dict[str, Any] | None = None  # {name, id, language}
    outbound: OutboundTemplate | None = None
    type: str | None = None
    content: dict[str, Any] | None = None

    @property
    def is_template(self) -> bool:
        return self.outbound is not None


def provider_error(exc: ProviderRejected) -> ApiError:
    return ApiError("PROVIDER_API_ERROR", f"The messaging provider refused the send: {exc.message}",
                    details={"providerErrorCode": exc.code, "providerErrorSubcode": exc.subcode,
                             "providerMessage": exc.message, "httpStatus": exc.http_status,
                             "providerTraceId": exc.trace_id})


async def check_window(ctx: RequestContext, account: ChannelAccount, recipient: Recipient) -> Any:
    """SERVICE_WINDOW_CLOSED (409) unless the recipient wrote to this number in the last 24 hours."""
    from leadline.resolvers.chats.window import window_of

    contact = await find_contact(ctx, recipient)
    window = await window_of(ctx, contact.id, account.number) if contact is not None else None
    if window is None or not window.open:
        last = getattr(window, "last_inbound_at", None)
        closes = getattr(window, "closes_at", None)
        raise ApiError("SERVICE_WINDOW_CLOSED",
                       "Freeform messages are allowed only within 24 hours of the recipient's last message; "
                       "send a template instead.",
                       details={"lastInboundAt": last.isoformat() if last else None,
                                "closesAt": closes.isoformat() if closes else None})
    return contact


async def deliver(ctx: RequestContext, account: ChannelAccount, prepared: PreparedSend, *,
                  schedule_id: ObjectId | None = None, message_id: ObjectId | None = None) -> ChatMessage:
    """Send now. `message_id` lets a schedule fix its message's id before the provider is called."""
    from leadline.resolvers.chats.conversations import note_outbound

    services = ctx.services
    recipient = prepared.recipient
    reservation = None
    if prepared.is_template:
        contact = await contact_for_send(ctx, recipient)
        if contact is not None and contact.optedOut:
            raise ApiError("CONTACT_OPTED_OUT", f"{recipient.to} has opted out of messages from this business; "
                                                "only replies inside an open customer-service window can reach them.")
        reservation = await tier.admit(services, account, recipient.to)
    else:
        contact = await check_window(ctx, account, recipient)
    adapter = services.providers.for_account(account)
    try:
        if prepared.is_template:
            sent: SentMessage = await adapter.send_template(account, recipient.to, prepared.outbound)
        else:
            sent = await adapter.send_message(account, recipient.to, prepared.type, prepared.content)
    except ProviderRejected as exc:
        await tier.release(services, reservation)
        raise provider_error(exc) from None

    now = utcnow()
    fields: dict[str, Any] = dict(
        brand_number=account.number, contact_id=contact.id if contact else None, phone=recipient.phone,
        bsuid=recipient.bsuid, direction="outbound", status="accepted", text=prepared.text,
        cmid=sent.provider_message_id, schedule_id=schedule_id, store_in_ai_context=prepared.store_in_ai_context,
        status_times={"accepted": now}, created_at=now, updated_at=now)
    if prepared.is_template:
        fields.update(type="template", template=prepared.template, components=prepared.outbound.components)
    else:
        fields["type"] = prepared.type
        if prepared.type != "text":
            fields["media"] = {"url": prepared.content["link"], "type": prepared.type,
                               **{k: v for k, v in prepared.content.items() if k in ("caption", "filename")}}
    message = ChatMessage.new(ctx, **fields)
    if message_id is not None:
        message.id = message_id
    await message.insert()
    await note_outbound(ctx, message, contact.contactName if contact else None)
    await emit(ctx, "chatapp.message_sent", {
        "messageId": str(message.id), "cmid": message.cmid, "brandNumber": account.number,
        "to": recipient.to, "phone": recipient.phone, "bsuid": recipient.bsuid,
        "contactId": str(contact.id) if contact else None, "type": message.type, "template": prepared.template,
        "scheduleId": str(schedule_id) if schedule_id else None, "status": "accepted",
        "createdAt": now.isoformat()})
    await sandbox.schedule_feedback(services, account, recipient, sent)
    return message
