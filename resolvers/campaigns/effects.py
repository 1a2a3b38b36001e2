"""The effects of a campaign's sent messages, applied behind the dispatch by the ingestion worker:
their conversation rows and `chatapp.message_sent` events, one batch at a time (a fan-out does not
wait for them). Registered as the handler of the service's own `leadline.outbound` changes."""
from __future__ import annotations

from bson import ObjectId

from leadline.models.chats import ChatMessage
from leadline.resolvers.chats.conversations import note_outbound_many
from leadline.resolvers.chats.routing import org_contexts
from leadline.resolvers.context import Services
from leadline.resolvers.events import Event, emit_many
from leadline.resolvers.webhooks.change import WebhookChange
from leadline.resolvers.webhooks.handlers import webhook_handler


@webhook_handler("leadline.outbound", queued=True, batch=True)
async def on_outbound(services: Services, changes: list[WebhookChange]) -> list[str]:
    by_org: dict[ObjectId, list[ObjectId]] = {}
    for change in changes:
        by_org.setdefault(ObjectId(change.value["org"]), []).extend(ObjectId(i) for i in change.value["messages"])
    contexts = await org_contexts(services, list(by_org))
    for org_id, ids in by_org.items():
        ctx = contexts.get(org_id)
        if ctx is None:
            continue
        messages = await ChatMessage.get_many_in(org_id, ids)
        await note_outbound_many(ctx, messages)
        await emit_many(ctx, [Event(org_id, "chatapp.message_sent", {
            "messageId": str(m.id), "cmid": m.cmid, "brandNumber": m.brand_number, "to": m.phone, "phone": m.phone,
            "bsuid": m.bsuid, "contactId": str(m.contact_id) if m.contact_id else None, "type": m.type,
            "template": m.template, "campaignId": str(m.campaign_id) if m.campaign_id else None,
            "scheduleId": None, "status": "accepted", "createdAt": m.created_at.isoformat()},
            once_for=(m.id, "sent")) for m in messages])
    return ["applied"] * len(changes)
