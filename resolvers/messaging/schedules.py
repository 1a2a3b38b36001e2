"""Scheduled messages: create, list, get, cancel, and the dispatch that sends each exactly once.

Every status move is a conditional update on the current status ({_id, org_id, status}): the
dispatcher claims `scheduled → sending`, a cancel moves `scheduled → cancelled`, so at most one of
them wins. The claim also fixes the id of the message to be stored, so an interrupted dispatch can
later be told apart: sent (its message exists) or failed (it does not); it is never sent twice.
"""
from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from bson import ObjectId

from leadline.models.auth import Organisation
from leadline.models.base import utcnow
from leadline.models.channels import ChannelAccount
from leadline.models.chats import ChatMessage
from leadline.models.messaging import SCHEDULE_STATUSES, ScheduledMessage
from leadline.models.templates import MessageTemplate
from leadline.resolvers.channels.accounts import active_chat_account
from leadline.resolvers.context import OrgSnapshot, RequestContext, Services
from leadline.resolvers.errors import ApiError
from leadline.resolvers.messaging.deliver import PreparedSend, deliver
from leadline.resolvers.messaging.recipients import stored_recipient
from leadline.resolvers.messaging.templates import is_sendable
from leadline.resolvers.pagination import Page, one_of, page_request
from leadline.resolvers.providers.base import OutboundTemplate

log = logging.getLogger("leadline.messaging")
DISPATCH_JOB = "dispatch_scheduled_message"
DEFAULT_PAGE, MAX_PAGE = 50, 100
# The sweep leaves a just-due schedule to its own job for this long before enqueueing another.
SWEEP_GRACE = timedelta(seconds=15)
SWEEP_BATCH = 1000


# --- create ------------------------------------------------------------------------------------
def _request_of(prepared: PreparedSend, template_db_id: ObjectId | None) -> dict[str, Any]:
    request: dict[str, Any] = {"text": prepared.text, "storeInAIContext": prepared.store_in_ai_context}
    if prepared.is_template:
        o = prepared.outbound
        request.update(templateDbId=str(template_db_id),
                       outbound={"name": o.name, "language": o.language, "components": o.components})
    else:
        request.update(type=prepared.type, content=prepared.content)
    return request


async def create(ctx: RequestContext, account: ChannelAccount, prepared: PreparedSend, at: datetime, tz: str,
                 *, template_db_id: ObjectId | None = None) -> ScheduledMessage:
    schedule = ScheduledMessage.new(
        ctx, kind="template" if prepared.is_template else "message", brand_number=account.number,
        recipient=prepared.recipient.to, scheduled_at=at, timezone=tz, template=prepared.template,
        message_type=None if prepared.is_template else prepared.type,
        request=_request_of(prepared, template_db_id))
    await schedule.insert()
    await enqueue(ctx.services, schedule)
    return schedule


async def enqueue(services: Services, schedule: ScheduledMessage, job_id: str | None = None) -> None:
    """The deferred dispatch job. Idempotent per `_job_id`; the sweep recovers a lost one."""
    if services.arq is None:
        log.warning("no job queue: schedule %s waits for the sweep", schedule.id)
        return
    await services.arq.enqueue_job(DISPATCH_JOB, str(schedule.org_id), str(schedule.id),
                                   _job_id=job_id or f"{DISPATCH_JOB}:{schedule.id}",
                                   _defer_until=schedule.scheduled_at)


# --- read, cancel ------------------------------------------------------------------------------
async def list_schedules(ctx: RequestContext, status: str | None, page: int | None,
                         limit: int | None) -> Page[ScheduledMessage]:
    """Newest first, through (org_id, created_at) or (org_id, status, created_at)."""
    req = page_request(page, limit, default=DEFAULT_PAGE, maximum=MAX_PAGE)
    status = one_of(status.lower() if status else None, SCHEDULE_STATUSES, "status")
    filt = {"status": status} if status else {}
    items = await ScheduledMessage.find_in(ctx, filt).sort("-created_at").skip(req.skip).limit(req.limit).to_list()
    return Page(items, req.page, req.limit, await ScheduledMessage.count_in(ctx, filt))


async def get_schedule(ctx: RequestContext, schedule_id: str) -> ScheduledMessage:
    schedule = await ScheduledMessage.get_in(ctx, schedule_id)
    if schedule is None:
        raise ApiError("SCHEDULE_NOT_FOUND", f"No scheduled message {schedule_id}.")
    return schedule


async def _move(org_id: ObjectId, schedule_id: ObjectId, frm: str, changes: dict[str, Any]) -> bool:
    """One conditional status move; True when this caller made it."""
    result = await ScheduledMessage.find_in(org_id, {"_id": schedule_id, "status": frm}).update(
        {"$set": {**changes, "updated_at": utcnow()}})
    return bool(result is not None and result.modified_count)


async def cancel(ctx: RequestContext, schedule_id: str) -> ScheduledMessage:
    schedule = await get_schedule(ctx, schedule_id)
    if not await _move(ctx.org_id, schedule.id, "scheduled", {"status": "cancelled", "cancelled_at": utcnow()}):
        current = await get_schedule(ctx, schedule_id)
        raise ApiError("SCHEDULE_NOT_CANCELLABLE",
                       f"Scheduled message {schedule_id} is '{current.status}'; only 'scheduled' can be cancelled.")
    return await get_schedule(ctx, schedule_id)


# --- dispatch ----------------------------------------------------------------------------------
async def system_context(services: Services, org_id: ObjectId) -> RequestContext | None:
    org = await Organisation.get(org_id)
    if org is None:
        return None
    return RequestContext.system(services, OrgSnapshot(
        id=org.id, name=org.name, plan=org.plan, timezone=org.timezone, is_active=org.is_active,
        allowed_origins=tuple(org.allowed_origins)))


async def _prepared(ctx: RequestContext, schedule: ScheduledMessage) -> PreparedSend:
    r = schedule.request
    recipient = stored_recipient(schedule.recipient)
    if schedule.kind == "message":
        return PreparedSend(recipient=recipient, text=r.get("text"), store_in_ai_context=r.get("storeInAIContext", False),
                            type=r["type"], content=r["content"])
    # The template must still be sendable now (it may have been paused or disabled meanwhile).
    if not is_sendable(await MessageTemplate.get_in(ctx, r.get("templateDbId"))):
        raise ApiError("TEMPLATE_NOT_FOUND", "The template is no longer APPROVED.")
    o = r["outbound"]
    return PreparedSend(recipient=recipient, text=r.get("text"), store_in_ai_context=r.get("storeInAIContext", False),
                        template=schedule.template,
                        outbound=OutboundTemplate(o["name"], o["language"], o["components"]))


async def dispatch(services: Services, org_id: str, schedule_id: str) -> str:
    """Send a due schedule once; returns what happened (sent, failed, or why nothing was done)."""
    org, sid = ObjectId(org_id), ObjectId(schedule_id)
    schedule = await ScheduledMessage.get_in(org, sid)
    if schedule is None or schedule.status != "scheduled":
        return "skipped" if schedule is None else schedule.status
    if schedule.scheduled_at.replace(tzinfo=None) > utcnow().replace(tzinfo=None) + timedelta(seconds=1):
        return "early"
    message_id = ObjectId()
    if not await _move(org, sid, "scheduled", {"status": "sending", "claimed_at": utcnow(),
                                              "message_id": message_id}):
        return "lost"  # cancelled, or another worker claimed it
    ctx = await system_context(services, org)
    try:
        if ctx is None:
            raise ApiError("BIZACCT_NOT_FOUND", "The organisation no longer exists.")
        account = await active_chat_account(ctx, schedule.brand_number)
        await deliver(ctx, account, await _prepared(ctx, schedule), schedule_id=sid, message_id=message_id)
    except ApiError as err:
        await _move(org, sid, "sending", {"status": "failed", "error": {"code": err.code, "message": err.message},
                                         "message_id": None})
        return "failed"
    except Exception:
        log.exception("dispatch of schedule %s failed", schedule_id)
        await _resolve_interrupted(org, sid, message_id)
        return "failed"
    await _move(org, sid, "sending", {"status": "sent", "sent_at": utcnow()})
    return "sent"


async def _resolve_interrupted(org: ObjectId, sid: ObjectId, message_id: ObjectId | None) -> str:
    """A `sending` claim whose dispatcher stopped: sent if its message was stored, else failed."""
    if message_id is not None and await ChatMessage.get_in(org, message_id) is not None:
        await _move(org, sid, "sending", {"status": "sent", "sent_at": utcnow()})
        return "sent"
    await _move(org, sid, "sending", {"status": "failed", "message_id": None, "error": {
        "code": "MESSAGE_SEND_FAILED", "message": "The dispatch was interrupted before the provider accepted it."}})
    return "failed"


async def sweep(services: Services, *, grace: timedelta = SWEEP_GRACE) -> dict[str, int]:
    """Re-enqueue due schedules whose job is gone (Redis lost, or the job failed before claiming) and
    settle abandoned claims. Idempotent: the dispatch claims; the sweep only offers work."""
    now = utcnow()
    due = await ScheduledMessage.find_across_orgs(
        {"status": "scheduled", "scheduled_at": {"$lte": now - grace}}).limit(SWEEP_BATCH).to_list()
    bucket = int(now.timestamp() // 60)
    for schedule in due:
        await enqueue(services, schedule, job_id=f"{DISPATCH_JOB}:{schedule.id}:sweep:{bucket}")
    stale_before = now - timedelta(seconds=services.settings.schedule_claim_stale_seconds)
    stale = await ScheduledMessage.find_across_orgs(
        {"status": "sending", "claimed_at": {"$lte": stale_before}}).limit(SWEEP_BATCH).to_list()
    for schedule in stale:
        await _resolve_interrupted(schedule.org_id, schedule.id, schedule.message_id)
    return {"enqueued": len(due), "settled": len(stale)}
