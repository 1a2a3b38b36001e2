"""Chats tests: a known webhook secret, short job retries, a connected business number and a reader key."""
import pytest
from bson import ObjectId

from leadline.models.contacts import ContactCounter

from tests.chats.support import BRAND, PHONE_NUMBER_ID
from tests.templates.support import connect_brand, template_settings


@pytest.fixture
def settings(settings):
    return template_settings(settings, chatapp_webhook_retry_seconds=0.05)


@pytest.fixture
async def brand(tenant) -> str:
    # The organisation's contact counter exists up front: concurrent jobs creating the organisation's
    # very first contacts trip a race in resolvers/contacts/counters.py:reserve_slot (reported to the lead).
    await ContactCounter.new(ObjectId(tenant.org_id)).insert()
    return await connect_brand(tenant, BRAND, provider_id=PHONE_NUMBER_ID)


@pytest.fixture
async def reader(tenant) -> str:
    return await tenant.key("chats:read")
