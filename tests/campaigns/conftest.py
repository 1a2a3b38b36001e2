"""Campaign tests: short sandbox status delays, a connected number with an unlimited tier, an approved
marketing template with body variables, a URL button and two quick replies, and some contacts."""
from dataclasses import replace

import pytest
from bson import ObjectId

from leadline.models.templates import MessageTemplate
from tests.templates.support import BRAND, connect_brand, template_settings

COMPONENTS = [
    {"type": "BODY", "text": "Hi {{1}}, your code is {{2}}."},
    {"type": "BUTTONS", "buttons": [
        {"type": "QUICK_REPLY", "text": "Yes"},
        {"type": "URL", "text": "Shop", "url": "https://shop.example.com/{{1}}"},
        {"type": "QUICK_REPLY", "text": "Stop"},
    ]},
]


@pytest.fixture
def settings(settings):
    return replace(template_settings(settings), sandbox_status_delays=(0.05, 0.1, 0.15),
                   chatapp_webhook_retry_seconds=0.05, campaign_lease_seconds=1.0,
                   campaign_pause_recheck_seconds=0.3,
                   # Statuses at full speed behind a fan-out: these tests wait for them in one time budget
                   # (the bulk lane's allowance has its own test, tests/chats/test_ingestion_lanes.py).
                   ingest_bulk_while_sending=0)


@pytest.fixture
async def brand(tenant) -> str:
    return await connect_brand(tenant, messaging_tier="TIER_UNLIMITED")


@pytest.fixture
async def template(tenant, brand) -> MessageTemplate:
    template = MessageTemplate.new(ObjectId(tenant.org_id), name="promo", template_id="1689556900000001",
                                   language="en", category="MARKETING", status="APPROVED", brand_number=BRAND,
                                   components=COMPONENTS)
    await template.insert()
    return template


@pytest.fixture
async def writer(tenant) -> str:
    return await tenant.key("campaigns:read,campaigns:write,contacts:write,config:write")
