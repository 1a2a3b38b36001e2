"""Data the provider gave us is usable: a contact created from a webhook can be found by its phone."""
from __future__ import annotations

from tests.chats.support import deliver, inbound
from tests.templates.support import connect_brand, template_settings

import pytest


@pytest.fixture
def settings(settings):
    return template_settings(settings, chatapp_webhook_retry_seconds=0.05)


async def test_every_stored_phone_can_be_looked_up(api, tenant, run_worker):
    """The fixtures' inbound text sample comes from wa_id 972987654321, which phonenumbers' metadata calls
    invalid; the contact it creates must be found by that phone."""
    await connect_brand(tenant)
    await deliver(api, run_worker, inbound("hello", sender="972987654321"))
    resp = await api.post("/v2.0/contacts/phone", tenant.legacy_key, json={"phone": "972987654321"})
    assert resp.status == 200, resp.body
    assert resp.body["data"]["phone"] == "972987654321" and resp.body["data"]["auto_added"] is True
