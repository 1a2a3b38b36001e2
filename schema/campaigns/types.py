"""Campaign and segment output types and their conversion from domain objects."""
from __future__ import annotations

from datetime import datetime

import strawberry

from leadline.models.campaigns import Campaign, Segment
from leadline.resolvers.campaigns.audience import Audience, Tally
from leadline.resolvers.campaigns.create import Cancelled, Created
from leadline.resolvers.campaigns.report import Report
from leadline.schema.scalars import JSON


@strawberry.type
class CampaignBreakdown:
    chatapp_eligible: int
    opted_out: int
    undeliverable: int


@strawberry.type
class CampaignSampleContact:
    phone: str
    name: str | None
    email: str | None
    opted_out: bool


@strawberry.type
class SegmentRef:
    id: str
    name: str


@strawberry.type
class CampaignPreview:
    mode: str
    total_contacts: int
    breakdown: CampaignBreakdown
    sample: list[CampaignSampleContact]
    segments_used: list[SegmentRef]

    @classmethod
    def from_domain(cls, value: tuple[Audience, Tally]) -> "CampaignPreview":
        audience, tally = value
        used = [*audience.segments, *audience.excluded_segments]
        return cls(mode=audience.mode, total_contacts=tally.total,
                   breakdown=CampaignBreakdown(chatapp_eligible=tally.eligible, opted_out=tally.opted_out,
                                               undeliverable=tally.undeliverable),
                   sample=[CampaignSampleContact(phone=m.phone, name=m.name, email=m.email,
                                                 opted_out=m.bucket == "optedOut") for m in tally.sample],
                   segments_used=[SegmentRef(id=str(s.id), name=s.name) for s in used])


@strawberry.type
class CampaignCreated:
    campaign_id: str
    status: str
    total_contacts: int
    schedule_type: str
    scheduled_at: datetime | None
    timezone: str


@strawberry.type
class ResolvedRecipient:
    phone: str
    name: str | None
    body: list[str]


@strawberry.type
class CampaignDryRun:
    total_contacts: int
    resolved_sample: list[ResolvedRecipient]


@strawberry.type
class CampaignCreateResult:
    """A created campaign, or (`dryRun: true`) what creating it would do."""

    dry_run: bool
    campaign: CampaignCreated | None
    resolved: CampaignDryRun | None

    @classmethod
    def from_domain(cls, created: Created) -> "CampaignCreateResult":
        if created.dry_run:
            return cls(dry_run=True, campaign=None, resolved=CampaignDryRun(
                total_contacts=created.total,
                resolved_sample=[ResolvedRecipient(phone=s["phone"], name=s["name"], body=s["body"])
                                 for s in created.sample]))
        c = created.campaign
        return cls(dry_run=False, resolved=None, campaign=CampaignCreated(
            campaign_id=str(c.id), status=c.status, total_contacts=c.total_contacts, schedule_type=c.schedule_type,
            scheduled_at=c.scheduled_at, timezone=c.timezone))


@strawberry.type
class CampaignCounters:
    total: int
    pending: int
    sent: int
    delivered: int
    read: int
    replied: int
    clicked: int
    failed: int
    skipped: int

    @classmethod
    def from_domain(cls, c: dict[str, int]) -> "CampaignCounters":
        return cls(**{k: c.get(k, 0) for k in ("total", "pending", "sent", "delivered", "read", "replied",
                                               "clicked", "failed", "skipped")})


@strawberry.type
class CampaignRow:
    campaign_id: str
    name: str
    status: str
    brand_number: str
    template_name: str
    total_contacts: int
    schedule_type: str
    scheduled_at: datetime | None
    created_at: datetime
    counters: CampaignCounters

    @classmethod
    def from_domain(cls, value: tuple[Campaign, dict[str, int]]) -> "CampaignRow":
        c, counters = value
        return cls(campaign_id=str(c.id), name=c.name, status=c.status, brand_number=c.brand_number,
                   template_name=c.template.get("name", ""), total_contacts=c.total_contacts,
                   schedule_type=c.schedule_type, scheduled_at=c.scheduled_at, created_at=c.created_at,
                   counters=CampaignCounters.from_domain(counters))


@strawberry.type
class CampaignRates:
    success: float
    read: float
    reply: float
    click: float


@strawberry.type
class CampaignCost:
    currency: str
    total: float
    by_category: JSON
    by_country: JSON


@strawberry.type
class ButtonClicks:
    index: int
    payload: str | None
    count: int


@strawberry.type
class FailureCount:
    code: str
    count: int
    message: str


@strawberry.type
class CampaignReport:
    campaign_id: str
    name: str
    status: str
    total_contacts: int
    counters: CampaignCounters
    rates: CampaignRates
    cost: CampaignCost
    button_clicks: list[ButtonClicks]
    failures: list[FailureCount]
    created_at: datetime
    started_at: datetime | None
    completed_at: datetime | None
    cancelled_at: datetime | None

    @classmethod
    def from_domain(cls, r: Report) -> "CampaignReport":
        c = r.campaign
        return cls(campaign_id=str(c.id), name=c.name, status=c.status, total_contacts=c.total_contacts,
                   counters=CampaignCounters.from_domain(r.counters), rates=CampaignRates(**r.rates),
                   cost=CampaignCost(currency=r.cost["currency"], total=r.cost["total"],
                                     by_category=r.cost["byCategory"], by_country=r.cost["byCountry"]),
                   button_clicks=[ButtonClicks(**b) for b in r.button_clicks],
                   failures=[FailureCount(**f) for f in r.failures], created_at=c.created_at,
                   started_at=c.started_at, completed_at=c.completed_at, cancelled_at=c.cancelled_at)


@strawberry.type
class CampaignCancelled:
    campaign_id: str
    status: str
    cancelled_at: datetime | None
    skipped_remaining: int

    @classmethod
    def from_domain(cls, c: Cancelled) -> "CampaignCancelled":
        return cls(campaign_id=str(c.campaign.id), status=c.campaign.status, cancelled_at=c.campaign.cancelled_at,
                   skipped_remaining=c.skipped)


@strawberry.type
class SegmentType:
    segment_id: str
    name: str
    filter: JSON
    is_active: bool
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_domain(cls, s: Segment) -> "SegmentType":
        return cls(segment_id=str(s.id), name=s.name, filter=s.filter, is_active=s.is_active, created_at=s.created_at,
                   updated_at=s.updated_at)
