"""Shared by the messaging tests: seeded templates, send bodies, an open window, direct DB reads."""
from __future__ import annotations

import time
from typing import Any

from bson import ObjectId

from leadline.models.chats import ChatMessage
from leadline.models.messaging import ScheduledMessage
from leadline.models.templates import MessageTemplate
from leadline.resolvers.webhooks.dispatch import ingest
from tests.templates.support import BRAND

PHONE = "14155552671"
UNDELIVERABLE_PHONE = "919991234567"  # national number 9991234567
BSUID = "US.13491208655302741918"
TEMPLATE_ID = "1689556908129832"

UTILITY_COMPONENTS = [
    {"type": "HEADER", "format": "TEXT", "text": "Order {{1}}"},
    {"type": "BODY", "text": "Hi {{1}}, your order {{2}} ships today."},
    {"type": "FOOTER", "text": "Reply STOP to opt out"},
    {"type": "BUTTONS", "buttons": [
        {"type": "QUICK_REPLY", "text": "Thanks"},
        {"type": "URL", "text": "Track", "url": "https://shop.example.com/track/{{1}}"},
    ]},
]


async def seed_template(tenant, *, name: str = "order_update", template_id: str = TEMPLATE_ID,
                        language: str = "en", category: str = "UTILITY", status: str = "APPROVED",
                        components: list | None = None, **fields: Any) -> MessageTemplate:
    """Templates are seeded through the model (the templates domain's review is tested there)."""
    template = MessageTemplate.new(ObjectId(tenant.org_id), name=name, template_id=template_id, language=language,
                                   category=category, status=status, brand_number=BRAND,
                                   components=UTILITY_COMPONENTS if components is None else components, **fields)
    await template.insert()
    return template


def send_body(**overrides: Any) -> dict[str, Any]:
    """A valid immediate send of the seeded utility template; a None override removes the field."""
    body: dict[str, Any] = {"to": PHONE, "brandNumber": BRAND, "templateId": TEMPLATE_ID,
                            "headerParameters": ["A-17"], "bodyParameters": ["Ann", "A-17"],
                            "buttonParameters": ["A-17"]}
    for key, value in overrides.items():
        if value is None:
            body.pop(key, None)
        else:
            body[key] = value
    return body


def inbound_payload(phone: str, text: str = "hello", *, brand: str = BRAND, wamid: str | None = None,
                    at: int | None = None) -> dict[str, Any]:
    """An inbound text message webhook in the Cloud API shape."""
    wamid = wamid or f"wamid.in{time.time_ns()}"
    value = {"messaging_product": "whatsapp",
             "metadata": {"display_phone_number": brand, "phone_number_id": brand},
             "contacts": [{"profile": {"name": "Ann"}, "wa_id": phone}],
             "messages": [{"from": phone, "id": wamid, "timestamp": str(at or int(time.time())), "type": "text",
                           "text": {"body": text}}]}
    return {"object": "whatsapp_business_account",
            "entry": [{"id": "102290129340398", "changes": [{"field": "messages", "value": value}]}]}


async def open_window(services, phone: str = PHONE, **kw: Any) -> None:
    """The recipient writes first, through the real ingestion path (the chats side applies it)."""
    await ingest(services, inbound_payload(phone, **kw))


async def outbound_messages(tenant, **filt: Any) -> list[ChatMessage]:
    return [m for m in await ChatMessage.find_in(ObjectId(tenant.org_id), filt).to_list() if m.direction == "outbound"]


async def schedule_doc(tenant, schedule_id: str) -> ScheduledMessage:
    return await ScheduledMessage.get_in(ObjectId(tenant.org_id), schedule_id)
