"""A campaign from create to completed through HTTP and a real worker: personalised messages in the
history, statuses from the sandbox, counters that equal a recount, replies and clicks."""
from __future__ import annotations

from bson import ObjectId

from leadline.models.chats import ChatMessage
from leadline.models.events import DomainEvent
from tests.campaigns.support import add_contacts, body, report
from tests.chats.support import deliver, inbound
from tests.templates.support import BRAND


async def test_create_sends_everyone_once_and_completes(api, tenant, brand, template, writer, run_worker):
    phones = await add_contacts(api, writer, 3, city="Lisbon")
    resp = await api.post("/v2.0/campaigns", writer, json=body(template))
    assert resp.status == 201, resp.body
    data = resp.body["data"]
    assert data == {"campaignId": data["campaignId"], "status": "processing", "totalContacts": 3,
                    "scheduleType": "immediate", "scheduledAt": None, "timezone": "UTC"}
    await run_worker()
    sent = await ChatMessage.find_in(ObjectId(tenant.org_id), {"campaign_id": ObjectId(data["campaignId"])}).to_list()
    assert sorted(m.phone for m in sent) == sorted(phones)
    first = next(m for m in sent if m.phone == phones[0])
    assert first.text == "Hi Person 0, your code is SAVE10." and first.type == "template"
    url = next(c for c in first.components if c.get("sub_type") == "url")
    assert url["parameters"] == [{"type": "text", "text": "Lisbon"}]
    got = await report(api, writer, data["campaignId"])
    assert got["status"] == "completed" and got["completedAt"]
    assert got["counters"] == {"total": 3, "pending": 0, "sent": 0, "delivered": 0, "read": 3, "replied": 0,
                               "clicked": 0, "failed": 0, "skipped": 0}
    assert got["rates"] == {"success": 1.0, "read": 1.0, "reply": 0.0, "click": 0.0}
    events = await DomainEvent.find_in(ObjectId(tenant.org_id), {"kind": "chatapp.message_sent"}).to_list()
    assert len(events) == 3 and {e.payload["campaignId"] for e in events} == {data["campaignId"]}
    done = await DomainEvent.find_in(ObjectId(tenant.org_id), {"kind": "campaign.completed"}).to_list()
    assert [e.payload["campaignId"] for e in done] == [data["campaignId"]]  # once, though two sweeps may finish it
    assert done[0].payload["status"] == "completed" and done[0].payload["counters"]["total"] == 3
    rows = (await api.get("/v2.0/chats/conversations", await tenant.key("chats:read"))).body["data"]
    assert sorted(r["phone"] for r in rows) == sorted(phones)


async def test_replies_and_clicks_are_recorded(api, tenant, brand, template, writer, run_worker):
    phones = await add_contacts(api, writer, 2)
    campaign_id = (await api.post("/v2.0/campaigns", writer, json=body(template))).body["data"]["campaignId"]
    await run_worker()
    sent = {m.phone: m for m in await ChatMessage.find_in(ObjectId(tenant.org_id),
                                                          {"campaign_id": ObjectId(campaign_id)}).to_list()}
    reply = inbound("Thanks!", sender=phones[0])
    reply["entry"][0]["changes"][0]["value"]["messages"][0]["context"] = {"id": sent[phones[0]].cmid}
    click = inbound(None, sender=phones[1], kind="button", body={"text": "Yes", "payload": "yes-please"})
    click["entry"][0]["changes"][0]["value"]["messages"][0]["context"] = {"id": sent[phones[1]].cmid}
    await deliver(api, run_worker, reply, click)
    got = await report(api, writer, campaign_id)
    assert (got["counters"]["replied"], got["counters"]["clicked"]) == (1, 1)
    assert got["buttonClicks"] == [{"index": 0, "payload": "yes-please", "count": 1}]
    org = ObjectId(tenant.org_id)
    [replied] = await DomainEvent.find_in(org, {"kind": "campaign.reply"}).to_list()
    [clicked] = await DomainEvent.find_in(org, {"kind": "campaign.button_click"}).to_list()
    assert replied.payload["campaignId"] == campaign_id and replied.payload["text"] == "Thanks!"
    assert clicked.payload["payload"] == "yes-please" and clicked.payload["buttonIndex"] == 0
