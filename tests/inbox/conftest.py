"""Team inbox tests: a connected number, the webhook secret, and a key with the inbox's scopes."""
import pytest
from bson import ObjectId

from leadline.models.contacts import ContactCounter
from tests.chats.support import BRAND, PHONE_NUMBER_ID
from tests.templates.support import connect_brand, template_settings

INBOX_SCOPES = ("teams:read,teams:write,agents:read,assignments:read,assignments:write,conversations:read,"
                "conversations:write,chats:read")


@pytest.fixture
def settings(settings):
    return template_settings(settings, chatapp_webhook_retry_seconds=0.05)


@pytest.fixture
async def brand(tenant) -> str:
    # The organisation's contact counter exists up front (see tests/chats/conftest.py).
    await ContactCounter.new(ObjectId(tenant.org_id)).insert()
    return await connect_brand(tenant, BRAND, provider_id=PHONE_NUMBER_ID)


@pytest.fixture
async def key(tenant) -> str:
    return await tenant.key(INBOX_SCOPES, "inbox-tests")
