"""Creating a campaign (or a dry run of it), previewing an audience, cancelling.

Order of checks on create: name, number, template reference, template, audience, variables, schedule;
then the audience is resolved (contacts mode: new phones become contacts with `source: "campaign"`) and
frozen into chunks of recipients with their resolved parameters, streamed, never held whole. A dry run
stops before anything is written. Immediate: `processing` (and `freezing`) from the start, each chunk
offered to the workers as it is written, so sending overlaps the rest of the freeze; the campaign can
complete once the freeze is over. Scheduled: `scheduled`, started at `sendAt` by a deferred job (and a
sweep after restarts).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any
from zoneinfo import ZoneInfo

from bson import ObjectId

from leadline.models.base import utcnow
from leadline.models.campaigns import CHUNK_SIZE, TERMINAL, Campaign, CampaignChunk
from leadline.models.templates import MessageTemplate
from leadline.resolvers.billing.limits import within_limit
from leadline.resolvers.billing.usage import usage_counter
from leadline.resolvers.campaigns import audience as audiences
from leadline.resolvers.campaigns import fanout, variables
from leadline.resolvers.campaigns.ids import campaign_of
from leadline.resolvers.channels.accounts import active_chat_account
from leadline.resolvers.contacts.ensure import ensure_contacts, Sender
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError
from leadline.resolvers.messaging.timing import schedule_time

SAMPLE = 10
START_JOB = "start_campaign"


@dataclass(frozen=True)
class CampaignRequest:
    brand_number: str | None = None
    campaign_name: str | None = None
    template_id: str | None = None
    template_name: str | None = None
    language: str | None = None
    audience: dict[str, Any] | None = None
    variables: dict[str, Any] | None = None
    schedule: dict[str, Any] | None = None
    notes: str | None = None
    dry_run: bool = False


@dataclass
class Created:
    campaign: Campaign | None
    total: int
    dry_run: bool = False
    sample: list[dict[str, Any]] = field(default_factory=list)


async def template_of(ctx: RequestContext, req: CampaignRequest) -> MessageTemplate:
    template_id = (req.template_id or "").strip() or None
    name = (req.template_name or "").strip() or None
    if template_id is None and name is None:
        raise ApiError("CAMPAIGN_TEMPLATE_REQUIRED", "Send templateId, or templateName with language.")
    if template_id is not None:
        found = await MessageTemplate.get_in(ctx, template_id) if ObjectId.is_valid(template_id) else None
        if found is None:
            found = await MessageTemplate.find_one_in(ctx, {"template_id": template_id})
        candidates = [found] if found else []
    else:
        language = (req.language or "").strip() or "en"
        candidates = await MessageTemplate.find_in(ctx, {"name": name, "language": language}).to_list()
    if not candidates:
        raise ApiError("TEMPLATE_NOT_FOUND", f"No template {template_id or name} in this organisation.")
    approved = [t for t in candidates if t.status == "APPROVED"]
    if not approved:
        raise ApiError("CAMPAIGN_TEMPLATE_NOT_APPROVED",
                       f"Template {candidates[0].name} is {candidates[0].status}; campaigns need an APPROVED template.")
    return approved[0]


def _schedule(raw: dict[str, Any] | None) -> tuple[datetime, str] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or not raw.get("sendAt"):
        raise ApiError("INVALID_SCHEDULE_TIME", "schedule.sendAt is required: an ISO 8601 time in the future.")
    return schedule_time(str(raw["sendAt"]), raw.get("timezone"))


async def preview(ctx: RequestContext, brand_number: str | None, raw_audience: dict[str, Any] | None):
    await active_chat_account(ctx, brand_number)
    audience = await audiences.parse(ctx, raw_audience if raw_audience is not None else {})
    return audience, await audiences.preview(ctx, audience)


async def create(ctx: RequestContext, req: CampaignRequest) -> Created:
    if not (req.campaign_name or "").strip():
        raise ApiError("CAMPAIGN_NAME_REQUIRED", "campaignName is required.")
    account = await active_chat_account(ctx, req.brand_number)
    template = await template_of(ctx, req)
    audience = await audiences.parse(ctx, req.audience)
    variables.validate(template, req.variables)
    when = _schedule(req.schedule)
    if req.dry_run:
        return await _dry_run(ctx, template, audience, req.variables)
    async with within_limit(ctx, "max_campaigns_per_month"):
        # Immediate: `processing` from the start, each chunk offered to the workers as it is frozen (the
        # first messages leave while the rest of a large audience is still being resolved).
        campaign = Campaign.new(
            ctx, name=req.campaign_name.strip(), status="draft" if when else "processing", freezing=not when,
            started_at=None if when else utcnow(), brand_number=account.number, mode=audience.mode,
            template={"dbId": str(template.id), "id": template.template_id or str(template.id), "name": template.name,
                      "language": template.language, "category": template.category},
            audience=audience.stored(), variables=req.variables, notes=req.notes,
            schedule_type="scheduled" if when else "immediate", scheduled_at=when[0] if when else None,
            timezone=when[1] if when else ((req.schedule or {}).get("timezone") or "UTC"))
        await campaign.insert()
    offered: list[int] = []
    try:
        total, chunks = await _freeze(ctx, campaign, template, audience, req.variables, None if when else offered)
    except BaseException:
        if offered:  # some recipients may have been sent to already: nothing is deleted
            await fanout.abandon_freeze(campaign)
        else:
            await _discard(ctx, campaign)
        raise
    if total == 0:
        await _discard(ctx, campaign)
        raise ApiError("CAMPAIGN_EMPTY_AUDIENCE", "The audience resolves to no contact that can be sent to.")
    campaign.total_contacts, campaign.chunks_total = total, chunks
    if when:
        campaign.status = "scheduled"
        await Campaign.update_one_in(ctx, {"_id": campaign.id}, {"$set": {
            "total_contacts": total, "chunks_total": chunks, "status": "scheduled", "updated_at": utcnow()}})
        await _schedule_start(ctx, campaign)
        return Created(campaign, total)
    await fanout.end_freeze(campaign, total, chunks)
    return Created(campaign, total)


async def _discard(ctx: RequestContext, campaign: Campaign) -> None:
    await CampaignChunk.delete_many_in(ctx, {"campaign_id": campaign.id})
    await Campaign.delete_one_in(ctx, {"_id": campaign.id})


async def _dry_run(ctx: RequestContext, template: MessageTemplate, audience: audiences.Audience,
                   top: dict[str, Any] | None) -> Created:
    total, sample = 0, []
    async for member in audiences.members(ctx, audience):
        if member.bucket != "eligible":
            continue
        total += 1
        if len(sample) < SAMPLE:
            own = (member.listed or {}).get("variables")
            params = variables.resolve(template, variables.merged(top, own), member.contact, member.listed)
            sample.append({"phone": member.phone, "name": member.name, "body": params.get("body", []),
                           **({"missing": params["missing"]} if "missing" in params else {})})
    if total == 0:
        raise ApiError("CAMPAIGN_EMPTY_AUDIENCE", "The audience resolves to no contact that can be sent to.")
    return Created(None, total, dry_run=True, sample=sample)


async def _freeze(ctx: RequestContext, campaign: Campaign, template: MessageTemplate, audience: audiences.Audience,
                  top: dict[str, Any] | None, offered: list[int] | None = None) -> tuple[int, int]:
    """Write the eligible recipients in chunks as they stream by; (recipients, chunks). With `offered`,
    each written chunk is offered to the workers at once (its index appended): the first alone, then
    twice as many each time up to 20 per write, so sending starts within a chunk's time."""
    total, index, batch = 0, 0, []
    pending: list[CampaignChunk] = []

    async def flush(final: bool = False) -> None:
        nonlocal index
        if batch:
            pending.append(await _chunk(ctx, campaign, template, audience, top, index, batch))
            index += 1
            batch.clear()
        wanted = 20 if offered is None else max(1, min(20, len(offered)))
        if pending and (final or len(pending) >= wanted):
            await CampaignChunk.insert_many_in(ctx, pending)
            if offered is not None:
                indexes = [c.index for c in pending]
                await fanout.offer(ctx.services, campaign, indexes)
                offered.extend(indexes)
                # Progress so far (a long freeze is not taken for a stalled campaign by the sweep).
                await Campaign.update_one_in(ctx, {"_id": campaign.id}, {"$set": {
                    "total_contacts": total, "updated_at": utcnow()}})
            pending.clear()

    async for member in audiences.members(ctx, audience):
        if member.bucket != "eligible":
            continue
        batch.append(member)
        total += 1
        if len(batch) == CHUNK_SIZE:
            await flush()
    await flush(final=True)
    return total, index


async def _chunk(ctx: RequestContext, campaign: Campaign, template: MessageTemplate, audience: audiences.Audience,
                 top: dict[str, Any] | None, index: int, members: list[audiences.Member]) -> CampaignChunk:
    contacts = {m.phone: m.contact for m in members}
    if audience.mode == "contacts":  # new phones become contacts, in one bulk create
        senders = [Sender(m.phone, m.name) for m in members if m.contact is None]
        created = await ensure_contacts(ctx, senders, source="campaign") if senders else {}
        contacts.update({phone: c.model_dump(by_alias=True) for phone, c in created.items()})
    params = []
    for m in members:
        own = (m.listed or {}).get("variables")
        params.append(variables.resolve(template, variables.merged(top, own), contacts.get(m.phone), m.listed))
    return CampaignChunk.new(ctx, campaign_id=campaign.id, index=index, phones=[m.phone for m in members],
                             contact_ids=[(contacts.get(m.phone) or {}).get("_id") for m in members], params=params,
                             outcomes=["pending"] * len(members))


async def _schedule_start(ctx: RequestContext, campaign: Campaign) -> None:
    if ctx.services.arq is None:
        return  # the sweep starts it
    await ctx.services.arq.enqueue_job(START_JOB, str(campaign.org_id), str(campaign.id),
                                       _job_id=f"{START_JOB}:{campaign.id}", _defer_until=campaign.scheduled_at)


async def start_scheduled(services, org_id: str, campaign_id: str) -> bool:
    """The deferred start (idempotent: only a `scheduled` campaign whose time has come starts)."""
    org, cid = ObjectId(org_id), ObjectId(campaign_id)
    now = utcnow()
    result = await Campaign.update_one_in(org, {"_id": cid, "status": "scheduled", "scheduled_at": {"$lte": now}},
                                          {"$set": {"status": "processing", "started_at": now, "updated_at": now}})
    if not result.matched_count:
        return False
    campaign = await Campaign.get_in(org, cid)
    await fanout.start(services, campaign)
    return True


async def due_scheduled(limit: int = 500) -> list[Campaign]:
    """Scheduled campaigns whose time has passed (the sweep offers them again)."""
    return await Campaign.find_across_orgs({"status": "scheduled", "scheduled_at": {"$lte": utcnow()}}).limit(limit).to_list()


@dataclass
class Cancelled:
    campaign: Campaign
    skipped: int


async def cancel(ctx: RequestContext, campaign_id: str) -> Cancelled:
    campaign = await campaign_of(ctx, campaign_id)
    if campaign.status in TERMINAL:
        raise ApiError("CAMPAIGN_NOT_CANCELLABLE", f"The campaign is already {campaign.status}.")
    now = utcnow()
    result = await Campaign.update_one_in(ctx, {"_id": campaign.id, "status": campaign.status},
                                          {"$set": {"status": "cancelled", "cancelled_at": now, "updated_at": now}})
    if not result.matched_count:
        campaign = await campaign_of(ctx, campaign_id)
        if campaign.status in TERMINAL:
            raise ApiError("CAMPAIGN_NOT_CANCELLABLE", f"The campaign is already {campaign.status}.")
        return await cancel(ctx, campaign_id)
    skipped = await fanout.skip_pending_chunks(campaign)
    campaign.status, campaign.cancelled_at = "cancelled", now
    return Cancelled(campaign, skipped)


@usage_counter("max_campaigns_per_month")
async def campaigns_this_month(org_id, timezone_name: str = "UTC") -> int:
    """Campaigns created since the start of the organisation's month (in its time zone)."""
    local = datetime.now(ZoneInfo(timezone_name or "UTC"))
    start = local.replace(day=1, hour=0, minute=0, second=0, microsecond=0).astimezone(timezone.utc)
    return await Campaign.count_in(org_id, {"created_at": {"$gte": start}})
