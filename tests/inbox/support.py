"""Shared by the team inbox tests: agents (through the operator command's code), conversations (through
inbound webhooks, processed now), and short HTTP helpers."""
from __future__ import annotations

from bson import ObjectId

from leadline.models.chats import Conversation
from leadline.models.contacts import Contact
from leadline.resolvers.inbox.agents import add_agent
from leadline.resolvers.webhooks.dispatch import ingest
from tests.chats.support import inbound

_emails = iter(range(1, 10**6))


async def agent(tenant, name: str = "Agent", *, role: str = "agent", status: str = "active",
                email: str | None = None) -> str:
    email = email or f"agent{next(_emails)}@example.com"
    return (await add_agent(tenant.org_id, name, email, role, status))["agentId"]


async def conversation(tenant, sender: str = "447911123456", name: str = "Ann", text: str = "Hello",
                       **kw) -> Conversation:
    """The conversation row of an inbound message from `sender`, processed inline."""
    await ingest(tenant.services, inbound(text, sender=sender, name=name, **kw))
    org = ObjectId(tenant.org_id)
    contact = await Contact.find_one_in(org, {"phone": sender})
    return await Conversation.find_one_in(org, {"contact_id": contact.id})


async def team(api, key: str, name: str = "Support", **body) -> dict:
    resp = await api.post("/v2.0/teams", key, json={"name": name, **body})
    assert resp.status == 201, resp.body
    return resp.body["data"]


async def assign(api, key: str, **body):
    return await api.post("/v2.0/conversations/assign", key, json=body)
