"""A conversation's activity log: assignment changes and status changes, each attributed to the API key
that made it (`by: {source: "api", keyId, label}`), oldest first."""
from __future__ import annotations

import asyncio
from typing import Any

from bson import ObjectId

from leadline.models.inbox import ConversationActivity
from leadline.resolvers.context import RequestContext

ASSIGNMENT_KINDS = ("assigned", "unassigned")
# A conversation's log is read whole up to this many entries (the most recent ones).
MAX_ENTRIES = 500
LATEST = [("at", -1), ("_id", -1)]


def actor(ctx: RequestContext) -> dict[str, Any]:
    key = ctx.key
    return {"source": "api", "keyId": str(key.id) if key else None, "label": key.label if key else None}


async def record(ctx: RequestContext, conversation_id: ObjectId, kind: str, **fields: Any) -> ConversationActivity:
    entry = ConversationActivity.new(ctx, conversation_id=conversation_id, kind=kind, by=actor(ctx), **fields)
    await entry.insert()
    return entry


async def _latest(ctx: RequestContext, filt: dict[str, Any]) -> list[ConversationActivity]:
    return await ConversationActivity.find_in(ctx, filt).sort(LATEST).limit(MAX_ENTRIES).to_list()


async def entries(ctx: RequestContext, conversation_id: ObjectId,
                  kinds: tuple[str, ...] | None = None) -> list[ConversationActivity]:
    """Oldest first; at most the MAX_ENTRIES most recent. Only some kinds: one equality read per kind (each
    a prefix of the (org_id, conversation_id, kind, at) index, not an `$in`), merged here."""
    if not kinds:
        recent = await _latest(ctx, {"conversation_id": conversation_id})
    else:
        reads = await asyncio.gather(*(_latest(ctx, {"conversation_id": conversation_id, "kind": kind})
                                       for kind in dict.fromkeys(kinds)))
        recent = sorted((e for read in reads for e in read), key=lambda e: (e.at, e.id), reverse=True)[:MAX_ENTRIES]
    return recent[::-1]
