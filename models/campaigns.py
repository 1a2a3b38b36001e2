"""Campaigns: segments (saved contact filters), campaigns, and their frozen recipient lists.

Recipients are kept in chunks of up to CHUNK_SIZE per document: creating a 100,000-recipient campaign
writes 200 documents, and a worker claims, sends and records a whole chunk with a handful of commands
(resolvers/campaigns/fanout.py). A recipient's outcome is its slot in the chunk's `outcomes` list.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from beanie import PydanticObjectId
from pydantic import Field
from pymongo import ASCENDING, DESCENDING, IndexModel

from leadline.models.base import TenantDocument

CHUNK_SIZE = 500
CAMPAIGN_STATUSES = ("draft", "scheduled", "processing", "completed", "failed", "paused", "cancelled")
TERMINAL = ("completed", "failed", "cancelled")


class Segment(TenantDocument):
    """A named, saved contact filter in the rule language of POST /v2.0/contacts/filter."""

    name: str
    filter: dict[str, Any] = Field(default_factory=dict)
    is_active: bool = True

    class Settings:
        name = "campaign_segments"
        indexes = [IndexModel([("org_id", ASCENDING), ("created_at", DESCENDING)])]


class Campaign(TenantDocument):
    name: str
    status: str
    brand_number: str
    template: dict[str, Any]  # {dbId, id (provider), name, language, category}
    mode: Literal["segments", "contacts"]
    audience: dict[str, Any] = Field(default_factory=dict)
    variables: dict[str, Any] | None = None
    notes: str | None = None
    schedule_type: Literal["immediate", "scheduled"] = "immediate"
    scheduled_at: datetime | None = None
    timezone: str = "UTC"
    total_contacts: int = 0
    chunks_total: int = 0
    chunks_done: int = 0
    # An immediate campaign's create is still freezing recipients (and offering each chunk as it is
    # frozen): `chunks_total` is not known yet, so the campaign cannot complete.
    freezing: bool = False
    # Recipients by state, kept with $inc as chunks are sent and statuses arrive (`recount` checks them).
    counters: dict[str, int] = Field(default_factory=dict)
    failures: dict[str, int] = Field(default_factory=dict)  # code -> recipients
    failure_messages: dict[str, str] = Field(default_factory=dict)
    button_clicks: dict[str, int] = Field(default_factory=dict)  # "index|payload" -> clicks
    cost: dict[str, Any] = Field(default_factory=dict)
    started_at: datetime | None = None
    completed_at: datetime | None = None
    cancelled_at: datetime | None = None
    paused_until: datetime | None = None

    class Settings:
        name = "campaigns"
        indexes = [
            IndexModel([("org_id", ASCENDING), ("created_at", DESCENDING)]),
            IndexModel([("org_id", ASCENDING), ("status", ASCENDING), ("created_at", DESCENDING)]),
            IndexModel([("org_id", ASCENDING), ("brand_number", ASCENDING), ("created_at", DESCENDING)]),
            IndexModel([("org_id", ASCENDING), ("status", ASCENDING), ("brand_number", ASCENDING),
                        ("created_at", DESCENDING)]),
            # Scheduled starts due, across organisations (the sweep).
            IndexModel([("status", ASCENDING), ("scheduled_at", ASCENDING)]),
            # Campaigns nobody advanced for a while, across organisations (the stalled sweep).
            IndexModel([("status", ASCENDING), ("updated_at", ASCENDING)]),
        ]


class CampaignChunk(TenantDocument):
    """Up to CHUNK_SIZE recipients of one campaign, frozen at create. `outcomes[i]` is recipient i's
    state: pending, sent, failed:<code>, skipped."""

    campaign_id: PydanticObjectId
    index: int
    state: Literal["pending", "claimed", "done", "skipped"] = "pending"
    contact_ids: list[PydanticObjectId | None] = Field(default_factory=list)
    phones: list[str] = Field(default_factory=list)
    # Per recipient: the resolved template parameters {header, body, buttons} or {"missing": field}.
    params: list[dict[str, Any]] = Field(default_factory=list)
    outcomes: list[str] = Field(default_factory=list)
    # Slots of recipients who replied, and who clicked a quick-reply button (a click is not a reply).
    replied: list[int] = Field(default_factory=list)
    clicked: list[int] = Field(default_factory=list)
    claimed_by: str | None = None
    claimed_until: datetime | None = None

    class Settings:
        name = "campaign_chunks"
        indexes = [
            IndexModel([("org_id", ASCENDING), ("campaign_id", ASCENDING), ("index", ASCENDING)], unique=True),
            # The claim: {org_id, campaign_id, index, state $in} (a filter is indexed when its fields are
            # a prefix of a key).
            IndexModel([("org_id", ASCENDING), ("campaign_id", ASCENDING), ("index", ASCENDING), ("state", ASCENDING)]),
            IndexModel([("org_id", ASCENDING), ("campaign_id", ASCENDING), ("state", ASCENDING)]),
        ]


MODELS: list[type] = [Segment, Campaign, CampaignChunk]
