"""GET /v2.0/chatapp/message/status: an outbound message of this organisation and business number."""
from __future__ import annotations

import asyncio

from leadline.models.channels import ChannelAccount
from leadline.models.chats import ChatMessage
from leadline.resolvers.channels.accounts import active_chat_account
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError, detail, validation_error


async def _find(ctx: RequestContext, message_id: str, account: ChannelAccount) -> ChatMessage | None:
    message = await ChatMessage.get_in(ctx, message_id)
    if message is None or message.direction != "outbound" or message.brand_number != account.number:
        return None
    return message


async def message_status(ctx: RequestContext, message_id: str | None, brand_number: str | None,
                         retry: bool = False) -> ChatMessage:
    """MESSAGE_NOT_FOUND for an unknown id, another organisation's, or another number's. With `retry`,
    a miss waits (5 s by default) and looks once more: a client polling right after a send may race it."""
    message_id = (message_id or "").strip()
    if not message_id:
        raise validation_error([detail("messageId", "REQUIRED", "messageId is required")])
    account = await active_chat_account(ctx, brand_number)
    message = await _find(ctx, message_id, account)
    if message is None and retry:
        await asyncio.sleep(ctx.services.settings.message_status_retry_seconds)
        message = await _find(ctx, message_id, account)
    if message is None:
        raise ApiError("MESSAGE_NOT_FOUND", f"No message {message_id} for brandNumber {account.number}.")
    return message
