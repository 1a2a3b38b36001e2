"""Round trips of the message pipeline's hot paths, counted: a regression shows as a failing number.

Database commands are counted with pymongo's command monitoring, Redis round trips at redis-py's
connections. Each case runs warm (organisation, key, contact, conversation row and the caches exist),
as in steady traffic; the webhook cases go through the worker's batch path (`drain`) with a batch of
one, so these are the costs of a batch, which larger batches share.
"""
from __future__ import annotations

from bson import ObjectId

from leadline.models.chats import ChatMessage
from leadline.resolvers.webhooks.dispatch import drain, ingestion_stream
from tests.chats.support import inbound, post, status
from tests.helpers import RoundTrips
from tests.messaging.support import PHONE, seed_template, send_body


async def test_one_template_send(api, tenant, brand, sender):
    """The contact read, the message insert, the conversation upsert, the event insert; Redis: the
    rate gate, the messaging tier, the sandbox's statuses."""
    await seed_template(tenant)
    for _ in range(2):
        assert (await api.post("/v2.0/chatapp/send", sender, json=send_body())).status == 200
    with RoundTrips() as trips:
        assert (await api.post("/v2.0/chatapp/send", sender, json=send_body())).status == 200
    assert dict(trips.db) == {"find": 1, "insert": 2, "update": 1}
    assert trips.redis == 3


async def test_one_inbound_message_from_a_known_sender(api, tenant, brand, services):
    """The contact and conversation reads, the message insert, the row update, the organisation's webhook
    endpoints read and the event insert (recorded dispatched: nobody subscribes); Redis:
    claiming the batch (due entries, new entries), the organisation's token, the live `message:new`
    publish (docs/inbox.md), the acknowledgement."""
    for i in range(2):
        assert (await post(api, inbound(f"warm {i}", sender=PHONE))).status == 200
        assert await drain(services, "test") == 1
    assert (await post(api, inbound("counted", sender=PHONE))).status == 200
    with RoundTrips() as trips:
        assert await drain(services, "test") == 1
    assert dict(trips.db) == {"find": 3, "insert": 2, "update": 1}
    assert trips.redis == 5


async def test_one_status(api, tenant, brand, sender, services):
    """The message read, its update, the endpoints read, the event insert; Redis as for an inbound
    message (the live update's round trip is the check for subscribers, PUBSUB NUMSUB: nobody listens
    here, so nothing is published)."""
    await seed_template(tenant)
    resp = await api.post("/v2.0/chatapp/send", sender, json=send_body())
    message = await ChatMessage.get_in(ObjectId(tenant.org_id), resp.body["data"]["messageId"])
    await services.redis.delete(ingestion_stream(services).delayed_key)  # the sandbox's own statuses
    assert (await post(api, status(message.cmid, "sent", recipient=PHONE))).status == 200
    assert await drain(services, "test") == 1
    assert (await post(api, status(message.cmid, "delivered", recipient=PHONE))).status == 200
    with RoundTrips() as trips:
        assert await drain(services, "test") == 1
    assert dict(trips.db) == {"find": 2, "update": 1, "insert": 1}
    assert trips.redis == 5
    assert (await ChatMessage.get_in(ObjectId(tenant.org_id), message.id)).status == "delivered"
