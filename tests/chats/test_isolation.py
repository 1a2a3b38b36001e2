"""Tenant isolation of inbound webhooks, statuses, history and conversations."""
from __future__ import annotations

import logging

from bson import ObjectId

from leadline.models.chats import ChatMessage, Conversation
from leadline.models.contacts import Contact
from tests.chats.support import BRAND, CUSTOMER, deliver, inbound, outbound, status
from tests.helpers import make_tenant
from tests.templates.support import connect_brand

THEIR_BRAND = "15550009999"


async def test_a_webhook_for_one_organisations_number_never_lands_in_another(api, client, tenant, brand, reader,
                                                                              run_worker):
    other = await make_tenant(client, name="Other")
    await connect_brand(other, THEIR_BRAND, provider_id="200000000000001")
    await deliver(api, run_worker, inbound("for A"),
                  inbound("for B", brand=THEIR_BRAND, phone_number_id="200000000000001"))
    a, b = ObjectId(tenant.org_id), ObjectId(other.org_id)
    assert [m.text for m in await ChatMessage.find_in(a).to_list()] == ["for A"]
    assert [m.text for m in await ChatMessage.find_in(b).to_list()] == ["for B"]
    assert await Contact.count_in(a) == 1 and await Contact.count_in(b) == 1
    mine = await api.get("/v2.0/chats/history", reader, params={"phone": CUSTOMER})
    assert [m["text"] for m in mine.body["data"]["messages"]] == ["for A"]
    theirs = await api.get("/v2.0/chats/conversations", await other.key("chats:read"))
    assert [r["lastMessage"] for r in theirs.body["data"]] == ["for B"]


async def test_a_status_arriving_on_another_organisations_number_changes_nothing(api, client, tenant, brand,
                                                                                  run_worker):
    other = await make_tenant(client, name="Other")
    await connect_brand(other, THEIR_BRAND, provider_id="200000000000001")
    message = await outbound(tenant, "wamid.A1")
    await deliver(api, run_worker, status("wamid.A1", "read", brand=THEIR_BRAND, phone_number_id="200000000000001"))
    assert (await ChatMessage.get_in(ObjectId(tenant.org_id), message.id)).status == "accepted"


async def test_a_number_connected_twice_without_a_provider_id_is_routed_nowhere(api, client, tenant, run_worker,
                                                                                caplog):
    other = await make_tenant(client, name="Other")
    await connect_brand(tenant, BRAND)
    await connect_brand(other, BRAND)
    with caplog.at_level(logging.WARNING, logger="leadline.chats.webhooks"):
        await deliver(api, run_worker, inbound("whose?", phone_number_id=None))
    assert await ChatMessage.count_in(ObjectId(tenant.org_id)) == 0
    assert await ChatMessage.count_in(ObjectId(other.org_id)) == 0
    assert await Conversation.count_in(ObjectId(other.org_id)) == 0
    assert any("connected in 2 organisations" in r.getMessage() for r in caplog.records)


async def test_an_inactive_account_receives_nothing(api, tenant, brand, run_worker):
    from leadline.models.channels import ChannelAccount

    account = await ChannelAccount.find_one_in(ObjectId(tenant.org_id), {"platform": "chatapp", "number": BRAND})
    account.is_active = False
    await account.save()
    await deliver(api, run_worker, inbound("after disconnect"))
    assert await ChatMessage.count_in(ObjectId(tenant.org_id)) == 0
