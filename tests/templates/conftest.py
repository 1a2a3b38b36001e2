"""Templates tests run with a short sandbox review delay, a webhook secret and small media limits."""
import pytest

from tests.templates.support import connect_brand, template_settings


@pytest.fixture
def settings(settings):
    return template_settings(settings)


@pytest.fixture
async def brand(tenant) -> str:
    return await connect_brand(tenant)


@pytest.fixture
async def writer(tenant) -> str:
    return await tenant.key("templates:read,templates:write")
