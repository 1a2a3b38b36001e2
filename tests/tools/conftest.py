"""Fixtures of the tools tests: a recording HTTP endpoint on loopback (the outside party a function tool calls)."""
from __future__ import annotations

import pytest

from tests.tools.support import Endpoint


@pytest.fixture
async def endpoint(aiohttp_server) -> Endpoint:
    fake = Endpoint()
    fake.server = await aiohttp_server(fake.app, host="127.0.0.1", port=0)
    return fake
