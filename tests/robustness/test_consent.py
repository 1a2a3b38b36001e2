"""Consent: opt-out and opt-in keywords from inbound messages, template sends refused to an opted-out
contact (replies inside the window still allowed), and edits and deletions applied to the history."""
from __future__ import annotations

import pytest
from bson import ObjectId

from leadline.models.contacts import Contact
from leadline.models.events import DomainEvent
from tests.chats.support import deliver, inbound, wamid
from tests.helpers import assert_error
from tests.messaging.support import seed_template, send_body
from tests.templates.support import BRAND, connect_brand, template_settings

PHONE = "14155552671"


@pytest.fixture
def settings(settings):
    return template_settings(settings, chatapp_webhook_retry_seconds=0.05)


@pytest.fixture
async def brand(tenant):
    return await connect_brand(tenant)


async def contact(tenant) -> Contact:
    return await Contact.find_one_in(ObjectId(tenant.org_id), {"phone": PHONE})


async def updates(tenant) -> list[dict]:
    events = await DomainEvent.find_in(ObjectId(tenant.org_id), {"kind": "contact.updated"}).to_list()
    return [e.payload for e in sorted(events, key=lambda e: e.created_at)]


async def test_stop_opts_out_start_opts_back_in(api, tenant, brand, run_worker):
    await deliver(api, run_worker, inbound("hello", sender=PHONE))
    assert (await contact(tenant)).optedOut is False
    await deliver(api, run_worker, inbound("  Stop. ", sender=PHONE))
    assert (await contact(tenant)).optedOut is True
    await deliver(api, run_worker, inbound("please stop sending", sender=PHONE))  # not the whole message
    assert (await contact(tenant)).optedOut is True
    await deliver(api, run_worker, inbound("unstop", sender=PHONE))
    assert (await contact(tenant)).optedOut is False
    assert [(u["optedOut"], u["source"], u["changed"]) for u in await updates(tenant)] == [
        (True, "keyword:STOP", ["optedOut"]), (False, "keyword:UNSTOP", ["optedOut"])]


async def test_template_sends_are_refused_to_an_opted_out_contact_replies_are_not(api, tenant, brand, run_worker):
    await seed_template(tenant)
    key = await tenant.key("messages:send")
    await deliver(api, run_worker, inbound("QUIT!", sender=PHONE))
    resp = await api.post("/v2.0/chatapp/send", key, json=send_body(to=PHONE))
    assert_error(resp, 409, "CONTACT_OPTED_OUT")
    reply = await api.post("/v2.0/chatapp/message", key, json={"to": PHONE, "brandNumber": BRAND, "type": "text",
                                                                "content": {"body": "Sorry to see you go"}})
    assert reply.status == 200, reply.body


async def test_an_organisation_chooses_its_own_words(api, tenant, brand, run_worker):
    resp = await api.graphql('mutation { setOptOutKeywords(optOut: ["baja"], optIn: ["Alta"]) { optOut optIn } }',
                             tenant.legacy_key)
    assert resp.body["data"]["setOptOutKeywords"] == {"optOut": ["BAJA"], "optIn": ["ALTA"]}
    await deliver(api, run_worker, inbound("STOP", sender=PHONE))
    assert (await contact(tenant)).optedOut is False
    await deliver(api, run_worker, inbound("baja", sender=PHONE))
    assert (await contact(tenant)).optedOut is True
    read = await api.graphql("{ optOutKeywords { optOut optIn } }", await tenant.key("config:read"))
    assert read.body["data"]["optOutKeywords"] == {"optOut": ["BAJA"], "optIn": ["ALTA"]}
    both = await api.graphql('mutation { setOptOutKeywords(optOut: ["x"], optIn: ["X"]) { optOut } }',
                             tenant.legacy_key)
    assert both.body["errors"][0]["extensions"]["code"] == "VALIDATION_ERROR"


def edit_of(original: str, text: str) -> dict:
    payload = inbound(None, sender=PHONE)
    message = payload["entry"][0]["changes"][0]["value"]["messages"][0]
    message.pop("text")
    message.update(type="edit", edit={"original_message_id": original,
                                      "message": {"type": "text", "text": {"body": text}}})
    return payload


def deletion_of(original: str) -> dict:
    payload = inbound(None, sender=PHONE)
    message = payload["entry"][0]["changes"][0]["value"]["messages"][0]
    message.pop("text")
    message.update(type="revoke", revoke={"original_message_id": original})
    return payload


async def test_edits_and_deletions_are_applied_to_the_history(api, tenant, brand, run_worker):
    first, second = wamid(), wamid()
    await deliver(api, run_worker, inbound("helo", mid=first, sender=PHONE), inbound("secret", mid=second, sender=PHONE))
    await deliver(api, run_worker, edit_of(first, "hello"), deletion_of(second))
    await deliver(api, run_worker, edit_of("wamid.UNKNOWN", "x"))  # acknowledged, changes nothing
    reader = await tenant.key("chats:read")
    messages = (await api.get("/v2.0/chats/history", reader, params={"phone": PHONE})).body["data"]["messages"]
    by_cmid = {m["cmid"]: m for m in messages}
    assert len(messages) == 2
    assert (by_cmid[first]["text"], by_cmid[first]["edited"], by_cmid[first]["deleted"]) == ("hello", True, False)
    assert (by_cmid[second]["text"], by_cmid[second]["deleted"]) == (None, True)
