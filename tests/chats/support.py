"""Cloud API-shaped `messages` webhooks, signed posts, and seeded outbound messages for the chats tests."""
from __future__ import annotations

import itertools
import time
from typing import Any

from bson import ObjectId

from leadline.models.chats import ChatMessage
from tests.templates.support import BRAND, signed

PHONE_NUMBER_ID = "106540352242922"
CUSTOMER = "447911123456"
_ids = itertools.count(1)


def wamid() -> str:
    return f"wamid.TEST{next(_ids):06d}{ObjectId()}"


def change(value: dict[str, Any], *, brand: str = BRAND, phone_number_id: str | None = PHONE_NUMBER_ID) -> dict:
    metadata = {"display_phone_number": brand, "phone_number_id": phone_number_id or "000"}
    return {"object": "whatsapp_business_account",
            "entry": [{"id": "102290129340398", "changes": [
                {"field": "messages", "value": {"messaging_product": "whatsapp", "metadata": metadata, **value}}]}]}


def inbound(text: str | None = "Hello", *, mid: str | None = None, sender: str = CUSTOMER, name: str | None = "Ann",
            ts: int | None = None, kind: str = "text", body: dict | None = None, bsuid: str | None = None,
            **kw: Any) -> dict:
    message: dict[str, Any] = {"from": sender, "id": mid or wamid(), "timestamp": str(ts or int(time.time())),
                               "type": kind}
    message[kind] = body if body is not None else {"body": text}
    contact: dict[str, Any] = {"profile": {"name": name}, "wa_id": sender}
    if bsuid:
        contact["user_id"] = bsuid
    return change({"contacts": [contact] if name else [], "messages": [message]}, **kw)


def status(mid: str, state: str, *, ts: int | None = None, errors: list | None = None, recipient: str = CUSTOMER,
           pricing: dict | None = None, **kw: Any) -> dict:
    item: dict[str, Any] = {"id": mid, "status": state, "timestamp": str(ts or int(time.time())),
                            "recipient_id": recipient}
    if errors:
        item["errors"] = errors
    if pricing:
        item["pricing"] = pricing
    return change({"statuses": [item]}, **kw)


async def post(api, payload: dict):
    raw, headers = signed(payload)
    return await api.post("/webhooks/chatapp", data=raw, headers=headers)


async def deliver(api, run_worker, *payloads: dict) -> None:
    """POST each webhook (200 expected), then let a real arq worker drain the queue."""
    for payload in payloads:
        resp = await post(api, payload)
        assert resp.status == 200, resp.body
    await run_worker()


async def outbound(tenant, mid: str, *, phone: str = CUSTOMER, contact_id=None, status: str = "accepted",
                   brand: str = BRAND, **fields: Any) -> ChatMessage:
    """An outbound message as the send side stores it (provider id in `cmid`)."""
    message = ChatMessage.new(ObjectId(tenant.org_id), brand_number=brand, contact_id=contact_id, phone=phone,
                              direction="outbound", status=status, type=fields.pop("type", "text"),
                              text=fields.pop("text", "Hi from us"), cmid=mid, **fields)
    await message.insert()
    return message
