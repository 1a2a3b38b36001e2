"""The workspace's inbox statuses and a conversation's status.

The catalogue holds the system statuses `pending`, `open` (the default: a new conversation starts
there) and `resolved`, which every workspace has without storing them, plus the workspace's own, sorted
by `order`. A workspace may change a system status's label, colour and order (stored as an override)
but not delete it; deleting one of its own moves the conversations in it back to `open`.

Changing a conversation's status (to a catalogue key, else 400 UNKNOWN_STATUS) is one atomic update
that returns the status it replaced (`statusFrom`); it writes a `status-changed` entry to the
conversation's activity log, records `inbox.conversation_status_changed` and publishes
`conversation:status_changed`. Setting the status it already has changes nothing and records nothing.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from pymongo import ReturnDocument
from pymongo.errors import DuplicateKeyError

from leadline.models.base import utcnow
from leadline.models.chats import Conversation
from leadline.models.inbox import InboxStatus
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError, detail, validation_error
from leadline.resolvers.events import emit
from leadline.resolvers.inbox import activity, live
from leadline.resolvers.inbox.locate import Locator, locate

DEFAULT_STATUS = "open"
STATUS_CHANGED_EVENT = "inbox.conversation_status_changed"
_KEY = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
MAX_LABEL, MAX_COLOR, MAX_CUSTOM = 50, 32, 50
MAX_ORDER = 1_000_000


@dataclass(frozen=True)
class Status:
    key: str
    label: str
    color: str | None
    order: int
    is_default: bool
    is_system: bool


SYSTEM_STATUSES: dict[str, Status] = {
    "pending": Status("pending", "Pending", "#F59E0B", 10, False, True),
    "open": Status("open", "Open", "#3B82F6", 20, True, True),
    "resolved": Status("resolved", "Resolved", "#10B981", 30, False, True),
}


@dataclass(frozen=True)
class StatusChange:
    conversation_id: str
    status: str
    status_from: str


@dataclass(frozen=True)
class StatusDeleted:
    key: str
    moved: int


def _status(doc: InboxStatus) -> Status:
    system = SYSTEM_STATUSES.get(doc.key)
    return Status(doc.key, doc.label, doc.color, doc.order, system.is_default if system else False, system is not None)


async def catalogue(ctx: RequestContext) -> list[Status]:
    stored = {doc.key: doc for doc in await InboxStatus.find_in(ctx, {}).to_list()}
    statuses = [_status(stored[k]) if k in stored else s for k, s in SYSTEM_STATUSES.items()]
    statuses += [_status(doc) for key, doc in stored.items() if key not in SYSTEM_STATUSES]
    return sorted(statuses, key=lambda s: (s.order, s.key))


async def _known(ctx: RequestContext, key: str) -> Status:
    for status in await catalogue(ctx):
        if status.key == key:
            return status
    raise ApiError("UNKNOWN_STATUS", f"'{key[:100]}' is not a status of this workspace; read "
                                     "GET /v2.0/conversations/statuses.")


def _label_color_order(label: str | None, color: str | None, order: int | None, problems: list,
                       *, label_required: bool) -> dict:
    fields: dict = {}
    if label is not None or label_required:
        text = (label or "").strip()
        if not text or len(text) > MAX_LABEL:
            problems.append(detail("label", "INVALID_VALUE", f"label is 1 to {MAX_LABEL} characters"))
        fields["label"] = text
    if color is not None:
        if len(color.strip()) > MAX_COLOR:
            problems.append(detail("color", "TOO_LONG", f"color is at most {MAX_COLOR} characters"))
        fields["color"] = color.strip() or None
    if order is not None:
        if abs(order) > MAX_ORDER:
            problems.append(detail("order", "OUT_OF_RANGE", f"order is between -{MAX_ORDER} and {MAX_ORDER}"))
        fields["order"] = order
    return fields


async def create_status(ctx: RequestContext, key: str | None, label: str | None, color: str | None,
                        order: int | None) -> Status:
    problems: list = []
    key = (key or "").strip()
    if not _KEY.match(key):
        problems.append(detail("key", "INVALID_VALUE", "key is 1 to 40 lowercase letters, digits, '_' or '-', "
                                                       "starting with a letter"))
    fields = _label_color_order(label, color, order, problems, label_required=True)
    if problems:
        raise validation_error(problems)
    if key in SYSTEM_STATUSES:
        raise ApiError("STATUS_EXISTS", f"'{key}' is a system status.")
    statuses = await catalogue(ctx)
    if sum(1 for s in statuses if not s.is_system) >= MAX_CUSTOM:
        raise validation_error([detail("key", "TOO_MANY", f"a workspace has at most {MAX_CUSTOM} statuses of its own")])
    if "order" not in fields:
        fields["order"] = max(s.order for s in statuses) + 10
    doc = InboxStatus.new(ctx, key=key, **fields)
    try:
        await doc.insert()
    except DuplicateKeyError:
        raise ApiError("STATUS_EXISTS", f"The workspace already has a status '{key}'.") from None
    return _status(doc)


async def update_status(ctx: RequestContext, key: str, label: str | None, color: str | None,
                        order: int | None) -> Status:
    current = await _known(ctx, (key or "").strip())
    problems: list = []
    fields = _label_color_order(label, color, order, problems, label_required=False)
    if problems:
        raise validation_error(problems)
    merged = {"label": current.label, "color": current.color, "order": current.order, **fields}
    # A system status gets its stored override on its first change (concurrent first changes meet on the index).
    for _ in range(2):
        try:
            await InboxStatus.update_one_in(ctx, {"key": current.key}, {
                "$set": {**merged, "updated_at": utcnow()},
                "$setOnInsert": {"is_system": current.is_system, "created_at": utcnow()}}, upsert=True)
            break
        except DuplicateKeyError:
            continue
    return Status(current.key, merged["label"], merged["color"], merged["order"], current.is_default,
                  current.is_system)


async def delete_status(ctx: RequestContext, key: str) -> StatusDeleted:
    current = await _known(ctx, (key or "").strip())
    if current.is_system:
        raise ApiError("SYSTEM_STATUS_NOT_DELETABLE", f"'{current.key}' is a system status; it cannot be deleted.")
    await InboxStatus.delete_one_in(ctx, {"key": current.key})
    moved = await Conversation.update_many_in(ctx, {"inbox_status": current.key},
                                              {"$set": {"inbox_status": DEFAULT_STATUS, "updated_at": utcnow()}})
    return StatusDeleted(current.key, moved.modified_count)


async def set_status(ctx: RequestContext, locator: Locator, status: str | None) -> StatusChange:
    key = (status or "").strip()
    if not key:
        raise validation_error([detail("status", "REQUIRED", "status is required: a key of the status catalogue")])
    row = await locate(ctx, locator)
    target = await _known(ctx, key)
    now = utcnow()
    before = await Conversation.find_one_and_update_in(
        ctx, {"_id": row.id}, {"$set": {"inbox_status": target.key, "updated_at": now}},
        projection={"inbox_status": 1}, return_document=ReturnDocument.BEFORE)
    status_from = (before or {}).get("inbox_status") or DEFAULT_STATUS
    change = StatusChange(str(row.id), target.key, status_from)
    if status_from == target.key:
        return change
    by = activity.actor(ctx)
    await activity.record(ctx, row.id, "status-changed", status=target.key, status_from=status_from, at=now)
    await emit(ctx, STATUS_CHANGED_EVENT, {
        "conversationId": str(row.id), "contactId": str(row.contact_id), "phone": row.phone,
        "brandNumber": row.brand_number, "channel": row.channel, "status": target.key, "statusFrom": status_from,
        "changedAt": live.iso(now), "by": by})
    await live.publish_one(ctx, live.Update(live.STATUS_CHANGED, str(row.id),
                                            {"status": target.key, "statusFrom": status_from}))
    return change
