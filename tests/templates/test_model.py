"""What the messaging send reads from a stored template (MessageTemplate helpers)."""
from __future__ import annotations

from bson import ObjectId

from leadline.models.templates import MessageTemplate
from tests.helpers import make_tenant

COMPONENTS = [
    {"type": "HEADER", "format": "TEXT", "text": "Hello {{1}}", "example": {"header_text": ["Ann"]}},
    {"type": "BODY", "text": "Hi {{1}}, order {{2}} ships; see {{1}}.", "example": {"body_text": [["a", "b"]]}},
    {"type": "BUTTONS", "buttons": [
        {"type": "QUICK_REPLY", "text": "Yes"},
        {"type": "URL", "text": "Static", "url": "https://x.example/"},
        {"type": "URL", "text": "Track", "url": "https://x.example/t/{{1}}", "example": ["https://x.example/t/1"]},
    ]},
]


async def seed(org, **fields) -> MessageTemplate:
    values = {"name": "order_update", "language": "en", "category": "UTILITY", "status": "APPROVED",
              "template_id": "1000000000000001", "components": COMPONENTS, **fields}
    template = MessageTemplate.new(org, **values)
    await template.insert()
    return template


async def test_send_lookups_find_only_approved_templates_of_the_organisation(client, tenant):
    org = ObjectId(tenant.org_id)
    approved = await seed(org)
    await seed(org, name="draft", template_id="1000000000000002", status="PENDING")
    other = await make_tenant(client, name="Other")
    await seed(ObjectId(other.org_id), name="theirs", template_id="1000000000000003")

    assert (await MessageTemplate.find_sendable(org, template_id="1000000000000001")).id == approved.id
    assert (await MessageTemplate.find_sendable(org, name="order_update", language="en")).id == approved.id
    assert await MessageTemplate.find_sendable(org, name="order_update", language="es") is None
    assert await MessageTemplate.find_sendable(org, template_id="1000000000000002") is None  # PENDING
    assert await MessageTemplate.find_sendable(org, template_id="1000000000000003") is None  # another org's
    assert await MessageTemplate.find_sendable(org, name="order_update", brand_number="15550009999") is None


async def test_parameter_shape_of_a_template(tenant):
    t = await seed(ObjectId(tenant.org_id))
    assert (t.header_format, t.header_variable_count, t.body_variable_count) == ("TEXT", 1, 2)
    assert t.url_button_indexes == [2]
    assert not t.requires_media and not t.requires_otp
    media = await seed(ObjectId(tenant.org_id), template_id="7", components=[
        {"type": "HEADER", "format": "IMAGE", "example": {"header_handle": ["h"]}}, {"type": "BODY", "text": "Hi"}])
    assert (media.header_format, media.requires_media, media.header_variable_count, media.body_variable_count) == \
        ("IMAGE", True, 0, 0)
    otp = await seed(ObjectId(tenant.org_id), template_id="8", category="AUTHENTICATION", components=[])
    assert otp.requires_otp and otp.header_format is None and otp.url_button_indexes == []
