"""Messaging tests: short sandbox status delays and status retry, a connected number, sender keys."""
from dataclasses import replace

import pytest

from tests.templates.support import connect_brand, template_settings


@pytest.fixture
def settings(settings):
    return replace(template_settings(settings), sandbox_status_delays=(0.05, 0.1, 0.15),
                   message_status_retry_seconds=0.6)


@pytest.fixture
async def brand(tenant) -> str:
    return await connect_brand(tenant)


@pytest.fixture
async def sender(tenant) -> str:
    return await tenant.key("messages:send")


@pytest.fixture
async def reader(tenant) -> str:
    return await tenant.key("messages:read")
