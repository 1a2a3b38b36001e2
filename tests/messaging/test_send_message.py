"""POST /v2.0/chatapp/message: the five types, their content rules, and the 24-hour window."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

from bson import ObjectId

from leadline.models.chats import Conversation
from leadline.models.contacts import Contact
from tests.helpers import assert_error
from tests.messaging.support import BSUID, PHONE, open_window, outbound_messages
from tests.templates.support import BRAND

MESSAGE = "/v2.0/chatapp/message"
LINK = "https://cdn.example.com/file"


def body(type_: str | None = "text", content=None, **extra):
    out = {"to": PHONE, "brandNumber": BRAND, "type": type_, "content": content or {"body": "Hello"}, **extra}
    return {k: v for k, v in out.items() if v is not None}


async def test_each_type_is_sent_inside_the_window(api, tenant, brand, sender, services):
    await open_window(services)
    cases = [
        ("text", {"body": "Hello there"}),
        ("image", {"link": LINK + ".png", "caption": "Look"}),
        ("document", {"link": LINK + ".pdf", "filename": "quote.pdf", "caption": "Your quote"}),
        ("audio", {"link": LINK + ".ogg"}),
        ("video", {"link": LINK + ".mp4"}),
    ]
    for kind, content in cases:
        resp = await api.post(MESSAGE, sender, json=body(kind, content, storeInAIContext=True))
        assert resp.status == 200, (kind, resp.body)
        data = resp.body["data"]
        assert data == {"messageId": data["messageId"], "status": "accepted", "recipient": PHONE, "type": kind}
    messages = {m.type: m for m in await outbound_messages(tenant)}
    assert messages["text"].text == "Hello there" and messages["text"].media is None
    assert messages["document"].media == {"url": LINK + ".pdf", "type": "document", "caption": "Your quote",
                                          "filename": "quote.pdf"}
    assert all(m.store_in_ai_context for m in messages.values())
    row = await Conversation.find_one_in(ObjectId(tenant.org_id), {"brand_number": BRAND})
    assert row.last_message is not None


async def test_content_rules(api, tenant, brand, sender, services):
    await open_window(services)
    cases = [
        (body(content=None) | {"content": None}, 400, "MISSING_CONTENT"),
        ({"to": PHONE, "brandNumber": BRAND, "type": "text"}, 400, "MISSING_CONTENT"),
        (body(content={}) | {"content": {}}, 400, "MISSING_CONTENT"),
        (body(content="hello") | {"content": "hello"}, 400, "MISSING_CONTENT"),
        (body("text", {"caption": "x"}), 400, "MISSING_TEXT_BODY"),
        (body("text", {"body": "   "}), 400, "MISSING_TEXT_BODY"),
        (body("image", {"caption": "x"}), 400, "MISSING_MEDIA_LINK"),
        (body("document", {"filename": "a.pdf"}), 400, "MISSING_MEDIA_LINK"),
        (body("audio", {"body": "x"}), 400, "MISSING_MEDIA_LINK"),
        (body("video", {"link": ""}), 400, "MISSING_MEDIA_LINK"),
        (body("document", {"link": LINK}), 400, "VALIDATION_ERROR"),
        (body("image", {"link": "file:///etc/passwd"}), 400, "VALIDATION_ERROR"),
        (body("audio", {"link": LINK, "caption": "no captions on audio"}), 400, "VALIDATION_ERROR"),
        (body("text", {"body": "x" * 4097}), 400, "VALIDATION_ERROR"),
        (body("text", {"body": 5}), 400, "VALIDATION_ERROR"),
        (body("sticker", {"link": LINK}), 400, "VALIDATION_ERROR"),
        (body(None), 400, "VALIDATION_ERROR"),
        (body(to=None) | {"to": ""}, 400, "MISSING_RECIPIENT"),
        ({"to": PHONE, "type": "text", "content": {"body": "x"}}, 400, "BRAND_NUMBER_MISSING"),
        (body(to="123"), 400, "INVALID_PHONE_NUMBER"),
        (body(brandNumber="15550009999"), 404, "BIZACCT_NOT_FOUND"),
        (body(scheduledAt="yesterday"), 400, "INVALID_SCHEDULE_TIME"),
    ]
    for request, status, code in cases:
        assert_error(await api.post(MESSAGE, sender, json=request), status, code)
    err = assert_error(await api.post(MESSAGE, sender, json=body("document", {"link": LINK})), 400, "VALIDATION_ERROR")
    assert err["details"] == [{"path": "content.filename", "code": "REQUIRED",
                               "message": "a document message needs content.filename"}]
    assert await outbound_messages(tenant) == []


async def test_refused_outside_the_window(api, tenant, brand, sender, services):
    # Never wrote: no contact at all.
    err = assert_error(await api.post(MESSAGE, sender, json=body()), 409, "SERVICE_WINDOW_CLOSED")
    assert err["details"] == {"lastInboundAt": None, "closesAt": None}
    # Wrote 25 hours ago: closed since an hour.
    await open_window(services, at=int((datetime.now(timezone.utc) - timedelta(hours=25)).timestamp()))
    err = assert_error(await api.post(MESSAGE, sender, json=body()), 409, "SERVICE_WINDOW_CLOSED")
    assert err["details"]["closesAt"] is not None
    # A BSUID recipient without a contact: closed too.
    assert_error(await api.post(MESSAGE, sender, json=body(to=BSUID)), 409, "SERVICE_WINDOW_CLOSED")
    # Writes again: open.
    await open_window(services)
    assert (await api.post(MESSAGE, sender, json=body())).status == 200


async def test_the_window_is_per_business_number(api, tenant, brand, sender, services):
    from tests.templates.support import connect_brand
    await connect_brand(tenant, number="15550003333")
    await open_window(services)  # to BRAND
    assert (await api.post(MESSAGE, sender, json=body())).status == 200
    resp = await api.post(MESSAGE, sender, json=body(brandNumber="15550003333"))
    assert_error(resp, 409, "SERVICE_WINDOW_CLOSED")
    contact = await Contact.find_one_in(ObjectId(tenant.org_id), {"phone": PHONE})
    assert contact is not None


async def test_message_needs_messages_send(api, tenant, brand):
    reader = await tenant.key("messages:read")
    err = assert_error(await api.post(MESSAGE, reader, json=body()), 403, "INSUFFICIENT_SCOPE", marker="error")
    assert err["required_scope"] == "messages:send"
