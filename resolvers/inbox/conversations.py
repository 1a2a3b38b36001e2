"""The inbox application's conversation reads and row changes (GraphQL): the list filtered by status,
agent, team or unassigned; marking read (unreadCount back to 0); the archive, mute, pin and star flags;
a conversation's activity log.

Each list shape is a prefix of a conversation index: `{org_id, inbox_status}`,
`{org_id, assigned_agent_id[, inbox_status]}` (`assigned_agent_id: null` is "unassigned": an
assignment always has an agent), `{org_id, assigned_team_id[, inbox_status]}`, or the chats list's
`{org_id}`; sorted by `lastMessageAt` (most recent first) as the chats list is. Rows written before the
team inbox have no status, which is `open`: that filter is `{$in: ["open", null]}`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bson import ObjectId

from leadline.models.base import utcnow
from leadline.models.chats import Conversation
from leadline.models.inbox import ConversationActivity
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError, detail, validation_error
from leadline.resolvers.inbox import activity
from leadline.resolvers.inbox.statuses import DEFAULT_STATUS
from leadline.resolvers.pagination import Page, page_request

DEFAULT_LIMIT, MAX_LIMIT = 20, 100
SORT = [("last_message_at", -1), ("_id", -1)]


@dataclass(frozen=True)
class InboxFilter:
    status: str | None = None
    agent_id: str | None = None
    team_id: str | None = None
    unassigned: bool | None = None


def _oid(raw: str, field: str) -> ObjectId:
    if not ObjectId.is_valid(raw) or len(raw) != 24:
        raise validation_error([detail(field, "INVALID_VALUE", f"{field} must be a 24-character hexadecimal id")])
    return ObjectId(raw)


def _filter(f: InboxFilter) -> dict[str, Any]:
    targets = [name for name, given in (("agentId", f.agent_id), ("teamId", f.team_id), ("unassigned", f.unassigned))
               if given]
    if len(targets) > 1:
        raise validation_error([detail(targets[1], "INVALID_VALUE",
                                       "filter by one of agentId, teamId and unassigned at a time")])
    filt: dict[str, Any] = {}
    if f.agent_id:
        filt["assigned_agent_id"] = _oid(f.agent_id, "agentId")
    elif f.team_id:
        filt["assigned_team_id"] = _oid(f.team_id, "teamId")
    elif f.unassigned:
        filt["assigned_agent_id"] = None
    if f.status is not None:
        status = f.status.strip()
        filt["inbox_status"] = {"$in": [DEFAULT_STATUS, None]} if status == DEFAULT_STATUS else status
    return filt


async def list_inbox(ctx: RequestContext, f: InboxFilter, page: int | None, limit: int | None) -> Page[Conversation]:
    req = page_request(page, limit, default=DEFAULT_LIMIT, maximum=MAX_LIMIT)
    filt = _filter(f)
    total = await Conversation.count_in(ctx, filt)
    rows = await Conversation.find_in(ctx, filt).sort(SORT).skip(req.skip).limit(req.limit).to_list()
    return Page(rows, req.page, req.limit, total)


async def _row(ctx: RequestContext, raw: str | None) -> Conversation:
    row = await Conversation.get_in(ctx, (raw or "").strip())
    if row is None:
        raise ApiError("CONVERSATION_NOT_FOUND", f"No conversation with id {str(raw)[:100]}.")
    return row


async def _change(ctx: RequestContext, raw: str | None, changes: dict[str, Any]) -> Conversation:
    row = await _row(ctx, raw)
    if changes:
        changes["updated_at"] = utcnow()
        await Conversation.update_one_in(ctx, {"_id": row.id}, {"$set": changes})
        row = row.model_copy(update=changes)
    return row


async def mark_read(ctx: RequestContext, conversation_id: str | None) -> Conversation:
    return await _change(ctx, conversation_id, {"unread_count": 0})


async def set_flags(ctx: RequestContext, conversation_id: str | None, *, archived: bool | None = None,
                    muted: bool | None = None, pinned: bool | None = None,
                    starred: bool | None = None) -> Conversation:
    changes = {field: value for field, value in (("is_archived", archived), ("is_muted", muted),
                                                 ("is_pinned", pinned), ("is_starred", starred)) if value is not None}
    return await _change(ctx, conversation_id, changes)


async def activity_of(ctx: RequestContext, conversation_id: str | None) -> list[ConversationActivity]:
    row = await _row(ctx, conversation_id)
    return await activity.entries(ctx, row.id)
