"""Bulk-emitted events nobody subscribed to are recorded already dispatched (the dispatcher would read
and mark each for nothing); the others wait in the outbox and are delivered as ever."""
from __future__ import annotations

from bson import ObjectId

from leadline.models.events import DomainEvent
from leadline.resolvers.events import Event, emit_many
from tests.events.support import create_endpoint
from tests.helpers import make_tenant


async def dispatched(org: ObjectId) -> dict[str, bool]:
    return {e.payload["n"]: e.dispatched_at is not None for e in await DomainEvent.find_in(org, {}).to_list()}


async def test_events_without_a_subscribed_endpoint_skip_the_outbox(api, client, tenant, receiver_factory):
    org = ObjectId(tenant.org_id)
    other = await make_tenant(client, name="Other")
    await emit_many(None, [Event(org, "chatapp.message_sent", {"n": "nobody listens"})])
    assert await dispatched(org) == {"nobody listens": True}

    # An endpoint for statuses only: a sent message still has no receiver; a status has one.
    await create_endpoint(api, tenant.legacy_key, (await receiver_factory()).url, events=["chatapp.message_status"])
    await emit_many(None, [Event(org, "chatapp.message_sent", {"n": "sent"}),
                           Event(org, "chatapp.message_status", {"n": "status"}),
                           Event(ObjectId(other.org_id), "chatapp.message_status", {"n": "elsewhere"})])
    assert await dispatched(org) == {"nobody listens": True, "sent": True, "status": False}
    assert await dispatched(ObjectId(other.org_id)) == {"elsewhere": True}  # its organisation has no endpoint
