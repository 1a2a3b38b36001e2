"""The sandbox's simulated statuses are never reported earlier than the send was accepted."""
from __future__ import annotations

from datetime import datetime

from tests.messaging.support import seed_template, send_body
from tests.templates.support import BRAND


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def test_sent_delivered_read_are_not_earlier_than_accepted(api, tenant, brand, sender, reader, run_worker):
    await seed_template(tenant)
    ids = []
    for _ in range(3):  # accepted at different points within a second
        resp = await api.post("/v2.0/chatapp/send", sender, json=send_body())
        assert resp.status == 200, resp.body
        ids.append(resp.body["data"]["messageId"])
    await run_worker()
    for message_id in ids:
        resp = await api.get("/v2.0/chatapp/message/status", reader, params={"messageId": message_id,
                                                                            "brandNumber": BRAND})
        times = resp.body["data"]["timestamps"]
        order = [_at(times[k]) for k in ("accepted", "sent", "delivered", "read")]
        assert order == sorted(order), times
