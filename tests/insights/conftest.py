"""Insights tests: a known webhook secret, a connected business number, slow sandbox statuses."""
from dataclasses import replace

import pytest
from bson import ObjectId

from leadline.models.contacts import ContactCounter
from tests.chats.support import BRAND, PHONE_NUMBER_ID
from tests.templates.support import connect_brand, template_settings


@pytest.fixture
def settings(settings):
    return replace(template_settings(settings, chatapp_webhook_retry_seconds=0.05),
                   sandbox_status_delays=(60.0, 61.0, 62.0))


@pytest.fixture
async def brand(tenant) -> str:
    # The organisation's contact counter exists up front (see tests/chats/conftest.py).
    await ContactCounter.new(ObjectId(tenant.org_id)).insert()
    return await connect_brand(tenant, BRAND, provider_id=PHONE_NUMBER_ID)


@pytest.fixture
async def insights_key(tenant) -> str:
    return await tenant.key("insights:read")
