"""Team inbox tests: a connected number, the webhook secret, and a key with the inbox's scopes."""
import pytest

from tests.chats.conftest import brand, settings  # noqa: F401 - the chats tests' number and settings

INBOX_SCOPES = ("teams:read,teams:write,agents:read,assignments:read,assignments:write,conversations:read,"
                "conversations:write,chats:read")


@pytest.fixture
async def key(tenant) -> str:
    return await tenant.key(INBOX_SCOPES, "inbox-tests")
